/* gst-cuda-vision: the per-lane arithmetic of cudaconvolve's named 3x3
 * filters on the GPU (exact integers), shared by the byte tiles
 * (convolve-named.cu) and the rows sliding in registers
 * (convolve-named-rows.cuh). Internal header, included by
 * convolve-named.cu only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CONVOLVE_NAMED_CUH
#define CV_CONVOLVE_NAMED_CUH

#include "convolve-internal.h"

#define NT_THREADS 256

/* A stage's constants. The named filters fall in two classes of the same
 * arithmetic: "box" (blur, gaussian: row sums L + kc C + R, then
 * u + kc m + d, then ((S + bias) * mul) >> 16 per lane, which is
 * (S + 4) / 9 for blur (kc 1, bias 4, mul 7282; exact for S < 5000) and
 * (S + 8) >> 4 for gaussian (kc 2, bias 8, mul 4096)) and "cross"
 * (sharpen, edge-detect: kc C + 1020 - L - R with centre weight kc 5 or 4,
 * then m - u - d saturated). */
struct StageK
{
  uint32_t kc, bias2, mul;
};

struct NamedChain
{
  int n, border;
  int cross[CV_CONVOLVE_MAX_CHAIN];     /* 1: the stage is of the cross class */
  StageK k[CV_CONVOLVE_MAX_CHAIN];
};

/* Tile shape: TWW words x TH rows. Tiles start on a pixel boundary (4 TWW
 * is a multiple of BPP) and on 16 bytes (the interior path's lanes). Chains
 * with an interior path only use tiles along the frame edges: small ones,
 * whose blocks finish sooner; longer chains tile the whole frame with
 * bigger tiles (less halo per output). */
template < int BPP, bool SMALL > struct NamedGeom
{
  static constexpr int TWW = SMALL ? (BPP == 3 ? 36 : 32) : (BPP == 3 ? 60 :
      64);
  static constexpr int TH = SMALL ? 8 : 16;
};

__device__ __forceinline__ int
floor_div (int a, int b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Bytes BPP to the left (L) and to the right (Rt) of the 4 bytes of wc. */
template < int BPP >
__device__ __forceinline__ void
neighbours (uint32_t wl, uint32_t wc, uint32_t wr, uint32_t & L,
    uint32_t & Rt)
{
  if (BPP == 1) {
    L = __byte_perm (wl, wc, 0x6543);
    Rt = __byte_perm (wc, wr, 0x4321);
  } else if (BPP == 2) {
    L = __byte_perm (wl, wc, 0x5432);
    Rt = __byte_perm (wc, wr, 0x5432);
  } else if (BPP == 3) {
    L = __byte_perm (wl, wc, 0x4321);
    Rt = __byte_perm (wc, wr, 0x6543);
  } else {
    L = wl;
    Rt = wr;
  }
}

__device__ __forceinline__ uint32_t
lanes_lo (uint32_t w)
{
  return w & 0x00FF00FFu;
}

__device__ __forceinline__ uint32_t
lanes_hi (uint32_t w)
{
  return (w >> 8) & 0x00FF00FFu;
}

/* lanes hold S + 1020 (0 .. 2295): saturate S to 0 .. 255 */
__device__ __forceinline__ uint32_t
fin_cross (uint32_t t)
{
  int a = (int) (t & 0xFFFFu) - 1020, b = (int) (t >> 16) - 1020;

  a = min (max (a, 0), 255);
  b = min (max (b, 0), 255);
  return (uint32_t) a | ((uint32_t) b << 16);
}

/* Features of one input row for a stage: blur/gaussian the horizontal
 * sums (lo, hi lanes); sharpen/edge-detect the centre c and
 * x = centre_weight * c + 1020 - left - right (>= 510 per lane). */
struct RowFeat
{
  uint32_t a_lo, a_hi, c_lo, c_hi;
};

template < int BPP, bool CROSS >
__device__ __forceinline__ RowFeat
feat_cls (const StageK & k, uint32_t wl, uint32_t wc, uint32_t wr)
{
  uint32_t L, Rt;
  RowFeat f;

  neighbours < BPP > (wl, wc, wr, L, Rt);
  if (!CROSS) {
    f.a_lo = lanes_lo (L) + k.kc * lanes_lo (wc) + lanes_lo (Rt);
    f.a_hi = lanes_hi (L) + k.kc * lanes_hi (wc) + lanes_hi (Rt);
    f.c_lo = f.c_hi = 0;
  } else {
    f.c_lo = lanes_lo (wc);
    f.c_hi = lanes_hi (wc);
    f.a_lo = k.kc * f.c_lo + 0x03FC03FCu - (lanes_lo (L) + lanes_lo (Rt));
    f.a_hi = k.kc * f.c_hi + 0x03FC03FCu - (lanes_hi (L) + lanes_hi (Rt));
  }
  return f;
}

/* The 8-bit results of a row (4 bytes) from the features of the rows
 * above (u), at (m) and below (d). */
template < bool CROSS >
__device__ __forceinline__ uint32_t
out_cls (const StageK & k, const RowFeat & u, const RowFeat & m,
    const RowFeat & d)
{
  uint32_t lo, hi;

  if (!CROSS) {
    lo = u.a_lo + k.kc * m.a_lo + d.a_lo + k.bias2;
    hi = u.a_hi + k.kc * m.a_hi + d.a_hi + k.bias2;
    lo = (((lo & 0xFFFFu) * k.mul) >> 16) | (((lo >> 16) * k.mul) &
        0xFFFF0000u);
    hi = (((hi & 0xFFFFu) * k.mul) >> 16) | (((hi >> 16) * k.mul) &
        0xFFFF0000u);
  } else {
    lo = fin_cross (m.a_lo - (u.c_lo + d.c_lo));
    hi = fin_cross (m.a_hi - (u.c_hi + d.c_hi));
  }
  return lo | (hi << 8);
}

static StageK
stage_k (int kind)
{
  StageK k;

  switch (kind) {
    case CV_FILTER_BLUR:
      k.kc = 1;
      k.bias2 = 0x00040004u;
      k.mul = 7282;
      break;
    case CV_FILTER_GAUSSIAN:
      k.kc = 2;
      k.bias2 = 0x00080008u;
      k.mul = 4096;
      break;
    case CV_FILTER_SHARPEN:
      k.kc = 5;
      k.bias2 = 0;
      k.mul = 0;
      break;
    default:
      k.kc = 4;
      k.bias2 = 0;
      k.mul = 0;
      break;
  }
  return k;
}

#endif /* CV_CONVOLVE_NAMED_CUH */
