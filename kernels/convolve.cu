/* gst-cuda-vision: convolution filters and fused filter chains on the GPU.
 * Arithmetic identical to cpu-fallback/convolve.c (see cvconvolve.h and
 * convolve_common.h): bit-exact results.
 *
 * One launch per frame plane runs the whole chain. A block owns an output
 * tile of TW x TH pixels; it loads the source tile plus a halo of R pixels
 * (R = sum of the stage radii) into shared memory once, then every stage
 * computes its 8-bit result over a region that shrinks by the stage's
 * radius, from one shared buffer into the other (the last stage writes the
 * output frame). Only the in-frame part of every region is stored: a stage
 * that reads a pixel outside the frame applies the border rule to ITS
 * input frame (the previous stage's result), exactly as separate elements
 * would, by mapping the coordinate into the frame before reading shared
 * memory (the mapped pixel is always inside the region the previous stage
 * computed). Separable stages (blur, gaussian, separable custom) first
 * compute row sums into a third shared buffer, then column sums.
 * Chains whose halo does not fit in shared memory run one stage per launch
 * through device scratch frames (still one upload and one download).
 *
 * Chains of one or two named 3x3 filters (the common case) have a faster
 * path: the same kernel launch splits the frame into the tiles along its
 * edges (shared-memory tiles, border rules) and an interior that no stage
 * reads outside of, where every lane slides 3-row windows of 16 bytes down
 * its rows in registers (see "the interior of the frame" below).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve_common.h"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_X 32
#define BLOCK_Y 8
#define TILE_W 32

/* The chain as a kernel parameter (< 4 KiB of parameters in all). */
struct GpuChain
{
  int n, border, R, ksize, sep_custom;
  int kind[CV_CONVOLVE_MAX_CHAIN];
  /* custom weights: ksize x ksize (2-D) or krow[0..k-1], kcol[k..2k-1] */
  float w[CV_CONVOLVE_MAX_KSIZE * CV_CONVOLVE_MAX_KSIZE];
};
static_assert (sizeof (GpuChain) <= 3904, "kernel parameters must stay < 4 KiB");

struct Scratch
{
  uint8_t *ptr;
  size_t size;
};

/* Read channel c of the stage input at frame coordinates (gy, gx), the
 * border rule applied to the stage input frame W x H. */
template < bool INTERIOR >
__device__ __forceinline__ float
fetch (const float *in, int plane, int bw, int ox, int oy, int c, int gy,
    int gx, int W, int H, int mode)
{
  if (!INTERIOR) {
    gy = cv_conv_border (gy, H, mode);
    gx = cv_conv_border (gx, W, mode);
    if (gy < 0 || gx < 0)
      return 0.0f;
  }
  return in[c * plane + (gy - oy) * bw + (gx - ox)];
}

__device__ __forceinline__ float
stage_w2 (const GpuChain & p, int kind, int k, int i, int j)
{
  return kind == CV_FILTER_CUSTOM ? p.w[i * k + j] :
      (float) cv_conv_named_weight (kind, i, j);
}

__device__ __forceinline__ float
stage_wr (const GpuChain & p, int kind, int j)
{
  return kind == CV_FILTER_CUSTOM ? p.w[j] :
      (float) cv_conv_named_weight_1d (kind, j);
}

__device__ __forceinline__ float
stage_wc (const GpuChain & p, int kind, int k, int i)
{
  return kind == CV_FILTER_CUSTOM ? p.w[k + i] :
      (float) cv_conv_named_weight_1d (kind, i);
}

/* Row sums of a separable stage over rows [ry0, ry1) and columns
 * [ax0, ax1) (all in the frame) into tmp. */
template < int NC, bool INTERIOR >
__device__ __forceinline__ void
row_pass (const GpuChain & p, int kind, int k, const float *in, float *tmp,
    int plane, int bw, int ox, int oy, int ax0, int ax1, int ry0, int ry1,
    int W, int H, int tid, int nt)
{
  const int aw = ax1 - ax0, r = k / 2;
  const int total = aw * (ry1 - ry0);

  for (int o = tid; o < total; o += nt) {
    const int gy = ry0 + o / aw, gx = ax0 + o % aw;
#pragma unroll
    for (int c = 0; c < NC; c++) {
      float h = 0.0f;
      for (int j = 0; j < k; j++)
        h = __fadd_rn (h, __fmul_rn (stage_wr (p, kind, j),
                fetch < INTERIOR > (in, plane, bw, ox, oy, c, gy,
                    gx + j - r, W, H, p.border)));
      tmp[c * plane + (gy - oy) * bw + (gx - ox)] = h;
    }
  }
}

/* Accumulators of output pixel (gy, gx) for every channel. */
template < int NC, bool INTERIOR >
__device__ __forceinline__ void
pixel_acc (const GpuChain & p, int kind, int k, bool sep, const float *in,
    const float *tmp, int plane, int bw, int ox, int oy, int gy, int gx,
    int W, int H, float acc[NC])
{
  const int r = k / 2;

#pragma unroll
  for (int c = 0; c < NC; c++) {
    float a = 0.0f;
    if (sep) {
      for (int i = 0; i < k; i++) {
        int yy = INTERIOR ? gy + i - r : cv_conv_border (gy + i - r, H,
            p.border);
        float h = yy < 0 ? 0.0f : tmp[c * plane + (yy - oy) * bw + (gx - ox)];
        a = __fadd_rn (a, __fmul_rn (stage_wc (p, kind, k, i), h));
      }
    } else {
      for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
          a = __fadd_rn (a, __fmul_rn (stage_w2 (p, kind, k, i, j),
                  fetch < INTERIOR > (in, plane, bw, ox, oy, c, gy + i - r,
                      gx + j - r, W, H, p.border)));
    }
    acc[c] = a;
  }
}

