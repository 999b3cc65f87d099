/* gst-cuda-vision: what the CUDA files of cudaconvolve share (internal
 * header, C++): the chain as a kernel parameter and the launchers of the
 * three algorithms, called by the dispatch in kernels/convolve.cu:
 *   convolve-named.cu    chains of named 3x3 filters (exact integers):
 *                        byte tiles in shared memory along the frame's
 *                        edges (border rules), rows sliding in registers
 *                        in its interior (convolve-named-rows.cuh), one
 *                        launch;
 *   convolve-custom2d.cu one general (non-separable) custom kernel on
 *                        any format, accumulators in registers;
 *   convolve-chain.cu    any chain (custom 2-D and separable stages
 *                        included) fused on float tiles in shared memory,
 *                        or one stage per launch.
 * Same arithmetic as cpu-fallback/convolve.c (convolve_common.h): the
 * results are bit-identical.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CONVOLVE_INTERNAL_H
#define CV_CONVOLVE_INTERNAL_H

#include "convolve_common.h"
#include "cuda-internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

/* The chain as a kernel parameter (< 4 KiB of parameters in all). */
struct GpuChain
{
  int n, border, R, ksize, sep_custom;
  int kind[CV_CONVOLVE_MAX_CHAIN];
  /* custom weights: ksize x ksize (2-D) or krow[0..k-1], kcol[k..2k-1] */
  float w[CV_CONVOLVE_MAX_KSIZE * CV_CONVOLVE_MAX_KSIZE];
};
static_assert (sizeof (GpuChain) <= 3904,
    "kernel parameters must stay < 4 KiB");

/* convolve-named.cu: a chain of named filters (no custom stage) on pixels
 * of (bpp, nc) = (1, 1), (2, 2), (3, 3) or (4, 3). Returns 1 with *ret the
 * status of the launch, or 0 when it does not take the work. */
int cv_conv_named_try (int bpp, int nc, const uint8_t * src, size_t sstride,
    uint8_t * dst, size_t dstride, int W, int H, const GpuChain & g,
    cudaStream_t stream, CvStatus *ret);

/* convolve-custom2d.cu: a chain of one general (non-separable) custom
 * kernel (ksize 3 .. 31) on pixels of any (bpp, nc), 1 <= nc <= bpp <= 4,
 * on frames of up to 1 048 560 rows. Returns 1 with *ret the status of
 * the launch, or 0 when it does not take the work (other chains, sizes
 * and pixels, taller frames): then nothing is launched and neither *ret
 * nor *exact is touched. exact: cv_convolve_cuda's (cuda-internal.h),
 * NULL or the slot's cache of the FMA decision for the weights g.w. */
int cv_conv_custom2d_try (int bpp, int nc, const uint8_t * src,
    size_t sstride, uint8_t * dst, size_t dstride, int W, int H,
    const GpuChain & g, CvConvolveExactCache * exact, cudaStream_t stream,
    CvStatus *ret);

/* convolve-chain.cu: shared memory of the fused chain kernel (n stages,
 * any separable one, halo R, tiles of th rows, nc channels). */
size_t cv_conv_chain_smem (int n, int any_sep, int R, int th, int nc);

/* convolve-chain.cu: the chain g fused in one launch on (bpp, nc) pixels;
 * the unfiltered bytes (alpha, x) come from asrc. Returns the launch's
 * status, CV_ERROR_INVALID_ARGUMENT when its shared memory exceeds
 * max_smem or (bpp, nc) is not one of the four. */
CvStatus cv_conv_chain_launch (int bpp, int nc, const uint8_t * src,
    size_t sstride, uint8_t * dst, size_t dstride, const uint8_t * asrc,
    size_t astride, int W, int H, const GpuChain & g, int max_smem,
    cudaStream_t stream);

/* The kernels each of the three files can launch on (bpp, nc) pixels,
 * loaded now (cv_convolve_cuda's operator at create: cv_cuda_preload,
 * issue #24); CV_OK for pixels a file does not take. */
CvStatus cv_conv_named_preload (int bpp, int nc);
CvStatus cv_conv_custom2d_preload (int bpp, int nc);
CvStatus cv_conv_chain_preload (int bpp, int nc);

#endif /* CV_CONVOLVE_INTERNAL_H */
