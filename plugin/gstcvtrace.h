/* gst-cuda-vision: NVTX ranges around the stages of a frame's host path
 * (the scheduler and the CUDA backend), for Nsight Systems:
 *
 *   nsys profile -t cuda,nvtx cudavision-bench ...
 *
 * NVTX 3 is header-only (CUDA toolkit, nvtx3/nvToolsExt.h): without a tool
 * attached (NVTX_INJECTION64_PATH unset) the first call finds none and
 * every call after it is a test of a null function pointer. Nothing in a
 * build without CUDA.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_TRACE_H__
#define __GST_CV_TRACE_H__

#if defined(HAVE_CUDA) && defined(HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#define CV_TRACE_PUSH(name) nvtxRangePushA (name)
#define CV_TRACE_POP() nvtxRangePop ()
#else
#define CV_TRACE_PUSH(name) G_STMT_START { } G_STMT_END
#define CV_TRACE_POP() G_STMT_START { } G_STMT_END
#endif

#endif