template < int BPP, int NC >
__global__ void __launch_bounds__ (BLOCK_X * BLOCK_Y)
conv_chain_kernel (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride,
    const uint8_t * __restrict__ asrc, size_t astride, int W, int H, int TH,
    const __grid_constant__ GpuChain p)
{
  extern __shared__ float smem[];
  const int R = p.R;
  const int bw = TILE_W + 2 * R, bh = TH + 2 * R;
  const int plane = bw * bh;
  const int bufsz = plane * NC;
  const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TH;
  const int xe = min (x0 + TILE_W, W), ye = min (y0 + TH, H);
  const int ox = x0 - R, oy = y0 - R;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nt = blockDim.x * blockDim.y;
  const int tmp_index = p.n >= 2 ? 2 : 1;
  int bi = 0, Rs = R;

  /* the in-frame part of the source tile + halo */
  {
    const int lx0 = max (ox, 0), lx1 = min (ox + bw, W);
    const int ly0 = max (oy, 0), ly1 = min (oy + bh, H);
    const int lw = lx1 - lx0, total = lw * (ly1 - ly0);

    for (int o = tid; o < total; o += nt) {
      const int gy = ly0 + o / lw, gx = lx0 + o % lw;
      const uint8_t *px = src + (size_t) gy * sstride + (size_t) gx * BPP;
#pragma unroll
      for (int c = 0; c < NC; c++)
        smem[c * plane + (gy - oy) * bw + (gx - ox)] = (float) px[c];
    }
  }
  __syncthreads ();

  for (int s = 0; s < p.n; s++) {
    const int kind = p.kind[s];
    const int k = kind == CV_FILTER_CUSTOM ? p.ksize : 3, r = k / 2;
    const bool sep = cv_conv_stage_separable (kind, p.sep_custom);
    const bool last = s == p.n - 1;
    const float *in = smem + bi * bufsz;
    float *out = smem + (1 - bi) * bufsz;
    float *tmp = smem + tmp_index * bufsz;
    int ax0, ax1, ay0, ay1, aw, total;
    bool interior;

    Rs -= r;
    /* in-frame part of this stage's output region */
    ax0 = max (x0 - Rs, 0);
    ax1 = min (xe + Rs, W);
    ay0 = max (y0 - Rs, 0);
    ay1 = min (ye + Rs, H);
    aw = ax1 - ax0;
    total = aw * (ay1 - ay0);
    /* block-uniform: no read of this stage leaves the frame */
    interior = ax0 - r >= 0 && ax1 + r <= W && ay0 - r >= 0 && ay1 + r <= H;

    if (sep) {
      /* every in-frame row of the stage's input region */
      const int ry0 = max (y0 - Rs - r, 0), ry1 = min (ye + Rs + r, H);
      if (interior)
        row_pass < NC, true > (p, kind, k, in, tmp, plane, bw, ox, oy, ax0,
            ax1, ry0, ry1, W, H, tid, nt);
      else
        row_pass < NC, false > (p, kind, k, in, tmp, plane, bw, ox, oy, ax0,
            ax1, ry0, ry1, W, H, tid, nt);
      __syncthreads ();
    }

    for (int o = tid; o < total; o += nt) {
      const int gy = ay0 + o / aw, gx = ax0 + o % aw;
      float acc[NC];

      if (interior)
        pixel_acc < NC, true > (p, kind, k, sep, in, tmp, plane, bw, ox, oy,
            gy, gx, W, H, acc);
      else
        pixel_acc < NC, false > (p, kind, k, sep, in, tmp, plane, bw, ox, oy,
            gy, gx, W, H, acc);
      if (last) {
        uint8_t *q = dst + (size_t) gy * dstride + (size_t) gx * BPP;
#pragma unroll
        for (int c = 0; c < NC; c++)
          q[c] = (uint8_t) cv_conv_finish (kind, acc[c]);
#pragma unroll
        for (int c = NC; c < BPP; c++)
          q[c] = asrc[(size_t) gy * astride + (size_t) gx * BPP + c];
      } else {
#pragma unroll
        for (int c = 0; c < NC; c++)
          out[c * plane + (gy - oy) * bw + (gx - ox)] =
              (float) cv_conv_finish (kind, acc[c]);
      }
    }
    __syncthreads ();
    bi = 1 - bi;
  }
}

static size_t
smem_bytes (int n, int any_sep, int R, int th, int nc)
{
  int nbuf = (n >= 2 ? 2 : 1) + (any_sep ? 1 : 0);
  return (size_t) nbuf * nc * (TILE_W + 2 * R) * (th + 2 * R) * sizeof (float);
}

template < int BPP, int NC >
static int
launch (const uint8_t * src, size_t sstride, uint8_t * dst, size_t dstride,
    const uint8_t * asrc, size_t astride, int W, int H, const GpuChain & g,
    int max_smem, cudaStream_t stream)
{
  int any_sep = 0, th = 8, i;
  size_t smem;
  dim3 block (BLOCK_X, BLOCK_Y), grid;

  for (i = 0; i < g.n; i++)
    any_sep |= cv_conv_stage_separable (g.kind[i], g.sep_custom);
  /* the tallest tile whose buffers fit the default 48 KiB */
  for (int t = 32; t >= 8; t /= 2)
    if (smem_bytes (g.n, any_sep, g.R, t, NC) <= 48 * 1024) {
      th = t;
      break;
    }
  smem = smem_bytes (g.n, any_sep, g.R, th, NC);
  if (smem > (size_t) max_smem)
    return CV_ERROR_INVALID_ARGUMENT;
  if (smem > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute (conv_chain_kernel < BPP, NC >,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem);
    if (e != cudaSuccess)
      return (int) e;
  }
  grid = dim3 ((W + TILE_W - 1) / TILE_W, (H + th - 1) / th);
  if (grid.y > 65535)
    return CV_ERROR_INVALID_ARGUMENT;
  conv_chain_kernel < BPP, NC > <<<grid, block, smem, stream>>> (src,
      sstride, dst, dstride, asrc, astride, W, H, th, g);
  return (int) cudaGetLastError ();
}

