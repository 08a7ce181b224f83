// Tests of cnnmap's HLS building blocks (hls/templates) in the threaded C simulation: each
// block, wired with its window buffer where it needs one, against a plain integer reference
// computed here, for several parallelisms; requantisation against QONNX Quant computed in
// double precision (exact ties included); and a residual block whose skip FIFO, at the
// depth cm::skip_depth gives, runs and fills exactly, and one word smaller deadlocks with the
// skip stream named.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cm_blocks.h"
#include "hls_test_util.h"

typedef std::vector<long long> tensor;  // C x H x W, index (c * H + h) * W + w

static tensor random_tensor(int n, long long lo, long long hi) {
  tensor t(static_cast<size_t>(n));
  for (auto& v : t) v = rand_range(lo, hi);
  return t;
}

// Writes C x H x W as words of one pixel x CP channels.
template <class T, int CP> void push_pixels(hls::stream<cm::word<T, CP> >& s, const tensor& x, int C, int H, int W) {
  for (int h = 0; h < H; h++)
    for (int w = 0; w < W; w++)
      for (int c0 = 0; c0 < C; c0 += CP) {
        cm::word<T, CP> wd;
        for (int c = 0; c < CP; c++) wd.v[c] = x[static_cast<size_t>(((c0 + c) * H + h) * W + w)];
        s.write(wd);
      }
}

// Reads C x H x W sent as words of P pixels x CP channels.
template <class T, int P, int CP>
tensor pop_packed(hls::stream<cm::word<T, P * CP> >& s, int C, int H, int W) {
  tensor x(static_cast<size_t>(C * H * W));
  for (int h = 0; h < H; h++)
    for (int w0 = 0; w0 < W; w0 += P)
      for (int c0 = 0; c0 < C; c0 += CP) {
        const cm::word<T, P * CP> wd = s.read();
        for (int p = 0; p < P; p++)
          for (int c = 0; c < CP; c++)
            x[static_cast<size_t>(((c0 + c) * H + h) * W + w0 + p)] = wd.v[p * CP + c].to_int64();
      }
  CHECK(s.empty());
  return x;
}

// Reference convolution of `groups` channel groups (1; depthwise: groups = ICH = OCH), zero
// padding; weights OCH x ICH / groups x FH x FW.
static tensor ref_conv(const tensor& x, int ICH, int IH, int IW, const tensor& wt, const tensor& b, int OCH, int FH,
                       int FW, int S, int PAD, int groups) {
  const int gi = ICH / groups, go = OCH / groups;
  const int OH = (IH + 2 * PAD - FH) / S + 1, OW = (IW + 2 * PAD - FW) / S + 1;
  tensor y(static_cast<size_t>(OCH * OH * OW));
  for (int o = 0; o < OCH; o++)
    for (int oh = 0; oh < OH; oh++)
      for (int ow = 0; ow < OW; ow++) {
        long long acc = b[static_cast<size_t>(o)];
        for (int c = 0; c < ICH; c++) {
          if (c / gi != o / go) continue;
          for (int fy = 0; fy < FH; fy++)
            for (int fx = 0; fx < FW; fx++) {
              const int ih = oh * S + fy - PAD, iw = ow * S + fx - PAD;
              if (ih < 0 || ih >= IH || iw < 0 || iw >= IW) continue;
              const long long wv = wt[static_cast<size_t>(((o * gi + c % gi) * FH + fy) * FW + fx)];
              acc += x[static_cast<size_t>((c * IH + ih) * IW + iw)] * wv;
            }
        }
        y[static_cast<size_t>((o * OH + oh) * OW + ow)] = acc;
      }
  return y;
}

typedef ap_int<8> act_t;
typedef ap_int<6> wgt_t;
typedef ap_int<14> bias_t;
typedef ap_int<32> acc_t;

template <int ICH, int OCH, int IH, int IW, int FH, int FW, int S, int PAD, int ICH_PAR, int OCH_PAR, int OW_PAR,
          int GROUPS = 1>
