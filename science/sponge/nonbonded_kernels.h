// The pair kernel's row packing and row kernels, written once for eight double lanes and
// included twice by nonbonded.cpp: inside namespace nonbonded_avx2 with Simd = Avx2, and inside
// nonbonded_avx512 with Simd = Avx512 under GCC's target pragma (nonbonded_simd.h). No include
// guard, on purpose; it needs the types nonbonded.cpp defines before including it.
//
// Lanes. A row's packed pairs (those inside the cutoff, ascending j) are taken eight at a time,
// so a pair's lane is its rank in the packed row modulo 8, in both instruction sets.

// Row i's partners nb[0 .. m) inside the cutoff, in order, into p; returns how many. Eight padding
// pairs follow them: partner i itself (its loads stay valid, its zero force lands on i's own
// slot), d = 0, q = 0 and r^2 a quarter of the cutoff's (every function of r stays finite).
template <Shape S>
int64_t pack_row(const Context& c, int32_t i, const int32_t* nb, int64_t m, const Packed& p) {
  using D = Simd::D;
  double *const px = p.dx, *const py = p.dy, *const pz = p.dz, *const pr2 = p.r2, *const pq = p.q;
  int32_t* const pj = p.j4;
  const double* xyzq = c.xyzq;
  const D xi = Simd::set1(xyzq[4 * int64_t(i)]), yi = Simd::set1(xyzq[4 * int64_t(i) + 1]),
          zi = Simd::set1(xyzq[4 * int64_t(i) + 2]);
  const D cut = Simd::set1(c.rc2);
  const D ax = Simd::set1(c.image.ax), bx = Simd::set1(c.image.bx), by = Simd::set1(c.image.by);
  const D cx = Simd::set1(c.image.cx), cy = Simd::set1(c.image.cy), cz = Simd::set1(c.image.cz);
  const D iax = Simd::set1(c.image.iax), iby = Simd::set1(c.image.iby), icz = Simd::set1(c.image.icz);
  int64_t count = 0;
  auto group = [&](Simd::I j, unsigned valid) {
    const Simd::I j4 = Simd::times4(j);
    alignas(32) int32_t offset[8];
    Simd::store_i(offset, j4);
    D x, y, z, q;
    Simd::load_rows(xyzq, offset, x, y, z, q);
    D dx = Simd::sub(x, xi), dy = Simd::sub(y, yi), dz = Simd::sub(z, zi);
    // Minimum image as Box::min_image: c, then b, then a, each by rounding the one fractional
    // coordinate it alone moves.
    if constexpr (S == Shape::orthorhombic) {
      dx = Simd::fnmadd(ax, Simd::round(Simd::mul(dx, iax)), dx);
      dy = Simd::fnmadd(by, Simd::round(Simd::mul(dy, iby)), dy);
      dz = Simd::fnmadd(cz, Simd::round(Simd::mul(dz, icz)), dz);
    } else if constexpr (S == Shape::triclinic) {
      const D n3 = Simd::round(Simd::mul(dz, icz));
      dx = Simd::fnmadd(n3, cx, dx), dy = Simd::fnmadd(n3, cy, dy), dz = Simd::fnmadd(n3, cz, dz);
      const D n2 = Simd::round(Simd::mul(dy, iby));
      dx = Simd::fnmadd(n2, bx, dx), dy = Simd::fnmadd(n2, by, dy);
      dx = Simd::fnmadd(ax, Simd::round(Simd::mul(dx, iax)), dx);
    }
    const D r2 = Simd::fmadd(dx, dx, Simd::fmadd(dy, dy, Simd::mul(dz, dz)));
    const unsigned bits = Simd::less(r2, cut) & valid;
    Simd::append(px + count, dx, bits);
    Simd::append(py + count, dy, bits);
    Simd::append(pz + count, dz, bits);
    Simd::append(pr2 + count, r2, bits);
    Simd::append(pq + count, q, bits);
    Simd::append(pj + count, j4, bits);
    count += std::popcount(bits);
  };
  int64_t t = 0;
  for (; t + 8 <= m; t += 8) group(Simd::load_i(nb + t), 0xFF);
  // The last partners, read as a whole vector (rows are followed by at least 16 readable
  // entries), the lanes past the row made particle i.
  if (t < m) group(Simd::first_or(Simd::load_i(nb + t), m - t, i), (1u << (m - t)) - 1);
  const D zero = Simd::zero();
  Simd::store_unaligned(px + count, zero), Simd::store_unaligned(py + count, zero);
  Simd::store_unaligned(pz + count, zero), Simd::store_unaligned(pq + count, zero);
  Simd::store_unaligned(pr2 + count, Simd::set1(0.25 * c.rc2));
  Simd::store_i(pj + count, Simd::set1_i(4 * i));
  return count;
}

