// cnnmap's stand-in for the arbitrary-precision integer types of HLS C++, used by the C
// simulation when the vendor's headers are absent. Written for cnnmap; it implements the
// subset the generated designs and the templates in hls/templates use:
//
//   ap_int<W>, ap_uint<W>   W = 1..128 (designs declare up to 64; products of two 64-bit
//                           values need 128), two's complement, value kept wrapped to W bits.
//   assignment / construction from a wider or narrower type or a C integer wraps
//   (keeps the low W bits, then sign- or zero-extends);
//   a * b  -> W1 + W2 bits;  a + b, a - b -> max(W1', W2') + 1 bits;  a & | ^ b -> max(W1', W2')
//   bits, where Wi' is Wi plus one when the other operand is signed and this one is not;
//   the result is signed when either operand is, and a difference always is; a / b -> W1 + S2 bits; a % b -> min(W1, W2')
//   bits with the sign of a (W2' = W2 + 1 when a is signed and b is not);
//   -a -> W + 1 bits, signed;  ~a, a << n, a >> n keep the type of a (>> is arithmetic when
//   signed; a negative shift amount shifts the other way); C integers act as ap types of
//   their own width and signedness;
//   comparisons by value; x[i] bit access (read and assign); x.range(hi, lo) / x(hi, lo)
//   read as an unsigned value and assignable; to_int(), to_uint(), to_int64(), to_uint64(),
//   to_double(), length(); implicit conversion to long long; printing with <<.
#ifndef CM_COMPAT_AP_INT_H
#define CM_COMPAT_AP_INT_H

#define CM_HLS_COMPAT_AP_INT 1

#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

