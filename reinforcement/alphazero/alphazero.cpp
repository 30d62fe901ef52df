#include "reinforcement/alphazero/alphazero.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/nn/checkpoint.h"
#include "engine/train/history_logger.h"
#include "reinforcement/alphazero/network_evaluator.h"
#include "reinforcement/alphazero/self_play.h"
#include "reinforcement/mcts/mcts_bot.h"

namespace spire::rl::alphazero {
namespace {


std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

std::shared_ptr<PolicyValueNet> make_network(const Config& config) {
  std::unique_ptr<Game> g = make_game(config.game);
  spire::Generator init(derive_seed(config.seed, {0}));
  return std::make_shared<PolicyValueNet>(g->observation_shape(), g->num_actions(), config.network, init);
}

AlphaZero::AlphaZero(Config config)
    : config_((config.validate(), std::move(config))),
      net_(make_network(config_)),
      buffer_(config_.train.buffer_capacity, make_game(config_.game)->observation_shape(),
              make_game(config_.game)->num_actions()),
      learner_(net_, config_.train.lr, config_.train.weight_decay),
      sample_gen_(derive_seed(config_.seed, {4})) {}

train::Logs AlphaZero::iteration() {
  auto t0 = std::chrono::steady_clock::now();
  SelfPlayStats sp = self_play(config_, net_, iteration_, buffer_);
  games_ += sp.games;
  double t_selfplay = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  Losses losses{NAN, NAN};
  int steps = 0;
  if (buffer_.size() >= std::max<int64_t>(1, config_.train.min_buffer)) {
    steps = config_.train.steps_per_iteration;
    if (steps > 0) losses = learner_.train(buffer_, steps, config_.train.batch_size, sample_gen_);
    steps_ += steps;
  }
  auto t1 = std::chrono::steady_clock::now();

  train::Logs logs;
  logs.set("games", double(sp.games));
  logs.set("moves", double(sp.moves));
  logs.set("first_player_wins", double(sp.first_player_wins));
  logs.set("draws", double(sp.draws));
  logs.set("second_player_wins", double(sp.second_player_wins));
  logs.set("buffer_size", double(buffer_.size()));
  logs.set("learner_steps", double(steps_));
  logs.set("policy_loss", losses.policy);
  logs.set("value_loss", losses.value);
  logs.set("loss", losses.total());
  // The ladder's columns are on every row (NaN between evaluations): a CSV's columns are fixed by its
  // first row.
  const bool evaluate_now = config_.evaluation.every > 0 && (iteration_ + 1) % config_.evaluation.every == 0;
  std::vector<LadderRung> ladder;
  if (evaluate_now) ladder = evaluation_ladder(config_, net_, iteration_);
  for (size_t i = 0; i < config_.evaluation.opponents.size(); ++i) {
    std::string key = "vs_mcts" + std::to_string(config_.evaluation.opponents[i]);
    const MatchResult* m = evaluate_now ? &ladder[i].result : nullptr;
    logs.set(key + "_wins", m ? m->wins : NAN);
    logs.set(key + "_draws", m ? m->draws : NAN);
    logs.set(key + "_losses", m ? m->losses : NAN);
  }
  auto t2 = std::chrono::steady_clock::now();
  logs.set("selfplay_time", t_selfplay);
  logs.set("train_time", std::chrono::duration<double>(t1 - t0).count() - t_selfplay);
  logs.set("evaluation_time", std::chrono::duration<double>(t2 - t1).count());
  ++iteration_;
  history_.push_back(logs);

  if (progress) {
    std::string line = "iteration " + std::to_string(iteration_) + ": games " + std::to_string(sp.games) +
                       " (first/draw/second " + std::to_string(sp.first_player_wins) + "/" +
                       std::to_string(sp.draws) + "/" + std::to_string(sp.second_player_wins) + "), buffer " +
                       std::to_string(buffer_.size()) + ", loss " + fixed(losses.total(), 4) + " (policy " +
                       fixed(losses.policy, 4) + ", value " + fixed(losses.value, 4) + ")";
    for (const LadderRung& r : ladder)
      line += ", vs mcts" + std::to_string(r.opponent_simulations) + " " + std::to_string(r.result.wins) + "/" +
              std::to_string(r.result.draws) + "/" + std::to_string(r.result.losses);
    line += ", " + fixed(std::chrono::duration<double>(t2 - t0).count(), 1) + " s";
    progress(line);
  }
  return logs;
}

void AlphaZero::train(int64_t iterations, const Callback& callback) {
  const int64_t target = iterations < 0 ? config_.train.iterations : iteration_ + iterations;
  std::unique_ptr<train::HistoryLogger> logger;
  if (!history_path.empty()) {
    logger = std::make_unique<train::HistoryLogger>(train::HistoryLoggerOptions{history_path, iteration_ > 0});
    logger->on_train_begin();
  }
  const std::string& dir = config_.checkpoint.dir;
  auto checkpoint = [&] {
    if (dir.empty()) return;
    std::filesystem::create_directories(dir);
    save((std::filesystem::path(dir) / "checkpoint.h5").string());
  };
  bool saved = true;
  while (iteration_ < target) {
    train::Logs logs = iteration();
    saved = false;
    if (logger) logger->on_epoch_end(iteration_ - 1, logs);
    if (config_.checkpoint.every > 0 && iteration_ % config_.checkpoint.every == 0) {
      checkpoint();
      saved = true;
    }
    if (callback && !callback(iteration_ - 1, logs)) break;
  }
  if (!saved) checkpoint();
}

std::vector<LadderRung> AlphaZero::evaluate(const std::vector<int>& opponents, int games, int simulations) {
  Config c = config_;
  c.evaluation.opponents = opponents;
  c.evaluation.games = games;
  if (simulations > 0) c.evaluation.simulations = simulations;
  c.validate();
  return evaluation_ladder(c, net_, iteration_);
}

std::unique_ptr<Bot> AlphaZero::bot(int simulations) const { return make_bot(config_, net_, simulations); }

std::unique_ptr<Bot> make_bot(const Config& config, std::shared_ptr<PolicyValueNet> net, int simulations) {
  SearchConfig sc = agent_search_config(config.mcts, false, simulations);
  sc.seed = config.seed;
  return std::make_unique<MCTSBot>(sc, std::make_shared<NetworkEvaluator>(std::move(net)), "alphazero");
}

double AlphaZero::value(const Game& state) const {
  std::vector<float> logits, values;
  const Game* s = &state;
  NetworkEvaluator::run(*net_, std::span<const Game* const>(&s, 1), logits, values);
  return values[0];
}

void AlphaZero::save(const std::string& path) const {
  nn::CheckpointData d;
  d.model = net_->state_dict();
  d.optimizer = const_cast<Learner&>(learner_).optimizer().state_dict();
  optim::StateDict run;
  run.set("iteration", iteration_);
  run.set("learner_steps", steps_);
  run.set("games", games_);
  d.state = {{"run", run}, {"replay", buffer_.state_dict()}};
  d.rng = {{"minibatches", nn::GeneratorState{sample_gen_.seed(), sample_gen_.stream(), sample_gen_.offset()}}};
  d.epoch = iteration_;
  d.step = steps_;
  d.metadata = {{"algorithm", "alphazero"}, {"config", config_.to_toml()}};
  nn::write_checkpoint(path, d);
}

namespace {
std::string metadata(const nn::CheckpointData& d, const std::string& key, const std::string& path) {
  for (auto& [k, v] : d.metadata)
    if (k == key) return v;
  throw ValueError(detail::cat(path, " is not an AlphaZero checkpoint (no '", key, "' metadata)"));
}
}  // namespace

void AlphaZero::load_state(const std::string& path) {
  nn::CheckpointData d = nn::read_checkpoint(path);
  SPIRE_CHECK(metadata(d, "algorithm", path) == "alphazero" && d.model && d.optimizer && d.state.size() == 2 &&
                  d.state[0].first == "run" && d.state[1].first == "replay",
              ValueError, path, " is not an AlphaZero checkpoint");
  net_->load_state_dict(*d.model);
  learner_.optimizer().load_state_dict(*d.optimizer);
  const optim::StateDict& run = d.state[0].second;
  buffer_.load_state_dict(d.state[1].second);
  iteration_ = run.integer("iteration");
  steps_ = run.integer("learner_steps");
  games_ = run.integer("games");
  for (auto& [name, g] : d.rng)
    if (name == "minibatches") {
      sample_gen_ = spire::Generator(g.seed, g.stream);
      sample_gen_.set_offset(g.offset);
    }
}

std::unique_ptr<AlphaZero> AlphaZero::load(const std::string& path) {
  nn::CheckpointData d = nn::read_checkpoint(path);
  auto run = std::make_unique<AlphaZero>(parse_config(metadata(d, "config", path), path + " (its saved configuration)"));
  run->load_state(path);
  return run;
}

std::pair<Config, std::shared_ptr<PolicyValueNet>> load_network(const std::string& path) {
  nn::CheckpointData d = nn::read_checkpoint(path);
  Config c = parse_config(metadata(d, "config", path), path + " (its saved configuration)");
  auto net = make_network(c);
  SPIRE_CHECK(d.model.has_value(), ValueError, path, " holds no network weights");
  net->load_state_dict(*d.model);
  net->eval();
  return {c, net};
}

}  // namespace spire::rl::alphazero
