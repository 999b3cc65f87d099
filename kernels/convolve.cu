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
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve_common.h"

#include <cuda_runtime.h>
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
