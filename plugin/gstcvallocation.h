/* gst-cuda-vision: buffer allocation of the base element: the pools and
 * allocators proposed upstream and chosen downstream (pinned host memory on
 * the GPU, GStreamer's CUDA memory, plain video pools on the CPU).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_ALLOCATION_H__
#define __GST_CV_ALLOCATION_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS

/* GstBaseTransform::propose_allocation: GstVideoMeta support; for CUDA
 * memory a CUDA pool of the element's context; on the GPU in system
 * memory the pinned allocator and a pinned pool (the upload is then a DMA
 * straight out of upstream's buffers). */
void gst_cv_allocation_propose (GstCudaVisionBase * self, GstQuery * query);

/* GstBaseTransform::decide_allocation, before chaining up: a CUDA pool of
 * the element's context for CUDA memory (downstream's when it is one);
 * on the GPU our pinned pool with the pinned allocator first among the
 * allocation params (downloads straight into the output buffers); on the
 * CPU downstream's pool or a video pool, large enough for the frames in
 * flight. FALSE when no pool can be configured. */
gboolean gst_cv_allocation_decide (GstCudaVisionBase * self,
    GstQuery * query);

/* After chaining up decide_allocation, on the GPU: the output pool the
 * query settled on activated now, at negotiation, so that its first
 * buffers (CUDA memory: cuMemAllocPitch; pinned: cudaHostAlloc) are not
 * allocated at the first frame beside other streams' work (GstBaseTransform
 * activates it at the first output buffer otherwise, and does nothing more
 * for a pool already active). The element's previous pool is deactivated
 * first (GstBaseTransform would right after), so both pools' buffers are
 * never held at once; the same pool again is left to the first frame. A
 * pool that refuses is left to that first frame (logged). */
void gst_cv_allocation_activate (GstCudaVisionBase * self, GstQuery * query);

G_END_DECLS
#endif
