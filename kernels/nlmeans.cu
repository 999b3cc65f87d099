/* gst-cuda-vision: non-local-means denoising on the GPU (see cvnlmeans.h).
 *
 * Offset-major, like the CPU fallback. A block of 4 warps owns a tile of
 * (32 - 2r) x 64 output pixels (r = patch radius); warp wi owns 16 rows of
 * it, lane l the column x0 + l (lanes l >= 32 - 2r only compute the patch
 * halo). The frame pixels the tile needs are read once into shared memory
 * with the symmetric padding applied: the tile plus its halo (fc) and, per
 * group of at most 32x32 offsets, the same region moved by the offsets
 * (fs). Then, for every offset off = y - x of the group, each warp on its
 * own (no __syncthreads per offset):
 *   - walks the 16 + 2r rows of its strip: lane l computes
 *     D = sum_c (f_c(q) - f_c(q + off))² at column x0 - r + l, and the row
 *     pass Rw = g * D from the D of lanes l .. l + 2r (warp shuffles);
 *   - as soon as 2r + 1 rows of Rw are in registers, the column pass
 *     S = g * Rw, w = 2^(-max (S a - b, 0) c), and sum_w, sum_wf of the
 *     pixel, all in the registers of the lane that owns the pixel.
 * The loops over rows and patch taps are fully unrolled (r is a template
 * parameter): every register array is indexed by constants. Per pixel and
 * offset: 2 shared loads, 2r shuffles and 2r + 1 FMA for D and the row
 * pass (times (16 + 2r) / 16 for the halo rows), 2r + 1 FMA for the column
 * pass, one exp2 and 1 + C FMA for the sums.
 * Small frames (few tiles, e.g. whole-frame mode on 256x256) split the
 * offsets of each tile over Z blocks (gridDim.z); their partial sums go to
 * device scratch (bounded, see cv_nlmeans_cuda_scratch_size) and a second
 * kernel adds them in a fixed order and writes the output. Whole-frame mode
 * is the same code with the search window = the frame, so its memory is the
 * same as for any window.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvnlmeans.h"

#include <cuda_runtime.h>

namespace {

constexpr int kWarps = 4;               /* warps per block */
constexpr int kThreads = 32 * kWarps;
constexpr int kRows = 16;               /* output rows per warp (K) */
constexpr int kTileH = kWarps * kRows;  /* output rows per block */
constexpr int kGroup = 32;              /* offsets per group and axis */
constexpr int kFsPitch = 32 + kGroup;   /* elements (>= 32 + kGroup - 1) */
constexpr size_t kMaxScratch = (size_t) 64 << 20;
constexpr int kMinBlocks = 1024;        /* below: split offsets over z */
constexpr int kMaxZ = 64;
constexpr unsigned kFull = 0xffffffffu;

/* output columns per block: a warp's 32 lanes cover the columns of the
 * tile plus the patch halo of r on both sides */
__host__ __device__ constexpr int
tile_w (int r)
{
  return 32 - 2 * r;
}

/* Kernel parameters, passed by value and only ever read field by field
 * (never by reference or pointer: see docs/cudanlmeans.md). */
struct KParams
{
  const uint8_t *src;
  size_t sstride;
  uint8_t *dst;
  size_t dstride;
  float *part;                  /* Z x (1 + C) x h x w, or NULL (Z = 1) */
  int w, h, bpp, lr, lg, lb;
  int rx, ry;                   /* search half-widths, clipped to the frame */
  int ngx, ngy;                 /* offset groups per axis */
  int z;                        /* blocks per tile along the offsets */
  float g[CV_NLMEANS_MAX_PATCH];
  float a, b, c;
};

__device__ __forceinline__ int
mirror (int k, int n)
{
  const int p = 2 * n;
  k %= p;
  if (k < 0)
    k += p;
  return k < n ? k : p - 1 - k;
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
    return (float) __dp4a (e, e, 0u);
#else
    const int e0 = e & 255, e1 = (e >> 8) & 255, e2 = (e >> 16) & 255;
    return (float) (e0 * e0 + e1 * e1 + e2 * e2);
#endif
  }
};

/* One block: output columns x0 .. x0 + TW - 1 (TW = 32 - 2R), rows
 * ty0 .. ty0 + kTileH - 1; warp wi owns rows ty0 + wi K .. + K - 1, lane l
 * the column x0 + l (l < TW). Per offset a warp walks its K + 2R rows of
 * D: lane l computes D at column x0 - R + l, the row pass from its right
 * neighbours by warp shuffles, the column pass from the rows held in
 * registers (fully unrolled: every register array index is a constant). */
