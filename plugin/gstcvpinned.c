/* gst-cuda-vision: page-locked host memory allocator.
 *
 * Memory from cudaHostAlloc(cudaHostAllocPortable) can be the source or
 * target of an asynchronous cudaMemcpy (a DMA over PCIe, no staging copy) on
 * any device. The base element proposes buffer pools of it upstream and uses
 * them downstream.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvpinned.h"

#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC (gst_cv_pinned_debug);
#define GST_CAT_DEFAULT gst_cv_pinned_debug

typedef struct
{
  GstAllocator parent;
} GstCvPinnedAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GstCvPinnedAllocatorClass;

typedef struct
{
  GstMemory mem;
  guint8 *block;                /* the cudaHostAlloc block (NULL in shares) */
  guint8 *data;                 /* its first aligned byte: what map returns */
} GstCvPinnedMemory;

GType gst_cv_pinned_allocator_get_type (void);
G_DEFINE_TYPE (GstCvPinnedAllocator, gst_cv_pinned_allocator,
    GST_TYPE_ALLOCATOR);

/* The layout of GStreamer's system memory (gstallocator.c, _sysmem_new_block)
 * on a block from cudaHostAlloc: `align | gst_memory_alignment` extra bytes
 * are allocated so that the data (the prefix, then the `size` bytes, then
 * the padding) starts on the alignment; the memory's offset is the prefix
 * and its maxsize runs from the aligned start to the end of the block. */
static GstMemory *
gst_cv_pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize, aoffset, padding;
  void *ptr = NULL;
  cudaError_t err;
  GstCvPinnedMemory *mem;

  /* prefix + size + padding + align must not overflow */
  if (size > G_MAXSIZE - params->prefix
      || size + params->prefix > G_MAXSIZE - params->padding
      || size + params->prefix + params->padding > G_MAXSIZE - align) {
    GST_WARNING_OBJECT (allocator, "allocation of %" G_GSIZE_FORMAT
        " bytes overflows", size);
    return NULL;
  }
  maxsize = size + params->prefix + params->padding + align;
  err = cudaHostAlloc (&ptr, maxsize, cudaHostAllocPortable);
  if (err != cudaSuccess) {
    GST_WARNING_OBJECT (allocator, "cudaHostAlloc(%" G_GSIZE_FORMAT
        ") failed: %s", maxsize, cudaGetErrorString (err));
    (void) cudaGetLastError ();
    return NULL;
  }
  mem = g_new0 (GstCvPinnedMemory, 1);
  mem->block = ptr;
  mem->data = ptr;
  if ((aoffset = ((guintptr) ptr & align))) {
    aoffset = (align + 1) - aoffset;
    mem->data += aoffset;
    maxsize -= aoffset;
  }
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  padding = maxsize - (params->prefix + size);
  if (padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, padding);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  return GST_MEMORY_CAST (mem);
}

static void
gst_cv_pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstCvPinnedMemory *mem = (GstCvPinnedMemory *) memory;

  if (mem->block) {
    cudaError_t err = cudaFreeHost (mem->block);
    if (err != cudaSuccess)
      GST_WARNING_OBJECT (allocator, "cudaFreeHost failed: %s",
          cudaGetErrorString (err));
  }
  g_free (mem);
}

static gpointer
gst_cv_pinned_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GstCvPinnedMemory *) memory)->data;
}

static void
gst_cv_pinned_unmap (GstMemory * memory)
{
}

static GstMemory *
gst_cv_pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstCvPinnedMemory *mem = (GstCvPinnedMemory *) memory, *sub;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (GstCvPinnedMemory, 1);
  sub->data = mem->data;        /* the parent owns the block */
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static void
gst_cv_pinned_allocator_class_init (GstCvPinnedAllocatorClass * klass)
{
  GstAllocatorClass *aclass = GST_ALLOCATOR_CLASS (klass);

  aclass->alloc = gst_cv_pinned_alloc;
  aclass->free = gst_cv_pinned_free;
  GST_DEBUG_CATEGORY_INIT (gst_cv_pinned_debug, "cudavisionpinned", 0,
      "gst-cuda-vision pinned host memory");
}

static void
gst_cv_pinned_allocator_init (GstCvPinnedAllocator * self)
{
  GstAllocator *a = GST_ALLOCATOR (self);

  a->mem_type = GST_CV_PINNED_MEMORY_TYPE;
  a->mem_map = gst_cv_pinned_map;
  a->mem_unmap = gst_cv_pinned_unmap;
  a->mem_share = gst_cv_pinned_share;
  /* copy and is_span: GstAllocator's defaults (copy into sysmem). Not
   * GST_ALLOCATOR_FLAG_CUSTOM_ALLOC: gst_allocator_alloc() with the usual
   * GstAllocationParams is all it needs, so any element may use it. */
}

void
gst_cv_pinned_allocator_register (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GstAllocator *a = g_object_new (gst_cv_pinned_allocator_get_type (), NULL);
    gst_object_ref_sink (a);
    gst_allocator_register (GST_CV_PINNED_ALLOCATOR_NAME, a);
    g_once_init_leave (&once, 1);
  }
}

GstAllocator *
gst_cv_pinned_allocator_get (void)
{
  gst_cv_pinned_allocator_register ();
  return gst_allocator_find (GST_CV_PINNED_ALLOCATOR_NAME);
}

void
gst_cv_pinned_allocation_params (GstAllocationParams * params)
{
  gst_allocation_params_init (params);
  params->align = 63;           /* 64-byte rows start for vector loads */
}

GstBufferPool *
gst_cv_pinned_pool_new (GstCaps * caps, const GstVideoInfo * info,
    guint min_buffers)
{
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = gst_cv_pinned_allocator_get ();
  GstAllocationParams params;

  gst_cv_pinned_allocation_params (&params);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (info),
      min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_object_unref (allocator);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

void
gst_cv_pinned_propose_allocation (GstQuery * query, guint min_buffers)
{
  GstAllocator *allocator = gst_cv_pinned_allocator_get ();
  GstAllocationParams params;
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps)) {
    gst_object_unref (allocator);
    return;
  }
  gst_cv_pinned_allocation_params (&params);
  gst_query_add_allocation_param (query, allocator, &params);
  if (need_pool)
    pool = gst_cv_pinned_pool_new (caps, &info, min_buffers);
  if (pool) {
    gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info),
        min_buffers, 0);
    gst_object_unref (pool);
  }
  gst_object_unref (allocator);
}
