// Tests of cnnmap's ap_int / ap_uint compatibility header against reference computations in
// 128-bit integers: wrap on construction and assignment, the widths of sums, differences,
// products and bitwise results, division, shifts, comparisons, bit and range access, and
// mixing with C integers, on random values for many (W1, S1, W2, S2).
#include <ap_int.h>

#include <sstream>

#include "hls_test_util.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

// Reference: the value of the low W bits of v read as a W-bit (un)signed number, by arithmetic.
static i128 ref_wrap(int w, bool s, u128 v) {
  if (w < 128) {
    const u128 m = static_cast<u128>(1) << w;
    v %= m;
    if (s && v >= m / 2) return static_cast<i128>(v) - static_cast<i128>(m / 2) - static_cast<i128>(m / 2);
  }
  return static_cast<i128>(v);
}

// A random W-bit value, biased towards the extremes.
static i128 rand_val(int w, bool s) {
  u128 bits = (static_cast<u128>(rng()()) << 64) | rng()();
  const int mode = static_cast<int>(rng()() % 8);
  const i128 lo = s ? -(static_cast<i128>(1) << (w - 1)) : 0;
  const i128 hi = s ? (static_cast<i128>(1) << (w - 1)) - 1 : (static_cast<i128>(1) << w) - 1;
  if (mode == 0) return lo;
  if (mode == 1) return hi;
  if (mode == 2) {  // a small value
    const i128 v = static_cast<i128>(rng()() % 5) - 2;
    return v < lo ? lo : (v > hi ? hi : v);
  }
  return ref_wrap(w, s, bits);
}

static i128 floor_shift(i128 v, int n) {  // floor(v / 2^n) without relying on >> of negatives
  const i128 d = static_cast<i128>(1) << n;
  i128 q = v / d;
  if (v % d != 0 && v < 0) q -= 1;
  return q;
}

static bool same(i128 got, i128 want) { return got == want; }

template <int W1, bool S1, int W2, bool S2> void test_pair() {
  typedef ap_int_base<W1, S1> A;
  typedef ap_int_base<W2, S2> B;
  constexpr bool RS = S1 || S2;
  constexpr int w1x = W1 + ((S2 && !S1) ? 1 : 0), w2x = W2 + ((S1 && !S2) ? 1 : 0);
  constexpr int ADDW = (w1x > w2x ? w1x : w2x) + 1;
  constexpr int LOGW = (w1x > w2x ? w1x : w2x);
  static_assert(decltype(A() * B())::width == W1 + W2, "product width");
  static_assert(decltype(A() * B())::sign_flag == RS, "product sign");
  static_assert(decltype(A() + B())::width == ADDW, "sum width");
  static_assert(decltype(A() - B())::width == ADDW, "difference width");
  static_assert(decltype(A() & B())::width == LOGW, "and width");
  static_assert(decltype(A() + B())::sign_flag == RS, "sum sign");
  static_assert(decltype(A() - B())::sign_flag, "difference sign");
  static_assert(decltype(-A())::width == W1 + 1 && decltype(-A())::sign_flag, "negation");
  static_assert(decltype(A() << 3)::width == W1 && decltype(A() >> 3)::width == W1, "shift keeps type");

  for (int it = 0; it < 300; it++) {
    const i128 va = rand_val(W1, S1), vb = rand_val(W2, S2);
    const A a = A::from_raw(static_cast<u128>(va));
    const B b = B::from_raw(static_cast<u128>(vb));
    CHECK(same(a.raw(), va));
    CHECK(same(b.raw(), vb));
    // construction from C integers wraps
    const long long ll = static_cast<long long>(rng()());
    CHECK(same(A(ll).raw(), ref_wrap(W1, S1, static_cast<u128>(static_cast<i128>(ll)))));
    const unsigned long long ull = rng()();
    CHECK(same(A(ull).raw(), ref_wrap(W1, S1, static_cast<u128>(ull))));
    // exact widened results
    const auto p = a * b;
    CHECK(static_cast<u128>(p.raw()) == static_cast<u128>(va) * static_cast<u128>(vb));
    if (W1 + W2 < 127) CHECK(same(p.raw(), va * vb));
    CHECK(same((a + b).raw(), va + vb));
    CHECK(same((a - b).raw(), va - vb));
    CHECK(same((a & b).raw(), ref_wrap(LOGW, RS, static_cast<u128>(va) & static_cast<u128>(vb))));
    CHECK(same((a | b).raw(), ref_wrap(LOGW, RS, static_cast<u128>(va) | static_cast<u128>(vb))));
    CHECK(same((a ^ b).raw(), ref_wrap(LOGW, RS, static_cast<u128>(va) ^ static_cast<u128>(vb))));
    // wrap on assignment from wider results
    A r = a * b;
    CHECK(same(r.raw(), ref_wrap(W1, S1, static_cast<u128>(va) * static_cast<u128>(vb))));
    r = a + b;
    CHECK(same(r.raw(), ref_wrap(W1, S1, static_cast<u128>(va + vb))));
    B r2 = a;
    CHECK(same(r2.raw(), ref_wrap(W2, S2, static_cast<u128>(va))));
    A acc = a;
    acc += b;
    CHECK(same(acc.raw(), ref_wrap(W1, S1, static_cast<u128>(va + vb))));
    acc = a;
    acc *= b;
    CHECK(same(acc.raw(), ref_wrap(W1, S1, static_cast<u128>(va) * static_cast<u128>(vb))));
    // division and remainder truncate toward zero
    if (vb != 0) {
      CHECK(same((a / b).raw(), va / vb));
      CHECK(same((a % b).raw(), va % vb));
    }
    // comparisons by value
    CHECK((a < b) == (va < vb));
    CHECK((a <= b) == (va <= vb));
    CHECK((a > b) == (va > vb));
    CHECK((a >= b) == (va >= vb));
    CHECK((a == b) == (va == vb));
    CHECK((a != b) == (va != vb));
    CHECK((a == a) && !(a != a));
    // shifts within the type
    const int n = static_cast<int>(rng()() % (W1 + 2));
    CHECK(same((a << n).raw(), ref_wrap(W1, S1, static_cast<u128>(va) << n)));
    CHECK(same((a >> n).raw(), floor_shift(va, n)));
    A sh = a;
    sh <<= n;
    CHECK(same(sh.raw(), ref_wrap(W1, S1, static_cast<u128>(va) << n)));
    CHECK(same((a << -1).raw(), (a >> 1).raw()));
    // bit access
    const int bi = static_cast<int>(rng()() % W1);
    CHECK(a[bi] == (((static_cast<u128>(va) >> bi) & 1) != 0));
    A m = a;
    m[bi] = !a[bi];
    CHECK(same(m.raw(), ref_wrap(W1, S1, static_cast<u128>(va) ^ (static_cast<u128>(1) << bi))));
    // range access
    const int lo = static_cast<int>(rng()() % W1);
    const int hi = lo + static_cast<int>(rng()() % (W1 - lo));
    const int len = hi - lo + 1;
    const u128 mask = len >= 128 ? ~static_cast<u128>(0) : (static_cast<u128>(1) << len) - 1;
    ap_uint<W1> rg = a.range(hi, lo);
    CHECK(static_cast<u128>(rg.raw()) == ((static_cast<u128>(va) >> lo) & mask));
    const unsigned long long fill = rng()();
    A m2 = a;
    m2.range(hi, lo) = fill;
    const u128 want = (static_cast<u128>(va) & ~(mask << lo)) | ((static_cast<u128>(fill) & mask) << lo);
    CHECK(same(m2.raw(), ref_wrap(W1, S1, want)));
    // C integers act as ap values of their own width
    const int k = static_cast<int>(rand_range(-1000, 1000));
    CHECK(same((a + k).raw(), va + k));
    CHECK(same((k - a).raw(), k - va));
    CHECK(same((a * k).raw(), va * k));
    CHECK((a < k) == (va < k));
    CHECK((k == a) == (va == k));
    // unary minus widens; increment wraps
    CHECK(same((-a).raw(), -va));
    A inc = a;
    ++inc;
    CHECK(same(inc.raw(), ref_wrap(W1, S1, static_cast<u128>(va) + 1)));
    // conversions
    if (W1 <= 64) CHECK(a.to_int64() == static_cast<long long>(va));
    CHECK(static_cast<long long>(a) == static_cast<long long>(va));
    CHECK(a.to_double() == static_cast<double>(va));
  }
}

