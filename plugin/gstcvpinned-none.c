/* gst-cuda-vision: builds without CUDA have no pinned memory (see
 * gstcvpinned.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

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
