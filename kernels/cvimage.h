/* gst-cuda-vision: image descriptors shared by kernels/ (CUDA) and
 * cpu-fallback/ (C99). Plain C, no GStreamer types: this is the C ABI
 * between the GObject code in plugin/ and the math.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_IMAGE_H
#define CV_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Byte layout of one 8-bit pixel in a packed plane, used to read luma.
 * bpp: bytes per pixel (1 for GRAY8 and the Y plane of I420/NV12, 3 for
 * RGB/BGR, 4 for RGBA/BGRA/RGBx/BGRx). r, g, b: byte offsets of the colour
 * components inside the pixel, or -1 when the plane is already luma (then
 * byte 0 is read). */
typedef struct
{
  int bpp;
  int r, g, b;
} CvLumaLayout;

/* One 8-bit plane: data points at row 0, stride is bytes from one row to
 * the next (>= width * bpp, any value, no alignment required). */
typedef struct
{
  uint8_t *data;
  size_t stride;
  int width;                    /* pixels */
  int height;                   /* rows */
} CvPlane;

/* The one status type of the C ABI, returned by every operator function
 * on both backends (CV-CUDA's NVCVStatus plays the same part).
 * CV_ERROR_CANCELLED: the call saw CvExec.cancel (cvop.h) set and stopped
 * early: the output is incomplete and must not be used.
 * CV_ERROR_CUDA: a CUDA runtime call failed; its cudaError_t is kept
 * beside the status, for the message, in the calling thread:
 * cv_status_cuda_error () (as CV-CUDA's nvcvPeekAtLastError). */
typedef enum
{
  CV_OK = 0,
  CV_ERROR_INVALID_ARGUMENT = -1,
  CV_ERROR_NO_MEMORY = -2,
  CV_ERROR_CANCELLED = -3,
  CV_ERROR_CUDA = -4,
} CvStatus;

/* The cudaError_t (an int, 0 = none) of the last CV_ERROR_CUDA returned
 * in this thread; cv_status_set_cuda_error () records it (the CUDA
 * operators do, through cv_cuda_status ()), and returns CV_ERROR_CUDA, or
 * CV_OK for 0. */
int cv_status_cuda_error (void);
CvStatus cv_status_set_cuda_error (int cuda_error);

/* A status in words ("invalid argument", ...; for CV_ERROR_CUDA "CUDA
 * error", the CUDA error itself is the caller's to describe). */
const char *cv_status_string (CvStatus status);

/* ITU-R BT.601 luma in 8-bit fixed point: Y = (77 R + 150 G + 29 B + 128) >> 8.
 * 77/256, 150/256, 29/256 are 0.299, 0.587, 0.114 rounded so that they sum to
 * exactly 256 (white stays 255). Used by every element that works on luma
 * (the formula itself: cv_luma (), kernels/cvcommon.h). */
#define CV_LUMA_R 77
#define CV_LUMA_G 150
#define CV_LUMA_B 29

#ifdef __cplusplus
}
#endif
#endif /* CV_IMAGE_H */
