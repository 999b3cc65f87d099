/* gst-cuda-vision: non-local-means denoising on the GPU (see cvnlmeans.h).
 *
 * Offset-major, like the CPU fallback. A block of 4 warps owns a tile of
 * (32 COLS - 2r) x 4K output pixels (r = patch radius, COLS columns per
 * lane, K rows per warp: see Shape); warp wi owns K rows of it, lane l the
 * columns x0 + COLS l + j (the last 2r columns a warp covers only compute
 * the patch halo). The frame pixels the tile needs are read once into
 * shared memory with the symmetric padding applied: the tile plus its halo
 * (fc) and, per group of offsets, the same region moved by the offsets
 * (fs). Then, for every offset off = y - x of the group, each warp on its
 * own (no __syncthreads per offset):
 *   - walks the K + 2r rows of its strip: lane l computes
 *     D = sum_c (f_c(q) - f_c(q + off))² at its COLS columns (registers);
 *   - as soon as 2r + 1 rows of D are in registers, the column pass
 *     Cs = g * D on its own columns, the row pass S = g * Cs from its own
 *     Cs and those of the next lanes (warp shuffles),
 *     w = 2^(-max (S a - b, 0) c), and sum_w, sum_wf of the pixel, all in
 *     the registers of the lane that owns the pixel.
 * The loops over rows and patch taps are fully unrolled (r is a template
 * parameter): every register array is indexed by constants. Per pixel and
 * offset: 2 shared loads for D (times (K + 2r) / K for the halo rows),
 * 2r + 1 FMA for the column pass, 2r / COLS shuffles and 2r + 1 FMA for
 * the row pass, one exp2 and 1 + C FMA for the sums. The shared-memory
 * pipe (loads and shuffles) bounds it: the column pass comes first so that
 * only the K output rows are shuffled, not the K + 2r rows of D.
 * Frames whose tiles fill less than half a wave of blocks on the GPU
 * (small frames, whole-frame mode on 256x256) split the offsets of each
 * tile over Z blocks (gridDim.z): whole offset groups per block when there
 * are many groups, else every Z-th offset of each group. Their partial
 * sums go to device scratch (bounded, see cv_nlmeans_cuda_scratch_size)
 * and a second kernel adds them in a fixed order and writes the output.
 * Whole-frame mode is the same code with the search window = the frame, so
 * its memory is the same as for any window. Each slot of the operator
 * (cv_nlmeans_cuda_ops, at the end) owns its scratch (CvCudaScratch).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda-internal.h"
#include "nlmeans_common.h"
#include "cvop-internal.h"

#include <cuda_runtime.h>
#include <stdlib.h>

namespace {

constexpr int kWarps = 4;               /* warps per block */
constexpr int kThreads = 32 * kWarps;
constexpr size_t kMaxScratch = (size_t) 64 << 20;
constexpr int kMaxZ = 64;
constexpr unsigned kFull = 0xffffffffu;

/* Block shape. cols: frame columns per lane (a warp covers 32 cols columns
 * of D: the tile plus the patch halo of r on both sides); rows: output
 * rows per warp (K). */
struct Shape
{
  int cols, rows;
};

/* output columns and rows of a block */
CV_HD constexpr int
tile_w (int r, int cols)
{
  return 32 * cols - 2 * r;
}

CV_HD constexpr int
tile_h (int rows)
{
  return kWarps * rows;
}

/* offsets per group and axis: the shifted region fs of a group must fit in
 * static shared memory beside fc (48 KiB) */
CV_HD constexpr int
group_n (int cols)
{
  return cols == 1 ? 32 : 16;
}

/* Kernel parameters, passed by value and only ever read field by field
 * (never by reference or pointer: see docs/cudanlmeans.md). */
struct KParams
{
  /* the frames of the window (nt, 1 .. CV_NLMEANS_MAX_TEMPORAL), the
   * one denoised is src[tc] */
  const uint8_t *src[CV_NLMEANS_MAX_TEMPORAL];
  size_t sstride[CV_NLMEANS_MAX_TEMPORAL];
  int nt, tc;
  uint8_t *dst;
  size_t dstride;
  float *part;                  /* Z x (1 + C) x h x w, or NULL (Z = 1) */
  int w, h, bpp, lr, lg, lb;
  int rx, ry;                   /* search half-widths, clipped to the frame */
  int z;                        /* blocks per tile along the offsets */
  int zgroups;                  /* z > 1: block zi takes whole groups
                                 * gi % z == zi (1) or offsets o % z == zi
                                 * of every group (0) */
  float g[CV_NLMEANS_MAX_PATCH];
  float a, b, c;
};

/* frame t of the window (a runtime index) by constant-indexed selects:
 * the parameter arrays are never indexed at run time */
__device__ __forceinline__ void
pick_frame (const KParams & p, int t, const uint8_t ** s, size_t * st)
{
  const uint8_t *r = p.src[0];
  size_t rs = p.sstride[0];
#pragma unroll
  for (int i = 1; i < CV_NLMEANS_MAX_TEMPORAL; i++)
    if (t == i) {
      r = p.src[i];
      rs = p.sstride[i];
    }
  *s = r;
  *st = rs;
}

/* 2^x, flushing results below 2^-126 to 0 (one MUFU.EX2 instead of
 * exp2f's denormal fix-ups): a weight that small is lost in the sums
 * anyway, whose own-pixel term is 1. */
__device__ __forceinline__ float
exp2_ftz (float x)
{
  float y;
  asm ("ex2.approx.ftz.f32 %0, %1;" : "=f" (y) : "f" (x));
  return y;
}

/* Exact integer -> float without I2F (the conversion pipe, 16 per clock
 * and SM on sm_90, shared with ex2: it bounded the colour kernel): the
 * bits 0x4B000000 | v are the float 2^23 + v for v < 2^23, minus 2^23 is
 * v exactly. */
__device__ __forceinline__ float
small_uint_to_float (uint32_t v)
{
  return __uint_as_float (0x4B000000u | v) - 8388608.0f;
}

/* byte c (a constant) of a packed pixel as a float, exactly */
template < int c > __device__ __forceinline__ float
byte_to_float (uint32_t packed)
{
  return __uint_as_float (__byte_perm (packed, 0x4B000000u,
          0x7440 + c)) - 8388608.0f;
}

/* grey: the value as a float; colour: c0 | c1 << 8 | c2 << 16 */
template < bool COLOR > struct Pix;
template <> struct Pix <false >
{
  typedef float T;
  static __device__ __forceinline__ float load (const uint8_t * q, int, int,
      int)
  {
    return (float) __ldg (q);
  }
  static __device__ __forceinline__ float dist (float a, float b)
  {
    const float e = a - b;
    return e * e;
  }
};
template <> struct Pix <true >
{
  typedef uint32_t T;
  static __device__ __forceinline__ uint32_t load (const uint8_t * q, int lr,
      int lg, int lb)
  {
    return (uint32_t) __ldg (q + lr) | ((uint32_t) __ldg (q + lg) << 8) |
        ((uint32_t) __ldg (q + lb) << 16);
  }
  static __device__ __forceinline__ float dist (uint32_t a, uint32_t b)
  {
    const unsigned int e = __vabsdiffu4 (a, b);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 610
    /* at most 3 x 255^2 < 2^23 */
    return small_uint_to_float (__dp4a (e, e, 0u));
#else
    const int e0 = e & 255, e1 = (e >> 8) & 255, e2 = (e >> 16) & 255;
    return (float) (e0 * e0 + e1 * e1 + e2 * e2);
#endif
  }
};

