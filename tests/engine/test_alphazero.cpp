// AlphaZero (reinforcement/alphazero): the network evaluator against a forward pass and a softmax
// written out here in plain loops, the replay buffer's ring and sampling, the job file's errors,
// the mirror symmetry against replayed mirrored games, and tiny tic-tac-toe runs: the loss goes
// down, a run resumed from a checkpoint equals the uninterrupted one bit for bit, and the thread
// count changes nothing.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <unistd.h>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/shape.h"
#include "tests/common/expect_error.h"
#include "reinforcement/alphazero/alphazero.h"
#include "reinforcement/alphazero/network_evaluator.h"
#include "reinforcement/alphazero/self_play.h"
#include "reinforcement/games/game.h"
#include "tests/common/same_bits.h"

using namespace spire;
using namespace spire::rl;
using namespace spire::rl::alphazero;

namespace {

using fixtures::same_bits;

bool same_state(const nn::StateDict& a, const nn::StateDict& b) {
  if (a.keys() != b.keys()) return false;
  for (auto& [k, v] : a)
    if (!same_bits(v, b.at(k))) return false;
  return true;
}

std::vector<double> values_of(const Tensor& t) { return contiguous(t).to_vector(); }

// A 2-D convolution, stride 1, zero padding `pad`, in double: out[o][y][x].
using Planes = std::vector<std::vector<std::vector<double>>>;
Planes conv2d(const Planes& in, const Tensor& weight, const Tensor& bias, int pad) {
  const int64_t O = weight.shape(0), I = weight.shape(1), K = weight.shape(2);
  const int H = int(in[0].size()), W = int(in[0][0].size());
  std::vector<double> w = values_of(weight), b = bias.defined() ? values_of(bias) : std::vector<double>(O, 0.0);
  Planes out(O, std::vector<std::vector<double>>(H, std::vector<double>(W, 0.0)));
  for (int64_t o = 0; o < O; ++o)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        double s = b[o];
        for (int64_t i = 0; i < I; ++i)
          for (int64_t ky = 0; ky < K; ++ky)
            for (int64_t kx = 0; kx < K; ++kx) {
              int yy = y + int(ky) - pad, xx = x + int(kx) - pad;
              if (yy >= 0 && yy < H && xx >= 0 && xx < W) s += w[((o * I + i) * K + ky) * K + kx] * in[i][yy][xx];
            }
        out[o][y][x] = s;
      }
  return out;
}
Planes relu(Planes p) {
  for (auto& a : p)
    for (auto& r : a)
      for (double& v : r) v = std::max(v, 0.0);
  return p;
}
std::vector<double> flatten(const Planes& p) {
  std::vector<double> out;
  for (auto& a : p)
    for (auto& r : a) out.insert(out.end(), r.begin(), r.end());
  return out;
}
std::vector<double> linear(const std::vector<double>& x, const Tensor& weight, const Tensor& bias) {
  std::vector<double> w = values_of(weight), b = values_of(bias), y(b);
  for (size_t o = 0; o < y.size(); ++o)
    for (size_t i = 0; i < x.size(); ++i) y[o] += w[o * x.size() + i] * x[i];
  return y;
}

// The network without batch norm, written out: logits and value of one observation.
std::pair<std::vector<double>, double> manual_forward(const nn::StateDict& s, const Game& g) {
  auto shape = g.observation_shape();
  std::vector<float> obs = g.observation();
  Planes x(shape[0], std::vector<std::vector<double>>(shape[1], std::vector<double>(shape[2])));
  for (int64_t c = 0, k = 0; c < shape[0]; ++c)
    for (int64_t y = 0; y < shape[1]; ++y)
      for (int64_t z = 0; z < shape[2]; ++z) x[c][y][z] = obs[size_t(k++)];
  Planes h = relu(conv2d(x, s.at("stem.conv.weight"), s.at("stem.conv.bias"), 1));
  Planes a = relu(conv2d(h, s.at("tower.0.first.conv.weight"), s.at("tower.0.first.conv.bias"), 1));
  Planes b = conv2d(a, s.at("tower.0.second.conv.weight"), s.at("tower.0.second.conv.bias"), 1);
  for (size_t c = 0; c < b.size(); ++c)
    for (size_t y = 0; y < b[c].size(); ++y)
      for (size_t z = 0; z < b[c][y].size(); ++z) b[c][y][z] += h[c][y][z];
  h = relu(b);
  std::vector<double> logits = linear(flatten(relu(conv2d(h, s.at("policy_conv.conv.weight"),
                                                          s.at("policy_conv.conv.bias"), 0))),
                                      s.at("policy_fc.weight"), s.at("policy_fc.bias"));
  std::vector<double> v = linear(flatten(relu(conv2d(h, s.at("value_conv.conv.weight"), s.at("value_conv.conv.bias"), 0))),
                                 s.at("value_fc1.weight"), s.at("value_fc1.bias"));
  for (double& t : v) t = std::max(t, 0.0);
  double value = std::tanh(linear(v, s.at("value_fc2.weight"), s.at("value_fc2.bias"))[0]);
  return {logits, value};
}

