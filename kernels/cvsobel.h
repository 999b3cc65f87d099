/* gst-cuda-vision: Sobel edge detection, C ABI shared by the CUDA kernel
 * (kernels/sobel.cu) and the CPU fallback (cpu-fallback/sobel.c).
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

/* Parameters of one Sobel pass.
 * brightness: added to luma before filtering, in = clamp(Y + brightness, 0, 255),
 *             range -255..255.
 * threshold:  out = m > threshold ? m : 0, range 0..255 (0 keeps every
 *             non-zero magnitude). */
typedef struct
{
  int brightness;
  int threshold;
} CvSobelParams;

/* Edge map of one frame.
 *   src:    8-bit plane read through layout (luma computed per pixel, see
 *           CV_LUMA_*); width x height pixels.
 *   dst:    GRAY8 plane, same width x height.
 * For every pixel, with in(x, y) the brightness-adjusted luma and the border
 * replicated (coordinates clamped to the frame, as OpenCV's
 * BORDER_REPLICATE):
 *   Gx = [-1 0 1; -2 0 2; -1 0 1] * in,  Gy = [-1 -2 -1; 0 0 0; 1 2 1] * in
 *   m  = min(255, floor(sqrt(Gx^2 + Gy^2)))
 *   dst = m > threshold ? m : 0
 * (I. Sobel, G. Feldman, "A 3x3 isotropic gradient operator for image
 * processing", 1968.) The result is exact integer arithmetic: the CUDA and
 * CPU versions are bit-exact.
 * exec: threads and cancellation of the CPU version (NULL: defaults).
 * Returns CV_OK, CV_ERROR_INVALID_ARGUMENT (NULL planes, sizes < 1 or
 * different between src and dst), CV_ERROR_CANCELLED (CPU), or (CUDA) the
 * cudaError_t of the launch. */
int cv_sobel_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, const CvCpuExec * exec);

/* Same on the GPU: src and dst are device pointers (any pitch), the work is
 * queued on stream (a cudaStream_t) and not waited for. */
int cv_sobel_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, void *stream);

/* ---- the operator (cvop.h) ----
 * info:    CvSobelInfo. frame->in[0]: the source plane (read through
 *          layout); frame->out[0]: the GRAY8 edge map of the same size;
 *          frame->out[1 .. n_out_planes - 1]: planes filled with 128
 *          (neutral chroma of NV12 / I420 output), out_pixel_stride[p]
 *          bytes per pixel (NV12's UV plane: 2). Other input planes are not
 *          read (NULL allowed).
 * params:  CvSobelParams. No results. */
typedef struct
{
  CvLumaLayout layout;
  int width, height;
  int n_out_planes;
  int out_pixel_stride[CV_MAX_PLANES];
} CvSobelInfo;

extern const CvOps cv_sobel_cpu_ops;
extern const CvOps cv_sobel_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_SOBEL_H */
