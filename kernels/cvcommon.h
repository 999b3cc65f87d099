/* gst-cuda-vision: what the CUDA kernels (kernels/) and the CPU
 * implementations (cpu-fallback/, C99) share, written once: the
 * host/device function qualifier, correctly rounded arithmetic that is
 * never contracted into fused multiply-adds, clamp and rounded-up
 * division, the BT.601 luma, the border rules, the checks of an operator's
 * info and frames, and (CUDA) the error check. Internal header: the C ABI
 * of the elements is cvop.h and the cv<algorithm>.h headers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_COMMON_H
#define CV_COMMON_H

#include "cvimage.h"
#include "cvop.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* A function compiled for the host and (nvcc) the device, inlined. The one
 * spelling for code shared by both sides. */
#ifdef __CUDACC__
#define CV_HD static __host__ __device__ __forceinline__
#else
#define CV_HD static inline
#endif

/* Single and double precision arithmetic, correctly rounded to nearest.
 * On the device the explicit round-to-nearest intrinsics, which nvcc never
 * contracts into fused multiply-adds; on the host the plain operators (the
 * CPU library is built with -ffp-contract=off). Division and square root
 * are correctly rounded (IEEE 754) on both, so both sides compute the same
 * bits. */
#if defined(__CUDA_ARCH__)
#define CV_FMUL(a, b) __fmul_rn ((a), (b))
#define CV_FADD(a, b) __fadd_rn ((a), (b))
#define CV_FDIV(a, b) __fdiv_rn ((a), (b))
#define CV_FSQRT(a) __fsqrt_rn (a)
#define CV_DMUL(a, b) __dmul_rn ((a), (b))
#define CV_DADD(a, b) __dadd_rn ((a), (b))
#define CV_DSUB(a, b) __dsub_rn ((a), (b))
#define CV_DDIV(a, b) __ddiv_rn ((a), (b))
#define CV_DSQRT(a) __dsqrt_rn (a)
#else
#define CV_FMUL(a, b) ((a) * (b))
#define CV_FADD(a, b) ((a) + (b))
#define CV_FDIV(a, b) ((a) / (b))
#define CV_FSQRT(a) sqrtf (a)
#define CV_DMUL(a, b) ((a) * (b))
#define CV_DADD(a, b) ((a) + (b))
#define CV_DSUB(a, b) ((a) - (b))
#define CV_DDIV(a, b) ((a) / (b))
#define CV_DSQRT(a) sqrt (a)
#endif

/* v clamped to lo .. hi */
CV_HD int
cv_clamp (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* n / d rounded up (n >= 0, d > 0): blocks of d covering n */
CV_HD int
cv_div_up (int n, int d)
{
  return (n + d - 1) / d;
}

/* ITU-R BT.601 luma of 8-bit R, G, B in 8-bit fixed point (see CV_LUMA_R,
 * cvimage.h): Y = (77 R + 150 G + 29 B + 128) >> 8, 0 .. 255. The one
 * definition every kernel and CPU implementation uses. */
CV_HD int
cv_luma (int r, int g, int b)
{
  return (CV_LUMA_R * r + CV_LUMA_G * g + CV_LUMA_B * b + 128) >> 8;
}

/* ---- border rules ----
 * Where a pixel at coordinate p of an axis of n pixels (n >= 1) is read
 * from when p may be outside 0 .. n - 1. Every function returns p itself
 * inside the axis.
 *   constant:      -1 outside (the caller reads the constant, 0)
 *   replicate:     the nearest edge pixel                aaa|abcd|ddd
 *                  (OpenCV's BORDER_REPLICATE)
 *   reflect-101:   mirrored without repeating the edge   dcb|abcd|cba,
 *                  repeated while p is outside (any distance); n == 1 -> 0
 *                  (OpenCV's BORDER_REFLECT_101 = BORDER_DEFAULT)
 *   symmetric:     mirrored with the edge repeated       cba|abcd|dcb,
 *                  repeated while p is outside (MATLAB padarray
 *                  'symmetric', OpenCV's BORDER_REFLECT) */
CV_HD int
cv_border_constant (int p, int n)
{
  return p >= 0 && p < n ? p : -1;
}

CV_HD int
cv_border_replicate (int p, int n)
{
  return cv_clamp (p, 0, n - 1);
}

CV_HD int
cv_border_reflect_101 (int p, int n)
{
  int period;

  if (p >= 0 && p < n)
    return p;
  if (n == 1)
    return 0;
  /* period 2 (n - 1), mirrored in the second half */
  period = 2 * (n - 1);
  p %= period;
  if (p < 0)
    p += period;
  return p < n ? p : period - p;
}

CV_HD int
cv_border_symmetric (int p, int n)
{
  const int period = 2 * n;

  p %= period;
  if (p < 0)
    p += period;
  return p < n ? p : period - 1 - p;
}

/* ---- operators: checks of infos and frames (host code) ---- */

/* A layout the algorithms read: one byte of luma per pixel (bpp 1, r, g,
 * b < 0: GRAY8, the Y plane of I420 / NV12), or 8-bit R, G, B at byte
 * offsets below bpp of 3- or 4-byte pixels. */
static inline int
cv_layout_valid (CvLumaLayout l)
{
  if (l.r < 0)
    return l.bpp == 1 && l.g < 0 && l.b < 0;
  return (l.bpp == 3 || l.bpp == 4) && l.r < l.bpp && l.g >= 0
      && l.g < l.bpp && l.b >= 0 && l.b < l.bpp;
}

/* the byte offset of the fourth (alpha or padding) byte of a valid 4-byte
 * RGB layout: the one of 0..3 that r, g and b leave; -1 for other layouts */
static inline int
cv_layout_fourth_byte (CvLumaLayout l)
{
  return l.bpp == 4 && l.r >= 0 ? 6 - l.r - l.g - l.b : -1;
}

/* plane holds w x h pixels of bpp bytes (rows of at least w * bpp) */
static inline int
cv_plane_is (const CvPlane * p, int w, int h, int bpp)
{
  return p->data && p->width == w && p->height == h
      && p->stride >= (size_t) w * (size_t) bpp;
}

/* plane is a plane of a w x h frame (w, h, or the chroma of a subsampled
 * format: ceil (w / 2), ceil (h / 2), as GStreamer sizes them) of pixels of
 * bpp bytes */
static inline int
cv_plane_is_part_of (const CvPlane * p, int w, int h, int bpp)
{
  return p->data && (p->width == w || p->width == w - w / 2)
      && (p->height == h || p->height == h - h / 2)
      && p->stride >= (size_t) p->width * (size_t) bpp;
}

/* the stream of an exec (NULL exec: the default stream) */
static inline void *
cv_exec_stream (const CvExec * exec)
{
  return exec ? exec->stream : NULL;
}

/* ---- CUDA ---- */
#ifdef __CUDACC__
/* CV_OK, or CV_ERROR_CUDA with err kept beside it (cvimage.h). Every CUDA
 * error of an operator goes through it. */
static inline CvStatus
cv_cuda_status (cudaError_t err)
{
  return cv_status_set_cuda_error ((int) err);
}

/* Run a CUDA runtime call; when it fails, return CV_ERROR_CUDA from the
 * calling function (its error kept: the first failing call's). */
#define CV_CUDA_TRY(call) do { CvStatus cv_st_ = cv_cuda_status (call); \
    if (cv_st_ != CV_OK) return cv_st_; } while (0)
#endif

#endif /* CV_COMMON_H */