std::unique_ptr<Game> play(const std::string& game, std::vector<int> moves) {
  auto g = make_game(game);
  for (int a : moves) g->apply_action(a);
  return g;
}

Config tiny_config(uint64_t seed = 3) {
  Config c;
  c.game = "tic_tac_toe";
  c.seed = seed;
  c.network = {.blocks = 1, .channels = 8, .value_hidden = 16, .batch_norm = true};
  c.mcts.simulations = 12;
  c.selfplay.games = 8;
  c.selfplay.games_per_iteration = 10;  // more than run at once: slots start new games
  c.selfplay.temperature_moves = 3;
  c.train.steps_per_iteration = 8;
  c.train.batch_size = 32;
  c.train.lr = 3e-3;
  c.train.buffer_capacity = 500;  // small: the ring wraps within the run
  c.train.iterations = 3;
  return c;
}

}  // namespace

TEST(AlphaZeroNetwork, EvaluatorMatchesAForwardPassAndSoftmaxWrittenOut) {
  Config c = tiny_config();
  c.network.batch_norm = false;
  auto net = make_network(c);
  NetworkEvaluator evaluator(net);
  std::vector<std::unique_ptr<Game>> states;
  states.push_back(play("tic_tac_toe", {}));
  states.push_back(play("tic_tac_toe", {4, 0}));
  states.push_back(play("tic_tac_toe", {4, 0, 8, 2, 1}));
  std::vector<const Game*> ptrs;
  for (auto& s : states) ptrs.push_back(s.get());
  std::vector<float> priors(ptrs.size() * 9, -1.0f), values(ptrs.size(), 9.0f);
  std::vector<int> trees{0, 1, 2};
  std::vector<rl::Generator*> rngs(3, nullptr);
  Leaves leaves;
  leaves.states = ptrs;
  leaves.trees = trees;
  leaves.rngs = rngs;
  leaves.num_actions = 9;
  leaves.priors = priors;
  leaves.values = values;
  net->train();
  evaluator.evaluate(leaves);
  EXPECT_TRUE(net->is_training()) << "the evaluator must leave the network's mode as it found it";

  nn::StateDict s = net->state_dict();
  for (size_t i = 0; i < ptrs.size(); ++i) {
    auto [logits, value] = manual_forward(s, *ptrs[i]);
    std::vector<int> legal = ptrs[i]->legal_actions();
    double top = -INFINITY, total = 0;
    for (int a : legal) top = std::max(top, logits[a]);
    for (int a : legal) total += std::exp(logits[a] - top);
    for (int a = 0; a < 9; ++a) {
      bool is_legal = std::find(legal.begin(), legal.end(), a) != legal.end();
      double expected = is_legal ? std::exp(logits[a] - top) / total : 0.0;
      EXPECT_NEAR(priors[i * 9 + a], expected, 1e-5) << "state " << i << " action " << a;
    }
    EXPECT_NEAR(values[i], value, 1e-5) << "state " << i;
  }
}

TEST(AlphaZeroNetwork, ShapesAndBatchNormInEvalMode) {
  Config c = tiny_config();
  c.game = "connect_four";
  c.network = {.blocks = 2, .channels = 6, .value_hidden = 5, .batch_norm = true};
  auto net = make_network(c);
  Tensor x = zeros({4, 3, 6, 7});
  NoGradGuard g;
  net->eval();
  Tensors out = (*net)(Tensors{x});
  EXPECT_EQ(out[0].shape(), (Shape{4, 7}));
  EXPECT_EQ(out[1].shape(), (Shape{4}));
  for (double v : values_of(out[1])) EXPECT_LE(std::abs(v), 1.0);
  expect_error_naming<ShapeError>([&] { (*net)(Tensors{zeros({4, 3, 3, 3})}); }, {"[n, 3, 6, 7]", "[4, 3, 3, 3]"});
}