/* ---- fast path 1: chains of named 3x3 filters (exact integer math) ----
 *
 * A plane row is handled as bytes, as on the CPU: every byte is filtered
 * with its neighbours BPP bytes away (the unfiltered alpha/x byte of RGBA
 * is replaced from the source at the end), 4 bytes per 32-bit word. A
 * block owns TWW words x TH rows of output; buffer A holds the source
 * tile plus a halo of R = n words and R rows (border rule applied while
 * loading). Stage s computes words [s + 1, BWW - s - 1) x rows
 * [s + 1, BH - s - 1) of its output buffer (words of 2 x 16-bit lanes:
 * bytes 0, 2 and bytes 1, 3; sums stay below 65536 per lane), each thread
 * a column strip of rows sliding a 3-row window in registers. Blocks at
 * the frame edge then set the out-of-frame pixels next to the frame (the
 * only ones the next stage reads) from the in-frame ones by the border
 * rule, i.e. the border rule of the next stage's input frame. */

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

/* Where a named stage writes: the next stage's shared buffer, or (last
 * stage) the destination frame. */
struct EmitShared
{
  uint32_t *out;
  int pitch;
  __device__ __forceinline__ void operator () (int j, int i, uint32_t v) const
  {
    out[j * pitch + i] = v;
  }
};

template < int BPP, int NC > struct EmitGlobal
{
  const uint8_t *src;
  size_t sstride;
  uint8_t *dst;
  size_t dstride;
  int ob, oy, Wb, H, vec;
  const uint32_t *tile;         /* the source tile in shared memory, or NULL */
  int pitch;
  __device__ __forceinline__ void operator () (int j, int i, uint32_t v) const
  {
    const int gy = oy + j, gb = ob + 4 * i;

    if (gy >= H || gb >= Wb)
      return;
    if (vec && gb + 4 <= Wb) {
      if (NC < BPP)             /* BPP 4: byte 3 from the source */
        v = (v & 0x00FFFFFFu) | ((tile ? tile[j * pitch + i] :
                __ldg ((const unsigned int *) (src + (size_t) gy * sstride +
                        gb))) & 0xFF000000u);
      *(uint32_t *) (dst + (size_t) gy * dstride + gb) = v;
    } else {
      for (int b = 0; b < 4 && gb + b < Wb; b++) {
        uint8_t byte = (uint8_t) (v >> (8 * b));
        if (NC < BPP && (gb + b) % BPP >= NC)
          byte = src[(size_t) gy * sstride + gb + b];
        dst[(size_t) gy * dstride + gb + b] = byte;
      }
    }
  }
};

/* Output rows [r0, r1) of word column col. */
template < int BPP, bool CROSS, class Emit >
__device__ __forceinline__ void
named_strip (const StageK & k, const uint32_t * in, int pitch, int col,
    int r0, int r1, const Emit & emit)
{
  const uint32_t *row = in + (r0 - 1) * pitch + col;
  RowFeat u = feat_cls < BPP, CROSS > (k, row[-1], row[0], row[1]);
  RowFeat m;

  row += pitch;
  m = feat_cls < BPP, CROSS > (k, row[-1], row[0], row[1]);
  for (int j = r0; j < r1; j++) {
    RowFeat d;

    row += pitch;
    d = feat_cls < BPP, CROSS > (k, row[-1], row[0], row[1]);
    emit (j, col, out_cls < CROSS > (k, u, m, d));
    u = m;
    m = d;
  }
}

template < int BPP, class Emit >
__device__ __forceinline__ void
named_stage (const NamedChain & c, const uint32_t * in, int pitch, int s,
    int BWW, int BH, int tid, const Emit & emit)
{
  const int rw = BWW - 2 * s - 2, rh = BH - 2 * s - 2;
  const int nstrip = max (1, NT_THREADS / rw);
  const int sh = (rh + nstrip - 1) / nstrip;
  const int items = rw * nstrip;
  const StageK k = c.k[s];
  const bool cross = c.cross[s];

  for (int it = tid; it < items; it += NT_THREADS) {
    const int strip = it / rw, col = s + 1 + (it - strip * rw);
    const int r0 = s + 1 + strip * sh, r1 = min (r0 + sh, BH - s - 1);

    if (r0 >= r1)
      continue;
    if (cross)
      named_strip < BPP, true > (k, in, pitch, col, r0, r1, emit);
    else
      named_strip < BPP, false > (k, in, pitch, col, r0, r1, emit);
  }
}