// The packed pairs of row i, eight at a time. `window` is the block's window, slot p at
// window[4 p]: forces on the partners go there pair by pair, the row's own at the end.
template <Coul C, LJ L, bool kOneType>
void row_kernel(const Context& c, int64_t i, const Packed& p, int64_t count, double* window, BlockLanes& lanes) {
  using D = Simd::D;
  const D zero = Simd::zero(), one = Simd::set1(1.0);
  D fix = zero, fiy = zero, fiz = zero, ec = zero, elj = zero;
  D w0 = zero, w1 = zero, w2 = zero, w3 = zero, w4 = zero, w5 = zero;
  const D kqi = Simd::set1(C != Coul::none ? c.prefactor * c.charge[i] : 0.0);
  const D inv_h = Simd::set1(c.inverse_spacing), two_inv_h = Simd::set1(2 * c.inverse_spacing);
  const D k_rf = Simd::set1(c.k_rf), c_rf = Simd::set1(c.c_rf);
  const D two = Simd::set1(2.0), six = Simd::set1(6.0), twelve = Simd::set1(12.0);
  const double* lj_row = c.table + (kOneType ? 0 : int64_t(c.type4[i]) * c.ntypes);
  D c12 = zero, c6 = zero, shift = zero;
  if constexpr (L != LJ::none && kOneType)
    c12 = Simd::set1(c.table[0]), c6 = Simd::set1(c.table[1]), shift = Simd::set1(c.table[2]);
  const double *const px = p.dx, *const py = p.dy, *const pz = p.dz, *const pr2 = p.r2, *const pq = p.q;
  const int32_t* const pj = p.j4;
  for (int64_t u = 0; u < count; u += 8) {
    const D dx = Simd::load(px + u), dy = Simd::load(py + u), dz = Simd::load(pz + u), r2 = Simd::load(pr2 + u);
    const int32_t* j4 = pj + u;
    D fs = zero, r = zero, inv_r = zero;
    if constexpr (C != Coul::none) {
      r = Simd::sqrt(r2);
      inv_r = Simd::div(one, r);
      const D kqq = Simd::mul(kqi, Simd::load(pq + u));
      if constexpr (C == Coul::ewald) {
        // g(u) = erf(alpha r)/r from the spline in u = r^2: interval k, t = u/h - k in [0, 1].
        const D x = Simd::mul(r2, inv_h);
        const Simd::I k = Simd::truncate(x, c.last_interval);
        const D t = Simd::sub(x, Simd::to_double(k));
        alignas(32) int32_t offset[8];
        Simd::store_i(offset, Simd::times4(k));
        D c0, c1, c2, c3;
        Simd::load_rows(c.spline, offset, c0, c1, c2, c3);
        // Horner for g = c0 + t (c1 + t (c2 + t c3)), and its t-derivative from the same partial
        // sums: with a = c2 + t c3 and b = c1 + t a, g = c0 + t b and dg/dt = b + t (a + t c3).
        const D a = Simd::fmadd(c3, t, c2), b = Simd::fmadd(a, t, c1);
        const D g = Simd::fmadd(b, t, c0);
        const D dg_dt = Simd::fmadd(Simd::fmadd(c3, t, a), t, b);
        // E = k q q (1/r - g), -dE/dr / r = k q q (1/r^3 + 2 dg/du) with dg/du = dg/dt / h.
        ec = Simd::fmadd(kqq, Simd::sub(inv_r, g), ec);
        fs = Simd::mul(kqq, Simd::fmadd(two_inv_h, dg_dt, Simd::mul(Simd::mul(inv_r, inv_r), inv_r)));
      } else {
        // 1/r + k_rf r^2 - c_rf; -dE/dr / r = 1/r^3 - 2 k_rf
        const D e = Simd::sub(Simd::fmadd(k_rf, r2, inv_r), c_rf);
        const D s = Simd::fnmadd(two, k_rf, Simd::mul(Simd::mul(inv_r, inv_r), inv_r));
        ec = Simd::fmadd(kqq, e, ec);
        fs = Simd::mul(kqq, s);
      }
    }
    if constexpr (L != LJ::none) {
      if constexpr (!kOneType) {
        alignas(32) int32_t offset[8];
        for (int l = 0; l < 8; ++l) offset[l] = c.type4[j4[l] >> 2];
        D unused;
        Simd::load_rows(lj_row, offset, c12, c6, shift, unused);
      }
      const D r2inv = C != Coul::none ? Simd::mul(inv_r, inv_r) : Simd::div(one, r2);
      const D r6inv = Simd::mul(Simd::mul(r2inv, r2inv), r2inv);
      D fr = Simd::mul(Simd::mul(r6inv, Simd::fmsub(Simd::mul(twelve, c12), r6inv, Simd::mul(six, c6))), r2inv);
      D u6 = Simd::sub(Simd::mul(r6inv, Simd::fmsub(c12, r6inv, c6)), shift);
      if constexpr (L == LJ::switched) {
        const D rr = C != Coul::none ? r : Simd::sqrt(r2);
        const D ir = C != Coul::none ? inv_r : Simd::div(one, rr);
        const D t = Simd::max(Simd::sub(rr, Simd::set1(c.switch_distance)), zero);
        const D t2 = Simd::mul(t, t), t3 = Simd::mul(t2, t), t4 = Simd::mul(t3, t);
        const D f12 = Simd::fmadd(Simd::set1(c.a12), t2, Simd::mul(Simd::set1(c.b12), t3));
        const D f6 = Simd::fmadd(Simd::set1(c.a6), t2, Simd::mul(Simd::set1(c.b6), t3));
        fr = Simd::fmadd(Simd::fmsub(c12, f12, Simd::mul(c6, f6)), ir, fr);
        const D u12 = Simd::fmadd(Simd::set1(c.a12 / 3), t3, Simd::mul(Simd::set1(c.b12 / 4), t4));
        const D u6s = Simd::fmadd(Simd::set1(c.a6 / 3), t3, Simd::mul(Simd::set1(c.b6 / 4), t4));
        u6 = Simd::sub(u6, Simd::fmsub(c12, u12, Simd::mul(c6, u6s)));
      }
      // The padding pairs past the row's end carry no charge and d = 0, so every other sum gets
      // exact zeros from them; the Lennard-Jones energy alone needs masking.
      elj = Simd::add(elj, Simd::first(u6, count - u));
      fs = C != Coul::none ? Simd::add(fs, fr) : fr;
    }
    const D fx = Simd::mul(fs, dx), fy = Simd::mul(fs, dy), fz = Simd::mul(fs, dz);
    fix = Simd::add(fix, fx), fiy = Simd::add(fiy, fy), fiz = Simd::add(fiz, fz);
    w0 = Simd::fmadd(fx, dx, w0), w1 = Simd::fmadd(fx, dy, w1), w2 = Simd::fmadd(fx, dz, w2);
    w3 = Simd::fmadd(fy, dy, w3), w4 = Simd::fmadd(fy, dz, w4), w5 = Simd::fmadd(fz, dz, w5);
    Simd::add_rows(window, j4, fx, fy, fz);
  }
  double* si = window + 4 * i;
  si[0] -= Simd::sum(fix), si[1] -= Simd::sum(fiy), si[2] -= Simd::sum(fiz);
  Simd::store(lanes.coulomb, Simd::add(Simd::load(lanes.coulomb), ec));
  Simd::store(lanes.lj, Simd::add(Simd::load(lanes.lj), elj));
  const D w[6] = {w0, w1, w2, w3, w4, w5};
  for (int k = 0; k < 6; ++k) Simd::store(lanes.w[k], Simd::add(Simd::load(lanes.w[k]), w[k]));
}