namespace cm_ap {

typedef __int128 i128;
typedef unsigned __int128 u128;

constexpr int max_w(int a, int b) { return a > b ? a : b; }
constexpr int min_w(int a, int b) { return a < b ? a : b; }
constexpr int cap_w(int w) { return w > 128 ? 128 : w; }

// The two's complement value of the low W bits of v, sign- or zero-extended to 128 bits.
template <int W, bool S> constexpr i128 wrap(u128 v) {
  if constexpr (W >= 128) {
    return static_cast<i128>(v);
  } else {
    const u128 mask = (static_cast<u128>(1) << W) - 1;
    v &= mask;
    if (S && ((v >> (W - 1)) & 1)) v |= ~mask;
    return static_cast<i128>(v);
  }
}

// Result widths of the binary operators (see the header comment).
template <int W1, bool S1, int W2, bool S2> struct widths {
  static constexpr bool sign = S1 || S2;
  static constexpr bool sub_sign = true;  // a difference is always signed
  static constexpr int w1x = W1 + ((S2 && !S1) ? 1 : 0);
  static constexpr int w2x = W2 + ((S1 && !S2) ? 1 : 0);
  static constexpr int mul = cap_w(W1 + W2);
  static constexpr int add = cap_w(max_w(w1x, w2x) + 1);
  static constexpr int logic = cap_w(max_w(w1x, w2x));
  static constexpr int div = cap_w(W1 + (S2 ? 1 : 0));
  static constexpr int mod = min_w(W1, W2 + ((S1 && !S2) ? 1 : 0));
};

template <int W, bool S> class ap_int_base;

template <int W, bool S> class bit_ref {
 public:
  bit_ref(ap_int_base<W, S>& p, int i) : p_(p), i_(i) {}
  operator bool() const { return p_.test(i_); }
  bit_ref& operator=(bool b) {
    p_.set_bit(i_, b);
    return *this;
  }
  bit_ref& operator=(const bit_ref& o) { return *this = static_cast<bool>(o); }

 private:
  ap_int_base<W, S>& p_;
  int i_;
};

template <int W, bool S> class range_ref {
 public:
  range_ref(ap_int_base<W, S>* p, int hi, int lo) : p_(p), hi_(hi), lo_(lo) {}
  int length() const { return hi_ - lo_ + 1; }
  u128 get() const { return p_->get_range(hi_, lo_); }
  operator unsigned long long() const { return static_cast<unsigned long long>(get()); }
  unsigned long long to_uint64() const { return static_cast<unsigned long long>(get()); }
  template <class T, class = std::enable_if_t<std::is_integral<T>::value>>
  range_ref& operator=(T v) {
    p_->set_range(hi_, lo_, static_cast<u128>(static_cast<i128>(v)));
    return *this;
  }
  template <int W2, bool S2> range_ref& operator=(const ap_int_base<W2, S2>& v) {
    p_->set_range(hi_, lo_, static_cast<u128>(v.raw()));
    return *this;
  }
  range_ref& operator=(const range_ref& o) {
    p_->set_range(hi_, lo_, o.get());
    return *this;
  }

 private:
  ap_int_base<W, S>* p_;
  int hi_, lo_;
};

template <class T> struct c_int_width {
  static constexpr int w = std::is_same<T, bool>::value ? 1 : static_cast<int>(sizeof(T) * 8);
  static constexpr bool s = std::is_signed<T>::value;
};

template <int W, bool S> class ap_int_base {
  static_assert(W >= 1 && W <= 128, "cnnmap's ap_int supports 1 to 128 bits");
  // Storage: a 64-bit integer up to 64 bits (always holding the wrapped value), else 128.
  typedef std::conditional_t<(W <= 64), std::int64_t, i128> store_t;

 public:
  static const int width = W;
  static const bool sign_flag = S;

  constexpr ap_int_base() : v_(0) {}
  template <int W2, bool S2>
  ap_int_base(const ap_int_base<W2, S2>& o) : v_(static_cast<store_t>(wrap<W, S>(static_cast<u128>(o.raw())))) {}
  template <int W2, bool S2>
  ap_int_base(const range_ref<W2, S2>& r) : v_(static_cast<store_t>(wrap<W, S>(r.get()))) {}
  // constexpr, so that the large constant weight arrays of a design are initialised at
  // compile time instead of by start-up code (which made them slow to compile).
  template <class T, class = std::enable_if_t<std::is_integral<T>::value>>
  constexpr ap_int_base(T x) : v_(static_cast<store_t>(wrap<W, S>(static_cast<u128>(static_cast<i128>(x))))) {}
  ap_int_base(double d) : v_(static_cast<store_t>(wrap<W, S>(static_cast<u128>(static_cast<i128>(d))))) {}
  ap_int_base(float f) : ap_int_base(static_cast<double>(f)) {}

  static ap_int_base from_raw(u128 v) {
    ap_int_base r;
    r.v_ = static_cast<store_t>(wrap<W, S>(v));
    return r;
  }
  // The value, sign- or zero-extended to 128 bits.
  i128 raw() const {
    if constexpr (W == 64 && !S) return static_cast<i128>(static_cast<std::uint64_t>(v_));
    return static_cast<i128>(v_);
  }

  // conversions
  operator long long() const { return static_cast<long long>(v_); }  // low 64 bits
  int to_int() const { return static_cast<int>(v_); }
  unsigned to_uint() const { return static_cast<unsigned>(v_); }
  long to_long() const { return static_cast<long>(v_); }
  unsigned long to_ulong() const { return static_cast<unsigned long>(v_); }
  long long to_int64() const { return static_cast<long long>(v_); }
  unsigned long long to_uint64() const { return static_cast<unsigned long long>(v_); }
  double to_double() const {
    if (!S && raw() < 0) return static_cast<double>(static_cast<u128>(raw()));
    return static_cast<double>(raw());
  }
  bool to_bool() const { return v_ != 0; }
  int length() const { return W; }

  // bit access
  bool test(int i) const { return ((static_cast<u128>(raw()) >> i) & 1) != 0; }
  void set_bit(int i, bool b) {
    u128 u = static_cast<u128>(raw());
    const u128 m = static_cast<u128>(1) << i;
    u = b ? (u | m) : (u & ~m);
    v_ = static_cast<store_t>(wrap<W, S>(u));
  }
  void set(int i) { set_bit(i, true); }
  void clear(int i) { set_bit(i, false); }
  bit_ref<W, S> operator[](int i) { return bit_ref<W, S>(*this, i); }
  bool operator[](int i) const { return test(i); }
  bool bit(int i) const { return test(i); }

  // range access: bits hi..lo (hi >= lo), read as an unsigned value
  u128 get_range(int hi, int lo) const {
    const int n = hi - lo + 1;
    u128 u = static_cast<u128>(raw()) >> lo;
    if (n < 128) u &= (static_cast<u128>(1) << n) - 1;
    return u;
  }
  void set_range(int hi, int lo, u128 val) {
    const int n = hi - lo + 1;
    const u128 m = (n < 128 ? (static_cast<u128>(1) << n) - 1 : ~static_cast<u128>(0)) << lo;
    u128 u = static_cast<u128>(raw());
    u = (u & ~m) | ((val << lo) & m);
    v_ = static_cast<store_t>(wrap<W, S>(u));
  }
  range_ref<W, S> range(int hi, int lo) { return range_ref<W, S>(this, hi, lo); }
  range_ref<W, S> operator()(int hi, int lo) { return range(hi, lo); }
  ap_int_base<W, false> range(int hi, int lo) const { return ap_int_base<W, false>::from_raw(get_range(hi, lo)); }
  ap_int_base<W, false> operator()(int hi, int lo) const { return range(hi, lo); }
  range_ref<W, S> range() { return range(W - 1, 0); }

  // compound assignment: compute in the widened type, then wrap back
  template <class T> ap_int_base& operator+=(const T& o) { return *this = *this + o; }
  template <class T> ap_int_base& operator-=(const T& o) { return *this = *this - o; }
  template <class T> ap_int_base& operator*=(const T& o) { return *this = *this * o; }
  template <class T> ap_int_base& operator/=(const T& o) { return *this = *this / o; }
  template <class T> ap_int_base& operator%=(const T& o) { return *this = *this % o; }
  template <class T> ap_int_base& operator&=(const T& o) { return *this = *this & o; }
  template <class T> ap_int_base& operator|=(const T& o) { return *this = *this | o; }
  template <class T> ap_int_base& operator^=(const T& o) { return *this = *this ^ o; }
  ap_int_base& operator<<=(int n) { return *this = *this << n; }
  ap_int_base& operator>>=(int n) { return *this = *this >> n; }
  ap_int_base& operator++() { return *this = from_raw(static_cast<u128>(raw()) + 1); }
  ap_int_base& operator--() { return *this = from_raw(static_cast<u128>(raw()) - 1); }
  ap_int_base operator++(int) {
    ap_int_base t = *this;
    ++*this;
    return t;
  }
  ap_int_base operator--(int) {
    ap_int_base t = *this;
    --*this;
    return t;
  }

  ap_int_base<cap_w(W + 1), true> operator-() const {
    return ap_int_base<cap_w(W + 1), true>::from_raw(static_cast<u128>(0) - static_cast<u128>(raw()));
  }
  ap_int_base operator+() const { return *this; }
  ap_int_base operator~() const { return from_raw(~static_cast<u128>(raw())); }
  bool operator!() const { return v_ == 0; }
  explicit operator bool() const { return v_ != 0; }

  // shifts keep the type of the left operand
  ap_int_base operator<<(int n) const {
    if (n < 0) return *this >> -n;
    if (n >= 128) return ap_int_base();
    return from_raw(static_cast<u128>(raw()) << n);
  }
  ap_int_base operator>>(int n) const {
    if (n < 0) return *this << -n;
    if (n >= 128) n = 127;
    if (S) return from_raw(static_cast<u128>(raw() >> n));
    return from_raw(static_cast<u128>(raw()) >> n);
  }
  template <int W2, bool S2> ap_int_base operator<<(const ap_int_base<W2, S2>& n) const {
    return *this << static_cast<int>(n.raw());
  }
  template <int W2, bool S2> ap_int_base operator>>(const ap_int_base<W2, S2>& n) const {
    return *this >> static_cast<int>(n.raw());
  }

  std::string to_string() const {
    i128 x = raw();
    const bool unsigned_big = !S && x < 0;
    u128 u = unsigned_big ? static_cast<u128>(x) : static_cast<u128>(x < 0 ? -x : x);
    std::string s;
    do {
      s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
      u /= 10;
    } while (u != 0);
    if (x < 0 && !unsigned_big) s.insert(s.begin(), '-');
    return s;
  }

 private:
  store_t v_;
};

// Is a value (of width W, sign S) negative?
template <int W, bool S> bool is_neg(const ap_int_base<W, S>& a) { return S && a.raw() < 0; }

// Three-way comparison by value, for any mix of signedness.
template <int W1, bool S1, int W2, bool S2>
int compare(const ap_int_base<W1, S1>& a, const ap_int_base<W2, S2>& b) {
  const bool na = is_neg(a), nb = is_neg(b);
  if (na != nb) return na ? -1 : 1;
  if (na) return a.raw() < b.raw() ? -1 : (a.raw() > b.raw() ? 1 : 0);
  const u128 ua = static_cast<u128>(a.raw()), ub = static_cast<u128>(b.raw());
  return ua < ub ? -1 : (ua > ub ? 1 : 0);
}

template <class T> using c_ap = ap_int_base<c_int_width<T>::w, c_int_width<T>::s>;
template <class T> using if_int = std::enable_if_t<std::is_integral<T>::value, int>;

// ---- arithmetic and bitwise operators: ap op ap, ap op C integer, C integer op ap
#define CM_AP_BINOP(OP, KIND, SIGN, EXPR)                                                      \
  template <int W1, bool S1, int W2, bool S2>                                                  \
  ap_int_base<widths<W1, S1, W2, S2>::KIND, widths<W1, S1, W2, S2>::SIGN> operator OP(         \
      const ap_int_base<W1, S1>& a, const ap_int_base<W2, S2>& b) {                            \
    typedef ap_int_base<widths<W1, S1, W2, S2>::KIND, widths<W1, S1, W2, S2>::SIGN> R;         \
    const u128 x = static_cast<u128>(a.raw()), y = static_cast<u128>(b.raw());                \
    (void)x;                                                                                   \
    (void)y;                                                                                   \
    return R::from_raw(EXPR);                                                                  \
  }                                                                                            \
  template <int W, bool S, class T, if_int<T> = 0>                                             \
  auto operator OP(const ap_int_base<W, S>& a, T b) { return a OP c_ap<T>(b); }                \
  template <int W, bool S, class T, if_int<T> = 0>                                             \
  auto operator OP(T a, const ap_int_base<W, S>& b) { return c_ap<T>(a) OP b; }

CM_AP_BINOP(+, add, sign, x + y)
CM_AP_BINOP(-, add, sub_sign, x - y)
CM_AP_BINOP(*, mul, sign, x * y)
CM_AP_BINOP(&, logic, sign, x & y)
CM_AP_BINOP(|, logic, sign, x | y)
CM_AP_BINOP(^, logic, sign, x ^ y)
#undef CM_AP_BINOP

template <int W1, bool S1, int W2, bool S2>
u128 divide(const ap_int_base<W1, S1>& a, const ap_int_base<W2, S2>& b, bool want_rem) {
  // Truncating division on exact values: both fit a signed 128-bit integer unless one is an
  // unsigned 128-bit value, which is done in unsigned arithmetic.
  if (!is_neg(a) && !is_neg(b)) {
    const u128 x = static_cast<u128>(a.raw()), y = static_cast<u128>(b.raw());
    return want_rem ? x % y : x / y;
  }
  const i128 x = a.raw(), y = b.raw();
  return static_cast<u128>(want_rem ? x % y : x / y);
}
template <int W1, bool S1, int W2, bool S2>
ap_int_base<widths<W1, S1, W2, S2>::div, widths<W1, S1, W2, S2>::sign> operator/(const ap_int_base<W1, S1>& a,
                                                                                 const ap_int_base<W2, S2>& b) {
  return ap_int_base<widths<W1, S1, W2, S2>::div, widths<W1, S1, W2, S2>::sign>::from_raw(divide(a, b, false));
}
template <int W1, bool S1, int W2, bool S2>
ap_int_base<widths<W1, S1, W2, S2>::mod, S1> operator%(const ap_int_base<W1, S1>& a, const ap_int_base<W2, S2>& b) {
  return ap_int_base<widths<W1, S1, W2, S2>::mod, S1>::from_raw(divide(a, b, true));
}
template <int W, bool S, class T, if_int<T> = 0> auto operator/(const ap_int_base<W, S>& a, T b) { return a / c_ap<T>(b); }
template <int W, bool S, class T, if_int<T> = 0> auto operator/(T a, const ap_int_base<W, S>& b) { return c_ap<T>(a) / b; }
template <int W, bool S, class T, if_int<T> = 0> auto operator%(const ap_int_base<W, S>& a, T b) { return a % c_ap<T>(b); }
template <int W, bool S, class T, if_int<T> = 0> auto operator%(T a, const ap_int_base<W, S>& b) { return c_ap<T>(a) % b; }

// ---- comparisons
#define CM_AP_CMP(OP)                                                                          \
  template <int W1, bool S1, int W2, bool S2>                                                  \
  bool operator OP(const ap_int_base<W1, S1>& a, const ap_int_base<W2, S2>& b) {               \
    return compare(a, b) OP 0;                                                                 \
  }                                                                                            \
  template <int W, bool S, class T, if_int<T> = 0>                                             \
  bool operator OP(const ap_int_base<W, S>& a, T b) { return compare(a, c_ap<T>(b)) OP 0; }    \
  template <int W, bool S, class T, if_int<T> = 0>                                             \
  bool operator OP(T a, const ap_int_base<W, S>& b) { return compare(c_ap<T>(a), b) OP 0; }

CM_AP_CMP(==)
CM_AP_CMP(!=)
CM_AP_CMP(<)
CM_AP_CMP(<=)
CM_AP_CMP(>)
CM_AP_CMP(>=)
#undef CM_AP_CMP

template <int W, bool S> std::ostream& operator<<(std::ostream& os, const ap_int_base<W, S>& a) {
  return os << a.to_string();
}

}  // namespace cm_ap

template <int W, bool S> using ap_int_base = cm_ap::ap_int_base<W, S>;
template <int W> using ap_int = cm_ap::ap_int_base<W, true>;
template <int W> using ap_uint = cm_ap::ap_int_base<W, false>;

#endif
