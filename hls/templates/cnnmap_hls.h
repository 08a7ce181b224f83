// cnnmap_hls.h: the one header generated nn2FPGA-style designs include. It picks the
// integer and stream types, defines the few macros through which generated code states its
// pragmas, and fixes the stream protocol every building block in this directory follows.
//
// Vendor or compatibility headers
//   The design includes <ap_int.h> and <hls_stream.h>. Which ones it gets is decided by the
//   include path of the build: the HLS tool (and a C simulation built against the vendor's
//   headers) finds the vendor's; `make csim` in a cnnmap project puts the project's include/
//   directory (cnnmap's compatibility headers, hls/include) first when the vendor's headers
//   are absent. The compatibility headers announce themselves with CM_HLS_COMPAT_AP_INT and
//   CM_HLS_COMPAT_STREAM, and the macros below follow:
//
//                            vendor (synthesis or vendor csim)     compatibility (cnnmap csim)
//   CM_PRAGMA(text)          #pragma text                          nothing
//   CM_STREAM_DEPTH(s, n)    #pragma HLS STREAM variable=s depth=n s.set_depth(n): bounded FIFO
//   CM_DATAFLOW_BEGIN(name)  #pragma HLS DATAFLOW                  opens a region of threads
//   CM_TASK(name, call...)   call;                                 runs call in a thread
//   CM_DATAFLOW_END()        nothing                               waits for the region's tasks
//
//   So a generated top function reads
//       hls::stream<cm::word<ap_int<8>, 4> > s1("s1");
//       CM_STREAM_DEPTH(s1, 2);
//       CM_DATAFLOW_BEGIN(top)
//       CM_TASK(conv0_wb, cm::window_buffer<...>(in, w1));
//       CM_TASK(conv0, cm::conv<...>(w1, s1, conv0_w, conv0_b));
//       ...
//       CM_DATAFLOW_END()
//   and is sequential code under the vendor's tools, as their C simulation expects.
//   Defining CM_HLS_SEQUENTIAL with the compatibility headers gives that sequential form too
//   (streams without a depth call are unbounded; unknown-pragma warnings must be off).
//
// Stream protocol (all building blocks)
//   An activation tensor C x H x W travels as a sequence of words cm::word<T, P * CP>, each
//   holding P horizontally adjacent pixels times CP consecutive channels:
//       for h in 0..H-1, for each group of P columns (w0 = 0, P, 2P, ...),
//         for each group of CP channels (c0 = 0, CP, 2CP, ...):
//           one word, v[p * CP + c] = x[c0 + c][h][w0 + p]
//   i.e. row-major over H and W with channels innermost (the thesis' depth-first order),
//   packed by the parallelism of the producing block: a convolution writes P = ow_par,
//   CP = och_par; a window buffer reads P = its PIN (ow_par when that divides W), CP =
//   ich_par; the global pools read P = 1, CP = ich_par; the top function's input port
//   carries P = 1, CP = C. W % P == 0 and C % CP == 0 always hold. A vector (C x 1 x 1)
//   is the same with H = W = 1.
//   Window streams (window buffer -> convolution, depthwise convolution, max pool) carry, for
//   each group of ow_par output pixels and each group of ich_par input channels, one word
//   cm::word<T, ich_par * FH * FWX> with FWX = FW + (ow_par - 1) * S columns:
//       v[(c * FH + y) * FWX + x] = padded input[c0 + c][oh * S + y][ow0 * S + x]
//   Output pixel ow0 + p uses columns p * S .. p * S + FW - 1 of that word.
//   Element types are ap_int<W> / ap_uint<W> holding integer codes: a tensor's real value is
//   code * 2^-frac (power-of-two scales, thesis eqs. 3.1-3.3); the scales live in the shifts
//   given to requantise and add.
//   One call of a block processes one frame (one image); the top function loops over frames.
#ifndef CNNMAP_HLS_H
#define CNNMAP_HLS_H

#include <ap_int.h>
#include <hls_stream.h>

#if defined(CM_HLS_COMPAT_AP_INT) != defined(CM_HLS_COMPAT_STREAM)
#error "cnnmap_hls.h: ap_int.h and hls_stream.h come from different places (one vendor, one compatibility)"
#endif

#if defined(CM_HLS_COMPAT_STREAM) && !defined(__SYNTHESIS__) && !defined(CM_HLS_SEQUENTIAL)
#define CM_HLS_CSIM_THREADS 1
#define CM_PRAGMA(text)
#define CM_STREAM_DEPTH(s, n) (s).set_depth(n)
#define CM_DATAFLOW_BEGIN(name) { ::cm_csim::dataflow cm_dataflow_region_(#name);
#define CM_TASK(name, ...) cm_dataflow_region_.task(#name, [&]() { __VA_ARGS__; })
#define CM_DATAFLOW_END() cm_dataflow_region_.join(); }
#else
#define CM_PRAGMA(text) _Pragma(#text)
#define CM_STREAM_DEPTH(s, n) CM_PRAGMA(HLS STREAM variable=s depth=n)
#define CM_DATAFLOW_BEGIN(name) CM_PRAGMA(HLS DATAFLOW)
#define CM_TASK(name, ...) __VA_ARGS__
#define CM_DATAFLOW_END()
#endif

namespace cm {

// One stream word: N values moved together (see the stream protocol above).
template <class T, int N> struct word {
  T v[N];
};

// Width and signedness of ap_int<W> / ap_uint<W>, for both the vendor's and cnnmap's types.
template <class T> struct ap_traits;
template <int W> struct ap_traits<ap_int<W> > {
  static const int width = W;
  static const bool is_signed = true;
};
template <int W> struct ap_traits<ap_uint<W> > {
  static const int width = W;
  static const bool is_signed = false;
};

// Bits needed for a non-negative integer constant (at least 1).
constexpr int bits_for(long long v) { return v <= 1 ? 1 : 1 + bits_for(v / 2); }
// Columns a window word spans for ow_par output pixels (FWX in the stream protocol).
constexpr int window_cols(int fw, int s, int ow_par) { return fw + (ow_par - 1) * s; }

}  // namespace cm

#endif
