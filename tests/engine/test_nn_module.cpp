// Modules: registration and dotted names, state_dict round trips and the errors of a mismatched
// load (naming the missing and unexpected keys), train/eval propagation, gradients reaching the
// registered parameters (against a hand-derived closed form), containers and repr.
#include <gtest/gtest.h>

#include "engine/autodiff/mode.h"
#include "engine/nn/containers.h"
#include "engine/nn/module.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/optim/sgd.h"
#include "tests/common/expect_error.h"

using namespace spire;
using namespace spire::nn;

namespace {

// y = x W^T + b, written here so the test depends on nothing but Module.
struct Affine : Module {
  Tensor weight, bias;
  int64_t in, out;
  Affine(int64_t in_, int64_t out_, double scale = 0.1) : Module("Affine"), in(in_), out(out_) {
    std::vector<double> w(static_cast<size_t>(in * out));
    std::vector<double> b(static_cast<size_t>(out));
    for (size_t i = 0; i < w.size(); ++i) w[i] = scale * (double(i % 7) - 3.0);
    for (size_t i = 0; i < b.size(); ++i) b[i] = 0.01 * double(i);
    weight = register_parameter("weight", from_vector<double>(w, {out, in}));
    bias = register_parameter("bias", from_vector<double>(b, {out}));
  }
  using Module::forward;
  Tensor forward(const Tensor& x) override { return matmul(x, transpose(weight, 0, 1)) + bias; }
  std::string extra_repr() const override {
    return "in_features=" + std::to_string(in) + ", out_features=" + std::to_string(out);
  }
};

struct Tanh : Module {
  int train_changes = 0;
  Tanh() : Module("Tanh") {}
  using Module::forward;
  Tensor forward(const Tensor& x) override { return tanh(x); }
  void on_train_changed(bool) override { ++train_changes; }
};

// A hand-built 2-layer network with a buffer.
struct TwoLayer : Module {
  std::shared_ptr<Affine> fc1, fc2;
  std::shared_ptr<Tanh> act;
  Tensor scale;
  TwoLayer() : Module("TwoLayer") {
    fc1 = register_module("fc1", std::make_shared<Affine>(3, 4));
    act = register_module("act", std::make_shared<Tanh>());
    fc2 = register_module("fc2", std::make_shared<Affine>(4, 2));
    scale = register_buffer("scale", full({1}, 2.0, DType::Float64));
  }
  using Module::forward;
  Tensor forward(const Tensor& x) override { return (*fc2)((*act)((*fc1)(x))) * scale; }
};

std::vector<std::string> names_of(const std::vector<std::pair<std::string, Tensor>>& v) {
  std::vector<std::string> out;
  for (auto& [k, t] : v) out.push_back(k);
  return out;
}

}  // namespace

TEST(NnModule, NamesAndCounts) {
  auto net = std::make_shared<TwoLayer>();
  EXPECT_EQ(names_of(net->named_parameters()),
            (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}));
  EXPECT_EQ(net->parameters().size(), 4u);
  EXPECT_EQ(net->parameters(false).size(), 0u);
  EXPECT_EQ(names_of(net->named_buffers()), std::vector<std::string>{"scale"});
  int64_t count = 0;
  for (auto& p : net->parameters()) count += p.numel();
  EXPECT_EQ(count, 3 * 4 + 4 + 4 * 2 + 2);
  for (auto& p : net->parameters()) {
    EXPECT_TRUE(p.is_leaf());
    EXPECT_TRUE(p.requires_grad());
  }
  EXPECT_EQ(net->children().size(), 3u);
  auto mods = net->named_modules();
  ASSERT_EQ(mods.size(), 4u);
  EXPECT_EQ(mods[0].first, "");
  EXPECT_EQ(mods[0].second.get(), net.get());
  EXPECT_EQ(mods[3].first, "fc2");
  // The handle kept by the layer is the registered tensor itself.
  EXPECT_TRUE(net->fc1->weight.same(net->named_parameters()[0].second));
  EXPECT_EQ(names_of(net->named_parameters("model")).front(), "model.fc1.weight");
}