TEST(AlphaZeroReplayBuffer, RingKeepsTheNewestAndSamplesUniformly) {
  ReplayBuffer buffer(3, {1, 1, 2}, 2);
  for (int i = 0; i < 5; ++i) {
    float obs[2] = {float(i), float(-i)}, pol[2] = {float(i) / 10, 1 - float(i) / 10};
    buffer.add(obs, pol, float(i % 2 ? 1 : -1));
  }
  EXPECT_EQ(buffer.size(), 3);
  EXPECT_EQ(buffer.total_added(), 5);
  std::vector<int64_t> all{0, 1, 2};
  Batch b = buffer.gather(all);
  EXPECT_EQ(b.observations.shape(), (Shape{3, 1, 1, 2}));
  EXPECT_EQ(values_of(b.observations), (std::vector<double>{2, -2, 3, -3, 4, -4}));  // oldest first
  EXPECT_EQ(values_of(b.values), (std::vector<double>{-1, 1, -1}));

  // 30,000 draws over 3 samples: each count is Binomial(30000, 1/3), sd 81.6; allow 5 sd.
  spire::Generator gen(11);
  Batch s = buffer.sample(30000, gen);
  std::map<double, int> counts;
  for (double v : values_of(s.observations)) if (v >= 0) ++counts[v];
  ASSERT_EQ(counts.size(), 3u);
  for (auto& [v, n] : counts) EXPECT_NEAR(n, 10000, 5 * 81.65) << "sample " << v;

  // Saved and loaded, the buffer draws the same batches (positions count from the oldest).
  optim::StateDict saved = buffer.state_dict();
  ReplayBuffer copy(3, {1, 1, 2}, 2);
  copy.load_state_dict(saved);
  spire::Generator g1(5), g2(5);
  EXPECT_TRUE(same_bits(buffer.sample(7, g1).observations, copy.sample(7, g2).observations));
  float obs[2] = {9, -9}, pol[2] = {0.5f, 0.5f};
  buffer.add(obs, pol, 0);
  copy.add(obs, pol, 0);
  EXPECT_TRUE(same_bits(buffer.gather(all).observations, copy.gather(all).observations));

  expect_error_naming<ValueError>([&] { ReplayBuffer(0, {1}, 1); }, {"capacity", ">= 1"});
  spire::Generator g3(1);
  expect_error_naming<ValueError>([&] { ReplayBuffer(2, {1}, 1).sample(1, g3); }, {"empty"});
}

TEST(AlphaZeroSelfPlay, MirrorImagesAreTheMirroredGames) {
  // The mirror of a position's observation is the observation after the mirrored moves.
  for (std::string name : {"tic_tac_toe", "connect_four"}) {
    auto g = make_game(name);
    auto shape = g->observation_shape();
    ASSERT_TRUE(has_mirror(*g));
    std::vector<int> moves = name == "tic_tac_toe" ? std::vector<int>{0, 4, 5, 1} : std::vector<int>{0, 1, 1, 6, 2, 3};
    std::vector<int> mirrored;
    for (int a : moves) mirrored.push_back(mirror_action(a, shape, g->num_actions()));
    auto a = play(name, moves), b = play(name, mirrored);
    std::vector<float> obs = a->observation(), flipped(obs.size());
    mirror_observation(obs, flipped, shape);
    EXPECT_EQ(flipped, b->observation()) << name;
    for (int x = 0; x < g->num_actions(); ++x)
      EXPECT_EQ(mirror_action(mirror_action(x, shape, g->num_actions()), shape, g->num_actions()), x);
  }
}

