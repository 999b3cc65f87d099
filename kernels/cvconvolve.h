/* gst-cuda-vision: 2-D convolution filters and fused filter chains, C ABI
 * shared by the CUDA kernels (kernels/convolve.cu) and the CPU fallback
 * (cpu-fallback/convolve.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CONVOLVE_H
#define CV_CONVOLVE_H

#include "cvimage.h"
#include "cvop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Filters of a chain. Weights (row-major, centre in the middle):
 *   CV_FILTER_BLUR:        3x3 box, all weights 1/9
 *   CV_FILTER_GAUSSIAN:    3x3, [1 2 1]^T [1 2 1] / 16
 *   CV_FILTER_SHARPEN:     [0 -1 0; -1 5 -1; 0 -1 0]
 *   CV_FILTER_EDGE_DETECT: [0 -1 0; -1 4 -1; 0 -1 0] (negated Laplacian)
 *   CV_FILTER_CUSTOM:      CvConvolveParams.kernel (float, ksize x ksize) */
typedef enum
{
  CV_FILTER_BLUR = 0,
  CV_FILTER_GAUSSIAN,
  CV_FILTER_SHARPEN,
  CV_FILTER_EDGE_DETECT,
  CV_FILTER_CUSTOM,
} CvFilterKind;

/* How a stage reads pixels outside its input frame (W x H), per axis,
 * for a coordinate p:
 *   CV_BORDER_CONSTANT:   the pixel is 0
 *   CV_BORDER_REPLICATE:  p -> clamp (p, 0, W - 1)            (aaa|abcd|ddd)
 *   CV_BORDER_REFLECT_101: mirror without repeating the edge (dcb|abcd|cba),
 *                         repeated while p is outside (kernels wider than
 *                         the frame); W == 1 -> 0. As OpenCV's
 *                         BORDER_REFLECT_101 (= BORDER_DEFAULT). */
typedef enum
{
  CV_BORDER_CONSTANT = 0,
  CV_BORDER_REPLICATE,
  CV_BORDER_REFLECT_101,
} CvBorderMode;

#define CV_CONVOLVE_MAX_CHAIN 8
#define CV_CONVOLVE_MAX_KSIZE 31

/* One filter chain (the parameter snapshot of a frame, plain data).
 * n_filters: 1 .. CV_CONVOLVE_MAX_CHAIN; filters[i]: CvFilterKind, applied
 *   in order i = 0 .. n_filters - 1.
 * border_mode: CvBorderMode, applied by every stage to its own input frame
 *   (the source for stage 0, the 8-bit result of stage i - 1 otherwise).
 * ksize: side of the custom kernel, odd, 1 .. 31; kernel: its ksize * ksize
 *   weights, row-major (row 0 = top). Only read by CV_FILTER_CUSTOM stages.
 * separable, krow, kcol: filled by cv_convolve_params_prepare(): separable
 *   is 1 when kernel[i][j] == kcol[i] * krow[j] (rank 1, to 1e-6 of the
 *   largest weight); the custom stage then uses the separable formula. */
typedef struct
{
  int n_filters;
  int filters[CV_CONVOLVE_MAX_CHAIN];
  int border_mode;
  int ksize;
  float kernel[CV_CONVOLVE_MAX_KSIZE * CV_CONVOLVE_MAX_KSIZE];
  int separable;
  float krow[CV_CONVOLVE_MAX_KSIZE];
  float kcol[CV_CONVOLVE_MAX_KSIZE];
} CvConvolveParams;

/* Detect whether the custom kernel is separable (rank 1) and fill
 * separable/krow/kcol. Call after changing ksize/kernel. Returns CV_OK or
 * CV_ERROR_INVALID_ARGUMENT (ksize even or out of 1..31). */
int cv_convolve_params_prepare (CvConvolveParams * params);

/* Sum of the radii of the chain's stages (the halo it needs). */
int cv_convolve_chain_radius (const CvConvolveParams * params);