void test_conv() {
  constexpr int OH = cm::out_size(IH, FH, S, PAD), OW = cm::out_size(IW, FW, S, PAD);
  constexpr int FWX = cm::window_cols(FW, S, OW_PAR);
  static wgt_t w[OCH][ICH / GROUPS][FH][FW];
  static bias_t b[OCH];
  const tensor x = random_tensor(ICH * IH * IW, -128, 127);
  const tensor wt = random_tensor(OCH * ICH / GROUPS * FH * FW, -32, 31), bt = random_tensor(OCH, -8192, 8191);
  std::size_t k = 0;
  for (auto& a : w)
    for (auto& bb : a)
      for (auto& c : bb)
        for (auto& d : c) d = wt[k++];
  for (int o = 0; o < OCH; o++) b[o] = bt[static_cast<size_t>(o)];

  hls::stream<cm::word<act_t, ICH_PAR> > in("conv_in");
  hls::stream<cm::word<act_t, ICH_PAR * FH * FWX> > win("conv_win");
  hls::stream<cm::word<acc_t, OW_PAR * OCH_PAR> > out("conv_out");
  CM_STREAM_DEPTH(win, 2);
  push_pixels<act_t, ICH_PAR>(in, x, ICH, IH, IW);
  CM_DATAFLOW_BEGIN(conv_test)
  CM_TASK(wb, cm::window_buffer<act_t, ICH, IH, IW, FH, FW, S, PAD, ICH_PAR, OW_PAR>(in, win));
  CM_TASK(conv, (cm::conv<act_t, wgt_t, bias_t, acc_t, ICH, OCH, OH, OW, FH, FW, S, ICH_PAR, OCH_PAR, OW_PAR, GROUPS>(
                    win, out, w, b)));
  CM_DATAFLOW_END()
  const tensor y = pop_packed<acc_t, OW_PAR, OCH_PAR>(out, OCH, OH, OW);
  CHECK_MSG(y == ref_conv(x, ICH, IH, IW, wt, bt, OCH, FH, FW, S, PAD, GROUPS),
            "conv ich=%d och=%d %dx%d k=%dx%d s=%d pad=%d par=(%d,%d,%d) groups=%d", ICH, OCH, IH, IW, FH, FW, S, PAD,
            ICH_PAR, OCH_PAR, OW_PAR, GROUPS);
  CHECK(in.empty());
}

template <int CH, int IH, int IW, int FH, int FW, int S, int PAD, int CH_PAR, int OW_PAR> void test_depthwise() {
  constexpr int OH = cm::out_size(IH, FH, S, PAD), OW = cm::out_size(IW, FW, S, PAD);
  constexpr int FWX = cm::window_cols(FW, S, OW_PAR);
  static wgt_t w[CH][FH][FW];
  static bias_t b[CH];
  const tensor x = random_tensor(CH * IH * IW, -128, 127);
  const tensor wt = random_tensor(CH * FH * FW, -32, 31), bt = random_tensor(CH, -8192, 8191);
  std::size_t k = 0;
  for (auto& a : w)
    for (auto& c : a)
      for (auto& d : c) d = wt[k++];
  for (int o = 0; o < CH; o++) b[o] = bt[static_cast<size_t>(o)];
  hls::stream<cm::word<act_t, CH_PAR> > in("dw_in");
  hls::stream<cm::word<act_t, CH_PAR * FH * FWX> > win("dw_win");
  hls::stream<cm::word<acc_t, OW_PAR * CH_PAR> > out("dw_out");
  CM_STREAM_DEPTH(win, 2);
  push_pixels<act_t, CH_PAR>(in, x, CH, IH, IW);
  CM_DATAFLOW_BEGIN(dw_test)
  CM_TASK(wb, cm::window_buffer<act_t, CH, IH, IW, FH, FW, S, PAD, CH_PAR, OW_PAR>(in, win));
  CM_TASK(dw, cm::conv_depthwise<act_t, wgt_t, bias_t, acc_t, CH, OH, OW, FH, FW, S, CH_PAR, OW_PAR>(win, out, w, b));
  CM_DATAFLOW_END()
  const tensor y = pop_packed<acc_t, OW_PAR, CH_PAR>(out, CH, OH, OW);
  CHECK_MSG(y == ref_conv(x, CH, IH, IW, wt, bt, CH, FH, FW, S, PAD, CH), "depthwise ch=%d par=(%d,%d) s=%d", CH,
            CH_PAR, OW_PAR, S);
}

