#include "science/flow/boundary.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "engine/core/error.h"
#include "science/flow/parse_detail.h"
#include "science/flow/split.h"

namespace spire::flow::detail {

namespace {

using spire::detail::join;

const char* kinds_allowed = "dirichlet: g, neumann: g, robin: a*u + b*dx(u) = g (g may depend on t)";

// The scope of a boundary value: parameters and t; no x (the boundary is a point), no fields.
Scope value_scope(const Problem& problem) {
  Scope s;
  s.parameters = problem.parameters;
  s.x = false;
  s.y = false;
  s.derivatives = false;
  return s;
}

ExprPtr lower_tree(const ExprPtr& e, const Problem& problem, const Source& source) {
  return lower(e, problem.parameters, problem.dims, source);
}

}  // namespace

BoundaryCondition boundary_condition(const std::string& condition, const std::string& where, int field, int side,
                                     const Problem& problem) {
  BoundaryCondition bc;
  bc.field = field;
  bc.side = side;
  bc.text = condition;
  bc.where = where;
  size_t colon = condition.find(':');
  size_t first = condition.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) first = 0;
  if (colon == std::string::npos)
    throw ConfigError(located_message(where, condition, {1, int(first) + 1, int(condition.size() - first)},
                                      std::string("expected a condition: ") + kinds_allowed));
  std::string kind = condition.substr(first, colon > first ? colon - first : 0);
  while (!kind.empty() && std::isspace(static_cast<unsigned char>(kind.back()))) kind.pop_back();
  std::string lower = kind;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  Span kind_span{1, int(first) + 1, std::max(1, int(kind.size()))};
  Source source{where, condition};
  ParseOptions options;
  options.begin = colon + 1;
  const std::string& name = problem.fields[field];
  if (lower == "dirichlet" || lower == "neumann") {
    bc.kind = lower == "dirichlet" ? BoundaryKind::Dirichlet : BoundaryKind::Neumann;
    bc.a = lower == "dirichlet" ? 1 : 0;
    bc.b = 1 - bc.a;
    bc.g = lower_tree(parse(condition, where, value_scope(problem), options), problem, source);
    return bc;
  }
  if (lower != "robin")
    throw ConfigError(located_message(where, condition, kind_span,
                                      "unknown boundary condition '" + kind + "'; allowed: " + kinds_allowed));
  bc.kind = BoundaryKind::Robin;
  Scope s = value_scope(problem);
  s.fields = {name};
  s.derivatives = true;
  options.equation = true;
  ExprPtr e = lower_tree(parse(condition, where, s, options), problem, source);
  bc.a = bc.b = 0;
  std::vector<Term> values;
  std::string shape = "a robin condition reads a*" + name + " + b*dx(" + name + ") = g with constant a and b";
  for (const Term& t : expand(e, source)) {
    const Expr& f = *t.factor;
    int fi = 0, dx = 0, dy = 0;
    if (derivative_of_field(f, fi, dx, dy) && dx <= 1 && dy == 0) {
      (dx == 0 ? bc.a : bc.b) += t.coefficient;
      continue;
    }
    bool field_free = true;
    const Expr* culprit = nullptr;
    visit(f, [&](const Expr& n) {
      if ((n.op == Op::Field || n.op == Op::Diff) && !culprit) {
        field_free = false;
        culprit = &n;
      }
    });
    if (!field_free)
      throw ConfigError(located_message(where, condition, culprit->span, shape + "; found " + to_string(f)));
    values.push_back({-t.coefficient, t.factor});
  }
  if (!std::isfinite(bc.a) || !std::isfinite(bc.b))
    throw ConfigError(located_message(where, condition, e->span, shape + "; a or b is not finite"));
  if (bc.a == 0 && bc.b == 0)
    throw ConfigError(located_message(where, condition, e->span, shape + ", not both zero"));
  bc.g = sum_of(values);
  if (!bc.g) bc.g = number(0);
  return bc;
}

std::vector<BoundaryCondition> boundary_conditions(const ProblemText& text, const Problem& problem) {
  std::vector<BoundaryCondition> out;
  if (text.bcs.empty()) return out;
  if (problem.periodic) {
    std::string key = text.bcs.begin()->first;
    throw ConfigError(std::string(key.empty() ? "bc" : "bc." + key) +
                      ": boundary conditions on a periodic problem; set domain.periodic = false (a Chebyshev "
                      "basis) or remove [bc]");
  }
  std::set<std::pair<int, int>> seen;
  for (const auto& [key, sides] : text.bcs) {
    int field = 0;
    if (key.empty()) {
      if (problem.fields.size() != 1)
        throw ConfigError("bc: left/right without a field name need a problem with one field; this one has " +
                          join(problem.fields) + ": write [bc." + problem.fields[0] + "] left = ..., right = ...");
    } else {
      auto f = std::find(problem.fields.begin(), problem.fields.end(), key);
      if (f == problem.fields.end())
        throw ConfigError("bc." + key + ": unknown field '" + key + "'; fields: " + join(problem.fields));
      field = int(f - problem.fields.begin());
    }
    for (const auto& [side_name, condition] : sides) {
      std::string where = (key.empty() ? "bc." : "bc." + key + ".") + side_name;
      if (side_name != "left" && side_name != "right")
        throw ConfigError(where + ": unknown side '" + side_name + "'; allowed: left, right");
      int side = side_name == "left" ? 0 : 1;
      if (!seen.insert({field, side}).second)
        throw ConfigError(where + ": a second condition for " + problem.fields[field] + " at the " + side_name +
                          " end (bc." + side_name + " and bc." + problem.fields[field] + "." + side_name + ")");
      out.push_back(boundary_condition(condition, where, field, side, problem));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return std::pair(a.field, a.side) < std::pair(b.field, b.side); });
  return out;
}

}  // namespace spire::flow::detail