/* One block: output columns x0 .. x0 + TW - 1 (TW = 32 COLS - 2R), rows
 * ty0 .. ty0 + TH - 1 (TH = kWarps K); warp wi owns rows ty0 + wi K ..
 * + K - 1, lane l the columns x0 + COLS l + j (j < COLS, COLS l + j < TW).
 * Per offset a warp walks its K + 2R rows of D: lane l computes D at
 * columns x0 - R + COLS l + j and keeps it in registers; for each output
 * row, the column pass on its own columns, then the row pass from its own
 * column sums and those of its right neighbours (warp shuffles: 2R per
 * lane and output row, whatever COLS, so COLS = 2 halves them per pixel;
 * fully unrolled: every register array index is a constant). Every
 * output's arithmetic is the same whatever COLS and K. C: components
 * (1 grey, 2 the packed chroma, 3 RGB). */
template < int R, int C, int COLS, int K >
__global__ void __launch_bounds__ (kThreads)
nlmeans_kernel (const KParams p)
{
  constexpr bool COLOR = C > 1;
  typedef Pix < COLOR > PX;
  typedef typename PX::T PixT;
  constexpr int P = 2 * R + 1;
  constexpr int W = 32 * COLS;          /* columns of D per warp */
  constexpr int TW = tile_w (R, COLS);
  constexpr int TH = tile_h (K);
  constexpr int G = group_n (COLS);
  constexpr int FP = W + G;             /* fs pitch (>= W + G - 1) */
  constexpr int NR = TH + 2 * R;        /* rows of the x region */

  __shared__ __align__ (16) PixT fc[NR * W];    /* f(x + (i,j)), padded */
  __shared__ PixT fs[(NR + G - 1) * FP];        /* f(y + (i,j)) */
  /* the frames of the window, read from shared memory where used (no
   * registers held for them across the offset loops) */
  __shared__ const uint8_t *s_src[CV_NLMEANS_MAX_TEMPORAL];
  __shared__ size_t s_stride[CV_NLMEANS_MAX_TEMPORAL];

  if (threadIdx.x == 0) {
#pragma unroll
    for (int i = 0; i < CV_NLMEANS_MAX_TEMPORAL; i++) {
      s_src[i] = p.src[i];
      s_stride[i] = p.sstride[i];
    }
  }

  /* every parameter read once into a register */
  const uint8_t *src;           /* the centre frame */
  size_t sstride;
  pick_frame (p, p.tc, &src, &sstride);
  const int nt = p.nt;
  const int w = p.w, h = p.h, bpp = p.bpp;
  const int lr = p.lr, lg = p.lg, lb = p.lb;
  const int rx = p.rx, ry = p.ry, nz = p.z;
  const float ka = p.a, kb = p.b, kc = p.c;
  float g[P];
#pragma unroll
  for (int i = 0; i < P; i++)
    g[i] = p.g[i];

  const int lane = threadIdx.x & 31, wi = threadIdx.x >> 5;
  const int x0 = blockIdx.x * TW, ty0 = blockIdx.y * TH;
  const int txe = min (x0 + TW, w), tye = min (ty0 + TH, h);
  const int zi = blockIdx.z;
  const int wy0 = ty0 + wi * K;         /* first output row of the warp */
  const bool warp_rows = wy0 < h;       /* warp-uniform */
  const int ngx = (2 * rx + G) / G, ngy = (2 * ry + G) / G;
  /* the share of this block (z > 1): whole groups when there are many
   * (each group's fs loaded once per tile), else offsets of every group */
  const bool zgroups = p.zgroups;
  const int o0 = zgroups ? 0 : zi, ostep = zgroups ? 1 : nz;

  /* the tile's patches, symmetric padding. Per-warp row loops (no flat
   * e -> (e / W, e % W) split: see the fs loop below) */
  for (int rr = wi; rr < NR; rr += kWarps) {
    const uint8_t *const srow = src +
        (size_t) cv_border_symmetric (ty0 - R + rr, h) * sstride;
#pragma unroll
    for (int cc = lane; cc < W; cc += 32)
      fc[rr * W + cc] = PX::load (srow +
          (size_t) cv_border_symmetric (x0 - R + cc, w) * bpp, lr, lg, lb);
  }

  float acc_w[K][COLS], acc_f[K][COLS][C];
#pragma unroll
  for (int q = 0; q < K; q++) {
#pragma unroll
    for (int j = 0; j < COLS; j++) {
      acc_w[q][j] = 0.0f;
#pragma unroll
      for (int c = 0; c < C; c++)
        acc_f[q][j][c] = 0.0f;
    }
  }

  /* offsets with y = x + off inside the frame for some x of the tile */
  const int dx_lo = max (-rx, -(txe - 1)), dx_hi = min (rx, w - 1 - x0);
  const int dy_lo = max (-ry, -(tye - 1)), dy_hi = min (ry, h - 1 - ty0);

  /* the frames of the window, oldest first (as the CPU) */
  for (int t = 0; t < nt; t++) {
  for (int gy = 0; gy < ngy; gy++) {
    const int dya = max (-ry + gy * G, dy_lo);
    const int dyb = min (-ry + gy * G + G - 1, dy_hi);
    for (int gx = 0; gx < ngx; gx++) {
      const int dxa = max (-rx + gx * G, dx_lo);
      const int dxb = min (-rx + gx * G + G - 1, dx_hi);
      const int nlx = dxb - dxa + 1, nly = dyb - dya + 1;
      /* block-uniform: every thread takes the same branch */
      const bool group = nlx > 0 && nly > 0 && (zgroups ?
          ((t * ngy + gy) * ngx + gx) % nz == zi : zi < nlx * nly);
      if (group) {
        const int count = nlx * nly;
        /* f around y for every offset of the group */
        __syncthreads ();       /* previous group done with fs (and fc);
                                 * s_src written */
        {
          const uint8_t *const tsrc = s_src[t];
          const size_t tstride = s_stride[t];
          /* rows and columns of the region, clamped to the declared size of
           * fs (nlx, nly <= G already: the clamps only make the bound
           * explicit). Warp wi loads rows wi, wi + kWarps, ..., lane l
           * columns l, l + 32, ... of each: simple per-warp loops without
           * the integer division of a flat e -> (e / cw, e % cw) split: that
           * loop, correct in the source and in the PTX, stored past the end
           * of fs on an H200 when compiled by CUDA 13.0 at -O3. */
          const int cw = min (W + nlx - 1, FP);
          const int rh = min (NR + nly - 1, NR + G - 1);
          const int ox = x0 - R + dxa, oy = ty0 - R + dya;
          for (int rr = wi; rr < rh; rr += kWarps) {
            const uint8_t *const srow = tsrc +
                (size_t) cv_border_symmetric (oy + rr, h) * tstride;
            PixT *const drow = fs + rr * FP;
#pragma unroll 1
            for (int cc = lane; cc < cw; cc += 32)
              drow[cc] = PX::load (srow +
                  (size_t) cv_border_symmetric (ox + cc, w) * bpp, lr, lg,
                  lb);
          }
        }
        __syncthreads ();

        if (warp_rows) {
          for (int o = o0; o < count; o += ostep) {
            const int ly = o / nlx, lx = o - ly * nlx;
            const int dx = dxa + lx, dy = dya + ly;
            /* warp-uniform: rows y + dy of this warp's outputs in frame */
            if (wy0 + K - 1 + dy < 0 || wy0 + dy >= h)
              continue;
            bool xok[COLS];
#pragma unroll
            for (int j = 0; j < COLS; j++) {
              const int X = x0 + COLS * lane + j;
              xok[j] = COLS * lane + j < TW && X < w && X + dx >= 0
                  && X + dx < w;
            }
            /* output q valid for qlo <= q < qhi */
            const int qlo = max (0, -dy - wy0);
            const int qhi = min (h - wy0, h - dy - wy0);
            const PixT *a = fc + wi * K * W + COLS * lane;
            const PixT *b = fs + (wi * K + ly) * FP + COLS * lane + lx;
            /* f(y) of the outputs (columns >= TW: any loaded pixel) */
            const PixT *fyp[COLS];
#pragma unroll
            for (int j = 0; j < COLS; j++)
              fyp[j] = fs + (wi * K + ly + R) * FP +
                  min (COLS * lane + j, TW - 1) + lx + R;
            /* dc[j][k]: D at column COLS lane + j of the warp's row k */
            float dc[COLS][K + 2 * R];
#pragma unroll
            for (int k = 0; k < K + 2 * R; k++) {
#pragma unroll
              for (int j = 0; j < COLS; j++)
                dc[j][k] = PX::dist (a[k * W + j], b[k * FP + j]);
              if (k >= 2 * R) {
                const int q = k - 2 * R;
                const bool qok = q >= qlo && q < qhi;
                /* column pass on the lane's own columns (registers), then
                 * the row pass from its own sums and those of the next
                 * lanes: shuffles for the K output rows only, not for the
                 * K + 2R rows of D */
                float cs[2 * R + COLS];
#pragma unroll
                for (int j = 0; j < COLS; j++) {
                  float s = g[0] * dc[j][q];
#pragma unroll
                  for (int i = 1; i < P; i++)
                    s = fmaf (g[i], dc[j][q + i], s);
                  cs[j] = s;
                }
#pragma unroll
                for (int m = COLS; m < 2 * R + COLS; m++)
                  cs[m] = __shfl_down_sync (kFull, cs[m % COLS], m / COLS);
#pragma unroll
                for (int j = 0; j < COLS; j++) {
                  float t = g[0] * cs[j];
#pragma unroll
                  for (int i = 1; i < P; i++)
                    t = fmaf (g[i], cs[j + i], t);
                  const float m = fmaxf (fmaf (t, ka, -kb), 0.0f);
                  float wt = exp2_ftz (-(m * kc));
                  if (!(xok[j] && qok))
                    wt = 0.0f;
                  const PixT f = fyp[j][q * FP];
                  acc_w[q][j] += wt;
                  if (COLOR) {
                    const uint32_t fu = (uint32_t) f;
                    acc_f[q][j][0] = fmaf (wt, byte_to_float < 0 > (fu),
                        acc_f[q][j][0]);
                    acc_f[q][j][1 % C] = fmaf (wt, byte_to_float < 1 > (fu),
                        acc_f[q][j][1 % C]);
                    if (C == 3)
                      acc_f[q][j][2 % C] = fmaf (wt,
                          byte_to_float < 2 > (fu), acc_f[q][j][2 % C]);
                  } else {
                    acc_f[q][j][0] = fmaf (wt, (float) f, acc_f[q][j][0]);
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  }                             /* t */

#pragma unroll
  for (int j = 0; j < COLS; j++) {
    const int X = x0 + COLS * lane + j;
    if (COLS * lane + j >= TW || X >= w)
      continue;
#pragma unroll
    for (int q = 0; q < K; q++) {
      const int Y = wy0 + q;
      if (Y >= h)
        continue;
      if (p.part) {
        const size_t npix = (size_t) w * h;
        float *o = p.part + (size_t) zi * (1 + C) * npix + (size_t) Y * w + X;
        o[0] = acc_w[q][j];
#pragma unroll
        for (int c = 0; c < C; c++)
          o[(c + 1) * npix] = acc_f[q][j][c];
      } else {
        uint8_t *o = p.dst + (size_t) Y * p.dstride + (size_t) X * bpp;
        if (COLOR) {
          if (bpp == 4) {
            const uint8_t *in = src + (size_t) Y * sstride + (size_t) X * 4;
#pragma unroll
            for (int k = 0; k < 4; k++)
              o[k] = in[k];
          }
          const int offs[3] = { lr, lg, lb };
#pragma unroll
          for (int c = 0; c < C; c++) {
            const int v = (int) (acc_f[q][j][c] / acc_w[q][j] + 0.5f);
            o[offs[c]] = (uint8_t) min (v, 255);
          }
        } else {
          const int v = (int) (acc_f[q][j][0] / acc_w[q][j] + 0.5f);
          o[0] = (uint8_t) min (v, 255);
        }
      }
    }
  }
}

/* adds the Z partial sums of every pixel (z = 0, 1, ... in order) */
template < int C >
__global__ void
nlmeans_finish (const KParams p)
{
  constexpr bool COLOR = C > 1;
  const int w = p.w, h = p.h, nz = p.z, bpp = p.bpp;
  const int offs[3] = { p.lr, p.lg, p.lb };
  const size_t npix = (size_t) w * h;
  const float *const part = p.part;

  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < npix;
      i += (size_t) gridDim.x * blockDim.x) {
    float sw = 0.0f, sf[C];
#pragma unroll
    for (int c = 0; c < C; c++)
      sf[c] = 0.0f;
    for (int z = 0; z < nz; z++) {
      const float *q = part + (size_t) z * (1 + C) * npix + i;
      sw += q[0];
#pragma unroll
      for (int c = 0; c < C; c++)
        sf[c] += q[(c + 1) * npix];
    }
    const int X = (int) (i % w), Y = (int) (i / w);
    uint8_t *o = p.dst + (size_t) Y * p.dstride + (size_t) X * bpp;
    if (COLOR) {
      if (bpp == 4) {
        const uint8_t *in;
        size_t ist;
        pick_frame (p, p.tc, &in, &ist);
        in += (size_t) Y * ist + (size_t) X * 4;
        for (int k = 0; k < 4; k++)
          o[k] = in[k];
      }
#pragma unroll
      for (int c = 0; c < C; c++)
        o[offs[c]] = (uint8_t) min ((int) (sf[c] / sw + 0.5f), 255);
    } else {
      o[0] = (uint8_t) min ((int) (sf[0] / sw + 0.5f), 255);
    }
  }
}

/* The block shape of a layout (2 columns per lane: half the shuffles per
 * pixel and less halo, 58 of 64 columns per tile instead of 26 of 32 for
 * patch 7; rows per warp: the fewest that keep the halo rows cheap; grey
 * 12 x 2 x 2 accumulators, colour 8 x 2 x 4). Measured in
 * docs/cudanlmeans.md. */
constexpr Shape kGreyShape = { 2, 12 };
constexpr Shape kColorShape = { 2, 8 };

Shape
shape_for (bool color)
{
  return color ? kColorShape : kGreyShape;
}

typedef void (*KernelFn) (const KParams);

/* the kernel of a shape for patch radius r (0 .. 5) and C components */
template < int C, int COLS, int K >
KernelFn
kernel_for (int r)
{
  switch (r) {
    case 0:
      return nlmeans_kernel < 0, C, COLS, K >;
    case 1:
      return nlmeans_kernel < 1, C, COLS, K >;
    case 2:
      return nlmeans_kernel < 2, C, COLS, K >;
    case 3:
      return nlmeans_kernel < 3, C, COLS, K >;
    case 4:
      return nlmeans_kernel < 4, C, COLS, K >;
    default:
      return nlmeans_kernel < 5, C, COLS, K >;
  }
}

template < int C, int COLS, int K >
int
blocks_per_sm (int r)
{
  int n = 0;

  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&n,
          kernel_for < C, COLS, K > (r), kThreads, 0) != cudaSuccess)
    return 0;
  return n;
}

/* Blocks of the layout's kernel resident at once on the current device
 * (one wave), or 512 when the runtime cannot tell. */
int
wave_blocks (bool color, int r)
{
  int dev = 0, sms = 0, per;

  if (cudaGetDevice (&dev) != cudaSuccess ||
      cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev) !=
      cudaSuccess) {
    (void) cudaGetLastError ();
    return 512;
  }
  per = color ? blocks_per_sm < 3, kColorShape.cols,
      kColorShape.rows > (r) : blocks_per_sm < 1, kGreyShape.cols,
      kGreyShape.rows > (r);
  if (per < 1) {
    (void) cudaGetLastError ();
    return 512;
  }
  return sms * per;
}

/* How many blocks share one tile's offsets (patch radius r): 1 unless the
 * tiles fill less than half a wave of blocks on this GPU (small frames,
 * whole-frame mode), then enough for two waves, within kMaxZ and
 * kMaxScratch. Splitting costs more than it saves on frames that already
 * fill the GPU: 1080p grey, patch 7, z = 2 gave 1.91 ms instead of 2.06
 * for one frame, but 490 frames/s instead of 575 with two frames in
 * flight (H200, docs/cudanlmeans.md). */
int
choose_z (int w, int h, int channels, int r, long long noffsets)
{
  const Shape sh = shape_for (channels != 1);
  const int tw = tile_w (r, sh.cols), th = tile_h (sh.rows);
  const size_t tiles = (size_t) cv_div_up (w, tw) * cv_div_up (h, th);
  const size_t per_z = (size_t) (1 + channels) * w * h * sizeof (float);
  const size_t wave = (size_t) wave_blocks (channels != 1, r);
  size_t z;

  if (2 * tiles > wave)
    return 1;
  z = (2 * wave + tiles - 1) / tiles;
  if (z > (size_t) kMaxZ)
    z = kMaxZ;
  if (noffsets > 0 && z > (size_t) noffsets)
    z = (size_t) noffsets;      /* a block per offset at most */
  if (z * per_z > kMaxScratch)
    z = kMaxScratch / per_z;
  return z < 2 ? 1 : (int) z;
}

/* offsets of the search window clipped to the frame (0: unknown) */
long long
window_offsets (int w, int h, const CvNlMeansParams * params)
{
  long long rx = w - 1, ry = h - 1;

  if (!params)
    return 0;
  if (params->search_window != 0) {
    rx = params->search_window / 2 < rx ? params->search_window / 2 : rx;
    ry = params->search_window / 2 < ry ? params->search_window / 2 : ry;
  }
  return (2 * rx + 1) * (2 * ry + 1);
}

/* bytes of partial sums for z blocks per tile (0 when z = 1) */
size_t
scratch_bytes (int z, int w, int h, int channels)
{
  return z > 1 ? (size_t) z * (1 + channels) * w * h * sizeof (float) : 0;
}

size_t
scratch_for (int w, int h, int channels, int r, long long noffsets)
{
  return scratch_bytes (choose_z (w, h, channels, r, noffsets), w, h,
      channels);
}

bool
layout_ok (CvLumaLayout l)
{
  return (l.bpp == 1 && l.r < 0) || ((l.bpp == 3 || l.bpp == 4) && l.r >= 0
      && l.g >= 0 && l.b >= 0 && l.r < l.bpp && l.g < l.bpp && l.b < l.bpp);
}

template < int C, int COLS, int K >
void
launch_shape (int r, const KParams & kp, cudaStream_t s)
{
  const dim3 grid (cv_div_up (kp.w, tile_w (r, COLS)), cv_div_up (kp.h,
          tile_h (K)), kp.z);

  kernel_for < C, COLS, K > (r) <<<grid, kThreads, 0, s>>> (kp);
  if (kp.part) {
    const size_t npix = (size_t) kp.w * kp.h;
    size_t blocks = (npix + 255) / 256;
    if (blocks > 65535)
      blocks = 65535;
    nlmeans_finish < C > <<<(unsigned) blocks, 256, 0, s>>> (kp);
  }
}

/* kernel parameters of a call (z: blocks per tile; part: scratch or NULL) */
KParams
make_params (const CvPlane * const *frames, int n, int c, CvLumaLayout layout,
    int channels, double hh, CvPlane * dst, const CvNlMeansParams * params,
    int z, float *part)
{
  const bool color = layout.bpp != 1;
  const int w = frames[c]->width, h = frames[c]->height;
  KParams kp;
  CvNlMeansParams p1 = *params;
  CvNlMeansConstants k;

  p1.h = hh;
  cv_nlmeans_constants (&p1, channels, &k);
  for (int i = 0; i < CV_NLMEANS_MAX_TEMPORAL; i++) {
    kp.src[i] = frames[i < n ? i : c]->data;
    kp.sstride[i] = frames[i < n ? i : c]->stride;
  }
  kp.nt = n;
  kp.tc = c;
  kp.dst = dst->data;
  kp.dstride = dst->stride;
  kp.w = w;
  kp.h = h;
  kp.bpp = layout.bpp;
  kp.lr = color ? layout.r : 0;
  kp.lg = color ? layout.g : 0;
  kp.lb = color ? layout.b : 0;
  if (params->search_window == 0) {
    kp.rx = w - 1;
    kp.ry = h - 1;
  } else {
    const int R = params->search_window / 2;
    kp.rx = R < w - 1 ? R : w - 1;
    kp.ry = R < h - 1 ? R : h - 1;
  }
  for (int i = 0; i < CV_NLMEANS_MAX_PATCH; i++)
    kp.g[i] = k.g[i];
  kp.a = k.a;
  kp.b = k.b;
  kp.c = k.c;
  kp.z = z;
  kp.part = z > 1 ? part : NULL;
  {
    const int g = group_n (shape_for (color).cols);
    const int ng = ((2 * kp.rx + g) / g) * ((2 * kp.ry + g) / g);
    kp.zgroups = z > 1 && ng >= 4 * z;
  }
  return kp;
}

}                               /* namespace */

extern "C" size_t
cv_nlmeans_cuda_scratch_size (int width, int height, CvLumaLayout layout,
    const CvNlMeansParams * params)
{
  const int ch = layout.bpp == 1 ? 1 : 3;
  size_t need = 0;

  if (width < 1 || height < 1)
    return 0;
  if (params && cv_nlmeans_params_valid (params))
    return scratch_for (width, height, ch, params->patch_size / 2,
        window_offsets (width, height, params));
  /* unknown patch size: enough for any */
  for (int r = 0; r <= CV_NLMEANS_MAX_PATCH / 2; r++) {
    const size_t n = scratch_for (width, height, ch, r, 0);
    need = n > need ? n : need;
  }
  return need;
}

/* frame c of the window frames[0 .. n-1] (planes read through layout;
 * channels: 1, 2 (packed U, V, 0: the chroma) or 3) into dst with strength
 * hh */
static CvStatus
nlmeans_window (const CvPlane * const *frames, int n, int c,
    CvLumaLayout layout, int channels, double hh, CvPlane * dst,
    const CvNlMeansParams * params, const CvCudaScratch * scratch,
    void *stream)
{
  if (!frames || n < 1 || n > CV_NLMEANS_MAX_TEMPORAL || c < 0 || c >= n
      || !dst || !params || !dst->data || !cv_nlmeans_params_valid (params)
      || !layout_ok (layout) || !(hh > 0) || channels < 1 || channels > 3
      || (channels == 1) != (layout.bpp == 1))
    return CV_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < n; i++)
    if (!frames[i] || !frames[i]->data || frames[i]->width != dst->width
        || frames[i]->height != dst->height || dst->width < 1
        || dst->height < 1)
      return CV_ERROR_INVALID_ARGUMENT;

  const int w = dst->width, h = dst->height;
  const bool color = layout.bpp != 1;
  /* the split and the scratch as for 3 components whatever `channels`
   * (a 2-component pass uses less of it) */
  const int ch = color ? 3 : 1;
  const int r = params->patch_size / 2;
  const Shape sh = shape_for (color);
  if (cv_div_up (h, tile_h (sh.rows)) > 65535)
    return CV_ERROR_INVALID_ARGUMENT;

  /* the split as for one frame (the scratch size does not depend on the
   * window) */
  const long long noff = window_offsets (w, h, params);
  const int z = choose_z (w, h, ch, r, noff);
  if (z > 1 && (!scratch || scratch->size < scratch_bytes (z, w, h, ch)))
    return CV_ERROR_INVALID_ARGUMENT;
  const KParams kp = make_params (frames, n, c, layout, channels, hh, dst,
      params, z, z > 1 ? (float *) scratch->ptr : NULL);

  /* the chroma (channels 2: U, V and a zero byte) runs a 2-component
   * kernel: the zero component's sums are not kept (same results) */
  cudaStream_t s = (cudaStream_t) stream;
  if (channels == 2)
    launch_shape < 2, kColorShape.cols, kColorShape.rows > (r, kp, s);
  else if (color)
    launch_shape < 3, kColorShape.cols, kColorShape.rows > (r, kp, s);
  else
    launch_shape < 1, kGreyShape.cols, kGreyShape.rows > (r, kp, s);
  return cv_cuda_status (cudaGetLastError ());
}

extern "C" CvStatus
cv_nlmeans_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvNlMeansParams * params, CvCudaScratch * scratch, void *stream)
{
  CvStatus st;

  if (!src || !dst || !params || !scratch || !src->data || src->width < 1
      || src->height < 1 || src->width != dst->width
      || src->height != dst->height)
    return CV_ERROR_INVALID_ARGUMENT;
  st = cv_cuda_scratch_reserve (scratch, cv_nlmeans_cuda_scratch_size
      (src->width, src->height, layout, params));
  if (st != CV_OK)
    return st;
  return nlmeans_window (&src, 1, 0, layout, layout.bpp == 1 ? 1 : 3,
      params->h, dst, params, scratch, stream);
}

/* ---- the chroma of I420 / NV12 as one packed image ---- */

#include "nlmeans_ycrcb.h"

namespace {

/* U, V (step 1: I420's planes; 2: NV12's interleaved plane) -> U V 0 0 */
__global__ void
pack_uv (const uint8_t * u, size_t us, const uint8_t * v, size_t vs, int step,
    int w, int h, uint8_t * dst, size_t ds)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= w || y >= h)
    return;
  const uint32_t val = (uint32_t) u[(size_t) y * us + (size_t) x * step] |
      ((uint32_t) v[(size_t) y * vs + (size_t) x * step] << 8);
  *(uint32_t *) (dst + (size_t) y * ds + (size_t) x * 4) = val;
}

__global__ void
unpack_uv (const uint8_t * src, size_t ss, uint8_t * u, size_t us,
    uint8_t * v, size_t vs, int step, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= w || y >= h)
    return;
  const uint8_t *q = src + (size_t) y * ss + (size_t) x * 4;
  u[(size_t) y * us + (size_t) x * step] = q[0];
  v[(size_t) y * vs + (size_t) x * step] = q[1];
}

