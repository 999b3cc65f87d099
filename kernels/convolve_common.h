/* gst-cuda-vision: arithmetic shared verbatim by kernels/convolve*.cu and
 * cpu-fallback/convolve.c so that both give bit-identical results
 * (internal header, see cvconvolve.h for the definitions).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CONVOLVE_COMMON_H
#define CV_CONVOLVE_COMMON_H

#include "cvconvolve.h"
#include "cvcommon.h"

/* Map coordinate p of an axis of n pixels into 0 .. n - 1 with the border
 * mode (the rules of cvcommon.h), or -1 for CV_BORDER_CONSTANT outside the
 * frame (pixel = 0). */
CV_HD int
cv_conv_border (int p, int n, int mode)
{
  if (p >= 0 && p < n)
    return p;
  if (mode == CV_BORDER_CONSTANT)
    return cv_border_constant (p, n);
  if (mode == CV_BORDER_REPLICATE)
    return cv_border_replicate (p, n);
  return cv_border_reflect_101 (p, n);
}

/* Radius of a stage. */
CV_HD int
cv_conv_stage_radius (int kind, int ksize)
{
  return kind == CV_FILTER_CUSTOM ? ksize / 2 : 1;
}

/* Weight (row i, column j) of a named 3x3 filter, as an integer. */
CV_HD int
cv_conv_named_weight (int kind, int i, int j)
{
  int centre = (i == 1 && j == 1), cross = (i == 1) != (j == 1);

  switch (kind) {
    case CV_FILTER_BLUR:
      return 1;
    case CV_FILTER_GAUSSIAN:
      return (i == 1 ? 2 : 1) * (j == 1 ? 2 : 1);
    case CV_FILTER_SHARPEN:
      return centre ? 5 : cross ? -1 : 0;
    default:                   /* CV_FILTER_EDGE_DETECT */
      return centre ? 4 : cross ? -1 : 0;
  }
}

/* Is the stage computed by the separable formula? */
CV_HD int
cv_conv_stage_separable (int kind, int custom_separable)
{
  return kind == CV_FILTER_BLUR || kind == CV_FILTER_GAUSSIAN ||
      (kind == CV_FILTER_CUSTOM && custom_separable);
}

/* 1-D weight j (0..2) of the separable named filters (rows and columns). */
CV_HD int
cv_conv_named_weight_1d (int kind, int j)
{
  return kind == CV_FILTER_GAUSSIAN && j == 1 ? 2 : 1;
}

/* Round half up and saturate a float to 0..255, exactly: integer part plus
 * (fraction >= 1/2); v - (float) i is exact for 0 < v < 256. */
CV_HD int
cv_conv_round_sat (float v)
{
  int i;

  if (!(v > 0.0f))              /* negative, zero, NaN */
    return 0;
  if (v >= 255.0f)
    return 255;
  i = (int) v;
  return i + (v - (float) i >= 0.5f);
}

/* 8-bit result of a stage from its accumulator. Named filters: acc holds
 * an exact integer (|acc| <= 4080). */
CV_HD int
cv_conv_finish (int kind, float acc)
{
  int s;

  if (kind == CV_FILTER_CUSTOM)
    return cv_conv_round_sat (acc);
  s = (int) acc;
  if (kind == CV_FILTER_BLUR)
    s = (s + 4) / 9;            /* s >= 0 */
  else if (kind == CV_FILTER_GAUSSIAN)
    s = (s + 8) >> 4;           /* s >= 0 */
  return s < 0 ? 0 : s > 255 ? 255 : s;
}

#endif /* CV_CONVOLVE_COMMON_H */