template < int BPP, int NC, bool SMALL >
__device__ __forceinline__ void
named_tile (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int W, int H, int vec,
    const NamedChain & c, int tx, int ty, uint32_t * nsm)
{
  constexpr int TWW = NamedGeom < BPP, SMALL >::TWW;
  constexpr int TH = NamedGeom < BPP, SMALL >::TH;
  const int R = c.n, mode = c.border;
  const int BWW = TWW + 2 * R, BH = TH + 2 * R, plane = BWW * BH;
  const int Wb = W * BPP;
  const int ob = tx * TWW * 4 - 4 * R;
  const int oy = ty * TH - R;
  const int tid = threadIdx.x;
  const bool edge = ob < 0 || ob + 4 * BWW > Wb || oy < 0 || oy + BH > H;
  uint32_t *in = nsm, *out = nsm + plane;

  /* source tile + halo, border rule applied; 4 loads in flight per
   * thread */
  for (int o0 = tid; o0 < plane; o0 += 4 * NT_THREADS) {
    uint32_t v[4];

#pragma unroll
    for (int k = 0; k < 4; k++) {
      const int o = o0 + k * NT_THREADS;
      const int j = o / BWW, i = o - j * BWW;
      const int gy = oy + j, gb = ob + 4 * i;

      v[k] = 0;
      if (o >= plane)
        break;
      if (vec && gy >= 0 && gy < H && gb >= 0 && gb + 4 <= Wb) {
        v[k] = __ldg ((const unsigned int *) (src + (size_t) gy * sstride +
                gb));
      } else {
        /* addresses first, then the 4 loads at once (a byte out of the
         * frame under the constant rule reads byte 0 and is masked) */
        const int my = cv_conv_border (gy, H, mode);
        size_t at[4];
        uint32_t ok = 0, by[4];

#pragma unroll
        for (int b = 0; b < 4; b++) {
          const int px = floor_div (gb + b, BPP), ch = gb + b - px * BPP;
          const int mx = cv_conv_border (px, W, mode);
          const bool in_frame = my >= 0 && mx >= 0;
          at[b] = in_frame ? (size_t) my * sstride + (size_t) mx * BPP + ch : 0;
          ok |= (in_frame ? 0xFFu : 0u) << (8 * b);
        }
#pragma unroll
        for (int b = 0; b < 4; b++)
          by[b] = __ldg (src + at[b]);
        v[k] = (by[0] | by[1] << 8 | by[2] << 16 | by[3] << 24) & ok;
      }
    }
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (o0 + k * NT_THREADS < plane)
        in[o0 + k * NT_THREADS] = v[k];
  }
  __syncthreads ();

  for (int s = 0; s < R; s++) {
    if (s == R - 1) {
      /* buffer nsm still holds the source tile up to the second stage */
      EmitGlobal < BPP, NC > e = { src, sstride, dst, dstride, ob, oy, Wb, H,
        vec, R <= 2 ? nsm : NULL, BWW
      };
      named_stage < BPP > (c, in, BWW, s, BWW, BH, tid, e);
      break;
    }
    {
      EmitShared e = { out, BWW };
      named_stage < BPP > (c, in, BWW, s, BWW, BH, tid, e);
    }
    __syncthreads ();
    if (edge) {
      /* out-of-frame pixels next to the frame (rows -1 and H, pixel
       * columns -1 and W) from in-frame ones of the same buffer: byte
       * stores to bytes no thread reads in this pass */
      const int rw = BWW - 2 * s - 2, rh = BH - 2 * s - 2;
      uint8_t *ob8 = (uint8_t *) out;

      for (int o = tid; o < rw * rh; o += NT_THREADS) {
        const int j = s + 1 + o / rw, i = s + 1 + o % rw;
        const int gy = oy + j, gb = ob + 4 * i;
        const bool rowin = gy >= 0 && gy < H;

        if ((rowin && gb >= 0 && gb + 4 <= Wb) || gy < -1 || gy > H
            || gb + 4 <= -BPP || gb >= Wb + BPP)
          continue;
        {
          const int my = cv_conv_border (gy, H, mode);
          for (int b = 0; b < 4; b++) {
            const int px = floor_div (gb + b, BPP), ch = gb + b - px * BPP;
            int mx;
            uint8_t v = 0;

            if ((rowin && px >= 0 && px < W) || px < -1 || px > W)
              continue;
            mx = cv_conv_border (px, W, mode);
            if (my >= 0 && mx >= 0)
              v = ob8[(size_t) (my - oy) * BWW * 4 + (mx * BPP + ch - ob)];
            ob8[(size_t) j * BWW * 4 + 4 * i + b] = v;
          }
        }
      }
      __syncthreads ();
    }
    {
      uint32_t *t = in;
      in = out;
      out = t;
    }
  }
}

/* ---- the interior of the frame: rows sliding in registers ----
 *
 * Where no stage of the chain reads outside the frame (every tile but the
 * first and last tile rows and columns of the tiling above) a lane owns 16
 * bytes (4 words) of a row and walks S rows, keeping the last 3 rows of
 * every stage's input in registers: no shared memory, no barrier. A row of
 * stage s is computed from the 4 words of the lane and the word to each
 * side (the neighbouring lanes' words, by shuffle); stage s + 1 reads the
 * stage s results the same way. The outer lanes of a warp have no
 * neighbour on one side, so their outermost word is wrong after each
 * stage; with 4 words per lane and at most 4 stages that never reaches
 * their third word, so lanes 1 .. 30 are exact and write the output
 * (for a single stage lanes 0 and 31 load the missing word and write too).
 * Chains of up to FAST_MAX_N stages take this path. Same per-lane
 * arithmetic as the tiles (feat_cls / out_cls). */

#define FAST_S 8                /* rows per lane */
#define FAST_MAX_N 2            /* longest chain run this way */

/* Features of the 4 words w of a lane, its neighbours' words by shuffle
 * (or el / er for the outer lanes of a single stage). */
template < int BPP, bool CROSS >
__device__ __forceinline__ void
quad_feat (const StageK & k, const uint32_t w[4], int lane, bool own_edges,
    uint32_t el, uint32_t er, RowFeat f[4])
{
  uint32_t l = __shfl_up_sync (0xffffffffu, w[3], 1);
  uint32_t r = __shfl_down_sync (0xffffffffu, w[0], 1);

  if (own_edges && lane == 0)
    l = el;
  if (own_edges && lane == 31)
    r = er;
  f[0] = feat_cls < BPP, CROSS > (k, l, w[0], w[1]);
  f[1] = feat_cls < BPP, CROSS > (k, w[0], w[1], w[2]);
  f[2] = feat_cls < BPP, CROSS > (k, w[1], w[2], w[3]);
  f[3] = feat_cls < BPP, CROSS > (k, w[2], w[3], r);
}

