/* gst-cuda-vision: 2-D convolution filters and fused filter chains, the
 * operator (cvop.h) on the CPU (cpu-fallback/convolve.c) and on the GPU
 * (kernels/convolve*.cu).
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
  CV_BORDER_REPLICATE = 1,
  CV_BORDER_REFLECT_101 = 4,
} CvBorderMode;

/* The values are OpenCV's (cv::BorderTypes); its BORDER_REFLECT (2),
 * BORDER_WRAP (3) and the others are not implemented and refused. */
static inline int
cv_border_mode_valid (int mode)
{
  return mode == CV_BORDER_CONSTANT || mode == CV_BORDER_REPLICATE
      || mode == CV_BORDER_REFLECT_101;
}

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
CvStatus cv_convolve_params_prepare (CvConvolveParams * params);

/* ---- the operator (cvop.h) ----
 * The chain applied to every plane of a frame, each at its own size.
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
 * flipped.) The CUDA and CPU operators give the same bytes.
 *
 * info:    CvConvolveInfo.
 *          width, height: plane 0 (>= 1).
 *          n_planes: planes of the frame (1 .. CV_MAX_PLANES).
 *          bpp[p], channels[p]: plane p has pixels of bpp[p] bytes whose
 *          first channels[p] bytes are filtered independently, the others
 *          (alpha, x) copied from the input unchanged: (bpp, channels) is
 *          (1, 1) for GRAY8 and the planes of I420, (2, 2) for NV12's
 *          interleaved UV, (3, 3) for RGB / BGR, (4, 3) for RGBA, BGRA,
 *          RGBx, BGRx.
 * frame:   in[p] -> out[p] for p < n_planes, of the same size: plane 0
 *          width x height, the others that or the 4:2:0 chroma size
 *          (ceil (width / 2) x ceil (height / 2)). The CUDA operator keeps
 *          device scratch memory (two frames of the plane's size) for
 *          chains whose halo does not fit in shared memory, grown when a
 *          frame needs more.
 * params:  CvConvolveParams, prepared (cv_convolve_params_prepare ()).
 *          No results (results () returns NULL).
 * Returns: create: CV_OK, CV_ERROR_INVALID_ARGUMENT (a bad info),
 *          CV_ERROR_NO_MEMORY. submit: CV_OK, CV_ERROR_INVALID_ARGUMENT
 *          (NULL params, a bad chain, a plane missing or not of the info's
 *          sizes), CV_ERROR_NO_MEMORY, CV_ERROR_CANCELLED (CPU), or (CUDA)
 *          CV_ERROR_CUDA (the first failing call's error kept). */
typedef struct
{
  int width, height;
  int n_planes;
  int bpp[CV_MAX_PLANES];
  int channels[CV_MAX_PLANES];
} CvConvolveInfo;

/* The typed operator (cvop.h): an operator of either backend, made by
 * that backend's create and passed only to its functions. */
typedef struct CvConvolveOp CvConvolveOp;

CvStatus cv_convolve_cpu_create (const CvConvolveInfo * info, int max_slots,
    CvConvolveOp ** op);
CvStatus cv_convolve_cpu_submit (CvConvolveOp * op, int slot,
    const CvFrame * frame, const CvConvolveParams * params,
    const CvExec * exec);
void cv_convolve_cpu_destroy (CvConvolveOp * op);

/* CUDA builds only (kernels/nocuda.c defines none of them). */
CvStatus cv_convolve_cuda_create (const CvConvolveInfo * info, int max_slots,
    CvConvolveOp ** op);
CvStatus cv_convolve_cuda_submit (CvConvolveOp * op, int slot,
    const CvFrame * frame, const CvConvolveParams * params,
    const CvExec * exec);
void cv_convolve_cuda_destroy (CvConvolveOp * op);

/* The generic tables of the typed functions above (CV_OPS_TABLE), as
 * the elements drive them; in a build without CUDA the CUDA table's
 * members are all NULL (cv_op_available () is FALSE). */
extern const CvOps cv_convolve_cpu_ops;
extern const CvOps cv_convolve_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_CONVOLVE_H */