template <int CH, int IH, int IW, int F, int S, int PAD, int CH_PAR, int OW_PAR> void test_max_pool() {
  constexpr int OH = cm::out_size(IH, F, S, PAD), OW = cm::out_size(IW, F, S, PAD);
  const tensor x = random_tensor(CH * IH * IW, -128, 127);
  hls::stream<cm::word<act_t, CH_PAR> > in("mp_in");
  hls::stream<cm::word<act_t, CH_PAR * F * cm::window_cols(F, S, OW_PAR)> > win("mp_win");
  hls::stream<cm::word<act_t, OW_PAR * CH_PAR> > out("mp_out");
  CM_STREAM_DEPTH(win, 2);
  push_pixels<act_t, CH_PAR>(in, x, CH, IH, IW);
  CM_DATAFLOW_BEGIN(mp_test)
  CM_TASK(wb, cm::window_buffer<act_t, CH, IH, IW, F, F, S, PAD, CH_PAR, OW_PAR>(in, win, act_t(-128)));
  CM_TASK(mp, cm::max_pool<act_t, CH, OH, OW, F, F, S, CH_PAR, OW_PAR>(win, out));
  CM_DATAFLOW_END()
  const tensor y = pop_packed<act_t, OW_PAR, CH_PAR>(out, CH, OH, OW);
  tensor ref(static_cast<size_t>(CH * OH * OW));
  for (int c = 0; c < CH; c++)
    for (int oh = 0; oh < OH; oh++)
      for (int ow = 0; ow < OW; ow++) {
        long long m = -1000;
        for (int fy = 0; fy < F; fy++)
          for (int fx = 0; fx < F; fx++) {
            const int ih = oh * S + fy - PAD, iw = ow * S + fx - PAD;
            if (ih >= 0 && ih < IH && iw >= 0 && iw < IW) m = std::max(m, x[static_cast<size_t>((c * IH + ih) * IW + iw)]);
          }
        ref[static_cast<size_t>((c * OH + oh) * OW + ow)] = m;
      }
  CHECK_MSG(y == ref, "max pool %d s=%d pad=%d par=(%d,%d)", F, S, PAD, CH_PAR, OW_PAR);
}

template <int CH, int H, int W, int CH_PAR> void test_gap() {
  const tensor x = random_tensor(CH * H * W, -128, 127);
  hls::stream<cm::word<act_t, CH_PAR> > in("gap_in");
  hls::stream<cm::word<acc_t, CH_PAR> > out("gap_out");
  push_pixels<act_t, CH_PAR>(in, x, CH, H, W);
  CM_DATAFLOW_BEGIN(gap_test)
  CM_TASK(gap, cm::global_avg_pool<act_t, acc_t, CH, H, W, CH_PAR>(in, out));
  CM_DATAFLOW_END()
  const tensor y = pop_packed<acc_t, 1, CH_PAR>(out, CH, 1, 1);
  tensor ref(CH, 0);
  for (int c = 0; c < CH; c++)
    for (int i = 0; i < H * W; i++) ref[static_cast<size_t>(c)] += x[static_cast<size_t>(c * H * W + i)];
  CHECK(y == ref);
}

template <int ICH, int OCH, int ICH_PAR, int OCH_PAR> void test_fc() {
  static wgt_t w[OCH][ICH];
  static bias_t b[OCH];
  const tensor x = random_tensor(ICH, -128, 127);
  tensor ref(OCH);
  for (int o = 0; o < OCH; o++) {
    b[o] = rand_range(-8192, 8191);
    ref[static_cast<size_t>(o)] = b[o].to_int64();
    for (int i = 0; i < ICH; i++) {
      w[o][i] = rand_range(-32, 31);
      ref[static_cast<size_t>(o)] += w[o][i].to_int64() * x[static_cast<size_t>(i)];
    }
  }
  hls::stream<cm::word<act_t, ICH_PAR> > in("fc_in");
  hls::stream<cm::word<acc_t, OCH_PAR> > out("fc_out");
  push_pixels<act_t, ICH_PAR>(in, x, ICH, 1, 1);
  CM_DATAFLOW_BEGIN(fc_test)
  CM_TASK(fc, (cm::fully_connected<act_t, wgt_t, bias_t, acc_t, ICH, OCH, ICH_PAR, OCH_PAR>(in, out, w, b)));
  CM_DATAFLOW_END()
  CHECK_MSG((pop_packed<acc_t, 1, OCH_PAR>(out, OCH, 1, 1) == ref), "fc par=(%d,%d)", ICH_PAR, OCH_PAR);
}