/* One lane's strip: rows [y0, y0 + FAST_S) of the quad at byte qb. All
 * rows y0 - N .. y0 + FAST_S - 1 + N and bytes qb - 4 .. qb + 19 that
 * the output depends on are inside the frame (the caller's region).
 * Bit s of CLS: stage s is of the cross class. */
template < int BPP, int NC, int N, int CLS >
__device__ __forceinline__ void
fast_strip (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, const NamedChain & c,
    int qb, int y0, bool load, bool load_right, bool store, int lane)
{
  constexpr int ROWS = FAST_S + 2 * N;
  RowFeat u[N][4], m[N][4];
  uint32_t raw[ROWS][4];

#pragma unroll
  for (int i = 0; i < ROWS; i++) {
    const uint8_t *row = src + (size_t) (y0 - N + i) * sstride + qb;
    uint32_t w[4], el = 0, er = 0;

    if (load) {
      const uint4 t = __ldg ((const uint4 *) row);
      w[0] = t.x;
      w[1] = t.y;
      w[2] = t.z;
      w[3] = t.w;
      if (N == 1 && lane == 0)
        el = __ldg ((const unsigned int *) row - 1);
      if (N == 1 && lane == 31 && load_right)
        er = __ldg ((const unsigned int *) row + 4);
    } else {
      w[0] = w[1] = w[2] = w[3] = 0;
    }
    if (NC < BPP) {
#pragma unroll
      for (int q = 0; q < 4; q++)
        raw[i][q] = w[q];
    }
    /* input row i feeds stage 0; stage s gets its rows 2 s rows later */
#pragma unroll
    for (int s = 0; s < N; s++) {
      const int j = i - 2 * s;  /* input row index of stage s */
      const bool cross = (CLS >> s) & 1;
      RowFeat d[4];

      if (j < 0)
        break;
      if (cross)
        quad_feat < BPP, true > (c.k[s], w, lane, N == 1, el, er, d);
      else
        quad_feat < BPP, false > (c.k[s], w, lane, N == 1, el, er, d);
      if (j >= 2) {
        uint32_t o[4];
#pragma unroll
        for (int q = 0; q < 4; q++)
          o[q] = cross ? out_cls < true > (c.k[s], u[s][q], m[s][q], d[q]) :
              out_cls < false > (c.k[s], u[s][q], m[s][q], d[q]);
        if (s == N - 1) {
          /* output row y0 + i - 2 N, source row i - N */
          if (store) {
            uint32_t *orow = (uint32_t *) (dst + (size_t) (y0 - 2 * N + i) *
                dstride + qb);
            if (NC < BPP) {
#pragma unroll
              for (int q = 0; q < 4; q++)
                o[q] = (o[q] & 0x00FFFFFFu) | (raw[i - N][q] & 0xFF000000u);
            }
            *(uint4 *) orow = make_uint4 (o[0], o[1], o[2], o[3]);
          }
        } else {
#pragma unroll
          for (int q = 0; q < 4; q++)
            w[q] = o[q];
        }
      }
#pragma unroll
      for (int q = 0; q < 4; q++) {
        u[s][q] = m[s][q];
        m[s][q] = d[q];
      }
      if (j < 2)
        break;
    }
  }
}

/* Border tiles of the tiling (tile columns < 1 or >= tx_end, tile rows < 1
 * or >= ty_end) in this order: row 0, rows ty_end .. gy - 1, then per row
 * 1 .. ty_end - 1 column 0 and columns tx_end .. gx - 1. */
struct NamedSplit
{
  int gx, gy, tx_end, ty_end;   /* tiles; fast region [1, tx_end) x [1, ty_end) */
  int nborder;                  /* border tiles */
  int qx0, qx1, ry0, ry1;       /* fast region: 16-byte quads, rows */
  int wcols, brows;             /* fast blocks: warp columns, block rows */
};

__device__ __forceinline__ void
border_tile (const NamedSplit & sp, int b, int &tx, int &ty)
{
  const int full = sp.gx * (1 + sp.gy - sp.ty_end);

  if (b < full) {
    const int r = b / sp.gx;
    tx = b - r * sp.gx;
    ty = r == 0 ? 0 : sp.ty_end + r - 1;
  } else {
    const int k = 1 + sp.gx - sp.tx_end, o = b - full, r = o / k,
        cc = o - r * k;
    ty = 1 + r;
    tx = cc == 0 ? 0 : sp.tx_end + cc - 1;
  }
}

template < int BPP, int NC, int N, int CLS >
__global__ void __launch_bounds__ (NT_THREADS)
named_chain_kernel (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int W, int H, int vec,
    const NamedChain c, const NamedSplit sp)
{
  extern __shared__ uint32_t nsm[];
  const int b = (int) blockIdx.x;

  if (b < sp.nborder) {
    int tx, ty;

    border_tile (sp, b, tx, ty);
    named_tile < BPP, NC, (N >= 1 && N <= FAST_MAX_N) > (src, sstride, dst,
        dstride, W, H, vec, c, tx, ty,
        nsm);
    return;
  }
  if (N >= 1 && N <= FAST_MAX_N) {
    constexpr int OUTQ = N == 1 ? 32 : 30;
    /* the block's warps are stacked: one warp column, 8 strips of rows */
    const int f = b - sp.nborder, by = f / sp.wcols, wc = f - by * sp.wcols;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int y0 = sp.ry0 + (by * (NT_THREADS / 32) + warp) * FAST_S;
    const int q = sp.qx0 + wc * OUTQ + lane - (N == 1 ? 0 : 1);
    const bool inner = N == 1 || (lane >= 1 && lane <= 30);

    if (y0 >= sp.ry1)           /* whole warp */
      return;
    fast_strip < BPP, NC, (N < 1 ? 1 : (N > FAST_MAX_N ? FAST_MAX_N : N)),
        CLS > (src, sstride, dst, dstride, c, 16 * q, y0, 16 * q + 16 <= W * BPP,
        16 * q + 20 <= W * BPP, inner && q < sp.qx1, lane);
  }
}

