#include "reinforcement/alphazero/self_play.h"

#include <cmath>

#include "engine/core/error.h"
#include "reinforcement/alphazero/network_evaluator.h"

namespace spire::rl::alphazero {

uint64_t derive_seed(uint64_t seed, std::initializer_list<uint64_t> path) {
  auto splitmix = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  uint64_t h = splitmix(seed);
  for (uint64_t p : path) h = splitmix(h ^ splitmix(p + 0x632be59bd9b4e019ull));
  return h;
}

SearchConfig agent_search_config(const MctsSettings& mcts, bool self_play, int simulations) {
  SearchConfig c;
  c.simulations = simulations > 0 ? simulations : mcts.simulations;
  c.selection = mcts.selection;
  c.c_puct_init = mcts.c_puct_init;
  c.c_puct_base = mcts.c_puct_base;
  c.fpu = mcts.fpu;
  c.gumbel_max_considered = mcts.gumbel_max_considered;
  c.gumbel_scale = self_play ? mcts.gumbel_scale : 0.0;
  c.dirichlet_alpha = self_play && mcts.selection == "puct" ? mcts.dirichlet_alpha : 0.0;
  c.dirichlet_fraction = mcts.dirichlet_fraction;
  c.reuse = mcts.reuse;
  c.temperature = 0.0;  // exploration moves are sampled here, per game, from the visit counts
  return c;
}

bool has_mirror(const Game& game) {
  auto s = game.observation_shape();
  return s.size() == 3 && (game.num_actions() == s[2] || game.num_actions() == s[1] * s[2]);
}

void mirror_observation(std::span<const float> in, std::span<float> out, const std::vector<int64_t>& shape) {
  const int64_t planes = shape[0] * shape[1], w = shape[2];
  for (int64_t r = 0; r < planes; ++r)
    for (int64_t c = 0; c < w; ++c) out[size_t(r * w + c)] = in[size_t(r * w + (w - 1 - c))];
}

int mirror_action(int action, const std::vector<int64_t>& shape, int num_actions) {
  const int w = int(shape[2]);
  if (num_actions == w) return w - 1 - action;
  return (action / w) * w + (w - 1 - action % w);
}

namespace {

// visits^(1 / temperature), sampled (AlphaZero's early-game exploration); -1 when nothing was visited.
int sample_visits(const std::vector<int32_t>& visits, double temperature, rl::Generator& rng) {
  std::vector<double> w(visits.size());
  double total = 0, top = 0;
  for (int32_t v : visits) top = std::max(top, double(v));
  for (size_t a = 0; a < visits.size(); ++a)
    total += (w[a] = visits[a] > 0 ? std::pow(double(visits[a]) / top, 1.0 / temperature) : 0.0);
  double u = rng.random() * total;
  int last = -1;
  for (size_t a = 0; a < w.size(); ++a) {
    if (w[a] <= 0) continue;
    last = int(a);
    if ((u -= w[a]) < 0) return int(a);
  }
  return last;
}

struct Sample {
  std::vector<float> observation, policy;
  int player;
};

struct Slot {
  std::unique_ptr<Game> game;
  std::vector<Sample> samples;
  std::unique_ptr<rl::Generator> rng;  // exploration draws of this game
};

}  // namespace

SelfPlayStats self_play(const Config& config, const std::shared_ptr<PolicyValueNet>& net, int64_t iteration,
                        ReplayBuffer& buffer) {
  const int total = config.selfplay.games_per_iteration;
  const int parallel = std::min(config.selfplay.games, total);
  const bool gumbel = config.mcts.selection == "gumbel";
  auto evaluator = std::make_shared<NetworkEvaluator>(net);
  std::unique_ptr<Game> prototype = make_game(config.game);
  const auto shape = prototype->observation_shape();
  const int A = prototype->num_actions();
  const int64_t obs_size = prototype->observation_size();
  SPIRE_CHECK(!config.selfplay.augment || has_mirror(*prototype), ConfigError, "selfplay.augment: the game '",
              config.game, "' has no left-right mirror symmetry that Spire knows; set augment = false");

  SelfPlayStats stats;
  int started = 0;
  std::vector<Slot> slots(static_cast<size_t>(parallel));
  auto start = [&](Slot& s) {
    s.game = prototype->clone();
    s.samples.clear();
    s.rng = std::make_unique<rl::Generator>(derive_seed(config.seed, {1, uint64_t(iteration), uint64_t(started)}));
    ++started;
  };
  for (Slot& s : slots) start(s);

  std::vector<float> mirrored_obs(static_cast<size_t>(obs_size)), mirrored_policy(static_cast<size_t>(A));
  auto finish = [&](Slot& s) {
    std::vector<double> returns = s.game->returns();
    ++stats.games;
    if (returns[0] > returns[1]) ++stats.first_player_wins;
    else if (returns[0] < returns[1]) ++stats.second_player_wins;
    else ++stats.draws;
    for (const Sample& x : s.samples) {
      const float z = float(returns[size_t(x.player)]);
      buffer.add(x.observation, x.policy, z);
      ++stats.samples;
      if (config.selfplay.augment) {
        mirror_observation(x.observation, mirrored_obs, shape);
        for (int a = 0; a < A; ++a) mirrored_policy[size_t(mirror_action(a, shape, A))] = x.policy[size_t(a)];
        buffer.add(mirrored_obs, mirrored_policy, z);
        ++stats.samples;
      }
    }
  };

  // The search's batch is the games in progress; when one ends with no game left to start, the
  // search is rebuilt over the rest (its trees start afresh), seeded by how many rebuilds came before.
  std::vector<int> active;
  for (int i = 0; i < parallel; ++i) active.push_back(i);
  int rebuilds = 0;
  while (!active.empty()) {
    SearchConfig sc = agent_search_config(config.mcts, true);
    sc.seed = derive_seed(config.seed, {2, uint64_t(iteration), uint64_t(rebuilds++)});
    MCTS mcts(sc, evaluator);
    bool changed = false;  // a game ended with none left to start: rebuild over the rest
    while (!changed) {
      std::vector<const Game*> roots;
      for (int i : active) roots.push_back(slots[size_t(i)].game.get());
      std::vector<SearchResult> results = mcts.search(roots);
      for (size_t k = 0; k < active.size(); ++k) {
        Slot& s = slots[size_t(active[k])];
        const SearchResult& r = results[k];
        Sample x{std::vector<float>(size_t(obs_size)), r.policy, s.game->current_player()};
        s.game->observation(x.observation);
        int action = r.action;
        if (!gumbel && s.game->move_number() < config.selfplay.temperature_moves) {
          const int sampled = sample_visits(r.visits, config.selfplay.temperature, *s.rng);
          if (sampled >= 0) action = sampled;
        }
        s.samples.push_back(std::move(x));
        s.game->apply_action(action);
        ++stats.moves;
        if (!s.game->is_terminal()) {
          mcts.advance(int64_t(k), action);
        } else {
          finish(s);
          if (started < total) {
            start(s);
            mcts.clear(int64_t(k));
          } else {
            changed = true;
          }
        }
      }
    }
    std::erase_if(active, [&](int i) { return slots[size_t(i)].game->is_terminal(); });
  }
  return stats;
}

}  // namespace spire::rl::alphazero
