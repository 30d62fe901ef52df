// einsum as a composite: repeated indices become diagonals, indices used by one operand alone are
// summed away, and operands are contracted pairwise left to right, each pair mapped onto one batched
// matmul ([batch, free_x, summed] @ [batch, summed, free_y]). It records only primitives, so it
// needs no rules of its own.
#include <algorithm>

#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {

// Index labels: letters in ASCII order ('A'..'Z' then 'a'..'z', so NumPy's implicit output order is
// numeric order), then one label per broadcast dimension of the ellipsis.
constexpr int kEllipsisBase = 52;
using Labels = std::vector<int>;

struct Term {
  Labels letters;       // letter labels in order
  int ellipsis_at = -1;  // position of "..." among the letters, or -1
};

int letter_label(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }

Term parse_term(const std::string& s, const std::string& eq) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      t.letters.push_back(letter_label(c));
    } else if (c == '.') {
      SPIRE_CHECK(s.compare(i, 3, "...") == 0 && t.ellipsis_at < 0, ValueError, "einsum: invalid '.' in '",
                  eq, "': an ellipsis is written '...' and may appear once per operand");
      t.ellipsis_at = int(t.letters.size());
      i += 2;
    } else {
      SPIRE_CHECK(false, ValueError, "einsum: invalid character '", c, "' in '", eq,
                  "'; subscripts are letters a-z, A-Z and '...'");
    }
  }
  return t;
}

// Labels of a term whose ellipsis covers `n_ell` dimensions, the last n_ell of `total_ell`.
Labels expand_term(const Term& t, int n_ell, int total_ell) {
  Labels out;
  for (int i = 0; i <= int(t.letters.size()); ++i) {
    if (i == t.ellipsis_at)
      for (int j = 0; j < n_ell; ++j) out.push_back(kEllipsisBase + total_ell - n_ell + j);
    if (i < int(t.letters.size())) out.push_back(t.letters[i]);
  }
  return out;
}

bool contains(const Labels& l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); }
int64_t index_of(const Labels& l, int x) { return int64_t(std::find(l.begin(), l.end(), x) - l.begin()); }

struct Operand {
  Tensor t;
  Labels labels;
};

// Sums away the axes whose labels are not in `keep`.
void sum_unneeded(Operand& x, const Labels& keep) {
  std::vector<int64_t> axes;
  Labels rest;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (contains(keep, x.labels[i])) rest.push_back(x.labels[i]);
    else axes.push_back(int64_t(i));
  }
  if (axes.empty()) return;
  x.t = sum(x.t, axes);
  x.labels = rest;
}

// Takes diagonals until no label repeats (diagonal moves the merged axis to the end).
void take_diagonals(Operand& x) {
  for (bool again = true; again;) {
    again = false;
    for (size_t p = 0; p < x.labels.size() && !again; ++p)
      for (size_t q = p + 1; q < x.labels.size() && !again; ++q)
        if (x.labels[p] == x.labels[q]) {
          int l = x.labels[p];
          x.t = diagonal(x.t, 0, int64_t(p), int64_t(q));
          x.labels.erase(x.labels.begin() + q);
          x.labels.erase(x.labels.begin() + p);
          x.labels.push_back(l);
          again = true;
        }
  }
}