template < int BPP, bool SMALL >
static size_t
named_smem (int R)
{
  typedef NamedGeom < BPP, SMALL > G;
  /* a single stage reads one buffer and writes the frame */
  return (size_t) (R > 1 ? 2 : 1) * (G::TWW + 2 * R) * (G::TH + 2 * R) *
      sizeof (uint32_t);
}

template < int BPP, int NC, int N, int CLS >
static int
launch_named_n (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int W, int H, const NamedChain & c, cudaStream_t stream)
{
  constexpr bool FAST = N >= 1 && N <= FAST_MAX_N;
  constexpr int TWW = NamedGeom < BPP, FAST >::TWW;
  constexpr int NT_H = NamedGeom < BPP, FAST >::TH;
  const size_t smem = named_smem < BPP, FAST > (c.n);
  const long long wb = (long long) W * BPP;
  const int vec = ((uintptr_t) src % 4 == 0) && sstride % 4 == 0 &&
      ((uintptr_t) dst % 4 == 0) && dstride % 4 == 0;
  const int fast_ok = FAST && ((uintptr_t) src % 16 == 0) && sstride % 16 == 0
      && ((uintptr_t) dst % 16 == 0) && dstride % 16 == 0;
  NamedSplit sp;
  long long blocks;

  memset (&sp, 0, sizeof (sp));
  sp.gx = (int) ((wb + 4 * TWW - 1) / (4 * TWW));
  sp.gy = (H + NT_H - 1) / NT_H;
  if (wb + 8 * (long long) TWW >= INT_MAX)
    return CV_ERROR_INVALID_ARGUMENT;
  /* the fast region: tiles that are not in the first or last tile row or
   * column; it ends one tile earlier where the rows its stages read below
   * it (N) or the 16 bytes its last lanes read to its right would leave
   * the frame */
  sp.tx_end = sp.gx - 1;
  if (sp.gx >= 2 && wb - 4LL * TWW * (sp.gx - 1) < 16)
    sp.tx_end--;
  sp.ty_end = sp.gy - 1;
  if (sp.gy >= 2 && H - NT_H * (sp.gy - 1) < N)
    sp.ty_end--;
  if (!fast_ok || sp.tx_end <= 1 || sp.ty_end <= 1) {
    sp.tx_end = 1;              /* every tile is a border tile */
    sp.ty_end = 1;
  }
  sp.nborder = sp.gx * (1 + sp.gy - sp.ty_end) + (sp.ty_end - 1) * (1 +
      sp.gx - sp.tx_end);
  if (sp.tx_end > 1) {
    const int outq = N == 1 ? 32 : 30, rows = NT_THREADS / 32 * FAST_S;

    sp.qx0 = TWW / 4;           /* 4 * TWW bytes = TWW / 4 quads */
    sp.qx1 = sp.tx_end * TWW / 4;
    sp.ry0 = NT_H;
    sp.ry1 = sp.ty_end * NT_H;
    sp.wcols = (sp.qx1 - sp.qx0 + outq - 1) / outq;
    sp.brows = (sp.ry1 - sp.ry0 + rows - 1) / rows;
  }
  blocks = (long long) sp.nborder + (long long) sp.wcols * sp.brows;
  if (blocks > INT_MAX)
    return CV_ERROR_INVALID_ARGUMENT;
  named_chain_kernel < BPP, NC, N, CLS > <<<(unsigned) blocks, NT_THREADS,
      smem, stream>>> (src, sstride, dst, dstride, W, H, vec, c, sp);
  return (int) cudaGetLastError ();
}

template < int BPP, int NC >
static int
launch_named (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int W, int H, const NamedChain & c, cudaStream_t stream)
{
#define CV_LN(n, k) launch_named_n < BPP, NC, n, k > (src, sstride, dst, \
      dstride, W, H, c, stream)
  const int x0 = c.cross[0], x1 = c.n > 1 && c.cross[1];

  switch (c.n) {
    case 1:
      return x0 ? CV_LN (1, 1) : CV_LN (1, 0);
    case 2:
      switch (x0 | x1 << 1) {
        case 0:
          return CV_LN (2, 0);
        case 1:
          return CV_LN (2, 1);
        case 2:
          return CV_LN (2, 2);
        default:
          return CV_LN (2, 3);
      }
    default:
      return CV_LN (0, 0);      /* tiles only */
  }
#undef CV_LN
}


/* ---- fast path 2: one general (non-separable) custom kernel, 1 byte per
 * pixel (GRAY8, planes of I420) ----
 *
 * A block of CB_X x CB_Y threads owns 64 x 16 outputs: every thread 8
 * consecutive outputs of one row, whose accumulators stay in registers.
 * The tile + halo is converted to float in shared memory once (border
 * rule applied). For kernel row i a thread loads the 8 + K - 1 inputs it
 * needs and the K weights (float4, the weights broadcast), then adds the
 * K products of every output in order j = 0 .. K - 1: each output still
 * sees acc = (((0 + w00 p00) + w01 p01) + ...) in the documented order.
 * The row pitch (== 4 mod 32 words) and the 8 x 4 threads of a warp make
 * the float4 loads conflict-free. */

#define CB_X 8
#define CB_Y 16
#define CB_P 8

template < int K > struct CustomGeom
{
  static constexpr int R = K / 2;
  static constexpr int TW = CB_X * CB_P, TH = CB_Y;
  static constexpr int IW = TW + K - 1, IH = TH + K - 1;
  static constexpr int NIN4 = (CB_P + K - 1 + 3) / 4;   /* float4 per row */
  static constexpr int NEED = (CB_X - 1) * CB_P + 4 * NIN4;
  static constexpr int W0 = IW > NEED ? IW : NEED;
  static constexpr int PITCH = (W0 + 27) / 32 * 32 + 4 >= W0 ?
      (W0 + 27) / 32 * 32 + 4 : (W0 + 27) / 32 * 32 + 36;
  static constexpr int KP = (K + 3) / 4 * 4;
};

