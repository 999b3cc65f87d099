/* gst-cuda-vision: non-local-means denoising, C ABI shared by the CUDA
 * kernels (kernels/nlmeans.cu) and the CPU fallback (cpu-fallback/nlmeans.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_NLMEANS_H
#define CV_NLMEANS_H

#include "cvimage.h"
#include "cvop.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest patch size and search window (both odd). */
#define CV_NLMEANS_MAX_PATCH 11
#define CV_NLMEANS_MAX_SEARCH 65

/* Parameters of one non-local-means pass.
 * h:             filter strength, 8-bit intensity units, > 0 (finite).
 * patch_size:    side of the square patch, odd, 1..CV_NLMEANS_MAX_PATCH
 *                (the element allows 3..11).
 * search_window: side of the square search window centred on the pixel,
 *                odd, 1..CV_NLMEANS_MAX_SEARCH, or 0 for the whole frame.
 * patch_sigma:   standard deviation in pixels of the Gaussian weighting the
 *                patch, >= 0; 0 = uniform weights.
 * sigma:         known noise standard deviation, 8-bit units, >= 0. */
typedef struct
{
  double h;
  int patch_size;
  int search_window;
  double patch_sigma;
  double sigma;
} CvNlMeansParams;

/* Non-local means (A. Buades, B. Coll, J.-M. Morel, "A non-local algorithm
 * for image denoising", CVPR 2005), with the Gaussian-weighted patch distance
 * of the paper and the noise offset of Buades, Coll, Morel, IPOL 2011.
 *
 * For every pixel x of the frame (each colour component c separately):
 *
 *   out_c(x) = sum_y w(x,y) f_c(y) / sum_y w(x,y)
 *   w(x,y)   = exp (-max (d²(x,y) - 2 sigma², 0) / h²)
 *   d²(x,y)  = sum_{|i|,|j|<=r} g(i) g(j) (1/C) sum_c (f_c(x+(i,j)) - f_c(y+(i,j)))²
 *              / (sum_{|i|<=r} g(i))²
 *   g(i)     = exp (-i² / (2 patch_sigma²))   (g = 1 when patch_sigma = 0)
 *
 * with r = patch_size / 2, C the number of colour components (1 or 3; one
 * weight per pixel from the colour patch distance) and y running over the
 * pixels of the frame with |y - x| <= search_window / 2 in both axes (every
 * pixel of the frame when search_window = 0; the window is clipped to the
 * frame, y is never a padded pixel). Patch pixels outside the frame are read
 * with symmetric padding (MATLAB padarray 'symmetric', edge pixel repeated:
 * ... c b a | a b c ...), reflected again as often as needed, so any patch
 * size works on any frame size (even 1x1). x itself (d² = 0, w = 1) is always
 * in the sum, the denominator is >= 1.
 * out = round-to-nearest of the ratio, saturated to 0..255.
 *
 * Both backends compute this in single precision with the same formulation:
 * D(q) = sum_c (f_c(q) - f_c(q + off))² per offset off = y - x, its
 * separable weighted patch sum S = (g ⊗ g) * D (row pass, then column pass,
 * terms in the order i = -r .. r), w = 2^(-max (S a - b, 0) c) with
 * a = 1/(C (sum g)²), b = 2 sigma², c = log2(e)/h² (cv_nlmeans_constants()),
 * float accumulation. They agree within 1 LSB (different exp
 * approximations, FMA contraction, summation order of the offsets).
 *
 * src:    8-bit plane, width x height. layout.bpp = 1 (layout.r < 0): one
 *         grey component. layout.bpp = 3 or 4 with layout.r/g/b the byte
 *         offsets of the colour components: they are denoised together;
 *         the remaining byte of a 4-byte pixel (alpha, padding) is copied.
 * dst:    same size and layout as src (may not alias src).
 * exec:   threads and cancellation of the CPU version (NULL: defaults).
 * Returns CV_OK, CV_ERROR_INVALID_ARGUMENT (NULL planes, sizes < 1 or
 * different, bad layout, parameters out of the ranges above),
 * CV_ERROR_NO_MEMORY and CV_ERROR_CANCELLED (CPU), or (CUDA) the
 * cudaError_t of the launch. */
