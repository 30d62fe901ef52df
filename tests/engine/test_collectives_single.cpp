// The collective ops in one process (the self world of one rank), where they are identities: their
// kernels on non-contiguous inputs and several dtypes, their errors, and the SPMD property the
// multi-rank tests rely on: a forward or Taylor rule issues its collective for every coefficient,
// defined or not, so that no rank can skip a call the others make. (Values and derivatives on
// several ranks: tests/parallel/test_collective_ops.cpp.)
#include <gtest/gtest.h>

#include <string>

#include "engine/autodiff/forward.h"
#include "engine/autodiff/taylor.h"
#include "engine/core/observer.h"
#include "engine/core/op.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "engine/parallel/collectives.h"

using namespace spire;
namespace par = spire::parallel;

namespace {

double max_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  return amax(abs(sub(cast(a, DType::Float64), cast(b, DType::Float64)))).item<double>();
}

// Counts the calls of one op.
struct CallCounter : OpObserver {
  explicit CallCounter(std::string op) : name(std::move(op)) {}
  void on_call(const OpDef& op, const std::vector<Tensor>&, const std::vector<Tensor>&, const Attrs&) override {
    if (op.name == name) ++count;
  }
  std::string name;
  int count = 0;
};

TEST(CollectivesSingle, IdentitiesOnOneRankForStridedInputsAndSeveralDtypes) {
  ASSERT_EQ(par::world().size(), 1) << "this test runs in a plain process";
  for (DType dt : {DType::Float32, DType::Float64, DType::Int64}) {
    Tensor x = transpose(cast(mul(rules::sample({3, 4, 2}, -1, 1, 5), 100.0), dt), 0, 2);  // [2, 4, 3], strided
    ASSERT_FALSE(x.is_contiguous());
    std::vector<std::pair<std::string, Tensor>> outs = {
        {"all_reduce sum", par::all_reduce(x, "sum")},
        {"all_reduce max", par::all_reduce(x, "max")},
        {"all_gather 1", par::all_gather(x, 1)},
        {"reduce_scatter 2", par::reduce_scatter(x, 2, "min")},
        {"all_to_all 1 2", par::all_to_all(x, 1, 2)},
        {"broadcast", par::broadcast(x, 0)},
        {"permute", par::permute(x, {{0, 0}})},
    };
    if (is_inexact(dt)) outs.emplace_back("all_reduce mean", par::all_reduce(x, "mean"));
    for (auto& [what, y] : outs) {
      EXPECT_EQ(y.dtype(), dt) << what;
      EXPECT_EQ(max_diff(y, x), 0.0) << what << " in " << name(dt);
    }
    EXPECT_EQ(max_diff(par::permute(x, {}), zeros_like(x)), 0.0) << "a rank nobody sends to gets zeros";
  }
}

TEST(CollectivesSingle, SubCommunicatorsAreNamedById) {
  auto sub = par::world().split(0, 0);
  ASSERT_TRUE(sub);
  EXPECT_NE(sub->id(), par::world().id());
  Tensor x = rules::sample({2, 3});
  EXPECT_EQ(max_diff(par::all_gather(x, 0, *sub), x), 0.0);
  // An op naming a communicator that is gone says so.
  int64_t gone = sub->id();
  sub.reset();
  try {
    call1(op_def("all_reduce"), {x}, Attrs{{"comm", gone}, {"op", std::string("sum")}});
    ADD_FAILURE() << "a freed communicator was found";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(gone)), std::string::npos) << e.what();
  }
}

TEST(CollectivesSingle, ErrorsNameWhatIsAllowed) {
  auto message = [](auto f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { par::all_reduce(zeros({2}, DType::Complex128), "max"); }).find("allowed for complex: sum, mean"),
            std::string::npos);
  EXPECT_NE(message([] { par::reduce_scatter(zeros({2}, DType::Int64), 0, "mean"); }).find("use sum and divide"),
            std::string::npos);
  EXPECT_NE(message([] { par::all_gather(scalar_tensor(1.0, DType::Float64)); }).find("0-d"), std::string::npos);
  EXPECT_NE(message([] { par::all_gather(zeros({2}), 1); }).find("all_gather"), std::string::npos);
  EXPECT_NE(message([] { par::broadcast(zeros({2}), 1); }).find("allowed: 0 to 0"), std::string::npos);
  EXPECT_NE(message([] { par::permute(zeros({2}), {{0, 1}}); }).find("outside [0, 1)"), std::string::npos);
  EXPECT_NE(message([] { par::send(zeros({2}), 0, -1); }).find("allowed 0.."), std::string::npos);
  EXPECT_NE(message([] { par::recv({2}, DType::Float32, 0, 1); }).find("nothing could send it"), std::string::npos);
  EXPECT_THROW(par::all_reduce(zeros({2}), "product"), ValueError);
}

// The rules run their collective on zeros where a tangent or coefficient is missing: on several
// ranks a skipped call would leave the others waiting.
TEST(CollectivesSingle, RulesIssueTheirCollectiveForMissingTangentsAndCoefficients) {
  Tensor x = rules::sample({3, 2});
  for (const char* op : {"sum", "max"}) {
    CallCounter calls("all_reduce");
    Series z;
    {
      ObserverScope scope(calls);
      taylor::Level level({.order = 3});
      Tensor y = par::all_reduce(taylor::make_jet(x, {rules::sample({3, 2}, -1, 1, 2), Tensor(), Tensor()}, level.get()), op);
      z = taylor::coefficients(y, level.get());
    }
    // The value, then one call per coefficient (max: each with its weights' normalisation too).
    int per_coefficient = std::string(op) == "sum" ? 1 : 2;
    EXPECT_EQ(calls.count, 1 + 3 * per_coefficient) << op;
    ASSERT_EQ(z.size(), 3u);
    EXPECT_EQ(max_diff(z[0], rules::sample({3, 2}, -1, 1, 2)), 0.0) << op;
    for (int k = 1; k < 3; ++k) EXPECT_EQ(max_diff(z[k], zeros_like(x)), 0.0) << op << " coefficient " << k + 1;
  }
  // A forward rule called without a tangent (as a rank whose tangent is structurally zero would).
  const OpDef& d = op_def("all_gather");
  Attrs a{{"comm", par::world().id()}, {"axis", int64_t(0)}};
  Tensor y = call1(d, {x}, a);
  CallCounter calls("all_gather");
  std::vector<Tensor> inputs{x}, outputs{y}, tangents{Tensor()};
  std::vector<Tensor> t;
  {
    ObserverScope scope(calls);
    t = d.jvp(JvpContext{d, a, inputs, outputs, tangents});
  }
  EXPECT_EQ(calls.count, 1);
  ASSERT_TRUE(t[0].defined());
  EXPECT_EQ(max_diff(t[0], zeros_like(y)), 0.0);
}

}  // namespace