template <int W1, int W2> void test_widths() {
  test_pair<W1, true, W2, true>();
  test_pair<W1, true, W2, false>();
  test_pair<W1, false, W2, true>();
  test_pair<W1, false, W2, false>();
}

static void test_misc() {
  ap_int<8> a = 127;
  a = a + 1;  // wraps
  CHECK(a == -128);
  ap_uint<4> u = 15;
  u++;
  CHECK(u == 0);
  ap_uint<64> big = ~0ULL;
  auto sq = big * big;  // 128-bit unsigned product
  CHECK(sq.width == 128);
  CHECK(static_cast<u128>(sq.raw()) == static_cast<u128>(~0ULL) * static_cast<u128>(~0ULL));
  CHECK(sq > big);
  ap_int<64> mn = static_cast<long long>(INT64_MIN);
  CHECK((mn * mn).raw() == static_cast<i128>(INT64_MIN) * static_cast<i128>(INT64_MIN));
  CHECK(ap_int<1>(1) == -1);
  CHECK(ap_uint<1>(3) == 1);
  CHECK(ap_int<12>(-5) < ap_uint<12>(0));
  CHECK(ap_uint<12>(4095) > ap_int<12>(-1));
  std::ostringstream os;
  os << ap_int<20>(-12345) << ' ' << ap_uint<64>(~0ULL);
  CHECK(os.str() == "-12345 18446744073709551615");
  ap_int<16> r;
  r.range(15, 8) = 0xAB;
  r.range(7, 0) = 0xCD;
  CHECK(r == static_cast<short>(0xABCD));
  ap_uint<8> lohi = r.range(11, 4);
  CHECK(lohi == 0xBC);
  CHECK(ap_int<8>(-3.7) == -3);
  int arr[4] = {10, 20, 30, 40};
  ap_uint<2> idx = 2;
  CHECK(arr[idx] == 30);
}

int main() {
  test_widths<1, 1>();
  test_widths<1, 8>();
  test_widths<3, 5>();
  test_widths<4, 8>();
  test_widths<8, 8>();
  test_widths<8, 16>();
  test_widths<13, 7>();
  test_widths<16, 24>();
  test_widths<31, 33>();
  test_widths<32, 32>();
  test_widths<17, 48>();
  test_widths<63, 2>();
  test_widths<64, 8>();
  test_widths<64, 63>();
  test_widths<64, 64>();
  test_misc();
  return finish("hls_ap_int");
}