int cv_nlmeans_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvNlMeansParams * params, const CvCpuExec * exec);

/* Bytes of device scratch memory cv_nlmeans_cuda needs for this frame size,
 * layout and parameters (0: none; params NULL: enough for any) on the
 * current device (the split depends on its SM count and occupancy: ask on
 * the device that will run the frames). Bounded (at most 64 MiB) whatever
 * the size: it holds per-pixel partial sums when the offsets are split over
 * several blocks (frames that fill less than half the GPU, whole-frame
 * mode). */
size_t cv_nlmeans_cuda_scratch_size (int width, int height,
    CvLumaLayout layout, const CvNlMeansParams * params);

/* Same as cv_nlmeans_cpu on the GPU: src, dst and scratch are device
 * pointers (scratch: at least cv_nlmeans_cuda_scratch_size() bytes, may be
 * NULL when that is 0); the work is queued on stream (a cudaStream_t) and
 * not waited for. */
int cv_nlmeans_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvNlMeansParams * params, void *scratch, size_t scratch_size,
    void *stream);

/* ---- shared helpers (identical on both backends) ---- */

/* TRUE when the parameters are in the ranges documented above. */
static inline int
cv_nlmeans_params_valid (const CvNlMeansParams * p)
{
  return p && isfinite (p->h) && p->h > 0 && p->patch_size >= 1
      && p->patch_size <= CV_NLMEANS_MAX_PATCH && (p->patch_size & 1)
      && (p->search_window == 0 || (p->search_window >= 1
              && p->search_window <= CV_NLMEANS_MAX_SEARCH
              && (p->search_window & 1)))
      && isfinite (p->patch_sigma) && p->patch_sigma >= 0
      && isfinite (p->sigma) && p->sigma >= 0;
}

/* Derived single-precision constants: g[0 .. patch_size-1] the 1-D patch
 * weights g(i - r), and a, b, c of w = 2^(-max (S a - b, 0) c) where S is
 * the g⊗g-weighted sum of the channel-summed squared differences.
 * channels: 1 or 3. Computed in double on the host, rounded once. */
typedef struct
{
  float g[CV_NLMEANS_MAX_PATCH];
  float a, b, c;
} CvNlMeansConstants;

static inline void
cv_nlmeans_constants (const CvNlMeansParams * p, int channels,
    CvNlMeansConstants * k)
{
  int r = p->patch_size / 2, i;
  double sum = 0, c;

  for (i = 0; i < CV_NLMEANS_MAX_PATCH; i++)
    k->g[i] = 0.0f;
  for (i = -r; i <= r; i++) {
    double gi = p->patch_sigma > 0 ?
        exp (-(double) (i * i) / (2.0 * p->patch_sigma * p->patch_sigma)) : 1.0;
    k->g[i + r] = (float) gi;
    sum += (float) gi;
  }
  k->a = (float) (1.0 / (channels * sum * sum));
  k->b = (float) (2.0 * p->sigma * p->sigma);
  c = 1.4426950408889634 / (p->h * p->h);
  /* a tiny h: keep c finite (every weight but x's own underflows to 0) */
  k->c = (float) (c > 1e30 ? 1e30 : c);
}

/* ---- the operator (cvop.h) ----
 * info:    CvNlMeansInfo: plane 0 is denoised (read through layout, as
 *          cv_nlmeans_cpu's src); planes 1 .. n_planes - 1 (the chroma of
 *          I420/NV12) are copied, row_bytes[p] bytes per row. The CUDA
 *          operator's scratch grows with the frame's parameters (search
 *          window, patch size).
 * params:  CvNlMeansParams. No results. */
typedef struct
{
  CvLumaLayout layout;
  int width, height;
  int n_planes;
  size_t row_bytes[CV_MAX_PLANES];
} CvNlMeansInfo;

extern const CvOps cv_nlmeans_cpu_ops;
extern const CvOps cv_nlmeans_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_NLMEANS_H */