template < int K >
__global__ void __launch_bounds__ (CB_X * CB_Y)
custom2d_kernel (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int W, int H, int mode,
    int vec, const __grid_constant__ GpuChain p)
{
  typedef CustomGeom < K > G;
  static_assert (G::PITCH % 32 == 4 && G::PITCH >= G::W0, "pitch");
  __shared__ __align__ (16) float tile[G::IH * G::PITCH];
  __shared__ __align__ (16) float wts[K * G::KP];
  const int tid = threadIdx.x;
  const int x0 = (int) blockIdx.x * G::TW, y0 = (int) blockIdx.y * G::TH;

  for (int o = tid; o < K * G::KP; o += CB_X * CB_Y) {
    const int i = o / G::KP, j = o - i * G::KP;
    wts[o] = j < K ? p.w[i * K + j] : 0.0f;
  }
  for (int o = tid; o < G::IH * G::PITCH; o += CB_X * CB_Y) {
    const int j = o / G::PITCH, i = o - j * G::PITCH;
    float v = 0.0f;

    if (i < G::IW) {
      const int my = cv_conv_border (y0 - G::R + j, H, mode);
      const int mx = cv_conv_border (x0 - G::R + i, W, mode);
      if (my >= 0 && mx >= 0)
        v = (float) src[(size_t) my * sstride + mx];
    }
    tile[o] = v;
  }
  __syncthreads ();

  {
    const int tx = tid % CB_X, ty = tid / CB_X;
    const int gy = y0 + ty, gx = x0 + tx * CB_P;
    const float *base = tile + ty * G::PITCH + tx * CB_P;
    float acc[CB_P];

#pragma unroll
    for (int o = 0; o < CB_P; o++)
      acc[o] = 0.0f;
#pragma unroll 1
    for (int i = 0; i < K; i++) {
      float v[4 * G::NIN4], w[G::KP];

#pragma unroll
      for (int q = 0; q < G::NIN4; q++)
        *(float4 *) & v[4 * q] = *(const float4 *) (base + i * G::PITCH +
            4 * q);
#pragma unroll
      for (int q = 0; q < G::KP / 4; q++)
        *(float4 *) & w[4 * q] = *(const float4 *) (wts + i * G::KP + 4 * q);
#pragma unroll
      for (int j = 0; j < K; j++)
#pragma unroll
        for (int o = 0; o < CB_P; o++)
          acc[o] = __fadd_rn (acc[o], __fmul_rn (w[j], v[o + j]));
    }

    if (gy < H && gx < W) {
      uint8_t *q = dst + (size_t) gy * dstride + gx;
      uint32_t b[CB_P];

#pragma unroll
      for (int o = 0; o < CB_P; o++)
        b[o] = (uint32_t) cv_conv_round_sat (acc[o]);
      if (vec && gx + CB_P <= W) {
#pragma unroll
        for (int o = 0; o < CB_P; o += 4)
          *(uint32_t *) (q + o) = b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) |
              (b[o + 3] << 24);
      } else {
#pragma unroll
        for (int o = 0; o < CB_P; o++)
          if (gx + o < W)
            q[o] = (uint8_t) b[o];
      }
    }
  }
}

template < int K >
static int
launch_custom2d (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int W, int H, const GpuChain & g, cudaStream_t stream)
{
  typedef CustomGeom < K > G;
  const int vec = ((uintptr_t) dst % 4 == 0) && dstride % 4 == 0;
  dim3 grid ((unsigned) ((W + G::TW - 1) / G::TW),
      (unsigned) ((H + G::TH - 1) / G::TH));

  if (grid.y > 65535)
    return CV_ERROR_INVALID_ARGUMENT;
  custom2d_kernel < K > <<<grid, CB_X * CB_Y, 0, stream>>> (src, sstride,
      dst, dstride, W, H, g.border, vec, g);
  return (int) cudaGetLastError ();
}

/* Returns 1 and *ret when a fast path took the work. */
static int
try_fast (int bpp, int nc, const CvPlane * src, CvPlane * dst,
    const GpuChain & g, int any_custom, cudaStream_t st, int *ret)
{
  const uint8_t *s = src->data;
  uint8_t *d = dst->data;
  const size_t ss = src->stride, ds = dst->stride;
  const int W = src->width, H = src->height;

  if (!any_custom) {
    NamedChain c;

    memset (&c, 0, sizeof (c));
    c.n = g.n;
    c.border = g.border;
    for (int i = 0; i < g.n; i++) {
      c.cross[i] = g.kind[i] == CV_FILTER_SHARPEN
          || g.kind[i] == CV_FILTER_EDGE_DETECT;
      c.k[i] = stage_k (g.kind[i]);
    }
    if (bpp == 1 && nc == 1)
      *ret = launch_named < 1, 1 > (s, ss, d, ds, W, H, c, st);
    else if (bpp == 2 && nc == 2)
      *ret = launch_named < 2, 2 > (s, ss, d, ds, W, H, c, st);
    else if (bpp == 3 && nc == 3)
      *ret = launch_named < 3, 3 > (s, ss, d, ds, W, H, c, st);
    else if (bpp == 4 && nc == 3)
      *ret = launch_named < 4, 3 > (s, ss, d, ds, W, H, c, st);
    else
      return 0;
    return 1;
  }
  if (g.n == 1 && g.kind[0] == CV_FILTER_CUSTOM && !g.sep_custom
      && bpp == 1 && nc == 1) {
    switch (g.ksize) {
#define CV_K(k) case k: *ret = launch_custom2d < k > (s, ss, d, ds, W, H, g, st); return 1;
        CV_K (3) CV_K (5) CV_K (7) CV_K (9) CV_K (11) CV_K (13) CV_K (15)
            CV_K (17) CV_K (19) CV_K (21) CV_K (23) CV_K (25) CV_K (27)
            CV_K (29) CV_K (31)
#undef CV_K
      default:
        return 0;
    }
  }
  return 0;
}