// QONNX Quant in double precision: the input code x has scale 2^-7, the output scale is
// 2^-(7 - SHIFT); q = clamp(round_half_even(x * MULT * 2^-7 / 2^-(7 - SHIFT))), ReLU first.
static long long qonnx_quant(long long x, int shift, long long mult, int bits, bool sgn, bool narrow, bool relu) {
  double real = std::ldexp(static_cast<double>(x) * static_cast<double>(mult), -7);
  if (relu) real = std::max(real, 0.0);
  const double scale = std::ldexp(1.0, -(7 - shift));
  double q = std::nearbyint(real / scale);  // default rounding mode: half to even
  const double mx = sgn ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1 - (narrow ? 1 : 0);
  const double mn = sgn ? -std::ldexp(1.0, bits - 1) + (narrow ? 1 : 0) : 0;
  q = std::min(std::max(q, mn), mx);
  return static_cast<long long>(q);
}

template <class in_t, int SHIFT, int OBITS, bool OSIGNED, bool NARROW, bool RELU, long long MULT> void test_requant() {
  typedef std::conditional_t<OSIGNED, ap_int<OBITS>, ap_uint<OBITS> > out_t;
  constexpr int IW = cm::ap_traits<in_t>::width;
  constexpr bool IS = cm::ap_traits<in_t>::is_signed;
  const long long lo = IS ? -(1LL << (IW - 1)) : 0, hi = IS ? (1LL << (IW - 1)) - 1 : (1LL << IW) - 1;
  std::vector<long long> xs;
  for (int i = 0; i < 400; i++) xs.push_back(rand_range(lo, hi));
  for (int i = 0; i < 200; i++) xs.push_back(rand_range(std::max(lo, -300LL), std::min(hi, 300LL)));
  if (SHIFT > 0)  // exact ties: odd multiples of 2^(SHIFT-1) (with MULT = 1)
    for (int i = 0; i < 200; i++) {
      const long long t = (2 * rand_range(-40, 40) + 1) * (1LL << (SHIFT - 1));
      if (t >= lo && t <= hi) xs.push_back(t);
    }
  xs.push_back(lo);
  xs.push_back(hi);
  const int N = 4, NW = static_cast<int>((xs.size() + N - 1) / N);
  while (static_cast<int>(xs.size()) < NW * N) xs.push_back(0);
  hls::stream<cm::word<in_t, N> > in("rq_in");
  hls::stream<cm::word<out_t, N> > out("rq_out");
  for (int i = 0; i < NW; i++) {
    cm::word<in_t, N> w;
    for (int k = 0; k < N; k++) w.v[k] = xs[static_cast<size_t>(i * N + k)];
    in.write(w);
  }
  int bad = 0;
  // run as a single task (the block takes NWORDS as a template parameter; process word by word)
  for (int i = 0; i < NW; i++) {
    hls::stream<cm::word<in_t, N> > one("rq_one");
    one.write(in.read());
    cm::requantise<in_t, out_t, N, 1, OBITS, OSIGNED, NARROW, RELU, SHIFT, MULT>(one, out);
    const cm::word<out_t, N> o = out.read();
    for (int k = 0; k < N; k++) {
      const long long x = xs[static_cast<size_t>(i * N + k)];
      const long long want = qonnx_quant(x, SHIFT, MULT, OBITS, OSIGNED, NARROW, RELU);
      if (o.v[k].to_int64() != want) {
        if (bad++ < 5)
          std::fprintf(stderr, "requant x=%lld shift=%d mult=%lld bits=%d s=%d n=%d relu=%d: got %lld want %lld\n", x,
                       SHIFT, MULT, OBITS, OSIGNED, NARROW, RELU, o.v[k].to_int64(), want);
      }
    }
  }
  CHECK(bad == 0);
}

static void test_requant_ties() {  // spot values: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, -3.5 -> -4
  CHECK((cm::requant_value<ap_int<8>, 8, true, false, false, 1, 1>(ap_int<16>(5)) == 2));
  CHECK((cm::requant_value<ap_int<8>, 8, true, false, false, 1, 1>(ap_int<16>(7)) == 4));
  CHECK((cm::requant_value<ap_int<8>, 8, true, false, false, 1, 1>(ap_int<16>(-5)) == -2));
  CHECK((cm::requant_value<ap_int<8>, 8, true, false, false, 1, 1>(ap_int<16>(-7)) == -4));
  CHECK((cm::requant_value<ap_int<8>, 8, true, true, false, 0, 1>(ap_int<16>(-300)) == -127));
  CHECK((cm::requant_value<ap_uint<4>, 4, false, false, true, 2, 1>(ap_int<16>(-300)) == 0));
  CHECK((cm::requant_value<ap_uint<4>, 4, false, true, false, 0, 1>(ap_int<16>(300)) == 14));
}