/* the chroma planes of a frame: U and V, their step */
struct Chroma
{
  uint8_t *u, *v;
  size_t us, vs;
  int step, w, h;
};

Chroma
chroma_of (const CvPlane * planes, int n_planes)
{
  Chroma c;

  c.u = planes[1].data;
  c.us = planes[1].stride;
  c.w = planes[1].width;
  c.h = planes[1].height;
  if (n_planes == 2) {
    c.v = planes[1].data + 1;
    c.vs = planes[1].stride;
    c.step = 2;
  } else {
    c.v = planes[2].data;
    c.vs = planes[2].stride;
    c.step = 1;
  }
  return c;
}

dim3
grid_2d (int w, int h)
{
  return dim3 ((unsigned) cv_div_up (w, 32), (unsigned) cv_div_up (h, 8));
}

CvStatus
launch_pack (const Chroma & c, const CvPlane * dst, cudaStream_t s)
{
  pack_uv <<<grid_2d (c.w, c.h), dim3 (32, 8), 0, s>>> (c.u, c.us, c.v,
      c.vs, c.step, c.w, c.h, dst->data, dst->stride);
  return cv_cuda_status (cudaGetLastError ());
}

CvStatus
launch_unpack (const CvPlane * src, const Chroma & c, cudaStream_t s)
{
  unpack_uv <<<grid_2d (c.w, c.h), dim3 (32, 8), 0, s>>> (src->data,
      src->stride, c.u, c.us, c.v, c.vs, c.step, c.w, c.h);
  return cv_cuda_status (cudaGetLastError ());
}

