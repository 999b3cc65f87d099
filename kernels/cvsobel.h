/* gst-cuda-vision: Sobel edge detection, the operator (cvop.h) on the CPU
 * (cpu-fallback/sobel.c) and on the GPU (kernels/sobel.cu).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_SOBEL_H
#define CV_SOBEL_H

#include "cvimage.h"
#include "cvop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters of one frame.
 * brightness:  added to luma before filtering, in = clamp(Y + brightness, 0, 255),
 *              range -255..255.
 * threshold:   out = m > threshold ? m : 0, range 0..255 (0 keeps every
 *              non-zero magnitude).
 * kernel_size: the aperture, 3, 5 or 7 (OpenCV's Sobel kernels, see
 *              below); 0 means 3. Other values: CV_ERROR_INVALID_ARGUMENT.
 * norm:        CV_SOBEL_NORM_L2 (0, sqrt (Gx² + Gy²)) or CV_SOBEL_NORM_L1
 *              (1, |Gx| + |Gy|). */
typedef struct
{
  int brightness;
  int threshold;
  int kernel_size;
  int norm;
} CvSobelParams;

#ifndef CV_SOBEL_NORM_L2
#define CV_SOBEL_NORM_L2 0
#define CV_SOBEL_NORM_L1 1
#endif

/* ---- the operator (cvop.h) ----
 * The edge map of a frame. For every pixel, with in(x, y) the
 * brightness-adjusted luma of frame->in[0] (Y read through layout: the
 * byte itself for a luma layout, else the BT.601 luma of R, G, B, see
 * CV_LUMA_*) and the border replicated (coordinates clamped to the frame,
 * as OpenCV's BORDER_REPLICATE):
 *   kernel_size 3:
 *   Gx = [-1 0 1; -2 0 2; -1 0 1] * in,  Gy = [-1 -2 -1; 0 0 0; 1 2 1] * in
 *   kernel_size 5 and 7: OpenCV's unnormalised Sobel kernels
 *   (cv::getDerivKernels, cv::Sobel (ksize = k)), separable, the outer
 *   product of a smoothing and a derivative kernel:
 *     5: smooth 1 4 6 4 1,        deriv -1 -2 0 2 1
 *     7: smooth 1 6 15 20 15 6 1, deriv -1 -4 -5 0 5 4 1
 *   Gx = smooth (rows) x deriv (columns), Gy = deriv (rows) x smooth
 *   (columns), |G| up to 326400 for k = 7 (no scaling)
 *   m  = min(255, floor(sqrt(Gx^2 + Gy^2)))    (norm L2)
 *   m  = min(255, |Gx| + |Gy|)                  (norm L1)
 *   out = m > threshold ? m : 0
 * so that m is the magnitude of cv::Sobel (ksize = k) clamped to 255.
 * (I. Sobel, G. Feldman, "A 3x3 isotropic gradient operator for image
 * processing", 1968.) The result is exact integer arithmetic: the CUDA and
 * CPU operators give the same bytes.
 *
 * info:    CvSobelInfo.
 *          layout: how frame->in[0] is read: bpp 1 with r, g, b = -1
 *          (GRAY8, the Y plane of I420 / NV12), or bpp 3 or 4 with the
 *          byte offsets (< bpp) of R, G, B.
 *          width, height: the frame (>= 1).
 *          n_out_planes: planes of the output (1 .. CV_MAX_PLANES).
 *          out_pixel_stride[p]: bytes per pixel of output plane p >= 1
 *          (1 .. 4; NV12's UV plane: 2); [0] is not read.
 * frame:   in[0]: width x height pixels of layout.bpp bytes; the other
 *          input planes are not read (NULL allowed).
 *          out[0]: the GRAY8 edge map, width x height.
 *          out[1 .. n_out_planes - 1]: planes filled with 128 (neutral
 *          chroma of NV12 / I420 output): the first width *
 *          out_pixel_stride[p] bytes of each of their rows, row padding
 *          left alone; of the frame's size or of its 4:2:0 chroma size
 *          (ceil (width / 2) x ceil (height / 2)).
 * params:  CvSobelParams. No results (results () returns NULL).
 * Returns: create: CV_OK, CV_ERROR_INVALID_ARGUMENT (a bad info),
 *          CV_ERROR_NO_MEMORY. submit: CV_OK, CV_ERROR_INVALID_ARGUMENT
 *          (NULL params, a kernel_size or norm
 *          not listed above, a plane missing or not of the info's sizes, CUDA:
 *          frames taller than 524280 rows), CV_ERROR_CANCELLED (CPU), or
 *          (CUDA) CV_ERROR_CUDA (the first failing call's error kept). */
typedef CvEdgeMapInfo CvSobelInfo;      /* cvop.h */

/* The typed operator (cvop.h): an operator of either backend, made by
 * that backend's create and passed only to its functions. */
typedef struct CvSobelOp CvSobelOp;

CvStatus cv_sobel_cpu_create (const CvSobelInfo * info, int max_slots,
    CvSobelOp ** op);
CvStatus cv_sobel_cpu_submit (CvSobelOp * op, int slot, const CvFrame * frame,
    const CvSobelParams * params, const CvExec * exec);
void cv_sobel_cpu_destroy (CvSobelOp * op);

/* CUDA builds only (kernels/nocuda.c defines none of them). */
CvStatus cv_sobel_cuda_create (const CvSobelInfo * info, int max_slots,
    CvSobelOp ** op);
CvStatus cv_sobel_cuda_submit (CvSobelOp * op, int slot,
    const CvFrame * frame, const CvSobelParams * params, const CvExec * exec);
void cv_sobel_cuda_destroy (CvSobelOp * op);

/* The generic tables of the typed functions above (CV_OPS_TABLE), as
 * the elements drive them; in a build without CUDA the CUDA table's
 * members are all NULL (cv_op_available () is FALSE). */
extern const CvOps cv_sobel_cpu_ops;
extern const CvOps cv_sobel_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_SOBEL_H */