template < int R, bool COLOR >
__global__ void __launch_bounds__ (kThreads)
nlmeans_kernel (const KParams p)
{
  typedef Pix < COLOR > PX;
  typedef typename PX::T PixT;
  constexpr int C = COLOR ? 3 : 1;
  constexpr int P = 2 * R + 1;
  constexpr int TW = tile_w (R);
  constexpr int NR = kTileH + 2 * R;    /* rows of the x region */
  constexpr int K = kRows;

  __shared__ PixT fc[NR * 32];  /* f(x + (i,j)) of the tile, padded */
  __shared__ PixT fs[(NR + kGroup - 1) * kFsPitch];     /* f(y + (i,j)) */

  /* every parameter read once into a register */
  const uint8_t *const src = p.src;
  const size_t sstride = p.sstride;
  const int w = p.w, h = p.h, bpp = p.bpp;
  const int lr = p.lr, lg = p.lg, lb = p.lb;
  const int rx = p.rx, ry = p.ry, ngx = p.ngx, ngy = p.ngy, nz = p.z;
  const float ka = p.a, kb = p.b, kc = p.c;
  float g[P];
#pragma unroll
  for (int i = 0; i < P; i++)
    g[i] = p.g[i];

  const int lane = threadIdx.x & 31, wi = threadIdx.x >> 5;
  const int tid = threadIdx.x;
  const int x0 = blockIdx.x * TW, ty0 = blockIdx.y * kTileH;
  const int txe = min (x0 + TW, w), tye = min (ty0 + kTileH, h);
  const int zi = blockIdx.z;
  const int X = x0 + lane;
  const int wy0 = ty0 + wi * K;         /* first output row of the warp */
  const bool warp_rows = wy0 < h;       /* warp-uniform */

  /* the tile's patches, symmetric padding */
  for (int e = tid; e < NR * 32; e += kThreads) {
    const int rr = e >> 5, cc = e & 31;
    const int fx = mirror (x0 - R + cc, w), fy = mirror (ty0 - R + rr, h);
    fc[e] = PX::load (src + (size_t) fy * sstride + (size_t) fx * bpp,
        lr, lg, lb);
  }

  float acc_w[K], acc_f[K][C];
#pragma unroll
  for (int q = 0; q < K; q++) {
    acc_w[q] = 0.0f;
#pragma unroll
    for (int c = 0; c < C; c++)
      acc_f[q][c] = 0.0f;
  }

  /* offsets with y = x + off inside the frame for some x of the tile */
  const int dx_lo = max (-rx, -(txe - 1)), dx_hi = min (rx, w - 1 - x0);
  const int dy_lo = max (-ry, -(tye - 1)), dy_hi = min (ry, h - 1 - ty0);

  for (int gy = 0; gy < ngy; gy++) {
    const int dya = max (-ry + gy * kGroup, dy_lo);
    const int dyb = min (-ry + gy * kGroup + kGroup - 1, dy_hi);
    for (int gx = 0; gx < ngx; gx++) {
      const int dxa = max (-rx + gx * kGroup, dx_lo);
      const int dxb = min (-rx + gx * kGroup + kGroup - 1, dx_hi);
      const int nlx = dxb - dxa + 1, nly = dyb - dya + 1;
      /* block-uniform: every thread takes the same branch */
      const bool group = nlx > 0 && nly > 0 && zi < nlx * nly;
      if (group) {
        const int count = nlx * nly;
        /* f around y for every offset of the group */
        __syncthreads ();       /* previous group done with fs (and fc) */
        {
          /* rows and columns of the region, clamped to the declared size of
           * fs (nlx, nly <= kGroup already: the clamps only make the bound
           * explicit). Warp wi loads rows wi, wi + kWarps, ..., lane l
           * columns l, l + 32 of each: simple per-warp loops without the
           * integer division of a flat e -> (e / cw, e % cw) split: that
           * loop, correct in the source and in the PTX, stored past the end
           * of fs on an H200 when compiled by CUDA 13.0 at -O3. */
          const int cw = min (32 + nlx - 1, kFsPitch);
          const int rh = min (NR + nly - 1, NR + kGroup - 1);
          const int ox = x0 - R + dxa, oy = ty0 - R + dya;
          for (int rr = wi; rr < rh; rr += kWarps) {
            const uint8_t *const srow = src + (size_t) mirror (oy + rr, h) *
                sstride;
            PixT *const drow = fs + rr * kFsPitch;
#pragma unroll 1
            for (int cc = lane; cc < cw; cc += 32)
              drow[cc] = PX::load (srow + (size_t) mirror (ox + cc, w) * bpp,
                  lr, lg, lb);
          }
        }
        __syncthreads ();

        if (warp_rows) {
          for (int o = zi; o < count; o += nz) {
            const int ly = o / nlx, lx = o - ly * nlx;
            const int dx = dxa + lx, dy = dya + ly;
            /* warp-uniform: rows y + dy of this warp's outputs in frame */
            if (wy0 + K - 1 + dy < 0 || wy0 + dy >= h)
              continue;
            const bool xok = lane < TW && X < w && X + dx >= 0 && X + dx < w;
            /* output q valid for qlo <= q < qhi */
            const int qlo = max (0, -dy - wy0);
            const int qhi = min (h - wy0, h - dy - wy0);
            const PixT *a = fc + wi * K * 32 + lane;
            const PixT *b = fs + (wi * K + ly) * kFsPitch + lane + lx;
            /* f(y) of the outputs (lanes >= TW: any loaded pixel) */
            const PixT *fyp = fs + (wi * K + ly + R) * kFsPitch +
                min (lane, TW - 1) + lx + R;
            float rw[K + 2 * R];
#pragma unroll
            for (int k = 0; k < K + 2 * R; k++) {
              const float d = PX::dist (a[k * 32], b[k * kFsPitch]);
              float s = g[0] * d;
#pragma unroll
              for (int i = 1; i < P; i++)
                s = fmaf (g[i], __shfl_down_sync (kFull, d, i), s);
              rw[k] = s;
              if (k >= 2 * R) {
                const int q = k - 2 * R;
                float t = g[0] * rw[q];
#pragma unroll
                for (int j = 1; j < P; j++)
                  t = fmaf (g[j], rw[q + j], t);
                const float m = fmaxf (fmaf (t, ka, -kb), 0.0f);
                float wt = exp2f (-(m * kc));
                if (!(xok && q >= qlo && q < qhi))
                  wt = 0.0f;
                const PixT f = fyp[q * kFsPitch];
                acc_w[q] += wt;
                if (COLOR) {
                  const uint32_t fu = (uint32_t) f;
#pragma unroll
                  for (int c = 0; c < C; c++)
                    acc_f[q][c] = fmaf (wt, (float) ((fu >> (8 * c)) & 255u),
                        acc_f[q][c]);
                } else {
                  acc_f[q][0] = fmaf (wt, (float) f, acc_f[q][0]);
                }
              }
            }
          }
        }
      }
    }
  }

  if (lane >= TW || X >= w)
    return;
#pragma unroll
  for (int q = 0; q < K; q++) {
    const int Y = wy0 + q;
    if (Y < h) {
      if (p.part) {
        const size_t npix = (size_t) w * h;
        float *o = p.part + (size_t) zi * (1 + C) * npix + (size_t) Y * w + X;
        o[0] = acc_w[q];
#pragma unroll
        for (int c = 0; c < C; c++)
          o[(c + 1) * npix] = acc_f[q][c];
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
            const int v = (int) (acc_f[q][c] / acc_w[q] + 0.5f);
            o[offs[c]] = (uint8_t) min (v, 255);
          }
        } else {
          const int v = (int) (acc_f[q][0] / acc_w[q] + 0.5f);
          o[0] = (uint8_t) min (v, 255);
        }
      }
    }
  }
}