/* the packed chroma: U at byte 0, V at 1, a zero at 2 (the colour kernel's
 * third component: adds nothing to the distances), 4 bytes a pixel */
constexpr CvLumaLayout kUvLayout = { 4, 0, 1, 2 };

/* ---- rgb-mode ycrcb: packed RGB as Y and (Cr, Cb, 0, A) ----
 * A frame is converted once (kernels/nlmeans_ycrcb.h, OpenCV's integer
 * maths): Y into a 1-byte plane (denoised with h, grey kernel), Cr, Cb
 * into a 4-byte plane of the frame's size laid out as the packed chroma
 * above (kUvLayout, channels = 2, denoised with h_color), with the alpha /
 * padding byte of a 4-byte pixel at byte 3 (0 for 3-byte pixels; not read
 * by the denoiser, read back from the centre frame's plane). */

/* packed RGB (bpp, byte offsets lr, lg, lb; la: alpha / padding, -1:
 * none) -> Y, (Cr, Cb, 0, A) */
__global__ void
rgb_to_ycrcb (const uint8_t * src, size_t ss, int bpp, int lr, int lg,
    int lb, int la, int w, int h, uint8_t * yp, size_t ys, uint8_t * cp,
    size_t cs)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= w || y >= h)
    return;
  const uint8_t *q = src + (size_t) y * ss + (size_t) x * bpp;
  uint8_t Y, cr, cb;
  cv_rgb_to_ycrcb (q[lr], q[lg], q[lb], &Y, &cr, &cb);
  yp[(size_t) y * ys + x] = Y;
  *(uint32_t *) (cp + (size_t) y * cs + (size_t) x * 4) = (uint32_t) cr |
      ((uint32_t) cb << 8) | ((uint32_t) (la >= 0 ? q[la] : 0) << 24);
}

