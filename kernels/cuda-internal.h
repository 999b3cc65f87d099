/* gst-cuda-vision: the CUDA implementations behind the CUDA operators
 * (cv_*_cuda_*), one call per plane. Internal header: the elements use
 * the operators (cvop.h and the cv<algorithm>.h headers, where the
 * definitions, formulas and ranges are documented); the operators, the
 * tests and the tools call these directly. Template matching and mean
 * shift have none: their work lives in their operators' slots
 * (templatematch.cu, meanshift.cu), which own every workspace.
 *
 * Every function takes device planes (any pitch) and a cudaStream_t
 * (stream): it only queues work on the stream and never waits for it.
 * Returns CV_OK, CV_ERROR_INVALID_ARGUMENT (NULL planes, sizes < 1 or
 * different between src and dst, a bad layout, parameters out of their
 * documented ranges, frames beyond the kernels' grid limits),
 * CV_ERROR_NO_MEMORY, or CV_ERROR_CUDA (the first failing CUDA
 * call's error kept, cvimage.h). The results are bit-identical to the
 * CPU implementations (cpu-fallback/cpu-internal.h), within 1 LSB for
 * non-local means.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CUDA_INTERNAL_H
#define CV_CUDA_INTERNAL_H

#include "cvsobel.h"
#include "cvconvolve.h"
#include "cvnlmeans.h"
#include "cvtemplatematch.h"
#include "cvmeanshift.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device scratch memory: the one scratch convention below the operators.
 * It belongs to an operator's slot (cvop.h: the slot's frames run on one
 * stream, one at a time), starts as { NULL, 0 }, grows with
 * cv_cuda_scratch_reserve () (cudaFree, cudaMalloc: the work queued with
 * it before must be complete: the slot's previous frame) and is freed
 * with cv_cuda_scratch_free () once that work is complete. The functions
 * below that need scratch take the slot's and reserve what they use. */
typedef struct
{
  void *ptr;
  size_t size;
} CvCudaScratch;

/* at least bytes (0: nothing to do); on failure the scratch is empty */
CvStatus cv_cuda_scratch_reserve (CvCudaScratch * scratch, size_t bytes);
void cv_cuda_scratch_free (CvCudaScratch * scratch);

/* Load the kernels now: cudaFuncGetAttributes on each (kernels: the
 * __global__ functions, template instances included, as const void *).
 * Under lazy loading (CUDA_MODULE_LOADING=LAZY, CUDA's default since
 * 12.2) a kernel is otherwise loaded at its first launch, and that load
 * can wait for the work other streams have queued in the context (issue
 * #24: the first frame of a stream joining busy ones). Each operator's
 * create calls it with the kernels it can launch for its info, so that
 * they are loaded at negotiation; a kernel already loaded costs a lookup.
 * CV_OK, or the first call's error (CV_ERROR_CUDA, the error kept). */
CvStatus cv_cuda_preload (const void *const *kernels, int n);

/* The Sobel edge map of src (read through layout) into dst (GRAY8). */
CvStatus cv_sobel_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, void *stream);

/* cv_sobel_cuda with another number of rows a thread in the shuffle kernel
 * (aligned GRAY8/luma and 4-byte planes, aperture 3), for the benchmark's
 * comparisons only (same results): 0 the shipped choice (8 rows for 1-byte
 * pixels, 4 for 4-byte ones), 4 or 8; other values
 * CV_ERROR_INVALID_ARGUMENT. */
CvStatus cv_sobel_cuda_variant (const CvPlane * src, CvLumaLayout layout,
    CvPlane * dst, const CvSobelParams * params, void *stream, int variant);

/* The fast L2 magnitude of the Sobel kernels against the exact floor
 * (sqrt) for every s a 3x3 aperture can give, on the current device:
 * the number of differences (0), or -1 when CUDA fails. */
int cv_sobel_cuda_mag_check (void);

/* What cv_convolve_cuda decided for the last custom weights it saw:
 * whether every product of a weight with a byte is exact, so that the
 * general custom kernel may use its fused multiply-add variant (same
 * bits, half the instructions; kernels/convolve-custom2d.cu). Decided
 * again only when the weights change (compared bit for bit), not per
 * frame. It belongs to an operator's slot, like its scratch (one frame
 * at a time: no other slot reads or writes it), and starts zeroed. */
typedef struct
{
  int n;                        /* weights[0 .. n - 1]; 0: none yet */
  int exact;
  float weights[CV_CONVOLVE_MAX_KSIZE * CV_CONVOLVE_MAX_KSIZE];
} CvConvolveExactCache;

/* The filter chain on one plane (bpp, channels as cv_convolve_cpu: (1, 1),
 * (2, 2), (3, 3) or (4, 3)). params is copied into the launch (it may
 * change as soon as the call returns). scratch: the caller's slot's
 * (CvCudaScratch), where chains whose halo does not fit in shared memory
 * (run one stage per launch) keep two frames; reserved here. exact: the
 * caller's slot's (CvConvolveExactCache), updated here when the general
 * custom kernel runs on other weights; NULL: decided at every call. */
CvStatus cv_convolve_cuda (const CvPlane * src, CvPlane * dst, int bpp,
    int channels, const CvConvolveParams * params, CvCudaScratch * scratch,
    CvConvolveExactCache * exact, void *stream);

/* Bytes of device scratch memory cv_nlmeans_cuda reserves for this frame
 * size, layout and parameters (0: none; params NULL: enough for any) on
 * the current device (the split depends on its SM count and occupancy:
 * ask on the device that will run the frames). Bounded (at most 64 MiB)
 * whatever the size: it holds per-pixel partial sums when the offsets are
 * split over several blocks (frames that fill less than half the GPU,
 * whole-frame mode). An operator reserves the most its passes need before
 * the first one (cv_cuda_scratch_reserve ()), so that none grows it while
 * an earlier pass of the frame is queued. */
size_t cv_nlmeans_cuda_scratch_size (int width, int height,
    CvLumaLayout layout, const CvNlMeansParams * params);

/* Non-local means of src into dst; scratch: the caller's slot's
 * (CvCudaScratch), reserved here (cv_nlmeans_cuda_scratch_size () bytes). */
CvStatus cv_nlmeans_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane *
    dst, const CvNlMeansParams * params, CvCudaScratch * scratch,
    void *stream);

/* Set the first width * bytes_per_pixel bytes of every row of plane to
 * value (cudaMemset2DAsync). */
CvStatus cv_fill_plane_cuda (CvPlane * plane, int bytes_per_pixel, uint8_t
    value, void *stream);

/* Copy the first row_bytes bytes of every row of src into dst (planes of
 * the same height; cudaMemcpy2DAsync, device to device). */
CvStatus cv_copy_plane_cuda (const CvPlane * src, CvPlane * dst, size_t
    row_bytes, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* CV_CUDA_INTERNAL_H */
