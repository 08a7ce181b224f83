// cm_conv.h: the convolution computation engine (standard, grouped, pointwise and depthwise).
// nn2FPGA thesis section 3.5: the loop nest of Algorithm 1 with its three parallelisms,
// ich_par (input channels), och_par (filters) and ow_par (adjacent output pixels), whose
// product times FH * FW is the number of multiply-accumulates per iteration of the pipelined
// loop (section 3.5.1); depthwise as the och = 1-per-channel special case (Fig. 3.3b).
//
// Weights and biases are the integer constant arrays of the generated design (folded
// batch normalisation, eq. 3.4, is already in them). Products widen to the sum of the
// operand widths; the running sum is held in acc_t, which the generator sizes so that no
// value of the layer can overflow it (input bits + weight bits + ceil(log2(ICH * FH * FW))
// + 1, or more). The output is the accumulator (plus bias); requantise (cm_quant.h) turns
// it into the next layer's activation codes.
#ifndef CM_CONV_H
#define CM_CONV_H

#include "cnnmap_hls.h"

namespace cm {

// in:  windows for OH x OW outputs (ICH_PAR channels, OW_PAR outputs per word, cm_window.h).
// out: OCH x OH x OW accumulators, words of OW_PAR pixels x OCH_PAR channels.
// Loop order as Algorithm 1: output-pixel group, input-channel group, output-channel group;
// a window word is read once per (pixel group, input-channel group) and reused by every
// output-channel group; partial sums wait in acc[][] until the last input-channel group.
// A grouped convolution (GROUPS > 1: ResNeXt, RegNet) takes its groups in turn within a
// pixel group: group k's OCH / GROUPS filters read only its ICH / GROUPS channels, which
// are the window words the window buffer sends k-th, so the input and output orders are
// those of GROUPS = 1 and the factors divide a group's channels.
template <class in_t, class w_t, class b_t, class acc_t, int ICH, int OCH, int OH, int OW, int FH, int FW, int S,
          int ICH_PAR, int OCH_PAR, int OW_PAR, int GROUPS = 1>
void conv(hls::stream<word<in_t, ICH_PAR * FH * window_cols(FW, S, OW_PAR)> >& in,
          hls::stream<word<acc_t, OW_PAR * OCH_PAR> >& out, const w_t weights[OCH][ICH / GROUPS][FH][FW],
          const b_t bias[OCH]) {
  constexpr int FWX = window_cols(FW, S, OW_PAR);
  constexpr int GICH = ICH / GROUPS, GOCH = OCH / GROUPS;  // a group's channels
  static_assert(ICH % GROUPS == 0 && OCH % GROUPS == 0, "GROUPS must divide ICH and OCH");
  static_assert(GICH % ICH_PAR == 0, "ICH_PAR must divide a group's input channels");
  static_assert(GOCH % OCH_PAR == 0, "OCH_PAR must divide a group's output channels");
  static_assert(OW % OW_PAR == 0, "OW_PAR must divide OW");

  acc_t acc[GOCH / OCH_PAR][OW_PAR * OCH_PAR];
  CM_PRAGMA(HLS ARRAY_PARTITION variable=acc dim=2 type=complete)

  for (int pg = 0; pg < OH * OW / OW_PAR; pg++) {
    for (int gr = 0; gr < GROUPS; gr++) {
      for (int ig = 0; ig < GICH / ICH_PAR; ig++) {
        const word<in_t, ICH_PAR * FH * FWX> win = in.read();
        for (int og = 0; og < GOCH / OCH_PAR; og++) {
          CM_PRAGMA(HLS PIPELINE II=1)
          for (int so = 0; so < OCH_PAR; so++) {
            const int o = gr * GOCH + og * OCH_PAR + so;
            for (int sp = 0; sp < OW_PAR; sp++) {
              acc_t a = ig == 0 ? acc_t(bias[o]) : acc[og][sp * OCH_PAR + so];
              for (int si = 0; si < ICH_PAR; si++)
                for (int fy = 0; fy < FH; fy++)
                  for (int fx = 0; fx < FW; fx++)
                    a += win.v[(si * FH + fy) * FWX + sp * S + fx] * weights[o][ig * ICH_PAR + si][fy][fx];
              acc[og][sp * OCH_PAR + so] = a;
            }
          }
          if (ig == GICH / ICH_PAR - 1) {
            word<acc_t, OW_PAR * OCH_PAR> w;
            for (int k = 0; k < OW_PAR * OCH_PAR; k++) w.v[k] = acc[og][k];
            out.write(w);
          }
        }
      }
    }
  }
}

// Depthwise: channel c is filtered by weights[c] alone. CH_PAR channels and OW_PAR output
// pixels per word; out: CH x OH x OW accumulators, words of OW_PAR pixels x CH_PAR channels.
template <class in_t, class w_t, class b_t, class acc_t, int CH, int OH, int OW, int FH, int FW, int S, int CH_PAR,
          int OW_PAR>
void conv_depthwise(hls::stream<word<in_t, CH_PAR * FH * window_cols(FW, S, OW_PAR)> >& in,
                    hls::stream<word<acc_t, OW_PAR * CH_PAR> >& out, const w_t weights[CH][FH][FW],
                    const b_t bias[CH]) {
  constexpr int FWX = window_cols(FW, S, OW_PAR);
  static_assert(CH % CH_PAR == 0, "CH_PAR must divide CH");
  static_assert(OW % OW_PAR == 0, "OW_PAR must divide OW");
  for (int pg = 0; pg < OH * OW / OW_PAR; pg++) {
    for (int g = 0; g < CH / CH_PAR; g++) {
      CM_PRAGMA(HLS PIPELINE II=1)
      const word<in_t, CH_PAR * FH * FWX> win = in.read();
      word<acc_t, OW_PAR * CH_PAR> w;
      for (int sc = 0; sc < CH_PAR; sc++) {
        const int c = g * CH_PAR + sc;
        for (int sp = 0; sp < OW_PAR; sp++) {
          acc_t a = bias[c];
          for (int fy = 0; fy < FH; fy++)
            for (int fx = 0; fx < FW; fx++) a += win.v[(sc * FH + fy) * FWX + sp * S + fx] * weights[c][fy][fx];
          w.v[sp * CH_PAR + sc] = a;
        }
      }
      out.write(w);
    }
  }
}

}  // namespace cm

#endif
