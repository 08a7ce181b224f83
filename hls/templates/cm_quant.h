// cm_quant.h: requantisation and ReLU in integers. nn2FPGA thesis section 3.2.1 (eqs.
// 3.1-3.3: symmetric power-of-two scales, so rescaling is a shift), computed so that it
// equals QONNX Quant exactly: q = clamp(round_half_to_even(x * MULT * 2^-SHIFT), min, max)
// with QONNX's integer range for (bits, signed, narrow):
//   signed:   [-2^(bits-1) (+1 when narrow), 2^(bits-1) - 1]
//   unsigned: [0, 2^bits - 1 (-1 when narrow)]
// and a ReLU before it raising the minimum to 0 (ReLU commutes with the monotone rounding).
// The input x is an integer code of scale 2^-a (an accumulator or a sum), the output a code
// of scale 2^-b; the generator gives SHIFT = a - b (negative: a left shift) and MULT = 1, or
// a small integer multiplier when a ratio of scales is not a power of two (global average
// pooling over a non-power-of-two area approximated by MULT / 2^SHIFT). The thesis' eq. 3.3
// writes the signed maximum without the -1; QONNX's range is the one used here.
#ifndef CM_QUANT_H
#define CM_QUANT_H

#include "cnnmap_hls.h"

namespace cm {

template <int OBITS, bool OSIGNED, bool NARROW> struct quant_range {
  static constexpr long long max = OSIGNED ? (1LL << (OBITS - 1)) - 1 : (1LL << OBITS) - 1 - (NARROW ? 1 : 0);
  static constexpr long long min = OSIGNED ? -(1LL << (OBITS - 1)) + (NARROW ? 1 : 0) : 0;
};

// One value: x (ap_int / ap_uint) -> out_t. DIV > 1 divides exactly before rounding (global
// average pooling over a window whose area is not a power of two): q = round_half_even(
// x * MULT / (DIV * 2^SHIFT)), computed on integers, so no approximation of 1 / DIV enters.
template <class out_t, int OBITS, bool OSIGNED, bool NARROW, bool RELU, int SHIFT, long long MULT, long long DIV = 1,
          class in_t>
out_t requant_value(const in_t& x) {
  static_assert(OBITS >= 1 && OBITS <= 62, "output bits out of range");
  static_assert(DIV >= 1, "the divisor must be positive");
  constexpr int IW = ap_traits<in_t>::width + (ap_traits<in_t>::is_signed ? 0 : 1);
  constexpr int RS = SHIFT > 0 ? SHIFT : 0;
  constexpr int LS = SHIFT < 0 ? -SHIFT : 0;
  constexpr int PW = IW + bits_for(MULT < 0 ? -MULT : MULT) + 1 + LS + bits_for(DIV) + RS + 1;
  typedef ap_int<PW> p_t;
  const p_t p = p_t(p_t(x) * p_t(MULT)) << LS;
  p_t q;
  if (DIV == 1) {
    q = p >> RS;  // floor
    if (RS > 0) {
      const p_t rem = p - (q << RS);  // 0 <= rem < 2^RS
      const p_t half = p_t(1) << (RS > 0 ? RS - 1 : 0);
      if (rem > half || (rem == half && q[0])) q = q + 1;
    }
  } else {
    const p_t d = p_t(DIV) << RS;
    q = p / d;  // truncates toward zero: make it floor
    p_t rem = p - q * d;
    if (rem < 0) {
      q = q - 1;
      rem = rem + d;
    }
    if (rem * 2 > d || (rem * 2 == d && q[0])) q = q + 1;
  }
  constexpr long long QMAX = quant_range<OBITS, OSIGNED, NARROW>::max;
  constexpr long long QMIN0 = quant_range<OBITS, OSIGNED, NARROW>::min;
  constexpr long long QMIN = (RELU && QMIN0 < 0) ? 0 : QMIN0;
  if (q > QMAX)
    q = QMAX;
  else if (q < QMIN)
    q = QMIN;
  return out_t(q);
}

// NWORDS words of N values each (any packing of the stream protocol), value by value.
template <class in_t, class out_t, int N, int NWORDS, int OBITS, bool OSIGNED, bool NARROW, bool RELU, int SHIFT,
          long long MULT = 1, long long DIV = 1>
void requantise(hls::stream<word<in_t, N> >& in, hls::stream<word<out_t, N> >& out) {
  for (int i = 0; i < NWORDS; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    const word<in_t, N> a = in.read();
    word<out_t, N> b;
    for (int k = 0; k < N; k++) b.v[k] = requant_value<out_t, OBITS, OSIGNED, NARROW, RELU, SHIFT, MULT, DIV>(a.v[k]);
    out.write(b);
  }
}

}  // namespace cm

#endif
