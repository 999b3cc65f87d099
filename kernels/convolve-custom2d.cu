/* gst-cuda-vision: cudaconvolve on the GPU, one general (non-separable)
 * custom kernel (ksize 3 .. 31) on any of the operator's pixel formats
 * (every filtered channel of 1- to 4-byte pixels; the bytes not filtered
 * copied from the source). Arithmetic identical to
 * cpu-fallback/convolve.c (see cvconvolve.h and convolve_common.h):
 * bit-exact results.
 *
 * The work is 2 k^2 floating-point instructions per output (every product
 * rounded, then added: no fused multiply-add), so the kernel is bound by
 * instruction issue; the design keeps everything else small beside it.
 *
 * A block of CB_X x CB_Y threads owns 64 x 16 outputs of one channel
 * (blockIdx.z): every thread 8 consecutive outputs of one row, whose
 * accumulators stay in registers (register blocking). The tile + halo is
 * converted to float in shared memory once, border rule applied:
 * - blocks of 1-byte planes whose halo lies inside the frame (the frame's
 *   interior, ~90 % of the blocks at 1080p) read it as aligned 32-bit words
 *   (the tile starts OFF columns left of x0 - R so that it begins on a
 *   word) and convert the 4 bytes with the 2^23 trick (integer OR, one
 *   exact float subtraction), one 16-byte shared store: ~5 instructions a
 *   pixel instead of ~28 for a byte load with two border mappings;
 * - other blocks map every column and row with the border rule, 4 pixels a
 *   thread at a time (the row mapping shared).
 * For kernel row i a thread loads the 8 + K - 1 inputs it needs (float4,
 * starting OFF columns into its slice) and the K weights (float4, the
 * weights broadcast), then adds the K products of every output in order
 * j = 0 .. K - 1: each output still sees
 * acc = (((0 + w00 p00) + w01 p01) + ...) in the documented order. The
 * row pitch (== 4 mod 32 words) and the 8 x 4 threads of a warp make the
 * float4 loads conflict-free.
 *
 * Kernels whose every product with a byte is exact (each weight 0, or
 * normal with at most 16 significant bits and |w| < 2^119: integer
 * kernels, multiples of 1/256, ...) use one fused multiply-add per tap:
 * fma (w, p, acc) rounds acc + w p once, and w p is exactly the rounded
 * product that the multiply would give, so the result is the same float
 * (overflow, infinities and signed zeros included) at half the
 * instructions. Other kernels keep the multiply and the add. The check
 * runs on the host when the weights change, not per frame (the slot's
 * CvConvolveExactCache, cuda-internal.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve-internal.h"

#include <string.h>

#define CB_X 8
#define CB_Y 16
#define CB_P 8
#define CB_NT (CB_X * CB_Y)

/* ---- the kernel ---- */

template < int K > struct CustomGeom
{
  static constexpr int R = K / 2;
  static constexpr int TW = CB_X * CB_P, TH = CB_Y;
  /* tile column 0 is frame column x0 - R - OFF, a multiple of 4 (x0 is a
   * multiple of TW) */
  static constexpr int OFF = (4 - R % 4) % 4;
  static constexpr int NIN4 = (OFF + CB_P + K - 1 + 3) / 4;     /* float4 per row */
  /* columns filled (and read): the last thread's last float4; this is
   * also OFF + TW + K - 1 rounded up to a word */
  static constexpr int IW = (CB_X - 1) * CB_P + 4 * NIN4;
  static constexpr int NW = IW / 4;
  static constexpr int IH = TH + K - 1;
  /* the smallest pitch >= IW that is 4 mod 32 words */
  static constexpr int PITCH = (IW + 27) / 32 * 32 + 4;
  static constexpr int KP = (K + 3) / 4 * 4;
};

/* byte e of a word as a float, exactly: 2^23 + b is a float whose low
 * mantissa bits are b, and the subtraction is exact */
__device__ __forceinline__ float
byte_float (uint32_t word, int e)
{
  return __fsub_rn (__uint_as_float (0x4B000000u | ((word >> (8 * e)) &
              0xFFu)), 8388608.0f);
}

/* flags of a launch */
#define CF_VEC_STORE 1          /* 1-byte pixels, dst and dstride 4-aligned */
#define CF_WORD_LOAD 2          /* 1-byte pixels, src and sstride 4-aligned */

/* FMA: one fused multiply-add per tap (exact products, see
 * weights_products_exact); MC: pixels of several bytes (bpp > 1), a
 * variant of its own so that the 1-byte kernel keeps fewer registers */