TEST(AlphaZeroConfig, JobFileErrorsNameTheKeyAndWhatIsAllowed) {
  auto err = [](const std::string& text, std::vector<std::string> words) {
    expect_error_naming<ConfigError>([&] { parse_config(text, "job.toml"); }, words);
  };
  err("[game]\nname = \"chess\"\n", {"game.name", "chess", "tic_tac_toe", "connect_four"});
  err("[mcts]\nsimulations = 0\n", {"mcts.simulations", ">= 1", "0"});
  err("[mcts]\nsimulation = 10\n", {"unknown key simulation", "[mcts]", "simulations"});
  err("[mcts]\nselection = \"ucb\"\n", {"mcts.selection", "puct, gumbel", "ucb"});
  err("[train]\nlr = \"fast\"\n", {"train.lr", "number", "\"fast\""});
  err("[train]\nbatch_size = 1.5\n", {"train.batch_size", "integer"});
  err("[selfplay]\naugment = 1\n", {"selfplay.augment", "true or false"});
  err("[evaluation]\nopponents = [25, 0]\n", {"evaluation.opponents", ">= 1"});
  err("[mcts]\ndirichlet_fraction = 2\n", {"mcts.dirichlet_fraction", "[0, 1]"});
  err("[learner]\nlr = 1\n", {"unknown key learner", "top level", "train"});
  err("algorithm = \"dqn\"\n", {"algorithm", "alphazero"});
  err("game = \"tic_tac_toe\"\n", {"[game] must be a table"});
  err("[mcts\n", {"job.toml:1"});
  EXPECT_EQ(job_algorithm("algorithm = \"ppo\"\n", "j"), "ppo");
  EXPECT_EQ(job_algorithm("seed = 1\n", "j"), "alphazero");

  Config c = parse_config("seed = 5\n[game]\nname = \"connect_four\"\n[network]\nblocks = 3\nbatch_norm = false\n"
                          "[mcts]\nsimulations = 77\nselection = \"gumbel\"\n[evaluation]\nopponents = [10, 20]\n");
  EXPECT_EQ(c.seed, 5u);
  EXPECT_EQ(c.game, "connect_four");
  EXPECT_EQ(c.network.blocks, 3);
  EXPECT_FALSE(c.network.batch_norm);
  EXPECT_EQ(c.mcts.simulations, 77);
  EXPECT_EQ(c.evaluation.opponents, (std::vector<int>{10, 20}));
  EXPECT_EQ(c.train.batch_size, Config().train.batch_size);  // defaults where absent
  // to_toml reads back as the same configuration.
  Config d = parse_config(c.to_toml());
  EXPECT_EQ(d.to_toml(), c.to_toml());
  EXPECT_EQ(d.mcts.selection, "gumbel");
}

