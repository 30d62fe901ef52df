// build_problem: from the text of a [pde] and a [bc] table to the split problem. The fields are
// inferred (the names under dt(), then the names no equation evolves), each equation is parsed,
// lowered and split, and equations are ordered so that equation i evolves (or determines) field i.
#include <algorithm>
#include <set>

#include "engine/core/error.h"
#include "science/flow/boundary.h"
#include "science/flow/parse_detail.h"
#include "science/flow/parser.h"
#include "science/flow/problem.h"
#include "science/flow/split.h"

namespace spire::flow {

namespace {

using spire::detail::join;

std::string equation_where(const ProblemText& text, size_t i) {
  return text.equations.size() == 1 ? "pde.equation" : "pde.equations[" + std::to_string(i + 1) + "]";
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void check_name(const std::string& name, const std::string& where) {
  if (detail::reserved(name))
    throw ConfigError(where + ": '" + name + "' is a name of the language (coordinates x, y, t; constants pi, e; "
                      "functions " + join(functions()) + "; operators dt, dx, dy, laplacian); choose another name");
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw ConfigError(where + ": '" + name + "' is not a name (letters, digits and _, not starting with a digit)");
}

// The fields: the names under dt() in order of appearance, then (when equations are left over) the
// other names that are not parameters, coefficients or the language's own, in order of appearance.
// An explicit list is taken as it is when it names every evolved field, else appended.
std::vector<std::string> infer_fields(const ProblemText& text, const Scope& scope) {
  std::vector<std::string> evolved, others;
  detail::ParseOptions lenient;
  lenient.equation = true;
  lenient.lenient = true;
  for (size_t i = 0; i < text.equations.size(); ++i) {
    ExprPtr e = detail::parse(text.equations[i], equation_where(text, i), scope, lenient);
    detail::visit(*e, [&](const Expr& n) {
      if (n.op == Op::Field && !contains(others, n.name)) others.push_back(n.name);
      if (n.op != Op::Diff || n.index != 2) return;
      detail::visit(*n.args[0], [&](const Expr& m) {
        if (m.op == Op::Field && !contains(evolved, m.name)) evolved.push_back(m.name);
      });
    });
  }
  if (!text.fields.empty()) {
    bool complete = std::all_of(evolved.begin(), evolved.end(), [&](const auto& n) { return contains(text.fields, n); });
    if (complete) return text.fields;
    std::vector<std::string> fields = evolved;
    for (const auto& f : text.fields)
      if (!contains(fields, f)) fields.push_back(f);
    return fields;
  }
  std::vector<std::string> fields = evolved;
  for (const auto& n : others)
    if (fields.size() < text.equations.size() && !contains(fields, n)) fields.push_back(n);
  return fields;
}

// The coefficients, each parsed after those it names (kappa = "k0*s", s = "1 + cos(x)"), so that
// each can be inlined into the next; ConfigError for a cycle.
std::map<std::string, ExprPtr> parse_coefficients(const ProblemText& text) {
  Scope scope;
  scope.parameters = text.parameters;
  scope.y = text.dims == 2;
  scope.derivatives = false;
  std::map<std::string, std::vector<std::string>> needs;
  detail::ParseOptions lenient;
  lenient.lenient = true;
  for (const auto& [name, expression] : text.coefficients) {
    ExprPtr e = detail::parse(expression, "pde.coefficients." + name, scope, lenient);
    detail::visit(*e, [&](const Expr& n) {
      if (n.op == Op::Field && text.coefficients.count(n.name)) needs[name].push_back(n.name);
    });
  }
  std::map<std::string, ExprPtr> done;
  while (done.size() < text.coefficients.size()) {
    bool progress = false;
    for (const auto& [name, expression] : text.coefficients) {
      if (done.count(name)) continue;
      const auto& n = needs[name];
      if (!std::all_of(n.begin(), n.end(), [&](const auto& m) { return done.count(m) > 0; })) continue;
      scope.coefficients = done;
      done[name] = parse_expression(expression, "pde.coefficients." + name, scope);
      progress = true;
    }
    if (!progress) {
      std::vector<std::string> left;
      for (const auto& [name, expression] : text.coefficients)
        if (!done.count(name)) left.push_back(name);
      throw ConfigError("pde.coefficients: " + join(left) + " refer to each other in a cycle; each needs the other's value");
    }
  }
  return done;
}

// Which field each equation evolves: the field under its dt (equations with one dt'd field first,
// so that one with dt(u) + dt(v) takes what is left), then the fields nobody evolves, in order, for
// the equations without dt.
void assign_fields(std::vector<Equation>& equations, const std::vector<std::string>& fields) {
  std::vector<int> owner(fields.size(), -1);
  std::vector<bool> assigned(equations.size(), false);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < equations.size(); ++i) {
      const auto& mass = equations[i].mass;
      if (mass.empty() || assigned[i] || (pass == 0) != (mass.size() == 1)) continue;
      int chosen = -1;
      for (const auto& m : mass)
        if (owner[m.field] < 0) {
          chosen = m.field;
          break;
        }
      if (chosen < 0) {
        const auto& f = mass.front().field;
        throw ConfigError(equations[i].where + ": evolves " + fields[f] + ", which " + equations[owner[f]].where +
                          " already evolves; each field has one equation with dt");
      }
      owner[chosen] = int(i);
      equations[i].field = chosen;
      assigned[i] = true;
    }
  }
  size_t next = 0;
  for (size_t i = 0; i < equations.size(); ++i) {
    if (assigned[i]) continue;
    while (next < fields.size() && owner[next] >= 0) ++next;
    owner[next] = int(i);
    equations[i].field = int(next);
  }
}

}  // namespace

