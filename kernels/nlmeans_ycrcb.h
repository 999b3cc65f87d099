/* gst-cuda-vision: the RGB <-> YCrCb conversions of cudanlmeans'
 * rgb-mode=ycrcb, identical on both backends (kernels/nlmeans.cu and
 * cpu-fallback/nlmeans.c): OpenCV's 8-bit integer maths of cv::cvtColor
 * COLOR_RGB2YCrCb / COLOR_YCrCb2RGB (and the BGR variants), bit for bit
 * (checked for all 2^24 colours by tests/nlmeans_ycrcb_vs_opencv.py).
 * Internal header.
 *
 * Forward (yuv_shift = 14, CV_DESCALE (x, n) = (x + 2^(n-1)) >> n, an
 * arithmetic shift: floor):
 *   Y  = CV_DESCALE (4899 R + 9617 G + 1868 B, 14)
 *   Cr = saturate (CV_DESCALE ((R - Y) 11682 + (128 << 14), 14))
 *   Cb = saturate (CV_DESCALE ((B - Y) 9241 + (128 << 14), 14))
 * Back:
 *   R = saturate (Y + CV_DESCALE ((Cr - 128) 22987, 14))
 *   G = saturate (Y + CV_DESCALE ((Cb - 128) (-5636) + (Cr - 128) (-11698),
 *       14))
 *   B = saturate (Y + CV_DESCALE ((Cb - 128) 29049, 14))
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_NLMEANS_YCRCB_H
#define CV_NLMEANS_YCRCB_H

#include <stdint.h>

#ifdef __CUDACC__
#define CV_YCC_FN static __host__ __device__ __forceinline__
#else
#define CV_YCC_FN static inline
#endif

CV_YCC_FN int
cv_ycc_sat (int v)
{
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* r, g, b -> y, cr, cb */
CV_YCC_FN void
cv_rgb_to_ycrcb (int r, int g, int b, uint8_t * y, uint8_t * cr, uint8_t * cb)
{
  const int Y = (r * 4899 + g * 9617 + b * 1868 + (1 << 13)) >> 14;

  *y = (uint8_t) Y;             /* 0 .. 255: the coefficients sum to 2^14 */
  *cr = (uint8_t) cv_ycc_sat (((r - Y) * 11682 + (128 << 14) + (1 << 13))
      >> 14);
  *cb = (uint8_t) cv_ycc_sat (((b - Y) * 9241 + (128 << 14) + (1 << 13))
      >> 14);
}

/* y, cr, cb -> r, g, b */
CV_YCC_FN void
cv_ycrcb_to_rgb (int y, int cr, int cb, uint8_t * r, uint8_t * g, uint8_t * b)
{
  cr -= 128;
  cb -= 128;
  *r = (uint8_t) cv_ycc_sat (y + ((cr * 22987 + (1 << 13)) >> 14));
  *g = (uint8_t) cv_ycc_sat (y + ((cb * -5636 + cr * -11698 + (1 << 13))
          >> 14));
  *b = (uint8_t) cv_ycc_sat (y + ((cb * 29049 + (1 << 13)) >> 14));
}

#endif /* CV_NLMEANS_YCRCB_H */