template < int K, bool FMA, bool MC >
__global__ void __launch_bounds__ (CB_NT)
custom2d_kernel (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int W, int H, int mode,
    int bpp, int nc, int flags, const __grid_constant__ GpuChain p)
{
  typedef CustomGeom < K > G;
  static_assert (G::PITCH % 32 == 4 && G::PITCH >= G::IW, "pitch");
  static_assert (G::IW % 4 == 0 && G::IW >= G::OFF + G::TW + K - 1, "IW");
  __shared__ __align__ (16) float tile[G::IH * G::PITCH];
  __shared__ __align__ (16) float wts[K * G::KP];
  const int tid = threadIdx.x, c = blockIdx.z;
  const int x0 = (int) blockIdx.x * G::TW, y0 = (int) blockIdx.y * G::TH;
  const int xa = x0 - G::R - G::OFF, ya = y0 - G::R;

  for (int o = tid; o < K * G::KP; o += CB_NT) {
    const int i = o / G::KP, j = o - i * G::KP;
    wts[o] = j < K ? p.w[i * K + j] : 0.0f;
  }
  if (!MC && (flags & CF_WORD_LOAD) && xa >= 0 && xa + G::IW <= W && ya >= 0
      && ya + G::IH <= H) {
    /* the whole tile inside the frame: aligned words */
    const uint8_t *s0 = src + (size_t) ya * sstride + xa;

    for (int o = tid; o < G::IH * G::NW; o += CB_NT) {
      const int j = o / G::NW, q = o - j * G::NW;
      const uint32_t wd =
          __ldg ((const uint32_t *) (s0 + (size_t) j * sstride + 4 * q));
      float4 f;

      f.x = byte_float (wd, 0);
      f.y = byte_float (wd, 1);
      f.z = byte_float (wd, 2);
      f.w = byte_float (wd, 3);
      *(float4 *) (tile + j * G::PITCH + 4 * q) = f;
    }
  } else {
    /* border rule on every row and column (-1: a constant-border zero) */
    for (int o = tid; o < G::IH * G::NW; o += CB_NT) {
      const int j = o / G::NW, q = o - j * G::NW;
      const int my = cv_conv_border (ya + j, H, mode);
      float f[4];

#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int mx = cv_conv_border (xa + 4 * q + e, W, mode);

        f[e] = my >= 0 && mx >= 0 ?
            (float) src[(size_t) my * sstride + (size_t) mx * bpp + c] : 0.0f;
      }
      *(float4 *) (tile + j * G::PITCH + 4 * q) =
          make_float4 (f[0], f[1], f[2], f[3]);
    }
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
          acc[o] = FMA ? __fmaf_rn (w[j], v[G::OFF + o + j], acc[o]) :
              __fadd_rn (acc[o], __fmul_rn (w[j], v[G::OFF + o + j]));
    }

    if (gy < H && gx < W) {
      uint32_t b[CB_P];

#pragma unroll
      for (int o = 0; o < CB_P; o++)
        b[o] = (uint32_t) cv_conv_round_sat (acc[o]);
      if (!MC) {
        uint8_t *q = dst + (size_t) gy * dstride + gx;

        if ((flags & CF_VEC_STORE) && gx + CB_P <= W) {
#pragma unroll
          for (int o = 0; o < CB_P; o += 4)
            *(uint32_t *) (q + o) = b[o] | (b[o + 1] << 8) |
                (b[o + 2] << 16) | (b[o + 3] << 24);
        } else {
#pragma unroll
          for (int o = 0; o < CB_P; o++)
            if (gx + o < W)
              q[o] = (uint8_t) b[o];
        }
      } else {
        /* channel c of each pixel; the channel-0 blocks also copy the
         * bytes that are not filtered (alpha, x) */
        uint8_t *q = dst + (size_t) gy * dstride + (size_t) gx * bpp;
        const uint8_t *s = src + (size_t) gy * sstride + (size_t) gx * bpp;

#pragma unroll
        for (int o = 0; o < CB_P; o++)
          if (gx + o < W) {
            q[o * bpp + c] = (uint8_t) b[o];
            if (c == 0)
              for (int k = nc; k < bpp; k++)
                q[o * bpp + k] = s[o * bpp + k];
          }
      }
    }
  }
}

/* Is every product of a weight with a byte value (0 .. 255) exact in
 * float? Then fma (w, p, acc) == acc + (w * p rounded), bit for bit. A
 * normal weight with its 8 low mantissa bits zero has at most 16
 * significant bits, times at most 8 for the byte: <= 24; |w| < 2^119 keeps
 * 255 |w| finite, and |w p| >= |w| for p >= 1 keeps it normal. Zeros give
 * exact zeros; subnormal and non-finite weights are not taken. */
static int
weights_products_exact (const float *w, int n)
{
  for (int i = 0; i < n; i++) {
    uint32_t b;
    int e;

    memcpy (&b, &w[i], sizeof (b));
    if ((b & 0x7FFFFFFFu) == 0)
      continue;
    e = (int) ((b >> 23) & 0xFFu);
    if (e == 0 || e > 127 + 118 || (b & 0xFFu) != 0)
      return 0;
  }
  return 1;
}

/* weights_products_exact (w, n), decided again only when the n weights
 * differ from the cached ones bit for bit (cache: the slot's, one frame at
 * a time; NULL: decided now) */