template <Coul C>
RowKernel pick_for(LJ l, bool one_type) {
  switch (l) {
    case LJ::none: return C == Coul::none ? nullptr : &row_kernel<C, LJ::none, true>;
    case LJ::plain: return one_type ? &row_kernel<C, LJ::plain, true> : &row_kernel<C, LJ::plain, false>;
    case LJ::switched: return one_type ? &row_kernel<C, LJ::switched, true> : &row_kernel<C, LJ::switched, false>;
  }
  return nullptr;
}

inline RowKernel pick(Coul c, LJ l, bool one_type) {
  switch (c) {
    case Coul::none: return pick_for<Coul::none>(l, one_type);
    case Coul::ewald: return pick_for<Coul::ewald>(l, one_type);
    case Coul::reaction_field: return pick_for<Coul::reaction_field>(l, one_type);
  }
  return nullptr;
}

// Rows with both terms, Coulomb only, Lennard-Jones only.
inline Kernels kernels(Coul c, LJ l, bool one_type) {
  Kernels k;
  k.both = c != Coul::none && l != LJ::none ? pick(c, l, one_type) : nullptr;
  k.coulomb = c != Coul::none ? pick(c, LJ::none, true) : nullptr;
  k.lj = l != LJ::none ? pick(Coul::none, l, one_type) : nullptr;
  return k;
}