static void test_adapters() {
  constexpr int C = 6, H = 2, W = 4, NPIX = H * W;
  const tensor x = random_tensor(C * H * W, -128, 127);
  hls::stream<cm::word<act_t, 2> > s0("ad_s0");
  hls::stream<cm::word<act_t, 3> > s1("ad_s1"), s3("ad_s3");
  hls::stream<cm::word<act_t, 6> > s2("ad_s2"), s4("ad_s4");
  CM_STREAM_DEPTH(s1, 1);
  CM_STREAM_DEPTH(s2, 1);
  CM_STREAM_DEPTH(s3, 1);
  push_pixels<act_t, 2>(s0, x, C, H, W);
  CM_DATAFLOW_BEGIN(adapt)
  CM_TASK(repack, cm::repack_channels<act_t, NPIX, C, 2, 3>(s0, s1));
  CM_TASK(pack, cm::pack_pixels<act_t, NPIX, C, 2, 3>(s1, s2));
  CM_TASK(unpack, cm::unpack_pixels<act_t, NPIX, C, 2, 3>(s2, s3));
  CM_TASK(repack2, cm::repack_channels<act_t, NPIX, C, 3, 6>(s3, s4));
  CM_DATAFLOW_END()
  CHECK((pop_packed<act_t, 1, 6>(s4, C, H, W) == x));
  // the packed intermediate form, checked directly
  hls::stream<cm::word<act_t, 3> > t1("ad_t1");
  hls::stream<cm::word<act_t, 6> > t2("ad_t2");
  push_pixels<act_t, 3>(t1, x, C, H, W);
  cm::pack_pixels<act_t, NPIX, C, 2, 3>(t1, t2);
  CHECK((pop_packed<act_t, 2, 3>(t2, C, H, W) == x));
}

// Residual block: in -> fork2 -> [window_buffer 3x3 pad 1 -> conv or depthwise] -> add <- skip.
// out = conv(x) + (x << 2). Returns the skip FIFO's maximum occupancy.
template <int CH, int H, int W, int CP, bool FULL>
std::size_t residual_block(int skip_words, int other_depth, bool check) {
  constexpr int G = CH / CP, NW = H * W * G;
  typedef ap_int<34> sum_t;
  static wgt_t wf[CH][CH][3][3];
  static wgt_t wd[CH][3][3];
  static bias_t b[CH];
  const tensor x = random_tensor(CH * H * W, -128, 127);
  const tensor wt = random_tensor(CH * (FULL ? CH : 1) * 9, -32, 31), bt = random_tensor(CH, -100, 100);
  for (int o = 0; o < CH; o++) {
    b[o] = bt[static_cast<size_t>(o)];
    for (int k = 0; k < 9; k++) {
      if (FULL)
        for (int c = 0; c < CH; c++) wf[o][c][k / 3][k % 3] = wt[static_cast<size_t>((o * CH + c) * 9 + k)];
      else
        wd[o][k / 3][k % 3] = wt[static_cast<size_t>(o * 9 + k)];
    }
  }
  hls::stream<cm::word<act_t, CP> > in("res_in"), a("res_main_in"), skip("res_skip");
  hls::stream<cm::word<act_t, CP * 9> > win("res_win");
  hls::stream<cm::word<acc_t, CP> > acc("res_acc");
  hls::stream<cm::word<sum_t, CP> > out("res_out");
  CM_STREAM_DEPTH(a, other_depth);
  CM_STREAM_DEPTH(win, other_depth);
  CM_STREAM_DEPTH(acc, other_depth);
  CM_STREAM_DEPTH(skip, skip_words);
  push_pixels<act_t, CP>(in, x, CH, H, W);
  CM_DATAFLOW_BEGIN(residual)
  CM_TASK(fork, cm::fork2<act_t, CP, NW>(in, a, skip));
  CM_TASK(wb, cm::window_buffer<act_t, CH, H, W, 3, 3, 1, 1, CP, 1>(a, win));
  if (FULL)
    CM_TASK(conv, cm::conv<act_t, wgt_t, bias_t, acc_t, CH, CH, H, W, 3, 3, 1, CP, CP, 1>(win, acc, wf, b));
  else
    CM_TASK(conv, cm::conv_depthwise<act_t, wgt_t, bias_t, acc_t, CH, H, W, 3, 3, 1, CP, 1>(win, acc, wd, b));
  CM_TASK(add, cm::add<acc_t, act_t, sum_t, CP, NW, 0, 2>(acc, skip, out));
  CM_DATAFLOW_END()
  const std::size_t occ = skip.max_occupancy();
  const tensor y = pop_packed<sum_t, 1, CP>(out, CH, H, W);
  if (check) {
    tensor ref = ref_conv(x, CH, H, W, wt, bt, CH, 3, 3, 1, 1, FULL ? 1 : CH);
    for (size_t i = 0; i < ref.size(); i++) ref[i] += x[i] * 4;
    CHECK_MSG(y == ref, "residual ch=%d cp=%d full=%d", CH, CP, FULL);
  }
  return occ;
}

