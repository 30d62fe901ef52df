// explain: the split as the user reads it (`spire pde solve --explain`), so that a term landing on
// the explicit side (and so limiting the time step) is visible before a long run.
#include <sstream>

#include "science/flow/problem.h"

namespace spire::flow {

namespace {

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

std::string operand(const Problem& p, const LinearTerm& t, bool mass) {
  ExprPtr e = field(p.fields[t.field], t.field);
  for (int i = 0; i < t.dy; ++i) e = diff(1, e);
  for (int i = 0; i < t.dx; ++i) e = diff(0, e);
  if (mass) e = diff(2, e);
  return to_string(*e);
}

std::string terms_text(const Problem& p, const std::vector<LinearTerm>& terms, bool mass) {
  if (terms.empty()) return "0";
  std::string s;
  for (size_t i = 0; i < terms.size(); ++i) {
    double c = terms[i].coefficient;
    double m = i == 0 ? c : std::abs(c);
    if (i > 0) s += c < 0 ? " - " : " + ";
    if (m == -1) s += "-";
    else if (m != 1) s += number_text(m) + "*";
    s += operand(p, terms[i], mass);
  }
  return s;
}

std::string padded(const std::string& line, const char* note) {
  const size_t width = 37;
  return line + std::string(line.size() + 2 > width ? 2 : width - line.size(), ' ') + note + "\n";
}

}  // namespace

std::string explain(const Problem& problem) {
  std::string s;
  for (size_t i = 0; i < problem.equations.size(); ++i) {
    const Equation& eq = problem.equations[i];
    s += "equation " + std::to_string(i + 1) + " (" + (eq.mass.empty() ? "determines " : "evolves ") +
         problem.fields[eq.field] + "): " + eq.text + "\n";
    s += "  M: " + terms_text(problem, eq.mass, true) + "\n";
    s += padded("  L: " + terms_text(problem, eq.linear, false), "(implicit)");
    s += padded("  F: " + (eq.rhs ? to_string(*eq.rhs) : std::string("0")), "(explicit)");
  }
  if (!problem.bcs.empty()) s += "boundary conditions:\n";
  for (const auto& bc : problem.bcs) {
    const std::string& u = problem.fields[bc.field];
    std::string lhs = bc.kind == BoundaryKind::Dirichlet ? u
                      : bc.kind == BoundaryKind::Neumann ? "dx(" + u + ")"
                      : number_text(bc.a) + "*" + u + " + " + number_text(bc.b) + "*dx(" + u + ")";
    s += "  " + u + " at " + (bc.side == 0 ? "left" : "right") + ": " + lhs + " = " +
         (bc.g ? to_string(*bc.g) : std::string("0")) + "\n";
  }
  return s;
}

}  // namespace spire::flow
