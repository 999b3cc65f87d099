/* gst-cuda-vision: builds without gstreamer-cuda: no shared CUDA context
 * and no CUDA memory (see gstcvcudacontext.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvcudacontext.h"

gboolean
gst_cv_cuda_context_supported (void)
{
  return FALSE;
}

gboolean
gst_cv_cuda_context_ensure (GstElement * element, gint device_id,
    gpointer * ctx)
{
  return FALSE;
}

void
gst_cv_cuda_context_clear (gpointer * ctx)
{
  *ctx = NULL;
}

gint
gst_cv_cuda_context_device (gpointer ctx)
{
  return -1;
}

gboolean
gst_cv_cuda_context_push (gpointer ctx)
{
  return FALSE;
}

void
gst_cv_cuda_context_pop (void)
{
}

void
gst_cv_cuda_context_set (GstElement * element, GstContext * context,
    gint device_id, gpointer * ctx)
{
}

gboolean
gst_cv_cuda_context_query (GstElement * element, GstQuery * query, gpointer ctx)
{
  return FALSE;
}

gboolean
gst_cv_cuda_context_owns_buffer (gpointer ctx, GstBuffer * buf)
{
  return FALSE;
}

GstBufferPool *
gst_cv_cuda_context_pool_new (gpointer ctx)
{
  return NULL;
}

gboolean
gst_cv_cuda_context_owns_pool (gpointer ctx, GstBufferPool * pool)
{
  return FALSE;
}

GstMapFlags
gst_cv_cuda_context_map_flag (void)
{
  return 0;
}

gboolean
gst_cv_cuda_context_push_primary (gint device)
{
  return FALSE;
}

void
gst_cv_cuda_context_pop_primary (void)
{
}
