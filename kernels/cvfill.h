/* gst-cuda-vision: constant fill of a plane (e.g. neutral chroma 128 of an
 * NV12/I420 edge map) and plane copies, C ABI shared by kernels/ and
 * cpu-fallback/.
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

/* Copy the first row_bytes bytes of every row of src into dst (planes of
 * the same height; e.g. chroma passed through unchanged). Same returns;
 * the CUDA version queues a device-to-device copy on stream. */
int cv_copy_plane_cpu (const CvPlane * src, CvPlane * dst, size_t row_bytes);
int cv_copy_plane_cuda (const CvPlane * src, CvPlane * dst, size_t row_bytes,
    void *stream);

#ifdef __cplusplus
}
#endif
#endif
