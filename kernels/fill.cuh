/* gst-cuda-vision: constant planes written by the blocks of another
 * kernel (CUDA only).
 *
 * The edge maps of NV12 and I420 frames have neutral chroma (128). Filling
 * those planes with cudaMemset2DAsync costs a second launch a frame: 3.4
 * us of host CPU on an H100's host against 3.2 us for the edge kernel's
 * own launch (issue #24, docs/benchmarks.md). Instead, the edge kernel
 * takes a CvFill and every one of its blocks writes a share of the rows
 * first (cv_fill_share ()): one launch a frame, the same bytes. The
 * kernels take the fill's type as a template argument: with CvNoFill
 * (frames without chroma) they are the same code as without one (a
 * run-time test of an empty CvFill made the 1080p GRAY8 Sobel 14 % slower
 * on an H100).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CV_FILL_CUH__
#define __CV_FILL_CUH__

#include <stddef.h>
#include <stdint.h>

#include "cvcommon.h"

/* Up to two planes (I420's U and V, NV12's UV) whose first row_bytes
 * bytes of each of rows rows become value; n 0: nothing. Passed by value
 * as a kernel parameter. */
struct CvFill
{
  uint8_t *data[2];
  size_t stride[2];
  int row_bytes[2];
  int rows[2];
  int n;
  uint8_t value;
};

/* No planes to fill: the kernels' template argument F where a frame has
 * none (cv_fill_share () of it compiles to nothing, so those kernels are
 * the same code as without a fill) */
struct CvNoFill
{
};

template < typename F >
inline constexpr bool cv_fills = false;
template <>
inline constexpr bool cv_fills < CvFill > = true;

/* planes 1 .. n_planes - 1 of out, each of out_pixel_stride[p] bytes a
 * pixel (the operators' info), to be filled with value */
static inline CvFill
cv_fill_chroma (const CvPlane * out, int n_planes,
    const int *out_pixel_stride, uint8_t value)
{
  CvFill f = { };

  f.value = value;
  for (int p = 1; p < n_planes && f.n < 2; p++) {
    f.data[f.n] = (uint8_t *) out[p].data;
    f.stride[f.n] = out[p].stride;
    f.row_bytes[f.n] = out[p].width * out_pixel_stride[p];
    f.rows[f.n] = out[p].height;
    f.n++;
  }
  return f;
}

#ifdef __CUDACC__
__device__ __forceinline__ void
cv_fill_share (const CvNoFill &)
{
}

/* This block's share of f: rows spread over the grid's blocks, each row's
 * bytes over the block's threads (32-bit stores where the row allows).
 * Call it from every thread of every block, before any early return; it
 * has no barrier. */
__device__ __forceinline__ void
cv_fill_share (const CvFill & f)
{
  if (f.n == 0)
    return;
  const int nb = gridDim.x * gridDim.y * gridDim.z;
  const int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y *
      threadIdx.z);
  const int total = f.rows[0] + (f.n > 1 ? f.rows[1] : 0);
  const uint32_t word = f.value * 0x01010101u;

  for (int r = b; r < total; r += nb) {
    /* the plane chosen by selects, not by an index into f (which would
     * copy the parameter to the stack in every thread) */
    const bool p0 = r < f.rows[0];
    const int y = p0 ? r : r - f.rows[0];
    uint8_t *row = (p0 ? f.data[0] : f.data[1]) +
        (size_t) y * (p0 ? f.stride[0] : f.stride[1]);
    const int bytes = p0 ? f.row_bytes[0] : f.row_bytes[1];
    int i0 = 0;
    if (((uintptr_t) row & 3) == 0) {
      for (int i = t; i < bytes / 4; i += nt)
        ((uint32_t *) row)[i] = word;
      i0 = bytes / 4 * 4;
    }
    for (int i = i0 + t; i < bytes; i += nt)
      row[i] = f.value;
  }
}
#endif

#endif
