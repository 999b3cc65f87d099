/* gst-cuda-vision: the per-pixel rules of Canny edge detection shared by
 * the CPU (cpu-fallback/canny.c) and the GPU (kernels/canny.cu): the
 * integer thresholds, the scaled derivatives of aperture 7, the magnitude,
 * and the non-maximum suppression with its class (none, weak, strong).
 * Internal header; the definition is documented in cvcanny.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CANNY_CORE_H
#define CV_CANNY_CORE_H

#include "cvcommon.h"
#include "cvcanny.h"
#include "sobel_core.h"

#include <math.h>

/* the classes of a pixel after non-maximum suppression */
#define CV_CANNY_NONE 0
#define CV_CANNY_WEAK 1
#define CV_CANNY_STRONG 2

/* tan (22.5°) in 17.15 fixed point, as OpenCV's canny.cpp */
#define CV_CANNY_SHIFT 15
#define CV_CANNY_TG22 13573

/* The largest threshold accepted (CvCannyParams). */
#define CV_CANNY_MAX_THRESHOLD 1e6

/* Whether params are in range (host). */
static inline int
cv_canny_params_valid (const CvCannyParams * p)
{
  const int k = p->kernel_size == 0 ? 3 : p->kernel_size;

  return cv_sobel_ksize_valid (k)
      && p->low_threshold >= 0 && p->low_threshold <= CV_CANNY_MAX_THRESHOLD
      && p->high_threshold >= 0
      && p->high_threshold <= CV_CANNY_MAX_THRESHOLD;
}

/* The integer thresholds of params (host), as cv::Canny computes them. */
static inline void
cv_canny_thresholds (const CvCannyParams * p, int *low, int *high)
{
  const int k = p->kernel_size == 0 ? 3 : p->kernel_size;
  double lo = p->low_threshold, hi = p->high_threshold;

  if (k == 7) {
    lo = lo / 16.0;
    hi = hi / 16.0;
  }
  if (lo > hi) {
    double t = lo;
    lo = hi;
    hi = t;
  }
  if (p->l2_gradient) {
    lo = lo < 32767.0 ? lo : 32767.0;
    hi = hi < 32767.0 ? hi : 32767.0;
    if (lo > 0)
      lo *= lo;
    if (hi > 0)
      hi *= hi;
  }
  *low = (int) floor (lo);
  *high = (int) floor (hi);
}

/* sum / 16 rounded to nearest, ties to even (the derivatives of aperture
 * 7: cv::Sobel (CV_16S, scale 1 / 16) rounds with cvRound); any int sum */
CV_HD int
cv_canny_div16 (int sum)
{
  int q = sum >> 4;             /* floor */
  const int r = sum & 15;

  if (r > 8 || (r == 8 && (q & 1)))
    q++;
  return q;
}

/* the derivative of aperture k as cv::Canny uses it: exact for 3 and 5,
 * scaled by 1 / 16 for 7 */
CV_HD int
cv_canny_scale_deriv (int sum, int k)
{
  return k == 7 ? cv_canny_div16 (sum) : sum;
}

/* L1: |dx| + |dy|; L2: dx² + dy² (no square root; |d| <= 24480 here) */
CV_HD int
cv_canny_magnitude (int dx, int dy, int l2)
{
  if (l2)
    return dx * dx + dy * dy;
  return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

/* The class of a pixel of magnitude m and derivatives dx, dy from the
 * magnitudes of its 8 neighbours (0 outside the frame): nw n ne / w e /
 * sw s se (rows y - 1, y, y + 1). */
CV_HD int
cv_canny_class (int m, int dx, int dy, int nw, int n, int ne, int w, int e,
    int sw, int s, int se, int low, int high)
{
  int keep;

  if (m <= low)
    return CV_CANNY_NONE;
  {
    const int x = dx < 0 ? -dx : dx;
    const int y = (dy < 0 ? -dy : dy) << CV_CANNY_SHIFT;
    const int tg22x = x * CV_CANNY_TG22;

    if (y < tg22x) {
      keep = m > w && m >= e;
    } else {
      const int tg67x = tg22x + (x << (CV_CANNY_SHIFT + 1));
      if (y > tg67x) {
        keep = m > n && m >= s;
      } else if ((dx ^ dy) < 0) {
        /* s = -1: north-east and south-west */
        keep = m > ne && m > sw;
      } else {
        /* s = 1: north-west and south-east */
        keep = m > nw && m > se;
      }
    }
  }
  if (!keep)
    return CV_CANNY_NONE;
  return m > high ? CV_CANNY_STRONG : CV_CANNY_WEAK;
}

/* The two neighbours cv_canny_class compares a pixel with, for code that
 * fetches only those (the same tests, as selects rather than branches):
 * the first at offset o (the return value) from the pixel in a map of row
 * pitch pitch, compared strictly; the second at -o, compared with >= when
 * *ge is 1 (across a near-vertical edge: west then east; along a
 * near-vertical gradient: north then south) and strictly when it is 0 (the
 * diagonals: north-east then south-west, or north-west then south-east).
 * So the pixel is kept when m > map[o] && m > map[-o] - *ge. */
CV_HD int
cv_canny_nms_offset (int dx, int dy, int pitch, int *ge)
{
  const int x = dx < 0 ? -dx : dx;
  const int y = (dy < 0 ? -dy : dy) << CV_CANNY_SHIFT;
  const int tg22x = x * CV_CANNY_TG22;
  const int we = y < tg22x;
  const int ns = y > tg22x + (x << (CV_CANNY_SHIFT + 1));

  *ge = we | ns;
  return we ? -1 : ns ? -pitch : (dx ^ dy) < 0 ? 1 - pitch : -1 - pitch;
}

#endif /* CV_CANNY_CORE_H */
