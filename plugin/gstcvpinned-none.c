/* gst-cuda-vision: builds without CUDA have no pinned memory and no
 * staging cache (see gstcvpinned.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvpinned.h"

void
gst_cv_pinned_allocator_register (void)
{
}

GstAllocator *
gst_cv_pinned_allocator_get (void)
{
  return NULL;
}

void
gst_cv_pinned_allocation_params (GstAllocationParams * params)
{
  gst_allocation_params_init (params);
}

GstBufferPool *
gst_cv_pinned_pool_new (GstCaps * caps, const GstVideoInfo * info,
    guint min_buffers)
{
  return NULL;
}

void
gst_cv_pinned_propose_allocation (GstQuery * query, guint min_buffers)
{
}

gboolean
gst_cv_pinned_cache_acquire (gsize size, GstCvStagingBlock * block)
{
  memset (block, 0, sizeof (*block));
  return FALSE;
}

void
gst_cv_pinned_cache_release (GstCvStagingBlock * block)
{
}

void
gst_cv_pinned_cache_use (void)
{
}

void
gst_cv_pinned_cache_unuse (void)
{
}

gsize
gst_cv_pinned_cache_class_size (gsize size)
{
  return 0;
}

GstBufferPool *
gst_cv_pinned_cache_pool (gsize size)
{
  return NULL;
}

void
gst_cv_pinned_cache_set_limit (gsize bytes)
{
}

void
gst_cv_pinned_cache_stats (guint * allocs, gsize * idle, guint * n_classes)
{
  if (allocs)
    *allocs = 0;
  if (idle)
    *idle = 0;
  if (n_classes)
    *n_classes = 0;
}