TEST(AlphaZeroRun, TrainingLowersTheLossOnItsOwnGames) {
  Config c = tiny_config();
  c.train.iterations = 6;
  c.train.buffer_capacity = 4000;
  AlphaZero run(c);
  auto initial = make_network(c);  // the same seed: the run's starting weights
  EXPECT_TRUE(same_state(initial->state_dict(), run.network()->state_dict()));
  run.train();
  ASSERT_EQ(run.history().size(), 6u);
  // The loss over every sample played, before and after training, both networks in eval mode.
  std::vector<int64_t> all(static_cast<size_t>(run.buffer().size()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = int64_t(i);
  Batch batch = run.buffer().gather(all);
  NoGradGuard g;
  initial->eval();
  run.network()->eval();
  LossTensors before = alphazero_loss(*initial, batch), after = alphazero_loss(*run.network(), batch);
  EXPECT_LT(after.policy.item<double>(), before.policy.item<double>() - 0.05);
  EXPECT_LT(after.value.item<double>(), before.value.item<double>());
  // Self-play's bookkeeping: games_per_iteration games each time, their samples (doubled by the mirror)
  // in the buffer.
  double moves = 0;
  for (auto& logs : run.history()) {
    EXPECT_EQ(logs.at("games"), 10);
    EXPECT_EQ(logs.at("first_player_wins") + logs.at("draws") + logs.at("second_player_wins"), 10);
    moves += logs.at("moves");
  }
  EXPECT_EQ(run.buffer().total_added(), int64_t(2 * moves));
}

TEST(AlphaZeroRun, ResumedFromACheckpointEqualsTheUninterruptedRun) {
  const auto dir = std::filesystem::temp_directory_path() / ("spire_alphazero_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Config c = tiny_config();
  c.evaluation.every = 1;  // the ladder's games are part of what must repeat
  c.evaluation.games = 2;
  c.evaluation.opponents = {4};

  AlphaZero whole(c);
  whole.train();

  AlphaZero first(c);
  first.train(2);
  const std::string path = (dir / "checkpoint.h5").string();
  first.save(path);
  std::unique_ptr<AlphaZero> resumed = AlphaZero::load(path);
  EXPECT_EQ(resumed->iterations_done(), 2);
  resumed->train();
  EXPECT_EQ(resumed->iterations_done(), 3);

  EXPECT_TRUE(same_state(whole.network()->state_dict(), resumed->network()->state_dict()));
  optim::StateDict a = whole.learner().optimizer().state_dict(), b = resumed->learner().optimizer().state_dict();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (std::holds_alternative<Tensor>(a.items()[i].second))
      EXPECT_TRUE(same_bits(std::get<Tensor>(a.items()[i].second), std::get<Tensor>(b.items()[i].second)))
          << a.items()[i].first;
  std::vector<int64_t> all(static_cast<size_t>(whole.buffer().size()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = int64_t(i);
  ASSERT_EQ(whole.buffer().size(), resumed->buffer().size());
  EXPECT_TRUE(same_bits(whole.buffer().gather(all).policies, resumed->buffer().gather(all).policies));
  for (const char* key : {"loss", "policy_loss", "value_loss", "moves", "vs_mcts4_wins"})
    EXPECT_EQ(whole.history().back().at(key), resumed->history().back().at(key)) << key;
  // The saved network plays as the trained one: the same value at the empty board.
  auto [config, net] = load_network(path);
  EXPECT_EQ(config.to_toml(), c.to_toml());
  auto empty = make_game("tic_tac_toe");
  std::vector<float> logits, values;
  const Game* root = empty.get();
  NetworkEvaluator::run(*net, std::span<const Game* const>(&root, 1), logits, values);
  EXPECT_EQ(double(values[0]), first.value(*empty));
  std::filesystem::remove_all(dir);
}

TEST(AlphaZeroRun, SameBitsWithOneThreadOrTwo) {
  Config c = tiny_config(9);
  c.train.iterations = 2;
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  AlphaZero one(c);
  one.train();
  omp_set_num_threads(2);
  AlphaZero two(c);
  two.train();
  omp_set_num_threads(before);
  EXPECT_TRUE(same_state(one.network()->state_dict(), two.network()->state_dict()));
  EXPECT_EQ(one.history().back().at("loss"), two.history().back().at("loss"));
}

TEST(AlphaZeroArena, ColoursAlternateAndEveryGameIsCounted) {
  Config c = tiny_config();
  auto net = make_network(c);
  ArenaOptions o;
  o.games = 6;
  o.agent_simulations = 8;
  o.opponent_simulations = 8;
  MatchResult m = play_against_mcts(c, net, o);
  EXPECT_EQ(m.games, 6);
  EXPECT_EQ(m.wins + m.draws + m.losses, 6);
  ASSERT_EQ(m.histories.size(), 6u);
  // Each recorded game replays to a finished game whose result matches the tally.
  int wins = 0, losses = 0;
  for (int g = 0; g < 6; ++g) {
    auto end = deserialize_game("tic_tac_toe", m.histories[size_t(g)]);
    ASSERT_TRUE(end->is_terminal());
    double mine = end->returns()[size_t(g % 2)];
    wins += mine > 0;
    losses += mine < 0;
  }
  EXPECT_EQ(wins, m.wins);
  EXPECT_EQ(losses, m.losses);
  // The agent (no noise, the most visited move) moves first in even games, second in odd ones: its
  // moves are those of a bot with the same network and simulations, replayed position by position.
  auto bot = make_bot(c, net, o.agent_simulations);
  for (int g = 0; g < 6; ++g) {
    auto state = make_game("tic_tac_toe");
    const std::vector<int> moves = deserialize_game("tic_tac_toe", m.histories[size_t(g)])->history();
    for (size_t ply = 0; ply < moves.size(); ++ply) {
      if (int(ply % 2) == g % 2) {
        bot->restart();
        EXPECT_EQ(bot->step(*state), moves[ply]) << "game " << g << " ply " << ply;
      }
      state->apply_action(moves[ply]);
    }
  }
}
