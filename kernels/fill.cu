/* gst-cuda-vision: constant fill of a plane on the GPU.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvfill.h"

#include <cuda_runtime.h>

extern "C" int
cv_fill_plane_cuda (CvPlane * plane, int bytes_per_pixel, uint8_t value,
    void *stream)
{
  if (!plane || !plane->data || plane->width < 1 || plane->height < 1
      || bytes_per_pixel < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  return (int) cudaMemset2DAsync (plane->data, plane->stride, value,
      (size_t) plane->width * bytes_per_pixel, plane->height,
      (cudaStream_t) stream);
}