/* Apply the chain to one 8-bit plane.
 *   src, dst: planes of the same width x height (any strides); pixels of
 *     bpp bytes (1: GRAY8/Y/U/V, 2: NV12's interleaved UV, 3: RGB/BGR,
 *     4: RGBA/BGRA/RGBx/BGRx); the first `channels` bytes of each pixel are
 *     filtered independently (1 <= channels <= bpp, channels <= 3), the
 *     others (alpha, x) are copied from src unchanged.
 *
 * Every stage computes, per channel, with in' the border-extended input of
 * the stage (see CvBorderMode) and r its radius:
 *   named filters (exact integer arithmetic; the row/column sums of the
 *   separable blur and gaussian are integers, so the separable evaluation
 *   is identical to the 2-D formula):
 *     blur:        out = (S + 4) / 9   with S = sum of the 3x3 pixels
 *                  (integer division; S / 9 is never exactly half-way)
 *     gaussian:    out = (S + 8) >> 4  with S = [1 2 1]^T[1 2 1] * in'
 *     sharpen, edge-detect: out = S (integer), saturated
 *   custom (IEEE single precision, every product rounded before it is
 *   added, no fused multiply-add; in this exact order on CPU and GPU):
 *     2-D:        acc = sum_{i=0..k-1} sum_{j=0..k-1} kernel[i][j] * in'(y+i-r, x+j-r)
 *     separable:  h(y') = sum_j krow[j] * in'(y', x+j-r)   (float, unrounded)
 *                 acc   = sum_i kcol[i] * h(y+i-r)          (h = 0 for rows
 *                 outside the frame with CV_BORDER_CONSTANT)
 *     out = round half up of acc: floor (acc + 1/2), evaluated exactly
 *     (integer part + (fraction >= 1/2)); NaN -> 0.
 *   then saturated to 0..255. For values that survive the saturation,
 *   round half up and round half away from zero are the same (they only
 *   differ at negative halves, which saturate to 0 either way).
 * Every intermediate of the chain is such an 8-bit frame: the chain equals
 * applying the filters one after another, bit for bit, borders included.
 * (The custom kernel is a correlation, as OpenCV's filter2D: it is not
 * flipped.)
 * exec: threads and cancellation of the CPU version (NULL: defaults).
 * Returns CV_OK, CV_ERROR_INVALID_ARGUMENT (NULL planes, size < 1 or
 * different, bad bpp/channels/chain), CV_ERROR_NO_MEMORY,
 * CV_ERROR_CANCELLED. */
int cv_convolve_cpu (const CvPlane * src, CvPlane * dst, int bpp,
    int channels, const CvConvolveParams * params, const CvCpuExec * exec);

/* Same on the GPU: src and dst are device planes; the work is queued on
 * stream (a cudaStream_t) and not waited for. params is copied into the
 * launch (it may change as soon as the call returns). scratch points at a
 * per-stream opaque pointer (initially NULL) where device memory is kept
 * for chains too long to be fused in shared memory; free it with
 * cv_convolve_cuda_free_scratch() once the stream's work is done.
 * Results are bit-identical to cv_convolve_cpu(). */
int cv_convolve_cuda (const CvPlane * src, CvPlane * dst, int bpp,
    int channels, const CvConvolveParams * params, void **scratch,
    void *stream);
void cv_convolve_cuda_free_scratch (void *scratch);

/* ---- the operator (cvop.h) ----
 * info:    CvConvolveInfo: the frame's n_planes planes, plane p of pixels
 *          of bpp[p] bytes whose first channels[p] bytes are filtered (as
 *          cv_convolve_cpu's bpp and channels); width, height of plane 0.
 *          The chain is applied to every plane at its own size
 *          (frame->in[p] -> frame->out[p]).
 * params:  CvConvolveParams (prepared). No results. */
typedef struct
{
  int width, height;
  int n_planes;
  int bpp[CV_MAX_PLANES];
  int channels[CV_MAX_PLANES];
} CvConvolveInfo;

extern const CvOps cv_convolve_cpu_ops;
extern const CvOps cv_convolve_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_CONVOLVE_H */