TEST(NnModule, RegistrationRules) {
  Module m("M");
  Tensor leaf = ones({2}, DType::Float64);
  Tensor p = m.register_parameter("p", leaf);
  EXPECT_TRUE(p.same(leaf));  // a leaf is registered as itself
  EXPECT_TRUE(leaf.requires_grad());
  Tensor x = ones({2}, DType::Float64);
  x.set_requires_grad();
  Tensor q = m.register_parameter("q", x * 2.0);
  EXPECT_TRUE(q.is_leaf());
  EXPECT_NE(message_of<Error>([&] { m.register_buffer("p", zeros({1})); }).find("already a parameter"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { m.register_parameter("a.b", leaf); }).find("must not contain '.'"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { m.register_parameter("i", zeros({2}, DType::Int64)); }).find("floating-point"),
            std::string::npos);
  // An undefined parameter (bias=false) is skipped by every listing.
  m.register_parameter("bias", Tensor());
  EXPECT_EQ(m.parameters().size(), 2u);
  EXPECT_EQ(m.state_dict().size(), 2u);
  // Shared parameters are listed once.
  auto outer = std::make_shared<Module>("Outer");
  auto a = std::make_shared<Affine>(2, 2);
  outer->register_module("a", a);
  outer->register_module("b", a);
  EXPECT_EQ(outer->parameters().size(), 2u);
  EXPECT_EQ(outer->children().size(), 1u);
}

TEST(NnModule, StateDictRoundTrip) {
  auto src = std::make_shared<TwoLayer>();
  auto dst = std::make_shared<TwoLayer>();
  {
    NoGradGuard g;
    for (auto& p : src->parameters()) p.set_data(p * 1.5 + 0.25);
  }
  StateDict sd = src->state_dict();
  // PyTorch's order: a module's own parameters and buffers, then its children's.
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}));
  for (auto& [k, v] : sd) EXPECT_FALSE(v.requires_grad()) << k;
  Tensor w_before = dst->fc1->weight;
  LoadResult r = dst->load_state_dict(sd);
  EXPECT_TRUE(r.missing_keys.empty());
  EXPECT_TRUE(r.unexpected_keys.empty());
  // Same objects, new values, own memory, still leaves requiring grad.
  EXPECT_TRUE(dst->fc1->weight.same(w_before));
  EXPECT_TRUE(dst->fc1->weight.requires_grad());
  EXPECT_NE(dst->fc1->weight.storage(), src->fc1->weight.storage());
  auto ps = src->parameters(), pd = dst->parameters();
  for (size_t i = 0; i < ps.size(); ++i) EXPECT_EQ(ps[i].to_vector(), pd[i].to_vector());
  Tensor x = from_vector<double>({0.1, -0.2, 0.3, 0.5, 0.0, -1.0}, {2, 3});
  EXPECT_EQ((*src)(x).to_vector(), (*dst)(x).to_vector());
}

