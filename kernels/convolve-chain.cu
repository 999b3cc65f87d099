/* gst-cuda-vision: cudaconvolve on the GPU, any chain fused on float
 * tiles (custom 2-D and separable stages included, and the named chains
 * the byte path of convolve-named.cu does not take). Arithmetic identical
 * to cpu-fallback/convolve.c (see cvconvolve.h and convolve_common.h):
 * bit-exact results.
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
 * (kernels/convolve.cu, through device scratch frames).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve-internal.h"

#define BLOCK_X 32
#define BLOCK_Y 8
#define TILE_W 32

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

size_t
cv_conv_chain_smem (int n, int any_sep, int R, int th, int nc)
{
  int nbuf = (n >= 2 ? 2 : 1) + (any_sep ? 1 : 0);
  return (size_t) nbuf * nc * (TILE_W + 2 * R) * (th + 2 * R) * sizeof (float);
}

template < int BPP, int NC >
static CvStatus
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
    if (cv_conv_chain_smem (g.n, any_sep, g.R, t, NC) <= 48 * 1024) {
      th = t;
      break;
    }
  smem = cv_conv_chain_smem (g.n, any_sep, g.R, th, NC);
  if (smem > (size_t) max_smem)
    return CV_ERROR_INVALID_ARGUMENT;
  if (smem > 48 * 1024)
    CV_CUDA_TRY (cudaFuncSetAttribute (conv_chain_kernel < BPP, NC >,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
  grid = dim3 (cv_div_up (W, TILE_W), cv_div_up (H, th));
  if (grid.y > 65535)
    return CV_ERROR_INVALID_ARGUMENT;
  conv_chain_kernel < BPP, NC > <<<grid, block, smem, stream>>> (src,
      sstride, dst, dstride, asrc, astride, W, H, th, g);
  return cv_cuda_status (cudaGetLastError ());
}

CvStatus
cv_conv_chain_launch (int bpp, int nc, const uint8_t * src, size_t sstride,
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

/* the fused chain kernel of (bpp, nc) pixels, loaded at the operator's
 * create (convolve-internal.h) */
CvStatus
cv_conv_chain_preload (int bpp, int nc)
{
  const void *k = NULL;

  if (bpp == 1 && nc == 1)
    k = (const void *) conv_chain_kernel < 1, 1 >;
  else if (bpp == 2 && nc == 2)
    k = (const void *) conv_chain_kernel < 2, 2 >;
  else if (bpp == 3 && nc == 3)
    k = (const void *) conv_chain_kernel < 3, 3 >;
  else if (bpp == 4 && nc == 3)
    k = (const void *) conv_chain_kernel < 4, 3 >;
  return k ? cv_cuda_preload (&k, 1) : CV_OK;
}
