/* gst-cuda-vision: the C ABI's status (CvStatus, cvimage.h): its strings
 * and the CUDA error kept beside CV_ERROR_CUDA, per thread. Plain C, in
 * every build (with and without CUDA).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvimage.h"

#if defined(__GNUC__) || defined(__clang__)
#define CV_THREAD_LOCAL __thread
#else
#define CV_THREAD_LOCAL _Thread_local
#endif

static CV_THREAD_LOCAL int last_cuda_error;

int
cv_status_cuda_error (void)
{
  return last_cuda_error;
}

CvStatus
cv_status_set_cuda_error (int cuda_error)
{
  if (cuda_error == 0)
    return CV_OK;
  last_cuda_error = cuda_error;
  return CV_ERROR_CUDA;
}

const char *
cv_status_string (CvStatus status)
{
  switch (status) {
    case CV_OK:
      return "success";
    case CV_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case CV_ERROR_NO_MEMORY:
      return "out of memory";
    case CV_ERROR_CANCELLED:
      return "cancelled";
    case CV_ERROR_CUDA:
      return "CUDA error";
  }
  return "unknown status";
}