TEST(NnModule, LoadStateDictErrorsNameKeys) {
  auto net = std::make_shared<TwoLayer>();
  Tensor before = net->fc1->weight;
  std::vector<double> old = before.to_vector();
  StateDict sd = net->state_dict();
  sd.erase("fc2.bias");
  sd.insert("fc3.weight", zeros({2, 2}, DType::Float64));
  sd.insert("fc1.weight", ones({4, 3}, DType::Float64));
  std::string msg = message_of<Error>([&] { net->load_state_dict(sd); });
  EXPECT_NE(msg.find("Missing key(s) in state_dict: \"fc2.bias\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("Unexpected key(s) in state_dict: \"fc3.weight\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("TwoLayer"), std::string::npos) << msg;
  EXPECT_EQ(net->fc1->weight.to_vector(), old);  // a failed load writes nothing

  // Non-strict: the keys are returned, the rest is loaded.
  LoadResult r = net->load_state_dict(sd, false);
  EXPECT_EQ(r.missing_keys, std::vector<std::string>{"fc2.bias"});
  EXPECT_EQ(r.unexpected_keys, std::vector<std::string>{"fc3.weight"});
  EXPECT_EQ(net->fc1->weight.to_vector(), std::vector<double>(12, 1.0));

  // Shape and dtype mismatches throw even when not strict, naming the key and both shapes.
  StateDict bad = net->state_dict();
  bad.insert("fc1.bias", zeros({5}, DType::Float64));
  bad.insert("fc2.weight", zeros({2, 4}, DType::Float32));
  msg = message_of<Error>([&] { net->load_state_dict(bad, false); });
  EXPECT_NE(msg.find("size mismatch for fc1.bias"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[5]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dtype mismatch for fc2.weight"), std::string::npos) << msg;
}

TEST(NnModule, TrainEvalPropagates) {
  auto net = std::make_shared<TwoLayer>();
  EXPECT_TRUE(net->is_training());
  net->eval();
  for (auto& m : net->modules()) EXPECT_FALSE(m->is_training());
  EXPECT_EQ(net->act->train_changes, 1);
  net->train();
  for (auto& m : net->modules()) EXPECT_TRUE(m->is_training());
  net->fc1->eval();
  EXPECT_FALSE(net->fc1->is_training());
  EXPECT_TRUE(net->fc2->is_training());
}

TEST(NnModule, GradientsReachParameters) {
  // One layer, loss = sum(x W^T + b): dW[o][i] = sum_n x[n][i], db[o] = N.
  auto lin = std::make_shared<Affine>(3, 2);
  Tensor x = from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  sum((*lin)(x)).backward();
  EXPECT_EQ(lin->weight.grad().to_vector(), (std::vector<double>{5, 7, 9, 5, 7, 9}));
  EXPECT_EQ(lin->bias.grad().to_vector(), (std::vector<double>{2, 2}));
  lin->zero_grad();
  EXPECT_FALSE(lin->weight.grad().defined());

  // Through the 2-layer net every parameter gets a gradient; check one entry by central differences.
  auto net = std::make_shared<TwoLayer>();
  Tensor in = from_vector<double>({0.3, -0.7, 1.1}, {1, 3});
  auto loss = [&] { return sum(square((*net)(in))); };
  loss().backward();
  for (auto& [k, p] : net->named_parameters()) EXPECT_TRUE(p.grad().defined()) << k;
  double analytic = net->fc1->weight.grad().to_vector()[4];
  double h = 1e-6;
  std::vector<double> w = net->fc1->weight.to_vector();
  auto at = [&](double d) {
    std::vector<double> w2 = w;
    w2[4] += d;
    net->fc1->weight.set_data(from_vector<double>(w2, {4, 3}));
    NoGradGuard g;
    return loss().item<double>();
  };
  double numeric = (at(h) - at(-h)) / (2 * h);
  EXPECT_NEAR(analytic, numeric, 1e-7);
}

TEST(NnModule, OptimizerKeepsParameterObjects) {
  auto net = std::make_shared<TwoLayer>();
  Tensors before = net->parameters();
  optim::SGD opt(net->parameters(), {.lr = 0.1});
  Tensor in = from_vector<double>({0.3, -0.7, 1.1}, {1, 3});
  double first = 0, last = 0;
  for (int s = 0; s < 20; ++s) {
    opt.zero_grad();
    Tensor l = sum(square((*net)(in)));
    l.backward();
    opt.step();
    (s == 0 ? first : last) = l.item<double>();
  }
  EXPECT_LT(last, first);
  Tensors after = net->parameters();
  for (size_t i = 0; i < after.size(); ++i) EXPECT_TRUE(after[i].same(before[i]));
  EXPECT_TRUE(net->fc1->weight.same(after[0]));
}

TEST(NnModule, ForwardForms) {
  // Neither form overridden: a clear error, not endless recursion.
  Module bare("Bare");
  EXPECT_NE(message_of<Error>([&] { bare(ones({1})); }).find("defines no forward"), std::string::npos);
  EXPECT_NE(message_of<Error>([&] { bare(Tensors{ones({1})}); }).find("defines no forward"), std::string::npos);
  // The single-tensor form answers the list form too.
  Tanh t;
  Tensors out = t(Tensors{zeros({2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_vector(), (std::vector<double>{0, 0}));
}

TEST(NnModule, ConvertDtypeInPlace) {
  auto net = std::make_shared<TwoLayer>();
  Tensor w = net->fc1->weight;
  net->to(DType::Float32);
  EXPECT_TRUE(net->fc1->weight.same(w));
  EXPECT_EQ(w.dtype(), DType::Float32);
  EXPECT_EQ(net->scale.dtype(), DType::Float32);
  EXPECT_TRUE(w.requires_grad());
  Tensor x = ones({1, 3}, DType::Float32);
  EXPECT_EQ((*net)(x).dtype(), DType::Float32);
}

TEST(NnContainers, SequentialAndModuleList) {
  auto seq = std::make_shared<Sequential>(std::vector<ModulePtr>{std::make_shared<Affine>(3, 4),
                                                                 std::make_shared<Tanh>()});
  seq->append(std::make_shared<Affine>(4, 2));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(names_of(seq->named_parameters()),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  Tensor x = from_vector<double>({0.1, 0.2, 0.3}, {1, 3});
  auto a = std::static_pointer_cast<Affine>(seq->at(0));
  auto b = std::static_pointer_cast<Affine>(seq->at(-1));
  Tensor want = (*b)(tanh((*a)(x)));
  EXPECT_EQ((*seq)(x).to_vector(), want.to_vector());
  EXPECT_NE(message_of<Error>([&] { seq->at(3); }).find("out of range for 3"), std::string::npos);
  EXPECT_EQ(seq->slice(1, 3)->size(), 2u);

  ModuleList list;
  list.append(std::make_shared<Tanh>()).append(std::make_shared<Affine>(2, 2));
  list.insert(0, std::make_shared<Affine>(1, 1));
  EXPECT_EQ(names_of(list.named_parameters()),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(list.at(1)->type_name(), "Tanh");
  EXPECT_NE(message_of<Error>([&] { list(ones({1})); }).find("ModuleList defines no forward"), std::string::npos);
}

TEST(NnModule, Repr) {
  auto net = std::make_shared<TwoLayer>();
  EXPECT_EQ(net->repr(),
            "TwoLayer(\n"
            "  (fc1): Affine(in_features=3, out_features=4)\n"
            "  (act): Tanh()\n"
            "  (fc2): Affine(in_features=4, out_features=2)\n"
            ")");
  Sequential s({std::make_shared<Sequential>(std::vector<ModulePtr>{std::make_shared<Tanh>()})});
  EXPECT_EQ(s.repr(), "Sequential(\n  (0): Sequential(\n    (0): Tanh()\n  )\n)");
}

// ---------------------------------------------------------------------------------------------
// Hooks (torch.nn.Module's): order, replacement, removal, children called by a C++ parent or by a
// container, and full backward hooks against the closed-form gradients of an affine layer.

TEST(NnHooks, ForwardHooksRunInOrderAndReplace) {
  auto lin = std::make_shared<Affine>(3, 2);
  Tensor x = from_vector<double>({1, 2, 3}, {1, 3});
  std::vector<std::string> log;
  auto h1 = lin->register_forward_pre_hook([&](Module& m, const Tensors& in) -> std::optional<Tensors> {
    log.push_back("pre1:" + m.type_name());
    return Tensors{in[0] * 2.0};  // replaces the input
  });
  std::vector<double> pre2_saw;
  auto h2 = lin->register_forward_pre_hook([&](Module&, const Tensors& in) -> std::optional<Tensors> {
    log.push_back("pre2");
    pre2_saw = in[0].to_vector();
    return std::nullopt;
  });
  auto h3 = lin->register_forward_hook([&](Module&, const Tensors& in, const Tensors& out) -> std::optional<Tensors> {
    log.push_back("fwd1");
    EXPECT_EQ(in[0].to_vector(), (std::vector<double>{2, 4, 6}));
    return Tensors{out[0] + 100.0};
  });
  auto h4 = lin->register_forward_hook([&](Module&, const Tensors&, const Tensors&) -> std::optional<Tensors> {
    log.push_back("fwd0");
    return std::nullopt;
  }, /*prepend=*/true);
  Tensor want = lin->forward(x * 2.0) + 100.0;
  EXPECT_EQ((*lin)(x).to_vector(), want.to_vector());
  EXPECT_EQ(log, (std::vector<std::string>{"pre1:Affine", "pre2", "fwd0", "fwd1"}));
  EXPECT_EQ(pre2_saw, (std::vector<double>{2, 4, 6}));  // pre1's replacement
  // forward() itself runs no hooks (as torch's forward).
  log.clear();
  lin->forward(x);
  EXPECT_TRUE(log.empty());

  h1.remove();
  h3.remove();
  h3.remove();  // twice: nothing
  log.clear();
  EXPECT_EQ((*lin)(x).to_vector(), lin->forward(x).to_vector());
  EXPECT_EQ(log, (std::vector<std::string>{"pre2", "fwd0"}));
  EXPECT_EQ(pre2_saw, (std::vector<double>{1, 2, 3}));
  h2.remove();
  h4.remove();
  EXPECT_FALSE(lin->has_hooks());
}

TEST(NnHooks, ChildHooksRunWhenParentsCallThem) {
  auto net = std::make_shared<TwoLayer>();  // forward calls (*fc1)(x), (*act)(...), (*fc2)(...)
  std::vector<std::string> order;
  auto note = [&](std::string name) {
    return [&order, name](Module&, const Tensors&, const Tensors&) -> std::optional<Tensors> {
      order.push_back(name);
      return std::nullopt;
    };
  };
  net->fc1->register_forward_hook(note("fc1"));
  net->act->register_forward_hook(note("act"));
  net->register_forward_hook(note("net"));
  Tensor x = from_vector<double>({0.3, -0.7, 1.1}, {1, 3});
  (*net)(x);
  EXPECT_EQ(order, (std::vector<std::string>{"fc1", "act", "net"}));

  // Through Sequential, and a hook that zeroes a child's output changes the container's result.
  auto a = std::make_shared<Affine>(3, 4);
  auto seq = std::make_shared<Sequential>(std::vector<ModulePtr>{a, std::make_shared<Tanh>()});
  auto h = a->register_forward_hook([](Module&, const Tensors&, const Tensors& out) -> std::optional<Tensors> {
    return Tensors{out[0] * 0.0};
  });
  EXPECT_EQ((*seq)(x).to_vector(), (std::vector<double>{0, 0, 0, 0}));
  h.remove();
  EXPECT_EQ((*seq)(x).to_vector(), tanh(a->forward(x)).to_vector());
}

TEST(NnHooks, HookRemovingItselfTakesEffectNextCall) {
  Tanh t;
  int calls = 0;
  HookHandle h;
  h = t.register_forward_pre_hook([&](Module&, const Tensors&) -> std::optional<Tensors> {
    ++calls;
    h.remove();
    return std::nullopt;
  });
  t(zeros({1}));
  t(zeros({1}));
  EXPECT_EQ(calls, 1);
}

TEST(NnHooks, FullBackwardHookSeesAndReplacesGradients) {
  // y = x W^T + b; for loss = sum(y * P): grad_output = P, grad_input = P W.
  auto lin = std::make_shared<Affine>(3, 2);
  Tensor x = from_vector<double>({1, 2, 3, -1, 0.5, 2}, {2, 3}).set_requires_grad();
  Tensor P = from_vector<double>({1, -2, 0.5, 3}, {2, 2});
  Tensor want_gi = matmul(P, lin->weight.detach());
  int calls = 0;
  Tensors seen_in, seen_out;
  auto h = lin->register_full_backward_hook([&](Module& m, const Tensors& gi, const Tensors& go)
                                                -> std::optional<Tensors> {
    ++calls;
    EXPECT_EQ(m.type_name(), "Affine");
    seen_in = gi;
    seen_out = go;
    if (!gi[0].defined()) return std::nullopt;
    return Tensors{gi[0] * 3.0};  // replaces the gradient flowing to x
  });
  sum((*lin)(x) * P).backward();
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(seen_in.size(), 1u);
  ASSERT_EQ(seen_out.size(), 1u);
  EXPECT_EQ(seen_out[0].to_vector(), P.to_vector());
  auto close = [](const Tensor& a, const Tensor& b) {
    auto u = a.to_vector(), v = b.to_vector();
    ASSERT_EQ(u.size(), v.size());
    for (size_t i = 0; i < u.size(); ++i) EXPECT_NEAR(u[i], v[i], 1e-12);
  };
  close(seen_in[0], want_gi);
  close(x.grad(), want_gi * 3.0);
  // The parameters' gradients are not the hook's business: unchanged (dW = P^T x).
  close(lin->weight.grad(), matmul(transpose(P, 0, 1), x.detach()));

  // An input that needs no gradient: the hook still runs, with an undefined grad_input.
  calls = 0;
  Tensor c = x.detach();
  sum((*lin)(c) * P).backward();
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(seen_in[0].defined());
  EXPECT_EQ(seen_out[0].to_vector(), P.to_vector());

  // Removed: no call; under no_grad: no record, no call.
  h.remove();
  calls = 0;
  sum((*lin)(x) * P).backward();
  EXPECT_EQ(calls, 0);

  // A hook returning the wrong number of gradients is named.
  lin->register_full_backward_hook([](Module&, const Tensors&, const Tensors&) -> std::optional<Tensors> {
    return Tensors{Tensor(), Tensor()};
  });
  Tensor y = sum((*lin)(x) * P);
  EXPECT_NE(message_of<Error>([&] { y.backward(); }).find("returned 2 gradients for 1 inputs"), std::string::npos);
}

TEST(NnHooks, BackwardHookOfChildInsideSequential) {
  auto a = std::make_shared<Affine>(3, 4);
  auto b = std::make_shared<Affine>(4, 2);
  Sequential seq({a, std::make_shared<Tanh>(), b});
  Tensor grad_into_b;
  b->register_full_backward_hook([&](Module&, const Tensors& gi, const Tensors&) -> std::optional<Tensors> {
    grad_into_b = gi[0];
    return std::nullopt;
  });
  Tensor x = from_vector<double>({0.1, 0.2, 0.3}, {1, 3});
  Tensor P = from_vector<double>({1.5, -0.5}, {1, 2});
  sum(seq(x) * P).backward();
  ASSERT_TRUE(grad_into_b.defined());
  auto got = grad_into_b.to_vector(), want = matmul(P, b->weight.detach()).to_vector();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
}