/* Y (yp), Cr, Cb (cp: bytes 0, 1), alpha (ap: byte 3) -> packed RGB */
__global__ void
ycrcb_to_rgb (const uint8_t * yp, size_t ys, const uint8_t * cp, size_t cs,
    const uint8_t * ap, size_t as, int bpp, int lr, int lg, int lb, int la,
    int w, int h, uint8_t * dst, size_t ds)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= w || y >= h)
    return;
  const uint8_t *c = cp + (size_t) y * cs + (size_t) x * 4;
  uint8_t *o = dst + (size_t) y * ds + (size_t) x * bpp;
  cv_ycrcb_to_rgb (yp[(size_t) y * ys + x], c[0], c[1], &o[lr], &o[lg],
      &o[lb]);
  if (la >= 0)
    o[la] = ap[(size_t) y * as + (size_t) x * 4 + 3];
}

CvStatus
launch_to_ycrcb (const CvPlane * src, CvLumaLayout l, const CvPlane * yp,
    const CvPlane * cp, cudaStream_t s)
{
  rgb_to_ycrcb <<<grid_2d (yp->width, yp->height), dim3 (32, 8), 0, s>>>
      (src->data, src->stride, l.bpp, l.r, l.g, l.b, cv_layout_fourth_byte (l),
      yp->width, yp->height, yp->data, yp->stride, cp->data, cp->stride);
  return cv_cuda_status (cudaGetLastError ());
}

