/* gst-cuda-vision: direct (shared-memory free) GPU path of cudaconvolve for
 * chains of one or two named 3x3 filters; included by kernels/convolve.cu
 * (and compilable as host C++ for emulation: every function is
 * __host__ __device__, the intrinsics have host equivalents below).
 *
 * A thread owns a chunk of 16 bytes of a plane row (gb .. gb + 15, as on
 * the CPU every byte is filtered with its neighbours BPP bytes away) on
 * DR consecutive rows. For each input row it needs it reads the "virtual"
 * source row V (the source row extended by the border rule, see
 * cv_conv_border) at bytes gb - 4 * HW .. gb + 15 + 4 * HW (HW = number of
 * stages): in the frame one 16-byte load plus HW 32-bit words on each side
 * (the neighbour chunks' words, served by L1); near the frame edge byte by
 * byte with the border rule. Each 32-bit word is split into two words of
 * 2 x 16-bit lanes (bytes 0, 2 and bytes 1, 3); the neighbours' lanes are
 * whole lane words (BPP 4) or one byte_perm of two adjacent lane words.
 * Rows slide through registers (a 3-row window of row features).
 *
 * Two stages: stage 1 is computed over 6 words (the chunk and one word on
 * each side) on rows y0 - 1 .. y0 + DR, in registers, and stage 2 reads
 * it. Stage 2's border rule applies to stage 1's frame: with reflect-101
 * the value computed at an out-of-frame position from V is already the
 * stage-1 value of the mirrored position (the named kernels are symmetric
 * in x and y, and V is the reflect-101 extension of the source); with
 * replicate the out-of-frame stage-1 bytes next to the frame are set from
 * the nearest in-frame pixel, with constant to 0 (rows: whole rows of
 * features replaced; columns: one byte_perm per word with per-thread
 * selectors, only in chunks that touch the frame edge).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CONVOLVE_DIRECT_CUH
#define CV_CONVOLVE_DIRECT_CUH

#include "convolve_common.h"

#include <stdint.h>

#ifdef __CUDACC__
#define DHD __host__ __device__ __forceinline__
#else
#define DHD static inline
#endif

#ifdef __CUDA_ARCH__
#define CV_UNROLL _Pragma ("unroll")
#else
#define CV_UNROLL
#endif

namespace cvdirect {

/* threads per block: 32 chunks x 4 strips */
constexpr int DX = 32;
constexpr int DY = 4;

DHD uint32_t
perm (uint32_t x, uint32_t y, uint32_t s)
{
#ifdef __CUDA_ARCH__
  return __byte_perm (x, y, s);
#else
  uint64_t v = ((uint64_t) y << 32) | x;
  uint32_t r = 0;
  for (int n = 0; n < 4; n++)
    r |= (uint32_t) ((v >> (8 * ((s >> (4 * n)) & 7))) & 0xFF) << (8 * n);
  return r;
#endif
}

DHD uint32_t
maxu2 (uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
  return __vmaxu2 (a, b);
#else
  uint32_t lo = (a & 0xFFFF) > (b & 0xFFFF) ? a & 0xFFFF : b & 0xFFFF;
  uint32_t hi = (a >> 16) > (b >> 16) ? a >> 16 : b >> 16;
  return lo | (hi << 16);
#endif
}

DHD uint32_t
minu2 (uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
  return __vminu2 (a, b);
#else
  uint32_t lo = (a & 0xFFFF) < (b & 0xFFFF) ? a & 0xFFFF : b & 0xFFFF;
  uint32_t hi = (a >> 16) < (b >> 16) ? a >> 16 : b >> 16;
  return lo | (hi << 16);
#endif
}

DHD uint32_t
ld32 (const uint8_t * p)
{
#ifdef __CUDA_ARCH__
  return __ldg ((const unsigned int *) p);
#else
  return *(const uint32_t *) p;
#endif
}

DHD uint8_t
ld8 (const uint8_t * p)
{
#ifdef __CUDA_ARCH__
  return __ldg (p);
#else
  return *p;
#endif
}

DHD void
ld128 (const uint8_t * p, uint32_t w[4])
{
#ifdef __CUDA_ARCH__
  uint4 v = __ldg ((const uint4 *) p);
  w[0] = v.x;
  w[1] = v.y;
  w[2] = v.z;
  w[3] = v.w;
#else
  CV_UNROLL
  for (int i = 0; i < 4; i++)
    w[i] = ((const uint32_t *) p)[i];
#endif
}

