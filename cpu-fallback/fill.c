/* gst-cuda-vision: constant fill and copy of a plane on the CPU (the
 * chroma planes of the operators' frames).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cpu-internal.h"

#include <string.h>

CvStatus
cv_fill_plane_cpu (CvPlane * plane, int bytes_per_pixel, uint8_t value)
{
  if (!plane || !plane->data || plane->width < 1 || plane->height < 1
      || bytes_per_pixel < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  for (int y = 0; y < plane->height; y++)
    memset (plane->data + (size_t) y * plane->stride, value,
        (size_t) plane->width * bytes_per_pixel);
  return CV_OK;
}

CvStatus
cv_copy_plane_cpu (const CvPlane * src, CvPlane * dst, size_t row_bytes)
{
  if (!src || !dst || !src->data || !dst->data || src->height != dst->height)
    return CV_ERROR_INVALID_ARGUMENT;
  for (int y = 0; y < src->height; y++)
    memcpy (dst->data + (size_t) y * dst->stride,
        src->data + (size_t) y * src->stride, row_bytes);
  return CV_OK;
}
