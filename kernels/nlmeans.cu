/* gst-cuda-vision: non-local-means denoising on the GPU (see cvnlmeans.h).
 *
 * Not brute force: one block owns a 32x32 tile of output pixels and loops
 * over the offsets off = y - x of the search window. Per offset:
 *   phase 1: D(q) = sum_c (f_c(q) - f_c(q + off))² over the tile plus its
 *            patch halo, and its row pass Rw = g * D (each of 4 x (32 + 2r)
 *            threads computes 8 consecutive Rw values from 8 + 2r D values
 *            held in registers), stored in shared memory;
 *   phase 2: the column pass S = g * Rw (each thread 4 pixels of a column
 *            from 4 + 2r values), w = 2^(-max (S a - b, 0) c), and
 *            sum_w, sum_wf accumulated in the registers of the thread that
 *            owns the pixel: no atomics.
 * The frame pixels needed (tile + halo for x, tile + halo + offsets for y)
 * are read once per group of at most 33x33 offsets into shared memory, with
 * the symmetric padding applied while loading. Rw is double buffered: one
 * __syncthreads per offset.
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

constexpr int kTile = 32;               /* output tile side */
constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kRowsPerThread = kTile / kThreadsY;       /* 4 (phase 2) */
constexpr int kChunk = 8;               /* Rw values per thread (phase 1) */
constexpr int kChunks = kTile / kChunk; /* 4 */
constexpr int kGroup = 33;              /* offsets per group and axis */
constexpr int kRsPitch = kTile + 1;     /* floats */
constexpr size_t kMaxScratch = (size_t) 64 << 20;
constexpr int kMinBlocks = 1024;        /* below: split offsets over z */
constexpr int kMaxZ = 64;

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

