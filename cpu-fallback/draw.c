/* gst-cuda-vision: drawing on frames in host memory (cvdraw.h):
 * cudatemplatematch's match rectangles.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvdraw.h"
#include "cvcommon.h"

/* One outline: the pixels of the rectangle (x0, y0, rw, rh), clipped to
 * the plane, that are less than t pixels from its edges; the right and
 * bottom edges are those of the clipped rectangle (x1, y1), so a rectangle
 * that leaves the plane on the right or at the bottom is closed by the
 * plane's edge, as the element drew it. */
static void
draw_rect (CvPlane * plane, CvLumaLayout l, int x0, int y0, int rw, int rh,
    int t)
{
  const int w = plane->width, h = plane->height;
  const int64_t xe = (int64_t) x0 + rw, ye = (int64_t) y0 + rh;
  const int x1 = (int) (xe < w ? xe : w) - 1, y1 = (int) (ye < h ? ye : h) - 1;
  int x, y;

  for (y = y0 < 0 ? 0 : y0; y <= y1; y++) {
    const int edge_row = (int64_t) y - y0 < t || y1 - y < t;
    uint8_t *row = plane->data + (size_t) y * plane->stride;

    for (x = x0 < 0 ? 0 : x0; x <= x1; x++) {
      uint8_t *px = row + (size_t) x * l.bpp;

      if (!edge_row && (int64_t) x - x0 >= t && x1 - x >= t)
        continue;
      if (l.r >= 0) {
        px[l.r] = 0;
        px[l.g] = 255;
        px[l.b] = 0;
      } else {
        px[0] = 255;
      }
    }
  }
}

CvStatus
cv_draw_rectangles (CvPlane * plane, CvLumaLayout layout,
    const CvRect * rects, int n, int thickness)
{
  int i;

  if (!plane || !plane->data || plane->width < 1 || plane->height < 1
      || !cv_layout_valid (layout)
      || plane->stride < (size_t) plane->width * layout.bpp || n < 0
      || (n > 0 && !rects) || thickness < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  for (i = 0; i < n; i++)
    draw_rect (plane, layout, rects[i].x, rects[i].y, rects[i].width,
        rects[i].height, thickness);
  return CV_OK;
}