// One pairwise contraction as a batched matmul; the result keeps only the labels in `needed`.
Operand contract(Operand x, Operand y, const Labels& needed) {
  Labels keep_x = needed, keep_y = needed;
  keep_x.insert(keep_x.end(), y.labels.begin(), y.labels.end());
  keep_y.insert(keep_y.end(), x.labels.begin(), x.labels.end());
  sum_unneeded(x, keep_x);
  sum_unneeded(y, keep_y);

  Labels batch, summed, free_x, free_y;
  for (int l : x.labels) {
    if (!contains(y.labels, l)) free_x.push_back(l);
    else if (contains(needed, l)) batch.push_back(l);
    else summed.push_back(l);
  }
  for (int l : y.labels)
    if (!contains(x.labels, l)) free_y.push_back(l);

  auto arrange = [](const Operand& o, const std::vector<const Labels*>& groups) {
    std::vector<int64_t> perm;
    Shape sizes;
    std::vector<int64_t> group_sizes;
    for (const Labels* g : groups) {
      int64_t n = 1;
      for (int l : *g) {
        int64_t i = index_of(o.labels, l);
        perm.push_back(i);
        n *= o.t.shape(i);
      }
      group_sizes.push_back(n);
    }
    return std::pair{permute(o.t, perm), group_sizes};
  };
  auto [xp, xs] = arrange(x, {&batch, &free_x, &summed});
  auto [yp, ys] = arrange(y, {&batch, &summed, &free_y});

  Shape out_shape;
  for (int l : batch) out_shape.push_back(x.t.shape(index_of(x.labels, l)));
  for (int l : free_x) out_shape.push_back(x.t.shape(index_of(x.labels, l)));
  for (int l : free_y) out_shape.push_back(y.t.shape(index_of(y.labels, l)));

  Shape xm{xs[1], xs[2]}, ym{ys[1], ys[2]};
  if (!batch.empty()) {
    xm.insert(xm.begin(), xs[0]);
    ym.insert(ym.begin(), ys[0]);
  }
  Tensor r = matmul(reshape(xp, xm), reshape(yp, ym));
  Labels labels = batch;
  labels.insert(labels.end(), free_x.begin(), free_x.end());
  labels.insert(labels.end(), free_y.begin(), free_y.end());
  return {reshape(r, out_shape), labels};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  SPIRE_CHECK(!operands.empty(), ValueError, "einsum: no operands given for '", equation, "'");

  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma - start), equation));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  SPIRE_CHECK(terms.size() == operands.size(), ValueError, "einsum: '", equation, "' has ", terms.size(),
              " operand subscripts but ", operands.size(), " operands were given");

  // Dimensions covered by each ellipsis; they broadcast against each other, right-aligned.
  int total_ell = 0;
  std::vector<int> n_ell(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t extra = operands[i].dim() - int64_t(terms[i].letters.size());
    bool ok = terms[i].ellipsis_at >= 0 ? extra >= 0 : extra == 0;
    SPIRE_CHECK(ok, ShapeError, "einsum: operand ", i, " has shape ", shape_str(operands[i].shape()), " (",
                operands[i].dim(), " dimensions) but its subscripts in '", equation, "' name ",
                terms[i].letters.size(), terms[i].ellipsis_at >= 0 ? " or more" : "");
    n_ell[i] = int(std::max<int64_t>(extra, 0));
    total_ell = std::max(total_ell, n_ell[i]);
  }

  std::vector<Operand> ops(operands.size());
  DType dtype = operands[0].dtype();
  for (auto& t : operands) dtype = promote(dtype, t.dtype());
  for (size_t i = 0; i < ops.size(); ++i)
    ops[i] = {cast(operands[i], dtype), expand_term(terms[i], n_ell[i], total_ell)};

  // The size of each label; a size-1 occurrence broadcasts (as in NumPy) and is squeezed away.
  std::vector<int64_t> size(kEllipsisBase + total_ell, -1);  // -1: not seen yet
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t d = 0; d < ops[i].labels.size(); ++d) {
      int64_t n = ops[i].t.shape(int64_t(d));
      int64_t& s = size[ops[i].labels[d]];
      SPIRE_CHECK(s < 0 || n == s || n == 1 || s == 1, ShapeError, "einsum: in '", equation,
                  "' a subscript has size ", s, " in one place and ", n, " in operand ", i, " (shape ",
                  shape_str(ops[i].t.shape()), ")");
      if (s < 0 || s == 1) s = n;
    }
  for (auto& o : ops) {
    Shape s;
    Labels l;
    for (size_t d = 0; d < o.labels.size(); ++d)
      if (!(o.t.shape(int64_t(d)) == 1 && size[o.labels[d]] != 1)) {
        s.push_back(o.t.shape(int64_t(d)));
        l.push_back(o.labels[d]);
      }
    if (l.size() != o.labels.size()) {
      o.t = reshape(o.t, s);
      o.labels = l;
    }
  }

  // Output labels: explicit, or NumPy's implicit form (the ellipsis, then letters used once, sorted).
  Labels out;
  if (arrow != std::string::npos) {
    Term t = parse_term(eq.substr(arrow + 2), equation);
    // Without "..." in the output, the broadcast dimensions are summed.
    out = expand_term(t, t.ellipsis_at >= 0 ? total_ell : 0, total_ell);
    for (size_t i = 0; i < out.size(); ++i) {
      SPIRE_CHECK(std::count(out.begin(), out.end(), out[i]) == 1, ValueError, "einsum: output subscript '",
                  char(out[i] < 26 ? 'A' + out[i] : 'a' + out[i] - 26), "' repeats in '", equation, "'");
      bool found = false;
      for (auto& term : terms) found |= contains(term.letters, out[i]);
      SPIRE_CHECK(out[i] >= kEllipsisBase || found, ValueError, "einsum: output subscript '",
                  char(out[i] < 26 ? 'A' + out[i] : 'a' + out[i] - 26), "' does not appear in the operands of '",
                  equation, "'");
    }
  } else {
    for (int j = 0; j < total_ell; ++j) out.push_back(kEllipsisBase + j);
    std::vector<int> count(kEllipsisBase, 0);
    for (auto& term : terms)
      for (int l : term.letters) ++count[l];
    for (int l = 0; l < kEllipsisBase; ++l)
      if (count[l] == 1) out.push_back(l);
  }

  for (auto& o : ops) take_diagonals(o);
  // Labels that one operand alone carries and the output drops are summed right away.
  for (size_t i = 0; i < ops.size(); ++i) {
    Labels keep = out;
    for (size_t j = 0; j < ops.size(); ++j)
      if (j != i) keep.insert(keep.end(), ops[j].labels.begin(), ops[j].labels.end());
    sum_unneeded(ops[i], keep);
  }

  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    Labels needed = out;
    for (size_t j = i + 1; j < ops.size(); ++j)
      needed.insert(needed.end(), ops[j].labels.begin(), ops[j].labels.end());
    acc = contract(acc, ops[i], needed);
  }
  sum_unneeded(acc, out);

  // Output labels missing from the result were broadcast (size 1 everywhere they appeared).
  std::vector<int64_t> perm;
  Shape shape;
  for (int l : out) {
    shape.push_back(contains(acc.labels, l) ? size[l] : 1);
    if (contains(acc.labels, l)) perm.push_back(index_of(acc.labels, l));
  }
  Tensor r = permute(acc.t, perm);
  return r.shape() == shape ? r : reshape(r, shape);
}

}  // namespace spire
