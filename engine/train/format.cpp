#include "engine/train/format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "engine/core/error.h"
#include "engine/train/logs.h"

namespace spire::train {

std::string python_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  // Python writes fixed notation for decimal exponents in [-4, 16), scientific otherwise; the
  // shortest digits are the same either way.
  size_t e = sci.find('e');
  int exp = std::stoi(sci.substr(e + 1));
  if (exp < -4 || exp >= 16) return sci;
  std::string sign = sci[0] == '-' ? "-" : "";
  std::string digits;
  for (size_t i = sign.size(); i < e; ++i)
    if (sci[i] != '.') digits += sci[i];
  std::string out;
  if (exp >= 0) {
    if (int(digits.size()) <= exp + 1) {
      out = digits + std::string(size_t(exp + 1 - int(digits.size())), '0') + ".0";
    } else {
      out = digits.substr(0, size_t(exp + 1)) + "." + digits.substr(size_t(exp + 1));
    }
  } else {
    out = "0." + std::string(size_t(-exp - 1), '0') + digits;
  }
  return sign + out;
}

std::string printf_double(const char* format, double value) {
  char buf[128];
  int n = std::snprintf(buf, sizeof buf, format, value);
  if (n < int(sizeof buf)) return std::string(buf, size_t(std::max(n, 0)));
  std::string s(size_t(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), format, value);
  s.resize(size_t(n));
  return s;
}

namespace {

struct Spec {
  char fill = ' ', align = 0, sign = '-', type = 0;
  bool zero = false;
  int width = -1, precision = -1;
};

Spec parse_spec(const std::string& s, const std::string& field) {
  Spec p;
  size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (s.size() >= 2 && is_align(s[1])) {
    p.fill = s[0];
    p.align = s[1];
    i = 2;
  } else if (!s.empty() && is_align(s[0])) {
    p.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) p.sign = s[i++];
  if (i < s.size() && s[i] == '0') {
    p.zero = true;
    ++i;
  }
  auto number = [&]() {
    int v = 0;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
    return i > start ? v : -1;
  };
  p.width = number();
  if (i < s.size() && s[i] == '.') {
    ++i;
    p.precision = number();
    SPIRE_CHECK(p.precision >= 0, ValueError, "format: field '", field, "': '.' needs a precision in spec '", s, "'");
  }
  if (i < s.size() && std::string("dfFeEgG%").find(s[i]) != std::string::npos) p.type = s[i++];
  SPIRE_CHECK(i == s.size(), ValueError, "format: field '", field, "' has a spec '", s,
              "' this formatter cannot read; allowed: [[fill]align][sign][0][width][.precision][type] with "
              "type one of d f F e E g G %");
  return p;
}

std::string apply_width(std::string body, const Spec& p, bool numeric) {
  if (p.width < 0 || int(body.size()) >= p.width) return body;
  size_t pad = size_t(p.width) - body.size();
  char align = p.align ? p.align : (p.zero ? '=' : numeric ? '>' : '<');
  char fill = p.align ? p.fill : (p.zero ? '0' : ' ');
  if (align == '<') return body + std::string(pad, fill);
  if (align == '^') return std::string(pad / 2, fill) + body + std::string(pad - pad / 2, fill);
  if (align == '=') {  // padding after the sign
    size_t s = (!body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' ')) ? 1 : 0;
    return body.substr(0, s) + std::string(pad, fill) + body.substr(s);
  }
  return std::string(pad, fill) + body;
}

std::string format_value(const FieldValue& value, const Spec& p, const std::string& field) {
  std::string body;
  const bool is_int = std::holds_alternative<int64_t>(value);
  if (is_int && (p.type == 0 || p.type == 'd')) {
    SPIRE_CHECK(p.precision < 0, ValueError, "format: field '", field, "': precision not allowed for an integer");
    body = std::to_string(std::get<int64_t>(value));
  } else {
    SPIRE_CHECK(p.type != 'd', ValueError, "format: field '", field, "' is a real number; the type 'd' is for integers");
    double v = is_int ? double(std::get<int64_t>(value)) : std::get<double>(value);
    if (p.type == 0 && p.precision < 0) {
      body = is_int ? std::to_string(std::get<int64_t>(value)) : python_repr(v);
    } else if (p.type == '%') {
      body = printf_double(("%." + std::to_string(p.precision < 0 ? 6 : p.precision) + "f").c_str(), v * 100) + "%";
    } else {
      char t = p.type ? p.type : 'g';
      int prec = p.precision < 0 ? 6 : p.precision;
      body = printf_double(("%." + std::to_string(prec) + t).c_str(), v);
    }
  }
  if (p.sign != '-' && !body.empty() && body[0] != '-') body = std::string(1, p.sign) + body;
  return apply_width(body, p, true);
}

}  // namespace

std::string format_fields(const std::string& pattern, const Fields& fields) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '}') {
      SPIRE_CHECK(i + 1 < pattern.size() && pattern[i + 1] == '}', ValueError, "format: single '}' in '", pattern,
                  "' (write '}}' for a brace)");
      out += '}';
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    size_t close = pattern.find('}', i);
    SPIRE_CHECK(close != std::string::npos, ValueError, "format: unmatched '{' in '", pattern, "'");
    std::string inner = pattern.substr(i + 1, close - i - 1);
    size_t colon = inner.find(':');
    std::string name = inner.substr(0, colon), spec = colon == std::string::npos ? "" : inner.substr(colon + 1);
    SPIRE_CHECK(!name.empty(), ValueError, "format: '", pattern, "' has a positional field {}; name it, e.g. {epoch}");
    const FieldValue* value = nullptr;
    for (const auto& [k, v] : fields)
      if (k == name) value = &v;
    if (!value) {
      std::string have;
      for (const auto& [k, v] : fields) have += (have.empty() ? "" : ", ") + k;
      throw MissingKeyError("format: '" + pattern + "' names '" + name + "', which is not among: " + have);
    }
    out += format_value(*value, parse_spec(spec, name), name);
    i = close;
  }
  return out;
}

}  // namespace spire::train