/* adds the Z partial sums of every pixel (z = 0, 1, ... in order) */
template < bool COLOR >
__global__ void
nlmeans_finish (const KParams p)
{
  constexpr int C = COLOR ? 3 : 1;
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
        const uint8_t *in = p.src + (size_t) Y * p.sstride + (size_t) X * 4;
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

/* how many blocks share one tile's offsets (patch radius r) */
int
choose_z (int w, int h, int channels, int r)
{
  const size_t tiles = (size_t) ((w + tile_w (r) - 1) / tile_w (r)) *
      ((h + kTileH - 1) / kTileH);
  const size_t per_z = (size_t) (1 + channels) * w * h * sizeof (float);
  size_t z;

  if (tiles >= (size_t) kMinBlocks)
    return 1;
  z = (kMinBlocks + tiles - 1) / tiles;
  if (z > (size_t) kMaxZ)
    z = kMaxZ;
  if (z * per_z > kMaxScratch)
    z = kMaxScratch / per_z;
  return z < 2 ? 1 : (int) z;
}

size_t
scratch_for (int w, int h, int channels, int r)
{
  const int z = choose_z (w, h, channels, r);
  return z > 1 ? (size_t) z * (1 + channels) * w * h * sizeof (float) : 0;
}

bool
layout_ok (CvLumaLayout l)
{
  return (l.bpp == 1 && l.r < 0) || ((l.bpp == 3 || l.bpp == 4) && l.r >= 0
      && l.g >= 0 && l.b >= 0 && l.r < l.bpp && l.g < l.bpp && l.b < l.bpp);
}

template < int R, bool COLOR >
void
launch_r (dim3 grid, const KParams & kp, cudaStream_t s)
{
  nlmeans_kernel < R, COLOR > <<<grid, kThreads, 0, s>>> (kp);
}

template < bool COLOR >
void
launch (int r, const KParams & kp, int tiles_y, cudaStream_t s)
{
  const dim3 grid ((kp.w + tile_w (r) - 1) / tile_w (r), tiles_y, kp.z);
  switch (r) {
    case 0:
      launch_r < 0, COLOR > (grid, kp, s);
      break;
    case 1:
      launch_r < 1, COLOR > (grid, kp, s);
      break;
    case 2:
      launch_r < 2, COLOR > (grid, kp, s);
      break;
    case 3:
      launch_r < 3, COLOR > (grid, kp, s);
      break;
    case 4:
      launch_r < 4, COLOR > (grid, kp, s);
      break;
    default:
      launch_r < 5, COLOR > (grid, kp, s);
      break;
  }
  if (kp.part) {
    const size_t npix = (size_t) kp.w * kp.h;
    size_t blocks = (npix + 255) / 256;
    if (blocks > 65535)
      blocks = 65535;
    nlmeans_finish < COLOR > <<<(unsigned) blocks, 256, 0, s>>> (kp);
  }
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
    return scratch_for (width, height, ch, params->patch_size / 2);
  /* unknown patch size: enough for any */
  for (int r = 0; r <= CV_NLMEANS_MAX_PATCH / 2; r++) {
    const size_t n = scratch_for (width, height, ch, r);
    need = n > need ? n : need;
  }
  return need;
}

extern "C" int
cv_nlmeans_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvNlMeansParams * params, void *scratch, size_t scratch_size,
    void *stream)
{
  if (!src || !dst || !params || !src->data || !dst->data || src->width < 1
      || src->height < 1 || src->width != dst->width
      || src->height != dst->height || !cv_nlmeans_params_valid (params)
      || !layout_ok (layout))
    return CV_ERROR_INVALID_ARGUMENT;

  const int w = src->width, h = src->height;
  const int tiles_y = (h + kTileH - 1) / kTileH;
  const bool color = layout.bpp != 1;
  const int ch = color ? 3 : 1;
  const int r = params->patch_size / 2;
  if (tiles_y > 65535)
    return CV_ERROR_INVALID_ARGUMENT;

  KParams kp;
  CvNlMeansConstants k;
  cv_nlmeans_constants (params, ch, &k);
  kp.src = src->data;
  kp.sstride = src->stride;
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
  kp.ngx = (2 * kp.rx + 1 + kGroup - 1) / kGroup;
  kp.ngy = (2 * kp.ry + 1 + kGroup - 1) / kGroup;
  for (int i = 0; i < CV_NLMEANS_MAX_PATCH; i++)
    kp.g[i] = k.g[i];
  kp.a = k.a;
  kp.b = k.b;
  kp.c = k.c;
  kp.z = choose_z (w, h, ch, r);
  kp.part = NULL;
  if (kp.z > 1) {
    if (!scratch || scratch_size < scratch_for (w, h, ch, r))
      return CV_ERROR_INVALID_ARGUMENT;
    kp.part = (float *) scratch;
  }

  cudaStream_t s = (cudaStream_t) stream;
  if (color)
    launch < true > (r, kp, tiles_y, s);
  else
    launch < false > (r, kp, tiles_y, s);
  return (int) cudaGetLastError ();
}