Problem build_problem(const ProblemText& text) {
  Problem problem;
  problem.dims = text.dims;
  problem.periodic = text.periodic;
  problem.parameters = text.parameters;
  if (text.dims != 1 && text.dims != 2) throw ConfigError("domain: " + std::to_string(text.dims) + " dimensions; allowed: 1 (x) or 2 (x, y)");
  if (text.equations.empty()) throw ConfigError("pde: no equation; write equation = \"dt(u) = ...\" or equations = [...]");

  for (const auto& [name, value] : text.parameters) check_name(name, "pde.parameters." + name);
  Scope scope;
  scope.parameters = text.parameters;
  scope.y = text.dims == 2;
  for (const auto& [name, expression] : text.coefficients) {
    check_name(name, "pde.coefficients." + name);
    if (text.parameters.count(name))
      throw ConfigError("pde.coefficients." + name + ": '" + name + "' is also a parameter; choose one");
  }
  scope.coefficients = parse_coefficients(text);
  problem.fields = infer_fields(text, scope);
  for (const auto& f : problem.fields) {
    check_name(f, "pde.fields");
    if (text.parameters.count(f) || text.coefficients.count(f))
      throw ConfigError("pde: '" + f + "' is both a field and a " +
                        (text.parameters.count(f) ? "parameter" : "coefficient") + "; choose one");
  }
  if (problem.fields.empty())
    throw ConfigError("pde: the equations name no field; a field is a name under dt() (dt(u) = ...) or one "
                      "listed in fields = [...]");
  if (problem.fields.size() != text.equations.size())
    throw ConfigError("pde: " + std::to_string(text.equations.size()) + " equation" +
                      (text.equations.size() == 1 ? "" : "s") + " for " + std::to_string(problem.fields.size()) +
                      " field" + (problem.fields.size() == 1 ? "" : "s") + " (" + join(problem.fields) +
                      "); each field needs exactly one equation (dt(field) = ... or, for a field without dt, "
                      "a constraint such as laplacian(psi) + w = 0)");
  scope.fields = problem.fields;

  std::vector<Equation> equations;
  for (size_t i = 0; i < text.equations.size(); ++i) {
    Equation eq;
    eq.text = text.equations[i];
    eq.where = equation_where(text, i);
    detail::Source source{eq.where, eq.text};
    ExprPtr e = detail::lower(parse_equation(eq.text, eq.where, scope), text.parameters, text.dims, source);
    detail::Split s = detail::split(e, source);
    // dt terms that cancel would silently turn an evolution equation into a constraint.
    if (s.mass.empty() && !evolved_names(eq.text, eq.where).empty())
      throw ConfigError(eq.where + ": the dt() terms of \"" + eq.text + "\" cancel; an equation with dt() must keep "
                        "a nonzero multiple of dt(field) (write a constraint without dt)");
    eq.mass = std::move(s.mass);
    eq.linear = std::move(s.linear);
    eq.rhs = s.rhs;
    for (const auto* terms : {&eq.mass, &eq.linear})
      for (const auto& t : *terms) {
        eq.x_order = std::max(eq.x_order, t.dx);
        eq.y_order = std::max(eq.y_order, t.dy);
      }
    if (eq.rhs) {
      eq.x_order = std::max(eq.x_order, detail::derivative_order(*eq.rhs, 0));
      eq.y_order = std::max(eq.y_order, detail::derivative_order(*eq.rhs, 1));
    }
    equations.push_back(std::move(eq));
  }
  assign_fields(equations, problem.fields);
  std::stable_sort(equations.begin(), equations.end(), [](const Equation& a, const Equation& b) { return a.field < b.field; });
  problem.equations = std::move(equations);

  problem.bcs = detail::boundary_conditions(text, problem);
  return problem;
}

}  // namespace spire::flow