CvStatus
launch_from_ycrcb (const CvPlane * yp, const CvPlane * cp,
    const CvPlane * ap, CvLumaLayout l, const CvPlane * dst, cudaStream_t s)
{
  ycrcb_to_rgb <<<grid_2d (dst->width, dst->height), dim3 (32, 8), 0, s>>>
      (yp->data, yp->stride, cp->data, cp->stride, ap->data, ap->stride,
      l.bpp, l.r, l.g, l.b, cv_layout_fourth_byte (l), dst->width, dst->height, dst->data,
      dst->stride);
  return cv_cuda_status (cudaGetLastError ());
}

/* the Y plane's layout: one grey component */
constexpr CvLumaLayout kGreyLayout = { 1, -1, -1, -1 };

CvStatus
alloc_plane (CvPlane * p, int w, int h, int bpp)
{
  size_t pitch = 0;

  p->data = NULL;
  cudaError_t e = cudaMallocPitch ((void **) &p->data, &pitch,
      (size_t) w * bpp, (size_t) h);
  if (e != cudaSuccess) {
    p->data = NULL;
    return cv_cuda_status (e);
  }
  p->stride = pitch;
  p->width = w;
  p->height = h;
  return CV_OK;
}

/* The operator's device ring (cvnlmeans.h): per entry plane 0 of a frame
 * and, for I420 / NV12, its packed chroma (rgb-mode ycrcb: the frame's Y
 * plane and its (Cr, Cb, 0, A) plane); the event recorded after the
 * entry's copy on the stream that stored it. */
struct CudaRing
{
  int n;
  bool yuv, ycc;
  CvPlane plane0[CV_NLMEANS_MAX_TEMPORAL + 5];
  CvPlane uv[CV_NLMEANS_MAX_TEMPORAL + 5];
  long long index[CV_NLMEANS_MAX_TEMPORAL + 5];
  cudaEvent_t ev[CV_NLMEANS_MAX_TEMPORAL + 5];
};

void
cuda_ring_free (void *storage)
{
  CudaRing *r = (CudaRing *) storage;

  if (!r)
    return;
  for (int i = 0; i < r->n; i++) {
    if (r->plane0[i].data)
      cudaFree (r->plane0[i].data);
    if (r->uv[i].data)
      cudaFree (r->uv[i].data);
    if (r->ev[i])
      cudaEventDestroy (r->ev[i]);
  }
  (void) cudaGetLastError ();
  free (r);
}

/* the packed chroma of a frame of the info, 4 bytes per pixel: I420's U
 * and V or NV12's UV with 2 bytes of 0, rgb-mode ycrcb's (Cr, Cb, 0, A);
 * none for other frames */
CvStatus
alloc_uv (const CvNlMeansInfo * info, CvPlane * uv)
{
  if (cv_nlmeans_info_ycrcb (info))
    return alloc_plane (uv, info->width, info->height, 4);
  if (info->n_planes == 2 || info->n_planes == 3)
    return alloc_plane (uv, cv_nlmeans_plane_width (info, 1), info->rows[1],
        4);
  return CV_OK;
}

CvStatus
cuda_ring_new (const CvNlMeansInfo * info, int n, CudaRing ** out)
{
  CudaRing *r = (CudaRing *) calloc (1, sizeof (CudaRing));
  CvStatus st = CV_OK;

  *out = NULL;
  if (!r)
    return CV_ERROR_NO_MEMORY;
  r->n = n;
  r->yuv = info->n_planes == 2 || info->n_planes == 3;
  r->ycc = cv_nlmeans_info_ycrcb (info);
  for (int i = 0; i < n && st == CV_OK; i++) {
    r->index[i] = -1;
    st = alloc_plane (&r->plane0[i], info->width, info->height,
        r->ycc ? 1 : info->layout.bpp);
    if (st == CV_OK)
      st = alloc_uv (info, &r->uv[i]);
    if (st == CV_OK)
      st = cv_cuda_status (cudaEventCreateWithFlags (&r->ev[i],
          cudaEventDisableTiming));
  }
  if (st != CV_OK) {
    cuda_ring_free (r);
    return st;
  }
  *out = r;
  return CV_OK;
}

}                               /* namespace */

/* ---- the operator (cvnlmeans.h) ---- */

