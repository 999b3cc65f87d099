/* gst-cuda-vision: page-locked (pinned) host memory for DMA transfers.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_PINNED_H__
#define __GST_CV_PINNED_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS
/* Name under which the allocator is registered (gst_allocator_find()). */
#define GST_CV_PINNED_ALLOCATOR_NAME "CudaVisionPinned"
/* GstMemory type of its memories (gst_memory_is_type()). */
#define GST_CV_PINNED_MEMORY_TYPE "CudaVisionPinnedMemory"
void gst_cv_pinned_allocator_register (void);

/* The registered allocator, with a reference, or NULL when the plugin was
 * built without CUDA. Allocation through it fails (returns NULL) when no CUDA
 * driver is usable. */
GstAllocator *gst_cv_pinned_allocator_get (void);

/* The allocation parameters of pinned buffers (align 63: each buffer's data
 * starts on a 64-byte boundary, for vector loads and DMA), for allocation
 * queries and pools. The allocator honours any GstAllocationParams
 * (alignment, prefix, padding, zero flags) exactly as GStreamer's system
 * memory allocator does. */
void gst_cv_pinned_allocation_params (GstAllocationParams * params);

/* A GstVideoBufferPool allocating from pinned memory, configured for info,
 * with GstVideoMeta, holding at least min_buffers. NULL without CUDA. */
GstBufferPool *gst_cv_pinned_pool_new (GstCaps * caps,
    const GstVideoInfo * info, guint min_buffers);

/* Answer an ALLOCATION query for raw video in system memory: the pinned
 * allocator with its parameters and, when the query asks for a pool, a
 * pinned pool of at least min_buffers. Nothing without CUDA. */
void gst_cv_pinned_propose_allocation (GstQuery * query, guint min_buffers);

G_END_DECLS
#endif
