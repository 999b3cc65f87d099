/* gst-cuda-vision: what the Sobel operators (cudasobel, and the gradients
 * of cudacanny) share between the CPU (cpu-fallback/) and the GPU
 * (kernels/): OpenCV's Sobel aperture kernels and the magnitude rules.
 * Internal header; the definitions are documented in cvsobel.h and
 * cvcanny.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_SOBEL_CORE_H
#define CV_SOBEL_CORE_H

#include "cvcommon.h"
#include "cvsobel.h"

/* kernel sizes (apertures) of the Sobel operators: 3, 5 or 7 */
#define CV_SOBEL_MAX_KSIZE 7

/* OpenCV's unnormalised first-derivative Sobel kernels
 * (cv::getDerivKernels (kx, ky, 1, 0, ksize, false)): the smoothing
 * kernel (binomial) and the derivative kernel of each aperture, k taps
 * centred on the pixel. Gx (x, y) = sum_j sum_i smooth[j] deriv[i]
 * in (x + i - r, y + j - r); Gy the same with the roles swapped (r = k / 2).
 * Written out: the CPU and the GPU read the same numbers. */
CV_HD int
cv_sobel_smooth_coeff (int ksize, int i)
{
  /* 3: 1 2 1;  5: 1 4 6 4 1;  7: 1 6 15 20 15 6 1 */
  const int c3[3] = { 1, 2, 1 };
  const int c5[5] = { 1, 4, 6, 4, 1 };
  const int c7[7] = { 1, 6, 15, 20, 15, 6, 1 };
  return ksize == 3 ? c3[i] : ksize == 5 ? c5[i] : c7[i];
}

CV_HD int
cv_sobel_deriv_coeff (int ksize, int i)
{
  /* 3: -1 0 1;  5: -1 -2 0 2 1;  7: -1 -4 -5 0 5 4 1 */
  const int c3[3] = { -1, 0, 1 };
  const int c5[5] = { -1, -2, 0, 2, 1 };
  const int c7[7] = { -1, -4, -5, 0, 5, 4, 1 };
  return ksize == 3 ? c3[i] : ksize == 5 ? c5[i] : c7[i];
}

CV_HD int
cv_sobel_ksize_valid (int ksize)
{
  return ksize == 3 || ksize == 5 || ksize == 7;
}

/* min (255, floor (sqrt (gx² + gy²))), exactly, for any int gx, gy of the
 * Sobel apertures (|g| <= 326400): a component of 255 or more saturates
 * on its own; otherwise gx² + gy² < 2 * 65025 is exact and for s < 65025
 * the correctly rounded sqrtf never reaches the next integer (truncation
 * is floor). */
CV_HD int
cv_sobel_mag_l2 (int gx, int gy)
{
  const int ax = gx < 0 ? -gx : gx, ay = gy < 0 ? -gy : gy;
  int s;

  if (ax >= 255 || ay >= 255)
    return 255;
  s = ax * ax + ay * ay;
  return s >= 65025 ? 255 : (int) CV_FSQRT ((float) s);
}

/* min (255, |gx| + |gy|) */
CV_HD int
cv_sobel_mag_l1 (int gx, int gy)
{
  const int s = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
  return s > 255 ? 255 : s;
}

CV_HD int
cv_sobel_magnitude (int gx, int gy, int norm)
{
  return norm == CV_SOBEL_NORM_L1 ? cv_sobel_mag_l1 (gx, gy) :
      cv_sobel_mag_l2 (gx, gy);
}

#endif /* CV_SOBEL_CORE_H */
