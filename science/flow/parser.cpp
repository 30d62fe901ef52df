// A hand-written recursive-descent parser: one function per precedence level, every node carrying
// the span of the text it came from so that later stages (the splitter) can point at it too.
#include "science/flow/parser.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/flow/lexer.h"
#include "science/flow/parse_detail.h"

namespace spire::flow {

namespace detail {
namespace {

const std::vector<std::string>& operators() {
  static const std::vector<std::string> names{"dt", "dx", "dy", "laplacian"};
  return names;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

ExprPtr with_span(Expr e, const Span& span) {
  e.span = span;
  return std::make_shared<const Expr>(std::move(e));
}

// A copy of a coefficient's tree whose spans all point at the name that stands for it, so a
// message about any part of it shows where the user wrote the name.
ExprPtr relocate(const ExprPtr& e, const Span& span) {
  Expr copy = *e;
  copy.span = span;
  for (auto& a : copy.args) a = relocate(a, span);
  return std::make_shared<const Expr>(std::move(copy));
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& where, const Scope& scope, const ParseOptions& options)
      : text_(text), where_(where), scope_(scope), options_(options), tokens_(lex(text, where, options.begin)) {}

  ExprPtr run() {
    const char* what = options_.equation ? "equation" : "expression";
    if (peek().kind == Token::End) fail(peek().span, std::string("empty ") + what);
    ExprPtr lhs = sum();
    if (!options_.equation) {
      if (symbol("=")) fail(peek().span, "'=' in an expression (only equations have one)");
      expect_end();
      return lhs;
    }
    if (peek().kind == Token::End) fail(peek().span, "expected '=' in the equation (lhs = rhs)");
    if (!symbol("=")) trailing();
    Lexeme eq = next();
    ExprPtr rhs = sum();
    if (symbol("=")) fail(peek().span, "a second '='; an equation has exactly one");
    expect_end();
    Expr e;
    e.op = Op::Sub;
    e.args = {lhs, rhs};
    return with_span(std::move(e), eq.span);
  }

 private:
  const Lexeme& peek() const { return tokens_[pos_]; }
  Lexeme next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool symbol(const char* s) const { return peek().kind == Token::Symbol && peek().text == s; }

  [[noreturn]] void fail(const Span& span, const std::string& message) const {
    throw ParseError(located_message(where_, text_, span, message));
  }
  [[noreturn]] void unknown(const Span& span, const std::string& message) const {
    throw ConfigError(located_message(where_, text_, span, message));
  }

  static std::string describe(const Lexeme& t) {
    return t.kind == Token::End ? "the end" : "'" + t.text + "'";
  }

  void expect_end() {
    if (peek().kind != Token::End) trailing();
  }
  [[noreturn]] void trailing() {
    const Lexeme& t = peek();
    if (t.kind == Token::Symbol && t.text == ")") fail(t.span, "unmatched ')'");
    // "2u", "2(u + 1)", "u v": a product without its '*'.
    const Lexeme& before = tokens_[pos_ > 0 ? pos_ - 1 : 0];
    bool operand_before = before.kind == Token::Number || before.kind == Token::Name ||
                          (before.kind == Token::Symbol && before.text == ")");
    if (pos_ > 0 && operand_before && (t.kind == Token::Name || t.kind == Token::Number || t.text == "("))
      fail(t.span, "expected an operator between '" + before.text + "' and '" + t.text + "' (a product needs '*': " +
                       before.text + "*" + t.text + ")");
    fail(t.span, "unexpected " + describe(t) + "; expected an operator (+ - * / ^) or the end");
  }

  ExprPtr make(Op op, std::vector<ExprPtr> args, const Span& span) const {
    Expr e;
    e.op = op;
    e.args = std::move(args);
    return with_span(std::move(e), span);
  }

  ExprPtr sum() {
    ExprPtr left = product();
    while (symbol("+") || symbol("-")) {
      Op op = next().text == "+" ? Op::Add : Op::Sub;
      ExprPtr right = product();
      left = make(op, {left, right}, cover(left->span, right->span));
    }
    return left;
  }

  ExprPtr product() {
    ExprPtr left = unary_minus();
    while (symbol("*") || symbol("/")) {
      Op op = next().text == "*" ? Op::Mul : Op::Div;
      ExprPtr right = unary_minus();
      left = make(op, {left, right}, cover(left->span, right->span));
    }
    return left;
  }

  // '-' binds looser than '^' (-u^2 is -(u^2)); a minus on a number literal becomes a negative
  // number, as to_string writes one.
  ExprPtr unary_minus() {
    if (symbol("+")) {
      next();
      return unary_minus();
    }
    if (!symbol("-")) return power();
    Lexeme minus = next();
    ExprPtr a = unary_minus();
    Span span = cover(minus.span, a->span);
    // -(-2) stays a negation (to_string writes Neg(Number(-2)) so); -2, --2 and -(2) fold.
    bool keep = a->op != Op::Number || (parenthesized_ && a->value < 0);
    parenthesized_ = false;
    if (!keep) {
      Expr n = *a;
      n.value = -n.value;
      return with_span(std::move(n), span);
    }
    return make(Op::Neg, {a}, span);
  }

  ExprPtr power() {
    ExprPtr base = primary();
    if (!symbol("^")) return base;
    next();
    parenthesized_ = false;
    ExprPtr exponent = unary_minus();  // right-associative: 2^3^2 = 2^(3^2); 2^-1 allowed
    return make(Op::Pow, {base, exponent}, cover(base->span, exponent->span));
  }

  ExprPtr primary() {
    parenthesized_ = false;
    Lexeme t = next();
    if (t.kind == Token::Number) {
      Expr e;
      e.value = t.value;
      return with_span(std::move(e), t.span);
    }
    if (t.kind == Token::Symbol && t.text == "(") {
      if (symbol(")")) fail(peek().span, "empty parentheses");
      ExprPtr inner = sum();
      if (!symbol(")"))
        fail(peek().span, "expected ')' to close the '(' at " + std::to_string(t.span.line) + ":" +
                              std::to_string(t.span.column) + ", found " + describe(peek()));
      Lexeme close = next();
      parenthesized_ = true;
      return with_span(Expr(*inner), cover(t.span, close.span));  // the span takes in the parentheses
    }
    if (t.kind == Token::Name) return symbol("(") ? call(t) : name(t);
    fail(t.span, "expected an expression, found " + describe(t));
  }

  ExprPtr call(const Lexeme& name) {
    next();  // '('
    std::vector<ExprPtr> args;
    if (!symbol(")")) {
      args.push_back(sum());
      while (symbol(",")) {
        next();
        args.push_back(sum());
      }
    }
    if (!symbol(")"))
      fail(peek().span, "expected ')' after the argument of " + name.text + ", found " + describe(peek()));
    Lexeme close = next();
    Span span = cover(name.span, close.span);
    const std::string& n = name.text;
    bool is_operator = contains(operators(), n), is_function = contains(functions(), n);
    if (!is_operator && !is_function) {
      if (resolves(n)) fail(name.span, "'" + n + "' is not a function; functions: " + join(functions()) +
                                           "; operators: " + join(allowed_operators()));
      if (!options_.lenient)
        unknown(name.span, "unknown function '" + n + "'; functions: " + join(functions()) +
                               "; operators: " + join(allowed_operators()));
    }
    if (args.size() != 1)
      fail(span, n + " takes 1 argument, got " + std::to_string(args.size()));
    if (!is_operator) {
      Expr e;
      e.op = Op::Call;
      e.name = n;
      e.args = std::move(args);
      return with_span(std::move(e), span);
    }
    if (!scope_.derivatives)
      unknown(name.span, n + " is not allowed here: derivatives appear only in equations");
    if ((n == "dy") && !scope_.y) unknown(name.span, "dy needs a y axis; this problem has x only");
    if (n == "laplacian") return make(Op::Laplacian, {args[0]}, span);
    Expr e;
    e.op = Op::Diff;
    e.index = n == "dx" ? 0 : n == "dy" ? 1 : 2;
    e.args = std::move(args);
    return with_span(std::move(e), span);
  }

  // Whether a plain name means something in this scope (field, parameter, coefficient, coordinate
  // or constant).
  bool resolves(const std::string& n) const {
    return contains(scope_.fields, n) || scope_.parameters.count(n) || scope_.coefficients.count(n) ||
           contains(coordinates(), n) || n == "pi" || n == "e";
  }

  ExprPtr name(const Lexeme& t) {
    const std::string& n = t.text;
    auto f = std::find(scope_.fields.begin(), scope_.fields.end(), n);
    if (f != scope_.fields.end()) {
      Expr e;
      e.op = Op::Field;
      e.name = n;
      e.index = int(f - scope_.fields.begin());
      return with_span(std::move(e), t.span);
    }
    if (scope_.parameters.count(n)) {
      Expr e;
      e.op = Op::Parameter;
      e.name = n;
      return with_span(std::move(e), t.span);
    }
    if (auto c = scope_.coefficients.find(n); c != scope_.coefficients.end()) return relocate(c->second, t.span);
    if (contains(coordinates(), n)) {
      Expr e;
      e.op = Op::Coordinate;
      e.name = n;
      e.index = n == "x" ? 0 : n == "y" ? 1 : 2;
      return with_span(std::move(e), t.span);
    }
    if (n == "pi" || n == "e") {
      Expr e;
      e.value = n == "pi" ? std::numbers::pi : std::numbers::e;
      return with_span(std::move(e), t.span);
    }
    if (contains(functions(), n) || contains(operators(), n)) fail(t.span, "expected '(' after " + n);
    if (options_.lenient) {
      Expr e;
      e.op = Op::Field;
      e.name = n;
      return with_span(std::move(e), t.span);
    }
    if (n == "x" || n == "y" || n == "t")
      unknown(t.span, "the coordinate " + n + " may not appear here; " + allowed());
    unknown(t.span, "unknown name '" + n + "'; " + allowed());
  }

  std::vector<std::string> coordinates() const {
    std::vector<std::string> c;
    if (scope_.x) c.push_back("x");
    if (scope_.y) c.push_back("y");
    if (scope_.t) c.push_back("t");
    return c;
  }

  std::vector<std::string> allowed_operators() const {
    if (!scope_.derivatives) return {"(none here)"};
    std::vector<std::string> ops{"dt", "dx"};
    if (scope_.y) ops.push_back("dy");
    ops.push_back("laplacian");
    return ops;
  }

  // What a name may be here, for the message about one that is none of these.
  std::string allowed() const {
    auto keys = [](const auto& map) {
      std::vector<std::string> k;
      for (const auto& [name, value] : map) k.push_back(name);
      return k;
    };
    auto group = [](const char* what, const std::vector<std::string>& names) {
      return std::string(what) + ": " + (names.empty() ? std::string("(none)") : join(names));
    };
    std::string s = group("fields", scope_.fields) + "; " + group("parameters", keys(scope_.parameters));
    if (!scope_.coefficients.empty()) s += "; " + group("coefficients", keys(scope_.coefficients));
    s += "; " + group("coordinates", coordinates()) + "; constants: pi, e; " + group("functions", functions());
    s += "; " + group("operators", allowed_operators());
    return s;
  }

  static std::string join(const std::vector<std::string>& v) { return spire::detail::join(v); }

  const std::string& text_;
  const std::string& where_;
  const Scope& scope_;
  ParseOptions options_;
  std::vector<Lexeme> tokens_;
  size_t pos_ = 0;
  bool parenthesized_ = false;  // whether the last primary was (...), for folding a minus into a number
};

}  // namespace

ExprPtr parse(const std::string& text, const std::string& where, const Scope& scope, const ParseOptions& options) {
  return Parser(text, where, scope, options).run();
}

bool reserved(const std::string& name) {
  return contains(functions(), name) || contains(operators(), name) || name == "x" || name == "y" ||
         name == "t" || name == "pi" || name == "e";
}

}  // namespace detail

ExprPtr parse_expression(const std::string& text, const std::string& where, const Scope& scope) {
  return detail::parse(text, where, scope, {});
}

ExprPtr parse_equation(const std::string& text, const std::string& where, const Scope& scope) {
  detail::ParseOptions options;
  options.equation = true;
  return detail::parse(text, where, scope, options);
}

std::vector<std::string> evolved_names(const std::string& text, const std::string& where) {
  Scope scope;
  scope.y = true;
  detail::ParseOptions options;
  options.equation = true;
  options.lenient = true;
  ExprPtr e = detail::parse(text, where, scope, options);
  std::vector<std::string> names;
  detail::visit(*e, [&](const Expr& n) {
    if (n.op != Op::Diff || n.index != 2) return;
    detail::visit(*n.args[0], [&](const Expr& m) {
      if (m.op == Op::Field && std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
    });
  });
  return names;
}

std::string located_message(const std::string& where, const std::string& text, const Span& span,
                            const std::string& message) {
  std::string line;
  size_t start = 0;
  for (int l = 1; l < span.line && start != std::string::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start != std::string::npos && start <= text.size()) {
    size_t end = text.find('\n', start);
    line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
  }
  // The caret line copies the source's tabs so that the caret stays under its column.
  std::string pad;
  for (int c = 1; c < span.column; ++c) pad += (c - 1 < int(line.size()) && line[c - 1] == '\t') ? '\t' : ' ';
  int room = std::max(1, int(line.size()) - (span.column - 1));
  int length = std::clamp(span.length, 1, room);
  return spire::detail::cat(where, ":", span.line, ":", span.column, ": ", message, "\n  ", line, "\n  ", pad,
                            "^", std::string(length - 1, '~'));
}

}  // namespace spire::flow