template <int CH, int H, int W, int CP, bool FULL> void test_residual() {
  const int d = cm::skip_depth(W, 3, 3, 1, CH / CP, !FULL);
  for (int other : {1, 2, 4}) {
    const std::size_t occ = residual_block<CH, H, W, CP, FULL>(d, other, true);
    CHECK_MSG(occ == static_cast<std::size_t>(d), "skip occupancy %zu, depth %d", occ, d);
    const child_result r = run_in_child([=] { residual_block<CH, H, W, CP, FULL>(d - 1, other, false); });
    CHECK_MSG(!r.exited_normally && r.err.find("deadlock") != std::string::npos &&
                  r.err.find("blocked writing stream 'res_skip'") != std::string::npos,
              "skip depth %d - 1 (other FIFOs %d): exited normally %d, stderr: %s", d, other, r.exited_normally,
              r.err.c_str());
  }
}

int main() {
  test_conv<4, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1>();
  test_conv<4, 6, 6, 8, 3, 3, 1, 1, 2, 3, 2>();
  test_conv<4, 6, 6, 8, 3, 3, 1, 1, 4, 6, 4>();
  test_conv<3, 4, 8, 8, 3, 3, 2, 1, 1, 2, 2>();
  test_conv<6, 4, 5, 7, 1, 1, 1, 0, 3, 4, 7>();
  test_conv<2, 2, 7, 9, 3, 5, 2, 0, 2, 1, 1>();
  // grouped (ResNeXt's 32 x 4d in small): each group's filters see only its channels
  test_conv<8, 8, 6, 6, 3, 3, 1, 1, 1, 1, 1, 4>();
  test_conv<8, 12, 6, 6, 3, 3, 1, 1, 2, 3, 2, 2>();
  test_conv<12, 6, 5, 7, 3, 3, 2, 1, 2, 1, 1, 3>();
  test_conv<4, 8, 6, 6, 3, 3, 1, 1, 1, 2, 3, 4>();  // depthwise with multiplier 2
  test_depthwise<6, 6, 8, 3, 3, 1, 1, 1, 1>();
  test_depthwise<6, 6, 8, 3, 3, 1, 1, 3, 2>();
  test_depthwise<6, 7, 7, 3, 3, 2, 1, 6, 2>();
  test_max_pool<4, 8, 8, 2, 2, 0, 2, 2>();
  test_max_pool<3, 7, 7, 3, 2, 1, 1, 1>();
  test_gap<8, 4, 4, 4>();
  test_gap<5, 3, 2, 1>();
  test_fc<12, 10, 4, 5>();
  test_fc<12, 10, 1, 1>();
  test_requant<ap_int<20>, 0, 8, true, false, false, 1>();
  test_requant<ap_int<20>, 1, 4, true, false, false, 1>();
  test_requant<ap_int<20>, 3, 8, false, false, true, 1>();
  test_requant<ap_int<20>, 5, 8, true, true, false, 1>();
  test_requant<ap_int<20>, 4, 4, false, true, false, 1>();
  test_requant<ap_int<20>, -2, 8, true, false, false, 1>();
  test_requant<ap_int<20>, 7, 3, true, false, true, 1>();
  test_requant<ap_int<20>, 6, 8, true, false, false, 3>();
  test_requant<ap_int<32>, 2, 16, true, false, false, 1>();
  test_requant<ap_uint<12>, 10, 2, false, false, false, 1>();
  test_requant<ap_uint<12>, 3, 6, true, false, true, 1>();
  test_requant_ties();
  test_adapters();
  test_residual<4, 5, 6, 4, false>();
  test_residual<4, 5, 6, 2, false>();
  test_residual<4, 4, 5, 2, true>();
  test_residual<2, 3, 4, 1, true>();
  return finish("hls_blocks");
}