template < bool COLOR > struct Pix;
template <> struct Pix <false >
{
  typedef uint8_t T;
  static __device__ __forceinline__ float dist (uint32_t a, uint32_t b)
  {
    const int e = (int) a - (int) b;
    return (float) (e * e);
  }
};
template <> struct Pix <true >
{
  typedef uint32_t T;           /* c0 | c1 << 8 | c2 << 16, byte 3 = 0 */
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

__device__ __forceinline__ uint32_t
load_pix (const KParams & p, int fx, int fy, bool color)
{
  const uint8_t *q = p.src + (size_t) fy * p.sstride + (size_t) fx * p.bpp;
  if (!color)
    return __ldg (q);
  return (uint32_t) __ldg (q + p.lr) | ((uint32_t) __ldg (q + p.lg) << 8) |
      ((uint32_t) __ldg (q + p.lb) << 16);
}

/* shared pitches (elements): word pitch odd -> rows in different banks */
template < int R, bool COLOR > struct Dims
{
  static constexpr int NP = kTile + 2 * R;      /* rows/cols of the x region */
  static constexpr int NS = NP + kGroup - 1;    /* max of the y region */
  static constexpr int odd_words (int bytes)
  {
    return ((bytes + 3) / 4) | 1;
  }
  static constexpr int PC = COLOR ? odd_words (NP * 4) : odd_words (NP) * 4;
  static constexpr int PS = COLOR ? odd_words (NS * 4) : odd_words (NS) * 4;
};

template < int R, bool COLOR >
__global__ void __launch_bounds__ (kThreads)
nlmeans_kernel (const KParams p)
{
  typedef typename Pix < COLOR >::T PixT;
  typedef Dims < R, COLOR > D;
  constexpr int NP = D::NP, NS = D::NS, PC = D::PC, PS = D::PS;
  constexpr int C = COLOR ? 3 : 1;
  constexpr int P = 2 * R + 1;

  __shared__ PixT fc[NP * PC];  /* f(x + (i,j)) of the tile, padded */
  __shared__ PixT fs[NS * PS];  /* f(y + (i,j)) for a group of offsets */
  __shared__ float rs[2][NP * kRsPitch];        /* row pass, double buffer */

  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  const int tx0 = blockIdx.x * kTile, ty0 = blockIdx.y * kTile;
  const int txe = min (tx0 + kTile, p.w), tye = min (ty0 + kTile, p.h);
  const int zi = blockIdx.z;

  /* the tile's patches, symmetric padding */
  for (int e = tid; e < NP * NP; e += kThreads) {
    const int ry = e / NP, rx = e - ry * NP;
    fc[ry * PC + rx] = (PixT) load_pix (p, mirror (tx0 - R + rx, p.w),
        mirror (ty0 - R + ry, p.h), COLOR);
  }

  float acc_w[kRowsPerThread], acc_f[kRowsPerThread][C];
#pragma unroll
  for (int q = 0; q < kRowsPerThread; q++) {
    acc_w[q] = 0.0f;
#pragma unroll
    for (int c = 0; c < C; c++)
      acc_f[q][c] = 0.0f;
  }

  const int X = tx0 + threadIdx.x;
  const int py0 = threadIdx.y * kRowsPerThread;
  /* offsets with y = x + off inside the frame for some x of the tile */
  const int dx_lo = max (-p.rx, -(txe - 1)), dx_hi = min (p.rx, p.w - 1 - tx0);
  const int dy_lo = max (-p.ry, -(tye - 1)), dy_hi = min (p.ry, p.h - 1 - ty0);
  int buf = 0;

  for (int gy = 0; gy < p.ngy; gy++) {
    const int dya = max (-p.ry + gy * kGroup, dy_lo);
    const int dyb = min (-p.ry + gy * kGroup + kGroup - 1, dy_hi);
    if (dya > dyb)
      continue;
    for (int gx = 0; gx < p.ngx; gx++) {
      const int dxa = max (-p.rx + gx * kGroup, dx_lo);
      const int dxb = min (-p.rx + gx * kGroup + kGroup - 1, dx_hi);
      if (dxa > dxb)
        continue;
      const int nlx = dxb - dxa + 1, nly = dyb - dya + 1;
      const int count = nlx * nly;
      if (zi >= count)
        continue;

      /* f around y for every offset of the group (block-uniform branch) */
      __syncthreads ();         /* previous group done with fs */
      {
        const int rw = NP + nlx - 1, rh = NP + nly - 1;
        const int ox = tx0 - R + dxa, oy = ty0 - R + dya;
        for (int e = tid; e < rw * rh; e += kThreads) {
          const int ry = e / rw, rx = e - ry * rw;
          fs[ry * PS + rx] = (PixT) load_pix (p, mirror (ox + rx, p.w),
              mirror (oy + ry, p.h), COLOR);
        }
      }
      __syncthreads ();

      for (int o = zi; o < count; o += p.z) {
        const int ly = o / nlx, lx = o - ly * nlx;
        const int dx = dxa + lx, dy = dya + ly;

        /* phase 1: D and the row pass, 8 outputs per thread */
        if (tid < kChunks * NP) {
          const int chunk = tid / NP, row = tid - chunk * NP;
          const PixT *a = fc + row * PC + chunk * kChunk;
          const PixT *b = fs + (row + ly) * PS + chunk * kChunk + lx;
          float d[kChunk + 2 * R];
#pragma unroll
          for (int k = 0; k < kChunk + 2 * R; k++)
            d[k] = Pix < COLOR >::dist (a[k], b[k]);
          float *out = &rs[buf][row * kRsPitch + chunk * kChunk];
#pragma unroll
          for (int j = 0; j < kChunk; j++) {
            float s = p.g[0] * d[j];
#pragma unroll
            for (int i = 1; i < P; i++)
              s = fmaf (p.g[i], d[j + i], s);
            out[j] = s;
          }
        }
        __syncthreads ();

        /* phase 2: column pass, weights, accumulation */
        {
          const float *col = &rs[buf][py0 * kRsPitch + threadIdx.x];
          float v[kRowsPerThread + 2 * R];
#pragma unroll
          for (int t = 0; t < kRowsPerThread + 2 * R; t++)
            v[t] = col[t * kRsPitch];
          const bool xok = X < p.w && X + dx >= 0 && X + dx < p.w;
#pragma unroll
          for (int q = 0; q < kRowsPerThread; q++) {
            const int Y = ty0 + py0 + q;
            float s = p.g[0] * v[q];
#pragma unroll
            for (int j = 1; j < P; j++)
              s = fmaf (p.g[j], v[q + j], s);
            const float m = fmaxf (fmaf (s, p.a, -p.b), 0.0f);
            float w = exp2f (-(m * p.c));
            if (!(xok && Y < p.h && Y + dy >= 0 && Y + dy < p.h))
              w = 0.0f;
            const uint32_t f = fs[(py0 + q + R + ly) * PS + threadIdx.x + R +
                lx];
            acc_w[q] += w;
            if (COLOR) {
#pragma unroll
              for (int c = 0; c < C; c++)
                acc_f[q][c] = fmaf (w, (float) ((f >> (8 * c)) & 255),
                    acc_f[q][c]);
            } else {
              acc_f[q][0] = fmaf (w, (float) f, acc_f[q][0]);
            }
          }
        }
        buf ^= 1;
      }
    }
  }

  if (X >= p.w)
    return;
#pragma unroll
  for (int q = 0; q < kRowsPerThread; q++) {
    const int Y = ty0 + py0 + q;
    if (Y >= p.h)
      break;
    if (p.part) {
      const size_t npix = (size_t) p.w * p.h;
      float *o = p.part + (size_t) zi * (1 + C) * npix + (size_t) Y * p.w + X;
      o[0] = acc_w[q];
#pragma unroll
      for (int c = 0; c < C; c++)
        o[(c + 1) * npix] = acc_f[q][c];
    } else {
      uint8_t *o = p.dst + (size_t) Y * p.dstride + (size_t) X * p.bpp;
      if (COLOR) {
        if (p.bpp == 4) {
          const uint8_t *in = p.src + (size_t) Y * p.sstride + (size_t) X * 4;
#pragma unroll
          for (int k = 0; k < 4; k++)
            o[k] = in[k];
        }
        const int offs[3] = { p.lr, p.lg, p.lb };
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

/* adds the Z partial sums of every pixel (z = 0, 1, ... in order) */
template < bool COLOR >
__global__ void
nlmeans_finish (const KParams p)
{
  constexpr int C = COLOR ? 3 : 1;
  const size_t npix = (size_t) p.w * p.h;

  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < npix;
      i += (size_t) gridDim.x * blockDim.x) {
    float sw = 0.0f, sf[C];
#pragma unroll
    for (int c = 0; c < C; c++)
      sf[c] = 0.0f;
    for (int z = 0; z < p.z; z++) {
      const float *q = p.part + (size_t) z * (1 + C) * npix + i;
      sw += q[0];
#pragma unroll
      for (int c = 0; c < C; c++)
        sf[c] += q[(c + 1) * npix];
    }
    const int X = (int) (i % p.w), Y = (int) (i / p.w);
    uint8_t *o = p.dst + (size_t) Y * p.dstride + (size_t) X * p.bpp;
    if (COLOR) {
      if (p.bpp == 4) {
        const uint8_t *in = p.src + (size_t) Y * p.sstride + (size_t) X * 4;
        for (int k = 0; k < 4; k++)
          o[k] = in[k];
      }
      const int offs[3] = { p.lr, p.lg, p.lb };
#pragma unroll
      for (int c = 0; c < C; c++)
        o[offs[c]] = (uint8_t) min ((int) (sf[c] / sw + 0.5f), 255);
    } else {
      o[0] = (uint8_t) min ((int) (sf[0] / sw + 0.5f), 255);
    }
  }
}

/* how many blocks share one tile's offsets */
int
choose_z (int w, int h, int channels)
{
  const size_t tiles = (size_t) ((w + kTile - 1) / kTile) *
      ((h + kTile - 1) / kTile);
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

bool
layout_ok (CvLumaLayout l)
{
  return (l.bpp == 1 && l.r < 0) || ((l.bpp == 3 || l.bpp == 4) && l.r >= 0
      && l.g >= 0 && l.b >= 0 && l.r < l.bpp && l.g < l.bpp && l.b < l.bpp);
}

template < bool COLOR >
void
launch (int r, dim3 grid, const KParams & kp, cudaStream_t s)
{
  const dim3 block (kThreadsX, kThreadsY);
  switch (r) {
    case 0:
      nlmeans_kernel < 0, COLOR > <<<grid, block, 0, s>>> (kp);
      break;
    case 1:
      nlmeans_kernel < 1, COLOR > <<<grid, block, 0, s>>> (kp);
      break;
    case 2:
      nlmeans_kernel < 2, COLOR > <<<grid, block, 0, s>>> (kp);
      break;
    case 3:
      nlmeans_kernel < 3, COLOR > <<<grid, block, 0, s>>> (kp);
      break;
    case 4:
      nlmeans_kernel < 4, COLOR > <<<grid, block, 0, s>>> (kp);
      break;
    default:
      nlmeans_kernel < 5, COLOR > <<<grid, block, 0, s>>> (kp);
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
  int z;

  (void) params;
  if (width < 1 || height < 1)
    return 0;
  z = choose_z (width, height, ch);
  return z > 1 ? (size_t) z * (1 + ch) * width * height * sizeof (float) : 0;
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
  const int tiles_y = (h + kTile - 1) / kTile;
  const bool color = layout.bpp != 1;
  const int ch = color ? 3 : 1;
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
  kp.lr = layout.r;
  kp.lg = layout.g;
  kp.lb = layout.b;
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
  kp.z = choose_z (w, h, ch);
  kp.part = NULL;
  if (kp.z > 1) {
    if (!scratch || scratch_size < cv_nlmeans_cuda_scratch_size (w, h, layout,
            params))
      return CV_ERROR_INVALID_ARGUMENT;
    kp.part = (float *) scratch;
  }

  const dim3 grid ((w + kTile - 1) / kTile, tiles_y, kp.z);
  const int r = params->patch_size / 2;
  cudaStream_t s = (cudaStream_t) stream;
  if (color)
    launch < true > (r, grid, kp, s);
  else
    launch < false > (r, grid, kp, s);
  return (int) cudaGetLastError ();
}
