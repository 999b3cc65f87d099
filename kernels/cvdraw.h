/* gst-cuda-vision: drawing on frames in host memory (cpu-fallback/draw.c):
 * cudatemplatematch's match rectangles.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_DRAW_H
#define CV_DRAW_H

#include "cvimage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct
{
  int x, y, width, height;
} CvRect;

/* Draw the outlines of n rectangles, thickness pixels wide, inside each
 * rectangle, clipped to the plane (host memory, plane->width x
 * plane->height pixels of layout.bpp bytes). RGB layouts (layout.r >= 0):
 * green (R 0, G 255, B 0; other bytes untouched); luma layouts: 255.
 * Returns CV_OK or CV_ERROR_INVALID_ARGUMENT. */
CvStatus cv_draw_rectangles (CvPlane * plane, CvLumaLayout layout,
    const CvRect * rects, int n, int thickness);

#ifdef __cplusplus
}
#endif
#endif