namespace {

/* One slot's workspace (one frame in flight on the slot's stream): never
 * shared with another slot. The planes are made at create, the scratch at
 * a submit (its size depends on the patch size and the search window). */
struct NlMeansSlot
{
  CvNlMeansInfo info;
  CvCudaScratch scratch;        /* the passes' partial sums */
  CvPlane uv_in, uv_out;        /* packed chroma of this slot's frames
                                 * (I420, NV12), rgb-mode ycrcb: the
                                 * (Cr, Cb, 0, A) planes */
  CvPlane y_in, y_out;          /* rgb-mode ycrcb: the Y planes */
};

/* The operator: the slots, and the stream's temporal ring (shared by the
 * slots: each entry's event orders its copy before the reads of other
 * streams). */
struct NlMeansStream
{
  CvNlMeansInfo info;
  int n_slots;
  NlMeansSlot *slot;
  CudaRing *ring;               /* temporal_window >= 3 */
};

void
slot_free (NlMeansSlot * o)
{
  cv_cuda_scratch_free (&o->scratch);
  if (o->uv_in.data)
    cudaFree (o->uv_in.data);
  if (o->uv_out.data)
    cudaFree (o->uv_out.data);
  if (o->y_in.data)
    cudaFree (o->y_in.data);
  if (o->y_out.data)
    cudaFree (o->y_out.data);
}

/* a frame's planes in the slot: rgb-mode ycrcb's Y plane y and the packed
 * chroma uv (alloc_uv) */
CvStatus
slot_planes (const CvNlMeansInfo * info, CvPlane * y, CvPlane * uv)
{
  CvStatus st = CV_OK;

  if (cv_nlmeans_info_ycrcb (info))
    st = alloc_plane (y, info->width, info->height, 1);
  return st == CV_OK ? alloc_uv (info, uv) : st;
}

/* the slot's planes: the denoised frame's and, without a temporal window
 * (whose frames are the ring's), the converted or packed input */
CvStatus
slot_make (NlMeansSlot * o)
{
  CvStatus st = slot_planes (&o->info, &o->y_out, &o->uv_out);

  if (st == CV_OK && o->info.temporal_window <= 1)
    st = slot_planes (&o->info, &o->y_in, &o->uv_in);
  return st;
}

}                               /* namespace */

void
cv_nlmeans_cuda_destroy (CvNlMeansOp * op)
{
  NlMeansStream *o = (NlMeansStream *) op;

  if (!o)
    return;
  cuda_ring_free (o->ring);
  for (int i = 0; o->slot && i < o->n_slots; i++)
    slot_free (&o->slot[i]);
  free (o->slot);
  free (o);
}

/* every kernel a frame can launch (both shapes, every patch radius, the
 * finishing passes, the chroma and YCrCb conversions: the parameters
 * change per frame), loaded at create (cv_cuda_preload, issue #24) */
static CvStatus
nlmeans_preload (void)
{
  const void *k[3 * (CV_NLMEANS_MAX_PATCH + 1) + 7];
  int n = 0;

  /* 1 channel: grey and luma; 2: the packed chroma of I420 and NV12;
   * 3: colour */
  for (int r = 0; r <= CV_NLMEANS_MAX_PATCH && r <= 5; r++) {
    k[n++] = (const void *) kernel_for < 1, kGreyShape.cols,
        kGreyShape.rows > (r);
    k[n++] = (const void *) kernel_for < 2, kColorShape.cols,
        kColorShape.rows > (r);
    k[n++] = (const void *) kernel_for < 3, kColorShape.cols,
        kColorShape.rows > (r);
  }
  k[n++] = (const void *) nlmeans_finish < 1 >;
  k[n++] = (const void *) nlmeans_finish < 2 >;
  k[n++] = (const void *) nlmeans_finish < 3 >;
  k[n++] = (const void *) pack_uv;
  k[n++] = (const void *) unpack_uv;
  k[n++] = (const void *) rgb_to_ycrcb;
  k[n++] = (const void *) ycrcb_to_rgb;
  return cv_cuda_preload (k, n);
}

CvStatus
cv_nlmeans_cuda_create (const CvNlMeansInfo * info, int max_slots,
    CvNlMeansOp ** op)
{
  NlMeansStream *o;

  if (!op)
    return CV_ERROR_INVALID_ARGUMENT;
  *op = NULL;
  if (!cv_nlmeans_info_valid (info) || max_slots < 1
      || max_slots > CV_OP_MAX_SLOTS)
    return CV_ERROR_INVALID_ARGUMENT;
  CvStatus pst = nlmeans_preload ();
  if (pst != CV_OK)
    return pst;
  o = (NlMeansStream *) calloc (1, sizeof (NlMeansStream));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->slot = (NlMeansSlot *) calloc ((size_t) max_slots, sizeof (NlMeansSlot));
  if (!o->slot) {
    free (o);
    return CV_ERROR_NO_MEMORY;
  }
  o->info = *info;
  o->n_slots = max_slots;
  CvStatus st = CV_OK;
  if (info->temporal_window > 1)
    st = cuda_ring_new (info, cv_nlmeans_ring_size (info->temporal_window),
        &o->ring);
  for (int i = 0; st == CV_OK && i < max_slots; i++) {
    o->slot[i].info = o->info;
    st = slot_make (&o->slot[i]);
  }
  if (st != CV_OK) {
    cv_nlmeans_cuda_destroy ((CvNlMeansOp *) o);
    return st;
  }
  *op = (CvNlMeansOp *) o;
  return CV_OK;
}

