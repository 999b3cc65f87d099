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

/* The process-wide cache of pinned staging blocks (gstcvpinnedcache.c),
 * shared by every element instance: where a slot of the CUDA backend
 * stages planes of frames in pageable memory. Blocks come in size classes
 * (the size asked rounded up to 4, 5, 6, 7 or 8 quarters of the power of
 * two below it: at most a quarter more; 4 KiB at least), one
 * GstBufferPool of the pinned allocator per class. */
typedef struct
{
  GstBuffer *buffer;            /* of the class's pool */
  GstMapInfo map;               /* map.data: the block, 64-byte aligned */
} GstCvStagingBlock;

/* A block of at least size bytes, mapped for reading and writing until
 * gst_cv_pinned_cache_release(). FALSE when no pinned memory can be had
 * (no CUDA driver, size too large). Takes the registry's lock to find the
 * class's pool, then GstBufferPool's acquire (no lock of ours). */
gboolean gst_cv_pinned_cache_acquire (gsize size, GstCvStagingBlock * block);
/* Give the block back to its class (kept idle while the idle blocks of
 * every class together stay within the limit, freed otherwise); a block
 * already released or never acquired: nothing. */
void gst_cv_pinned_cache_release (GstCvStagingBlock * block);
/* An element instance exists (instance init) / is gone (finalize): when
 * the last goes, every idle block is freed and blocks still out are freed
 * when they come back. */
void gst_cv_pinned_cache_use (void);
void gst_cv_pinned_cache_unuse (void);

/* For tests and debugging: the class of a size (0: too large), the pool
 * of that class (a reference; NULL without CUDA), the most bytes of idle
 * blocks kept (default 256 MiB, or CUDAVISION_PINNED_CACHE_MB; 0 keeps
 * none), blocks ever allocated, bytes idle now and classes now. */
gsize gst_cv_pinned_cache_class_size (gsize size);
GstBufferPool *gst_cv_pinned_cache_pool (gsize size);
void gst_cv_pinned_cache_set_limit (gsize bytes);
void gst_cv_pinned_cache_stats (guint * allocs, gsize * idle,
    guint * n_classes);

G_END_DECLS
#endif
