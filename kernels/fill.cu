/* gst-cuda-vision: constant fill and copy of a plane on the GPU (the
 * chroma planes of the operators' frames), the operators' device
 * scratch (CvCudaScratch), and the loading of their kernels at create
 * (cv_cuda_preload).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda-internal.h"
#include "cvcommon.h"

#include <cuda_runtime.h>

extern "C" CvStatus
cv_fill_plane_cuda (CvPlane * plane, int bytes_per_pixel, uint8_t value,
    void *stream)
{
  if (!plane || !plane->data || plane->width < 1 || plane->height < 1
      || bytes_per_pixel < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  return cv_cuda_status (cudaMemset2DAsync (plane->data, plane->stride, value,
      (size_t) plane->width * bytes_per_pixel, plane->height,
      (cudaStream_t) stream));
}

extern "C" CvStatus
cv_copy_plane_cuda (const CvPlane * src, CvPlane * dst, size_t row_bytes,
    void *stream)
{
  if (!src || !dst || !src->data || !dst->data || src->height != dst->height)
    return CV_ERROR_INVALID_ARGUMENT;
  return cv_cuda_status (cudaMemcpy2DAsync (dst->data, dst->stride, src->data,
      src->stride, row_bytes, src->height, cudaMemcpyDeviceToDevice,
      (cudaStream_t) stream));
}

extern "C" CvStatus
cv_cuda_scratch_reserve (CvCudaScratch * scratch, size_t bytes)
{
  cudaError_t e;

  if (!scratch)
    return CV_ERROR_INVALID_ARGUMENT;
  if (bytes <= scratch->size)
    return CV_OK;
  if (scratch->ptr)
    cudaFree (scratch->ptr);
  scratch->ptr = NULL;
  scratch->size = 0;
  e = cudaMalloc (&scratch->ptr, bytes);
  if (e != cudaSuccess) {
    scratch->ptr = NULL;
    return cv_cuda_status (e);
  }
  scratch->size = bytes;
  return CV_OK;
}

extern "C" void
cv_cuda_scratch_free (CvCudaScratch * scratch)
{
  if (!scratch)
    return;
  if (scratch->ptr)
    cudaFree (scratch->ptr);
  scratch->ptr = NULL;
  scratch->size = 0;
}

extern "C" CvStatus
cv_cuda_preload (const void *const *kernels, int n)
{
  struct cudaFuncAttributes fa;

  for (int i = 0; i < n; i++) {
    cudaError_t e = cudaFuncGetAttributes (&fa, kernels[i]);
    if (e != cudaSuccess) {
      (void) cudaGetLastError ();       /* not left for a later check */
      return cv_cuda_status (e);
    }
  }
  return CV_OK;
}