namespace {

CvStatus
ensure_scratch (NlMeansSlot * o, const CvNlMeansParams * p)
{
  size_t need = cv_nlmeans_cuda_scratch_size (o->info.width, o->info.height,
      o->info.layout, p);
  const bool yuv = o->info.n_planes == 2 || o->info.n_planes == 3;
  const bool ycc = cv_nlmeans_info_ycrcb (&o->info);

  if (yuv) {
    /* the chroma pass: packed, colour kernel */
    const size_t n2 =
        cv_nlmeans_cuda_scratch_size (cv_nlmeans_plane_width (&o->info, 1),
        o->info.rows[1], kUvLayout, p);
    need = n2 > need ? n2 : need;
  }
  if (ycc) {
    /* the Y pass (grey kernel) and the Cr, Cb pass (packed, colour) */
    const size_t n1 = cv_nlmeans_cuda_scratch_size (o->info.width,
        o->info.height, kGreyLayout, p);
    const size_t n2 = cv_nlmeans_cuda_scratch_size (o->info.width,
        o->info.height, kUvLayout, p);
    need = n1 > need ? n1 : need;
    need = n2 > need ? n2 : need;
  }
  /* the most the frame's passes need, before the first is queued; this
   * slot's previous frame has completed (the caller uses a slot again only
   * then): its scratch is free */
  return cv_cuda_scratch_reserve (&o->scratch, need);
}

/* rgb-mode ycrcb: frame c of the converted window (ys: Y planes, ccs:
 * (Cr, Cb, 0, A) planes) into f->out[0]: Y with h, Cr and Cb with h_color
 * (0: kept), converted back with the centre's alpha / padding byte */
CvStatus
denoise_ycrcb (NlMeansSlot * o, const CvPlane * const *ys,
    const CvPlane * const *ccs, int n, int c, const CvFrame * f,
    const CvNlMeansParams * p, cudaStream_t s)
{
  const CvPlane *cc = ccs[c];
  CvStatus st = nlmeans_window (ys, n, c, kGreyLayout, 1, p->h, &o->y_out, p,
      &o->scratch, s);

  if (st == CV_OK && p->h_color > 0) {
    st = nlmeans_window (ccs, n, c, kUvLayout, 2, p->h_color, &o->uv_out, p,
        &o->scratch, s);
    cc = &o->uv_out;
  }
  if (st == CV_OK)
    st = launch_from_ycrcb (&o->y_out, cc, ccs[c], o->info.layout,
        &f->out[0], s);
  return st;
}

/* frame c of the window: plane 0 (frames0) with h, the chroma (packed
 * frames uv, NULL: the planes of `in`) with h_color, or copied */
CvStatus
denoise_window (NlMeansSlot * o, const CvPlane * const *frames0,
    const CvPlane * const *uv, int n, int c, const CvFrame * f,
    const CvNlMeansParams * p, cudaStream_t s)
{
  const CvNlMeansInfo *info = &o->info;
  CvPlane out0 = f->out[0];
  CvStatus st = nlmeans_window (frames0, n, c, info->layout,
      info->layout.bpp == 1 ? 1 : 3, p->h, &out0, p, &o->scratch, s);

  if (st != CV_OK || info->n_planes < 2)
    return st;
  if (!(info->n_planes == 2 || info->n_planes == 3)) {
    for (int i = 1; st == CV_OK && i < info->n_planes; i++)
      st = cv_copy_plane_cuda (&f->in[i], (CvPlane *) & f->out[i],
          info->row_bytes[i], s);
    return st;
  }
  const Chroma co = chroma_of (f->out, info->n_planes);
  if (!uv) {
    /* spatial: this frame's chroma */
    if (p->h_color <= 0) {
      for (int i = 1; st == CV_OK && i < info->n_planes; i++)
        st = cv_copy_plane_cuda (&f->in[i], (CvPlane *) & f->out[i],
            info->row_bytes[i], s);
      return st;
    }
    st = launch_pack (chroma_of (f->in, info->n_planes), &o->uv_in, s);
    const CvPlane *one = &o->uv_in;
    if (st == CV_OK)
      st = nlmeans_window (&one, 1, 0, kUvLayout, 2, p->h_color, &o->uv_out,
          p, &o->scratch, s);
  } else if (p->h_color > 0) {
    st = nlmeans_window (uv, n, c, kUvLayout, 2, p->h_color, &o->uv_out, p,
        &o->scratch, s);
  } else {
    return launch_unpack (uv[c], co, s);        /* the chroma unchanged */
  }
  if (st == CV_OK)
    st = launch_unpack (&o->uv_out, co, s);
  return st;
}

}                               /* namespace */

CvStatus
cv_nlmeans_cuda_submit (CvNlMeansOp * op, int slot, const CvFrame * frame,
    const CvNlMeansParams * p, const CvExec * exec)
{
  NlMeansStream *so = (NlMeansStream *) op;
  NlMeansSlot *o;
  cudaStream_t s = (cudaStream_t) cv_exec_stream (exec);
  const CvPlane *f0[CV_NLMEANS_MAX_TEMPORAL], *fuv[CV_NLMEANS_MAX_TEMPORAL];
  CudaRing *ring;
  CvStatus st;

  if (!so || slot < 0 || slot >= so->n_slots || !cv_nlmeans_params_valid (p)
      || !frame)
    return CV_ERROR_INVALID_ARGUMENT;
  o = &so->slot[slot];
  ring = so->ring;
  if (!ring) {
    /* every frame on its own */
    if (!cv_nlmeans_frame_valid (&o->info, frame))
      return CV_ERROR_INVALID_ARGUMENT;
    st = ensure_scratch (o, p);
    if (st != CV_OK)
      return st;
    if (cv_nlmeans_info_ycrcb (&o->info)) {
      st = launch_to_ycrcb (&frame->in[0], o->info.layout, &o->y_in,
          &o->uv_in, s);
      f0[0] = &o->y_in;
      fuv[0] = &o->uv_in;
      return st != CV_OK ? st : denoise_ycrcb (o, f0, fuv, 1, 0, frame, p, s);
    }
    f0[0] = &frame->in[0];
    return denoise_window (o, f0, NULL, 1, 0, frame, p, s);
  }

  /* a temporal window: store frame->in, denoise frame centre */
  if (!cv_nlmeans_window_params_valid (p, o->info.temporal_window)
      || (p->store >= 0 && !cv_nlmeans_frame_valid (&o->info, frame))
      || (p->centre >= 0 && !cv_plane_is (&frame->out[0], o->info.width,
              o->info.height, o->info.layout.bpp)))
    return CV_ERROR_INVALID_ARGUMENT;
  if (p->store >= 0) {
    /* the frame's one copy into the ring (device to device: the frame
     * was uploaded once, by its own submission) */
    const int e = (int) (p->store % ring->n);
    if (ring->ycc)              /* converted once, here */
      st = launch_to_ycrcb (&frame->in[0], o->info.layout, &ring->plane0[e],
          &ring->uv[e], s);
    else
      st = cv_cuda_status (cudaMemcpy2DAsync (ring->plane0[e].data,
          ring->plane0[e].stride, frame->in[0].data, frame->in[0].stride,
          (size_t) o->info.width * o->info.layout.bpp, o->info.height,
          cudaMemcpyDeviceToDevice, s));
    if (st == CV_OK && ring->yuv)
      st = launch_pack (chroma_of (frame->in, o->info.n_planes),
          &ring->uv[e], s);
    if (st == CV_OK)
      st = cv_cuda_status (cudaEventRecord (ring->ev[e], s));
    if (st != CV_OK)
      return st;
    ring->index[e] = p->store;
  }
  if (p->centre < 0)
    return CV_OK;
  for (int i = 0; i < 2 * p->radius + 1; i++) {
    const long long k = p->centre - p->radius + i;
    const int e = (int) (k % ring->n);
    if (ring->index[e] != k)
      return CV_ERROR_INVALID_ARGUMENT;   /* not stored (or overwritten) */
    /* stored by another frame's stream: wait for its copy */
    st = cv_cuda_status (cudaStreamWaitEvent (s, ring->ev[e], 0));
    if (st != CV_OK)
      return st;
    f0[i] = &ring->plane0[e];
    fuv[i] = &ring->uv[e];
  }
  st = ensure_scratch (o, p);
  if (st != CV_OK)
    return st;
  if (ring->ycc)
    return denoise_ycrcb (o, f0, fuv, 2 * p->radius + 1, p->radius, frame,
        p, s);
  return denoise_window (o, f0, ring->yuv ? fuv : NULL, 2 * p->radius + 1,
      p->radius, frame, p, s);
}

CV_OPS_TABLE (cv_nlmeans_cuda_ops, "nlmeans-cuda", cv_nlmeans_cuda,
    CvNlMeansOp, CvNlMeansInfo, CvNlMeansParams, cv_op_no_results);