// Rows are packed one ahead of the kernel: a row's packed pairs are read only after the next
// row's are written, by which time their stores have left the store buffer (loads that span
// several pending stores cannot be forwarded from them and wait).
template <Shape S>
void run_block(const Context& c, const PairList& list, const Kernels& kernels, PairKernel::Block& blk, double* window,
               const Packed* packed) {
  BlockLanes lanes;
  RowKernel pending = nullptr;
  int64_t pending_row = 0, pending_count = 0;
  int slot = 0;
  for (int64_t i = blk.row_begin; i < blk.row_end; ++i) {
    const int64_t m = list.size[i];
    if (m == 0) continue;
    const bool coulomb = kernels.coulomb && c.charge[i] != 0;
    const bool lj = kernels.lj && c.lj_active[c.type[i]];
    if (!coulomb && !lj) continue;
    const int64_t count = pack_row<S>(c, int32_t(i), list.row[i], m, packed[slot]);
    if (count == 0) continue;
    if (pending) pending(c, pending_row, packed[1 - slot], pending_count, window, lanes);
    pending = coulomb && lj ? kernels.both : coulomb ? kernels.coulomb : kernels.lj;
    pending_row = i, pending_count = count;
    slot = 1 - slot;
  }
  if (pending) pending(c, pending_row, packed[1 - slot], pending_count, window, lanes);
  blk.coulomb = sum8(lanes.coulomb);
  blk.lj = sum8(lanes.lj);
  for (int k = 0; k < 6; ++k) blk.virial[k] = sum8(lanes.w[k]);
}

inline BlockRunner block_runner(Shape s) {
  switch (s) {
    case Shape::none: return &run_block<Shape::none>;
    case Shape::orthorhombic: return &run_block<Shape::orthorhombic>;
    case Shape::triclinic: return &run_block<Shape::triclinic>;
  }
  return nullptr;
}