static int
launch_any (int bpp, int nc, const uint8_t * src, size_t sstride,
    uint8_t * dst, size_t dstride, const uint8_t * asrc, size_t astride,
    int W, int H, const GpuChain & g, int max_smem, cudaStream_t stream)
{
  if (bpp == 1 && nc == 1)
    return launch < 1, 1 > (src, sstride, dst, dstride, asrc, astride, W, H,
        g, max_smem, stream);
  if (bpp == 2 && nc == 2)
    return launch < 2, 2 > (src, sstride, dst, dstride, asrc, astride, W, H,
        g, max_smem, stream);
  if (bpp == 3 && nc == 3)
    return launch < 3, 3 > (src, sstride, dst, dstride, asrc, astride, W, H,
        g, max_smem, stream);
  if (bpp == 4 && nc == 3)
    return launch < 4, 3 > (src, sstride, dst, dstride, asrc, astride, W, H,
        g, max_smem, stream);
  return CV_ERROR_INVALID_ARGUMENT;
}

extern "C" int
cv_convolve_cuda (const CvPlane * src, CvPlane * dst, int bpp, int channels,
    const CvConvolveParams * p, void **scratch, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  GpuChain g;
  int w, h, i, k, dev, max_smem, any_sep = 0;
  cudaError_t e;

  if (!src || !dst || !p || !scratch || !src->data || !dst->data)
    return CV_ERROR_INVALID_ARGUMENT;
  w = src->width;
  h = src->height;
  if (w < 1 || h < 1 || dst->width != w || dst->height != h
      || p->n_filters < 1 || p->n_filters > CV_CONVOLVE_MAX_CHAIN
      || p->ksize < 1 || p->ksize > CV_CONVOLVE_MAX_KSIZE || p->ksize % 2 == 0
      || p->border_mode < CV_BORDER_CONSTANT
      || p->border_mode > CV_BORDER_REFLECT_101)
    return CV_ERROR_INVALID_ARGUMENT;

  memset (&g, 0, sizeof (g));
  g.n = p->n_filters;
  g.border = p->border_mode;
  g.ksize = k = p->ksize;
  g.sep_custom = p->separable;
  for (i = 0; i < g.n; i++) {
    if (p->filters[i] < CV_FILTER_BLUR || p->filters[i] > CV_FILTER_CUSTOM)
      return CV_ERROR_INVALID_ARGUMENT;
    g.kind[i] = p->filters[i];
    g.R += cv_conv_stage_radius (g.kind[i], k);
    any_sep |= cv_conv_stage_separable (g.kind[i], g.sep_custom);
  }
  if (p->separable) {
    memcpy (g.w, p->krow, sizeof (float) * k);
    memcpy (g.w + k, p->kcol, sizeof (float) * k);
  } else {
    memcpy (g.w, p->kernel, sizeof (float) * k * k);
  }

  if ((e = cudaGetDevice (&dev)) != cudaSuccess)
    return (int) e;
  if ((e = cudaDeviceGetAttribute (&max_smem,
              cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess)
    return (int) e;

  /* specialised kernels: named chains, one general custom kernel */
  {
    int any_custom = 0, ret;

    for (i = 0; i < g.n; i++)
      any_custom |= g.kind[i] == CV_FILTER_CUSTOM;
    if (try_fast (bpp, channels, src, dst, g, any_custom, st, &ret))
      return ret;
  }

  /* the whole chain in one pass when its halo fits in shared memory */
  if (smem_bytes (g.n, any_sep, g.R, 8, channels) <= (size_t) max_smem)
    return launch_any (bpp, channels, src->data, src->stride, dst->data,
        dst->stride, src->data, src->stride, w, h, g, max_smem, st);

  /* else one stage per launch through two scratch frames */
  {
    Scratch *sc = (Scratch *) * scratch;
    size_t fstride = (size_t) w * bpp, fsize = fstride * h;
    int n = g.n, ret = CV_OK;

    if (!sc) {
      sc = (Scratch *) calloc (1, sizeof (Scratch));
      if (!sc)
        return CV_ERROR_NO_MEMORY;
      *scratch = sc;
    }
    if (sc->size < 2 * fsize) {
      if (sc->ptr)
        cudaFree (sc->ptr);
      sc->ptr = NULL;
      sc->size = 0;
      if ((e = cudaMalloc ((void **) &sc->ptr, 2 * fsize)) != cudaSuccess)
        return (int) e;
      sc->size = 2 * fsize;
    }
    for (i = 0; i < n && ret == CV_OK; i++) {
      GpuChain one = g;
      const uint8_t *s = i == 0 ? src->data : sc->ptr + ((i - 1) % 2) * fsize;
      size_t ss = i == 0 ? src->stride : fstride;
      uint8_t *d = i == n - 1 ? dst->data : sc->ptr + (i % 2) * fsize;
      size_t ds = i == n - 1 ? dst->stride : fstride;

      one.n = 1;
      one.kind[0] = g.kind[i];
      one.R = cv_conv_stage_radius (g.kind[i], k);
      ret = launch_any (bpp, channels, s, ss, d, ds, src->data, src->stride,
          w, h, one, max_smem, st);
    }
    return ret;
  }
}

extern "C" void
cv_convolve_cuda_free_scratch (void *scratch)
{
  Scratch *sc = (Scratch *) scratch;

  if (!sc)
    return;
  if (sc->ptr)
    cudaFree (sc->ptr);
  free (sc);
}
