/* gst-cuda-vision: Canny edge detection, the operator (cvop.h) on the CPU
 * (cpu-fallback/canny.c) and on the GPU (kernels/canny.cu).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CANNY_H
#define CV_CANNY_H

#include "cvimage.h"
#include "cvop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters of one frame.
 * low_threshold, high_threshold: the hysteresis thresholds, in units of
 *              the gradient magnitude (the L1 or L2 norm of the Sobel
 *              derivatives of 8-bit luma below, for kernel_size 7 of the
 *              derivatives before their division by 16), >= 0, any order
 *              (swapped when low > high), fractions allowed; cv::Canny's
 *              threshold1 / threshold2. 0 .. 1e6; the GStreamer element's
 *              defaults are 50 and 150.
 * kernel_size: the Sobel aperture, 3, 5 or 7 (0 means 3).
 * l2_gradient: 0: magnitude |dx| + |dy|; else sqrt (dx² + dy²) (compared
 *              squared, in integers, as OpenCV does). */
typedef struct
{
  double low_threshold;
  double high_threshold;
  int kernel_size;
  int l2_gradient;
} CvCannyParams;

/* ---- the operator (cvop.h) ----
 * The Canny edge map of a frame's luma (J. Canny, "A Computational
 * Approach to Edge Detection", IEEE PAMI 8 (6), 1986), exactly as
 * cv::Canny (image, edges, threshold1, threshold2, apertureSize,
 * L2gradient) of OpenCV 4.x (modules/imgproc/src/canny.cpp, checked against
 * OpenCV 4.6) on the same 8-bit luma:
 *
 *   thresholds: k == 7: low /= 16, high /= 16; if low > high swap them;
 *     with L2: t = min (32767, t), t = t > 0 ? t * t : t; then
 *     low = floor (low), high = floor (high) (integers).
 *   gradients: dx, dy = the Sobel derivatives of aperture k (OpenCV's
 *     unnormalised kernels, see cvsobel.h) of Y with the border replicated
 *     (BORDER_REPLICATE); for k = 7 divided by 16 and rounded to nearest,
 *     ties to even (cv::Sobel (CV_16S, scale 1/16)); k = 3, 5 exact.
 *   magnitude m: L1 |dx| + |dy|, L2 dx² + dy² (integers, no square root);
 *     0 outside the frame.
 *   non-maximum suppression, where m > low (integer tangents, TG22 =
 *     13573 = round (tan (22.5°) 2^15)): x = |dx|, y = |dy| << 15;
 *       y < x TG22:               m > m(x-1, y) and m >= m(x+1, y)
 *       y > x TG22 + (x << 16):   m > m(x, y-1) and m >= m(x, y+1)
 *       else, s = -1 where dx, dy have opposite signs, else 1:
 *                                 m > m(x-s, y-1) and m > m(x+s, y+1)
 *     a pixel that passes is strong when m > high, else weak; the others
 *     (and m <= low) are not edges.
 *   hysteresis: an edge is every strong pixel and every weak pixel
 *     8-connected to a strong one through weak pixels.
 *   out = 255 on edges, 0 elsewhere.
 *
 * The CUDA and CPU operators give the same bytes (integer arithmetic; the
 * same per-pixel rules, canny_core.h). The GPU runs everything on the
 * device (classes, then union-find connected components of the weak and
 * strong pixels), with no host round trip per frame.
 *
 * info:    CvCannyInfo.
 *          layout: how frame->in[0] is read (as CvSobelInfo's: the Y plane
 *          or GRAY8 byte, or the BT.601 luma of R, G, B, see CV_LUMA_*).
 *          width, height: the frame (>= 1; width * height < 2^31).
 *          n_out_planes, out_pixel_stride[]: as CvSobelInfo's.
 * frame:   in[0]: width x height pixels of layout.bpp bytes; other input
 *          planes not read (NULL allowed). out[0]: the GRAY8 edge map
 *          (0 / 255), width x height. out[1 ..]: filled with 128 (neutral
 *          chroma of NV12 / I420 output), as cudasobel's.
 * params:  CvCannyParams. No results (results () returns NULL).
 * Workspaces: made at create for the info's size, per slot (CPU: about
 *          13 bytes per pixel; CUDA: about 5 bytes per pixel of device
 *          memory).
 * Returns: create: CV_OK, CV_ERROR_INVALID_ARGUMENT (a bad info),
 *          CV_ERROR_NO_MEMORY, (CUDA) CV_ERROR_CUDA (cudaMalloc's error
 *          kept).
 *          submit: CV_OK, CV_ERROR_INVALID_ARGUMENT (NULL params, a
 *          kernel_size not 0, 3, 5 or 7, a threshold < 0, > 1e6 or NaN, a
 *          plane missing or not of the info's sizes, CUDA: frames taller
 *          than 524280 rows), CV_ERROR_CANCELLED (CPU), or (CUDA) CV_ERROR_CUDA
 *          (the first failing call's error kept). */
typedef CvEdgeMapInfo CvCannyInfo;      /* cvop.h */

/* The typed operator (cvop.h): an operator of either backend, made by
 * that backend's create and passed only to its functions. */
typedef struct CvCannyOp CvCannyOp;

CvStatus cv_canny_cpu_create (const CvCannyInfo * info, int max_slots,
    CvCannyOp ** op);
CvStatus cv_canny_cpu_submit (CvCannyOp * op, int slot, const CvFrame * frame,
    const CvCannyParams * params, const CvExec * exec);
void cv_canny_cpu_destroy (CvCannyOp * op);

/* CUDA builds only (kernels/nocuda.c defines none of them). */
CvStatus cv_canny_cuda_create (const CvCannyInfo * info, int max_slots,
    CvCannyOp ** op);
CvStatus cv_canny_cuda_submit (CvCannyOp * op, int slot,
    const CvFrame * frame, const CvCannyParams * params, const CvExec * exec);
void cv_canny_cuda_destroy (CvCannyOp * op);

/* The generic tables of the typed functions above (CV_OPS_TABLE), as
 * the elements drive them; in a build without CUDA the CUDA table's
 * members are all NULL (cv_op_available () is FALSE). */
extern const CvOps cv_canny_cpu_ops;
extern const CvOps cv_canny_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_CANNY_H */
