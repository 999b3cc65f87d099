/* gst-cuda-vision: constant fill of a plane (e.g. neutral chroma 128 of an
 * NV12/I420 edge map), C ABI shared by kernels/ and cpu-fallback/.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_FILL_H
#define CV_FILL_H

#include "cvimage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Set the first width * bytes_per_pixel bytes of every row of plane to
 * value (row padding is left alone). Returns CV_OK or
 * CV_ERROR_INVALID_ARGUMENT; the CUDA version queues the fill on stream
 * and returns the cudaError_t of the call. */
int cv_fill_plane_cpu (CvPlane * plane, int bytes_per_pixel, uint8_t value);
int cv_fill_plane_cuda (CvPlane * plane, int bytes_per_pixel, uint8_t value,
    void *stream);

#ifdef __cplusplus
}
#endif
#endif
