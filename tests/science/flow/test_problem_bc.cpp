// Boundary conditions from their text: the three kinds, g as a function of t, systems with one
// table per field, and the mistakes users make, each named.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "science/flow/parser.h"
#include "science/flow/problem.h"
#include "tests/common/expect_error.h"

namespace spire::flow {
namespace {

ProblemText bounded(std::map<std::string, std::map<std::string, std::string>> bcs) {
  ProblemText t;
  t.equations = {"dt(u) = nu*dx(dx(u))"};
  t.parameters = {{"nu", 0.5}};
  t.periodic = false;
  t.bcs = std::move(bcs);
  return t;
}

TEST(ProblemBoundary, ThreeKinds) {
  Problem p = build_problem(bounded({{"", {{"right", "robin: 2*u + 3*dx(u) = nu*t + sin(t)"}, {"left", "dirichlet: cos(t)"}}}}));
  ASSERT_EQ(p.bcs.size(), 2u);
  const auto& left = p.bcs[0];
  EXPECT_EQ(left.side, 0);
  EXPECT_EQ(left.kind, BoundaryKind::Dirichlet);
  EXPECT_EQ(left.a, 1);
  EXPECT_EQ(left.b, 0);
  EXPECT_EQ(left.where, "bc.left");
  EXPECT_DOUBLE_EQ(evaluate_point(*left.g, 0, 0, 0.3), std::cos(0.3));
  const auto& right = p.bcs[1];
  EXPECT_EQ(right.side, 1);
  EXPECT_EQ(right.kind, BoundaryKind::Robin);
  EXPECT_EQ(right.a, 2);
  EXPECT_EQ(right.b, 3);
  EXPECT_DOUBLE_EQ(evaluate_point(*right.g, 0, 0, 0.3), 0.5 * 0.3 + std::sin(0.3));

  Problem q = build_problem(bounded({{"u", {{"left", "neumann: nu"}, {"right", "robin: u = dx(u)/2 - 1 + u/4"}}}}));
  EXPECT_EQ(q.bcs[0].kind, BoundaryKind::Neumann);
  EXPECT_EQ(q.bcs[0].a, 0);
  EXPECT_EQ(q.bcs[0].b, 1);
  EXPECT_EQ(q.bcs[0].where, "bc.u.left");
  EXPECT_DOUBLE_EQ(evaluate_point(*q.bcs[0].g, 0, 0, 0), 0.5);
  EXPECT_DOUBLE_EQ(q.bcs[1].a, 0.75);
  EXPECT_DOUBLE_EQ(q.bcs[1].b, -0.5);
  EXPECT_DOUBLE_EQ(evaluate_point(*q.bcs[1].g, 0, 0, 0), -1);
  EXPECT_NE(explain(q).find("u at right: 0.75*u + -0.5*dx(u) = -1"), std::string::npos) << explain(q);
}

TEST(ProblemBoundary, SystemsNameTheirField) {
  ProblemText t;
  t.equations = {"dt(u) = dx(dx(u)) + v", "dt(v) = dx(dx(v))"};
  t.periodic = false;
  t.bcs = {{"v", {{"left", "dirichlet: 1"}, {"right", "dirichlet: 2"}}}, {"u", {{"left", "neumann: 0"}, {"right", "neumann: 0"}}}};
  Problem p = build_problem(t);
  ASSERT_EQ(p.bcs.size(), 4u);
  EXPECT_EQ(p.bcs[0].field, 0);
  EXPECT_EQ(p.bcs[2].field, 1);
  EXPECT_EQ(p.bcs[3].side, 1);
  EXPECT_DOUBLE_EQ(evaluate_point(*p.bcs[3].g, 0, 0, 0), 2);

  t.bcs = {{"", {{"left", "dirichlet: 0"}}}};
  std::string m = message_of<ConfigError>([&] { build_problem(t); });
  EXPECT_NE(m.find("this one has u, v"), std::string::npos) << m;
  t.bcs = {{"w", {{"left", "dirichlet: 0"}}}};
  m = message_of<ConfigError>([&] { build_problem(t); });
  EXPECT_NE(m.find("bc.w: unknown field 'w'; fields: u, v"), std::string::npos) << m;
}

TEST(ProblemBoundary, MistakesAreNamed) {
  struct Case {
    const char* condition;
    const char* says;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"dirichlett: 0", "unknown boundary condition 'dirichlett'; allowed: dirichlet"},
           {"0", "expected a condition: dirichlet: g"},
           {"dirichlet: x", "the coordinate x may not appear here"},
           {"dirichlet: u", "unknown name 'u'"},
           {"robin: u^2 + dx(u) = 0", "a robin condition reads a*u + b*dx(u) = g with constant a and b"},
           {"robin: u + dx(dx(u)) = 0", "a robin condition reads"},
           {"robin: u + dt(u) = 0", "a robin condition reads"},
           {"robin: t*u = 0", "a robin condition reads"},
           {"robin: 0*u = 1", "not both zero"},
           {"robin: u + v = 1", "unknown name 'v'"},
       }) {
    SCOPED_TRACE(c.condition);
    std::string m = message_of<ConfigError>([&] { build_problem(bounded({{"", {{"left", c.condition}}}})); });
    EXPECT_NE(m.find(c.says), std::string::npos) << m;
    EXPECT_EQ(m.rfind("bc.left", 0), 0u) << m;
  }
  std::string m = message_of<ParseError>([] { build_problem(bounded({{"", {{"left", "neumann: 1 +"}}}})); });
  EXPECT_EQ(m.rfind("bc.left:1:13: ", 0), 0u) << m;
  m = message_of<ConfigError>([] { build_problem(bounded({{"", {{"top", "dirichlet: 0"}}}})); });
  EXPECT_NE(m.find("bc.top: unknown side 'top'; allowed: left, right"), std::string::npos) << m;
  ProblemText periodic = bounded({{"", {{"left", "dirichlet: 0"}}}});
  periodic.periodic = true;
  m = message_of<ConfigError>([&] { build_problem(periodic); });
  EXPECT_NE(m.find("periodic"), std::string::npos) << m;
}

}  // namespace
}  // namespace spire::flow