DHD int
fdiv (int a, int b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* lanes of a word: bytes 0, 2 (lo) and 1, 3 (hi) as 16-bit lanes */
DHD uint32_t
lo_of (uint32_t w)
{
  return perm (w, 0, 0x4240);
}

DHD uint32_t
hi_of (uint32_t w)
{
  return perm (w, 0, 0x4341);
}

/* lanes (a.lane1, b.lane0): a lane sequence shifted by one lane */
DHD uint32_t
shl (uint32_t a, uint32_t b)
{
  return perm (a, b, 0x5432);
}

/* Row features of one word: blur/gaussian the horizontal sums A (per lane
 * word lo, hi); sharpen/edge-detect A = centre_weight * C + 1020 - L - R
 * (>= 510 per lane) and the centre C. */
struct Feat
{
  uint32_t alo, ahi, clo, chi;
};

template < int KIND > DHD Feat
feat (uint32_t llo, uint32_t lhi, uint32_t clo, uint32_t chi, uint32_t rlo,
    uint32_t rhi)
{
  Feat f;

  if (KIND == CV_FILTER_BLUR) {
    f.alo = llo + clo + rlo;
    f.ahi = lhi + chi + rhi;
    f.clo = f.chi = 0;
  } else if (KIND == CV_FILTER_GAUSSIAN) {
    f.alo = llo + 2 * clo + rlo;
    f.ahi = lhi + 2 * chi + rhi;
    f.clo = f.chi = 0;
  } else {
    const uint32_t ctr = KIND == CV_FILTER_SHARPEN ? 5u : 4u;
    f.alo = ctr * clo + 0x03FC03FCu - (llo + rlo);
    f.ahi = ctr * chi + 0x03FC03FCu - (lhi + rhi);
    f.clo = clo;
    f.chi = chi;
  }
  return f;
}

/* Features of words 1 .. N - 2 of a row given as lane words lo[N], hi[N]
 * (word k's neighbours BPP bytes away lie in words k - 1, k, k + 1). */
template < int BPP, int KIND, int N > DHD void
lane_feats (const uint32_t lo[N], const uint32_t hi[N], Feat f[N - 2])
{
CV_UNROLL
  for (int k = 1; k < N - 1; k++) {
    uint32_t llo, lhi, rlo, rhi;

    if (BPP == 4) {
      llo = lo[k - 1];
      lhi = hi[k - 1];
      rlo = lo[k + 1];
      rhi = hi[k + 1];
    } else if (BPP == 2) {
      llo = shl (lo[k - 1], lo[k]);
      lhi = shl (hi[k - 1], hi[k]);
      rlo = shl (lo[k], lo[k + 1]);
      rhi = shl (hi[k], hi[k + 1]);
    } else if (BPP == 3) {
      llo = hi[k - 1];
      lhi = shl (lo[k - 1], lo[k]);
      rlo = shl (hi[k], hi[k + 1]);
      rhi = lo[k + 1];
    } else {
      llo = shl (hi[k - 1], hi[k]);
      lhi = lo[k];
      rlo = hi[k];
      rhi = shl (lo[k], lo[k + 1]);
    }
    f[k - 1] = feat < KIND > (llo, lhi, lo[k], hi[k], rlo, rhi);
  }
}

template < int BPP, int KIND, int N > DHD void
row_feats (const uint32_t w[N], Feat f[N - 2])
{
  uint32_t lo[N], hi[N];

CV_UNROLL
  for (int k = 0; k < N; k++) {
    lo[k] = lo_of (w[k]);
    hi[k] = hi_of (w[k]);
  }
  lane_feats < BPP, KIND, N > (lo, hi, f);
}

/* (S + 4) / 9 per lane (S <= 2295): (x * 7282) >> 16 == x / 9 for
 * 0 <= x < 5000 (checked by the host emulation); the quotient lands in
 * byte 2 of each product. */
DHD uint32_t
fin_blur (uint32_t s)
{
  uint32_t t0 = (s & 0xFFFFu) * 7282u + 29128u;
  uint32_t t1 = (s >> 16) * 7282u + 29128u;
  return perm (t0, t1, 0x7632);
}

DHD uint32_t
fin_gauss (uint32_t s)
{
  return ((s + 0x00080008u) >> 4) & 0x00FF00FFu;
}

/* lanes hold S + 1020 (0 .. 2295): S saturated to 0 .. 255 */
DHD uint32_t
fin_cross (uint32_t t)
{
  return minu2 (maxu2 (t, 0x03FC03FCu), 0x04FB04FBu) - 0x03FC03FCu;
}

/* Result lanes (values 0..255 in 16-bit lanes) of one word from the
 * features of the rows above (u), at (m) and below (d). */
template < int KIND > DHD void
out_lanes (const Feat & u, const Feat & m, const Feat & d, uint32_t & olo,
    uint32_t & ohi)
{
  if (KIND == CV_FILTER_BLUR) {
    olo = fin_blur (u.alo + m.alo + d.alo);
    ohi = fin_blur (u.ahi + m.ahi + d.ahi);
  } else if (KIND == CV_FILTER_GAUSSIAN) {
    olo = fin_gauss (u.alo + 2 * m.alo + d.alo);
    ohi = fin_gauss (u.ahi + 2 * m.ahi + d.ahi);
  } else {
    olo = fin_cross (m.alo - (u.clo + d.clo));
    ohi = fin_cross (m.ahi - (u.chi + d.chi));
  }
}

DHD uint32_t
pack (uint32_t lo, uint32_t hi)
{
  return perm (lo, hi, 0x6240);
}

/* Slow paths kept out of line (small code; they only run near the frame
 * edge or on unaligned planes). */
#ifdef __CUDACC__
#define DNOINLINE __host__ __device__ __noinline__
#else
#define DNOINLINE static
#endif

/* Word of the virtual row (row = source row my) at bytes q0 .. q0 + 3. */
template < int BPP > DNOINLINE uint32_t
gather_word (const uint8_t * row, int q0, int W, int Wb, int mode)
{
  uint32_t v = 0;

  for (int b = 0; b < 4; b++) {
    const int q = q0 + b;
    int px, ch, mx;

    if (q >= 0 && q < Wb) {
      v |= (uint32_t) ld8 (row + q) << (8 * b);
      continue;
    }
    px = fdiv (q, BPP);
    ch = q - px * BPP;
    mx = cv_conv_border (px, W, mode);
    if (mx >= 0)
      v |= (uint32_t) ld8 (row + (size_t) mx * BPP + ch) << (8 * b);
  }
  return v;
}

/* In-frame bytes gb + n (n < 16, gb + n < Wb) of a row: load (src) */
DNOINLINE uint32_t
row_word (const uint8_t * row, int q0, int Wb)
{
  uint32_t v = 0;

  for (int b = 0; b < 4; b++)
    if (q0 + b < Wb)
      v |= (uint32_t) ld8 (row + q0 + b) << (8 * b);
  return v;
}

DNOINLINE void
store_word (uint8_t * row, int q0, int Wb, uint32_t v)
{
  for (int b = 0; b < 4; b++)
    if (q0 + b < Wb)
      row[q0 + b] = (uint8_t) (v >> (8 * b));
}

/* Per-launch constants. */
struct Args
{
  const uint8_t *src;
  size_t sstride;
  uint8_t *dst;
  size_t dstride;
  int W, H, Wb, mode;
  int vsrc;                     /* src rows 16-byte aligned */
  int vdst;                     /* dst rows 16-byte aligned */
};

/* N words of the virtual source row u at bytes b0 .. b0 + 4 N - 1
 * (b0 = gb - 4 * (N - 4) / 2); fast: the whole span is in the frame and
 * src rows are 16-byte aligned. */
template < int BPP, int N > DHD void
load_vrow (const Args & a, int u, int gb, bool fast, uint32_t w[N])
{
  constexpr int HW = (N - 4) / 2;
  const int my = cv_conv_border (u, a.H, a.mode);

  if (my < 0) {
    CV_UNROLL
    for (int k = 0; k < N; k++)
      w[k] = 0;
    return;
  }
  {
    const uint8_t *row = a.src + (size_t) my * a.sstride;

    if (fast) {
CV_UNROLL
      for (int k = 0; k < HW; k++) {
        w[k] = ld32 (row + gb - 4 * (HW - k));
        w[N - HW + k] = ld32 (row + gb + 16 + 4 * k);
      }
      ld128 (row + gb, w + HW);
    } else {
      CV_UNROLL
      for (int k = 0; k < N; k++)
        w[k] = gather_word < BPP > (row, gb - 4 * HW + 4 * k, a.W, a.Wb,
            a.mode);
    }
  }
}

/* Store the 16 bytes of lane words (lo[k], hi[k]) at row y, bytes gb ..;
 * BPP 4 with 3 channels: byte 3 of every pixel from the source. */
template < int BPP, int NC > DHD void
store_chunk (const Args & a, int y, int gb, const uint32_t lo[4],
    const uint32_t hi[4])
{
  uint32_t o[4];
  const uint8_t *srow = a.src + (size_t) y * a.sstride;
  uint8_t *drow = a.dst + (size_t) y * a.dstride;
  const bool full = gb + 16 <= a.Wb;

  CV_UNROLL
  for (int k = 0; k < 4; k++)
    o[k] = pack (lo[k], hi[k]);
  if (NC < BPP) {
    uint32_t s[4];

    if (full && a.vsrc) {
      ld128 (srow + gb, s);
    } else {
      CV_UNROLL
      for (int k = 0; k < 4; k++)
        s[k] = row_word (srow, gb + 4 * k, a.Wb);
    }
    CV_UNROLL
    for (int k = 0; k < 4; k++)
      o[k] = perm (o[k], s[k], 0x7210);
  }
  if (full && a.vdst) {
#ifdef __CUDA_ARCH__
    *(uint4 *) (drow + gb) = make_uint4 (o[0], o[1], o[2], o[3]);
#else
    CV_UNROLL
    for (int k = 0; k < 4; k++)
      ((uint32_t *) (drow + gb))[k] = o[k];
#endif
  } else {
    CV_UNROLL
    for (int k = 0; k < 4; k++)
      store_word (drow, gb + 4 * k, a.Wb, o[k]);
  }
}

/* ---- one stage ---- */

template < int BPP, int NC, int K, int DR > DHD void
thread1 (const Args & a, int chunk, int strip)
{
  const int gb = 16 * chunk, y0 = strip * DR;
  const bool fast = a.vsrc && gb - 4 >= 0 && gb + 20 <= a.Wb;
  uint32_t w[6];
  Feat u[4], m[4], d[4];

  if (gb >= a.Wb || y0 >= a.H)
    return;
  load_vrow < BPP, 6 > (a, y0 - 1, gb, fast, w);
  row_feats < BPP, K, 6 > (w, u);
  load_vrow < BPP, 6 > (a, y0, gb, fast, w);
  row_feats < BPP, K, 6 > (w, m);
CV_UNROLL
  for (int r = 0; r < DR; r++) {
    const int y = y0 + r;
    uint32_t lo[4], hi[4];

    if (y >= a.H)
      break;
    load_vrow < BPP, 6 > (a, y + 1, gb, fast, w);
    row_feats < BPP, K, 6 > (w, d);
    CV_UNROLL
    for (int k = 0; k < 4; k++)
      out_lanes < K > (u[k], m[k], d[k], lo[k], hi[k]);
    store_chunk < BPP, NC > (a, y, gb, lo, hi);
    CV_UNROLL
    for (int k = 0; k < 4; k++) {
      u[k] = m[k];
      m[k] = d[k];
    }
  }
}

/* ---- two stages ---- */

/* Byte_perm selectors that set the stage-1 bytes next to the frame by the
 * replicate / constant rule in the 6 stage-1 words at bytes gb - 4 ..
 * gb + 19 (word 0 from words 0 and 1; word k >= 1 from words k - 1 and k
 * for replicate, from word k and 0 for constant). Returns false when the
 * chunk needs none. */
template < int BPP > DHD bool
edge_selectors (const Args & a, int gb, uint32_t sel[6])
{
  const int e = a.Wb - (gb - 4);        /* window index of byte Wb, >= 5 */
  bool any = false;

  if (a.mode == CV_BORDER_REFLECT_101)
    return false;
  CV_UNROLL
  for (int k = 0; k < 6; k++) {
    uint32_t s = 0;
    CV_UNROLL
    for (int b = 0; b < 4; b++) {
      const int i = 4 * k + b;
      uint32_t nib;
      if (k == 0) {
        const bool fix = gb == 0 && b >= 4 - BPP;
        any |= fix;
        if (a.mode == CV_BORDER_REPLICATE)
          nib = fix ? (uint32_t) (b + BPP) : (uint32_t) b;
        else
          nib = fix ? 4u : (uint32_t) b;
      } else {
        const bool fix = i >= e && i < e + BPP;
        any |= fix;
        if (a.mode == CV_BORDER_REPLICATE)
          nib = fix ? (uint32_t) (b + 4 - BPP) : (uint32_t) (b + 4);
        else
          nib = fix ? 4u : (uint32_t) b;
      }
      s |= nib << (4 * b);
    }
    sel[k] = s;
  }
  return any;
}

template < int BPP, int K1, int K2 > DHD void
stage1_row (const Feat fa[6], const Feat fb[6], const Feat fc[6],
    bool colfix, int mode, const uint32_t sel[6], Feat g[4])
{
  uint32_t lo[6], hi[6];

  CV_UNROLL
  for (int k = 0; k < 6; k++)
    out_lanes < K1 > (fa[k], fb[k], fc[k], lo[k], hi[k]);
  if (colfix) {
    uint32_t p[6], q[6];

    CV_UNROLL
    for (int k = 0; k < 6; k++)
      p[k] = pack (lo[k], hi[k]);
    if (mode == CV_BORDER_REPLICATE) {
      q[0] = perm (p[0], p[1], sel[0]);
      CV_UNROLL
      for (int k = 1; k < 6; k++)
        q[k] = perm (p[k - 1], p[k], sel[k]);
    } else {
      CV_UNROLL
      for (int k = 0; k < 6; k++)
        q[k] = perm (p[k], 0, sel[k]);
    }
    CV_UNROLL
    for (int k = 0; k < 6; k++) {
      lo[k] = lo_of (q[k]);
      hi[k] = hi_of (q[k]);
    }
  }
  lane_feats < BPP, K2, 6 > (lo, hi, g);
}

template < int BPP, int NC, int K1, int K2, int DR > DHD void
thread2 (const Args & a, int chunk, int strip)
{
  const int gb = 16 * chunk, y0 = strip * DR;
  const bool fast = a.vsrc && gb - 8 >= 0 && gb + 24 <= a.Wb;
  uint32_t w[8], sel[6];
  Feat fa[6], fb[6], fc[6], ga[4], gb4[4], gc[4], gz[4];
  bool colfix;

  if (gb >= a.Wb || y0 >= a.H)
    return;
  colfix = edge_selectors < BPP > (a, gb, sel);
  {
    uint32_t zl[6] = { 0, 0, 0, 0, 0, 0 };
    lane_feats < BPP, K2, 6 > (zl, zl, gz);
  }
  load_vrow < BPP, 8 > (a, y0 - 2, gb, fast, w);
  row_feats < BPP, K1, 8 > (w, fa);
  load_vrow < BPP, 8 > (a, y0 - 1, gb, fast, w);
  row_feats < BPP, K1, 8 > (w, fb);
  /* stage-1 rows v = y0 - 1 .. y0 + DR, output row v - 1. Stage 2 reads
   * stage-1 rows -1 and H by its border rule: constant -> a zero row,
   * replicate -> rows 0 and H - 1 (row -1 is replaced once row 0 is
   * known), reflect-101 -> as computed (see the top of this file). */
CV_UNROLL
  for (int i = 0; i < DR + 2; i++) {
    const int v = y0 - 1 + i;

    if (v - 1 >= a.H)
      break;
    load_vrow < BPP, 8 > (a, v + 1, gb, fast, w);
    row_feats < BPP, K1, 8 > (w, fc);
    stage1_row < BPP, K1, K2 > (fa, fb, fc, colfix, a.mode, sel, gc);
    if ((v < 0 && a.mode == CV_BORDER_CONSTANT)
        || (v >= a.H && a.mode != CV_BORDER_REFLECT_101)) {
      CV_UNROLL
      for (int k = 0; k < 4; k++)
        gc[k] = a.mode == CV_BORDER_CONSTANT ? gz[k] : gb4[k];
    }
    if (i == 1 && v == 0 && a.mode == CV_BORDER_REPLICATE) {
      CV_UNROLL
      for (int k = 0; k < 4; k++)
        gb4[k] = gc[k];
    }
    if (i >= 2) {
      uint32_t lo[4], hi[4];
      CV_UNROLL
      for (int k = 0; k < 4; k++)
        out_lanes < K2 > (ga[k], gb4[k], gc[k], lo[k], hi[k]);
      store_chunk < BPP, NC > (a, v - 1, gb, lo, hi);
    }
    CV_UNROLL
    for (int k = 0; k < 6; k++) {
      fa[k] = fb[k];
      fb[k] = fc[k];
    }
    CV_UNROLL
    for (int k = 0; k < 4; k++) {
      ga[k] = gb4[k];
      gb4[k] = gc[k];
    }
  }
}

}                               /* namespace cvdirect */

#endif /* CV_CONVOLVE_DIRECT_CUH */