static int
weights_products_exact_cached (CvConvolveExactCache * cache, const float *w,
    int n)
{
  if (!cache)
    return weights_products_exact (w, n);
  if (cache->n != n || memcmp (cache->weights, w, sizeof (float) * n) != 0) {
    memcpy (cache->weights, w, sizeof (float) * n);
    cache->n = n;
    cache->exact = weights_products_exact (w, n);
  }
  return cache->exact;
}

/* The kernel of size K (the FMA variant when the weights' products are
 * exact) on (bpp, nc) pixels when its grid fits (grid.y <= 65535: frames
 * of up to 1 048 560 rows): returns 1 with *ret the status of the launch.
 * Taller frames: returns 0 with nothing launched and neither *ret nor
 * *exact touched (the general chain kernel's, convolve-chain.cu). */
template < int K >
static int
launch_custom2d (int bpp, int nc, const uint8_t * src, size_t sstride,
    uint8_t * dst, size_t dstride, int W, int H, const GpuChain & g,
    CvConvolveExactCache * exact, cudaStream_t stream, CvStatus *ret)
{
  typedef CustomGeom < K > G;
  const int flags = (bpp == 1 && (uintptr_t) dst % 4 == 0
      && dstride % 4 == 0 ? CF_VEC_STORE : 0) |
      (bpp == 1 && (uintptr_t) src % 4 == 0 && sstride % 4 == 0 ?
      CF_WORD_LOAD : 0);
  dim3 grid ((unsigned) cv_div_up (W, G::TW), (unsigned) cv_div_up (H,
          G::TH), (unsigned) nc);

  if (grid.y > 65535)
    return 0;
  {
    const int fma = weights_products_exact_cached (exact, g.w, K * K);
    void (*kern) (const uint8_t *, size_t, uint8_t *, size_t, int, int,
        int, int, int, int, const GpuChain) = bpp == 1 ?
        (fma ? custom2d_kernel < K, true, false > :
        custom2d_kernel < K, false, false >) :
        (fma ? custom2d_kernel < K, true, true > :
        custom2d_kernel < K, false, true >);

    kern <<<grid, CB_NT, 0, stream>>> (src, sstride, dst, dstride, W, H,
        g.border, bpp, nc, flags, g);
  }
  *ret = cv_cuda_status (cudaGetLastError ());
  return 1;
}

/* The kernel sizes, the one list of the launch (cv_conv_custom2d_try) and
 * of the preload (cv_conv_custom2d_preload): X (k) for every odd k from 3
 * to CV_CONVOLVE_MAX_KSIZE. */
#define CUSTOM2D_KSIZES(X) \
  X (3) X (5) X (7) X (9) X (11) X (13) X (15) X (17) X (19) X (21) \
  X (23) X (25) X (27) X (29) X (31)
#define CV_K(k) + 1
static constexpr int N_CUSTOM2D_KSIZES = 0 CUSTOM2D_KSIZES (CV_K);
#undef CV_K
static_assert (N_CUSTOM2D_KSIZES == (CV_CONVOLVE_MAX_KSIZE - 1) / 2,
    "every odd kernel size from 3 to CV_CONVOLVE_MAX_KSIZE");

int
cv_conv_custom2d_try (int bpp, int nc, const uint8_t * s, size_t ss,
    uint8_t * d, size_t ds, int W, int H, const GpuChain & g,
    CvConvolveExactCache * exact, cudaStream_t st, CvStatus *ret)
{
  if (g.n != 1 || g.kind[0] != CV_FILTER_CUSTOM || g.sep_custom || bpp < 1
      || bpp > 4 || nc < 1 || nc > bpp)
    return 0;
  switch (g.ksize) {
#define CV_K(k) case k: \
    return launch_custom2d < k > (bpp, nc, s, ss, d, ds, W, H, g, exact, \
        st, ret);
      CUSTOM2D_KSIZES (CV_K)
#undef CV_K
    default:
      return 0;
  }
}

/* the two variants (multiply + add, exact FMA) of size K for pixels of
 * one byte or of several (MC) */
template < int K >
static int
custom2d_variants (const void **k, int n, bool mc)
{
  if (mc) {
    k[n++] = (const void *) custom2d_kernel < K, false, true >;
    k[n++] = (const void *) custom2d_kernel < K, true, true >;
  } else {
    k[n++] = (const void *) custom2d_kernel < K, false, false >;
    k[n++] = (const void *) custom2d_kernel < K, true, false >;
  }
  return n;
}

/* every general custom kernel size, loaded at the operator's create
 * (convolve-internal.h) */
CvStatus
cv_conv_custom2d_preload (int bpp, int nc)
{
  const void *k[2 * N_CUSTOM2D_KSIZES];
  const bool mc = bpp > 1;
  int n = 0;

  (void) nc;
#define CV_K(ks) n = custom2d_variants < ks > (k, n, mc);
  CUSTOM2D_KSIZES (CV_K)
#undef CV_K
  return cv_cuda_preload (k, n);
}
