/* gst-cuda-vision: buffer allocation of the base element (see
 * gstcvallocation.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvallocation.h"
#include "gstcudavisionbase-private.h"
#include "gstcvcaps.h"
#include "gstcvcudacontext.h"
#include "gstcvpinned.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

/* gst_buffer_pool_set_config(), accepting the adjustments a pool makes
 * (a CUDA pool raises the size to its pitched layout and returns FALSE with
 * the adjusted config, to be checked and set again) */
static gboolean
set_pool_config (GstBufferPool * pool, GstStructure * config)
{
  GstCaps *caps = NULL;
  guint size, min, max;

  gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max);
  if (caps)
    gst_caps_ref (caps);
  if (gst_buffer_pool_set_config (pool, config)) {
    gst_clear_caps (&caps);
    return TRUE;
  }
  config = gst_buffer_pool_get_config (pool);
  if (!gst_buffer_pool_config_validate_params (config, caps, size, min, max)) {
    gst_structure_free (config);
    gst_clear_caps (&caps);
    return FALSE;
  }
  gst_clear_caps (&caps);
  return gst_buffer_pool_set_config (pool, config);
}

/* the query's first pool becomes pool (or pool is added) */
static void
set_or_add_pool (GstQuery * query, GstBufferPool * pool, guint size,
    guint min, guint max)
{
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
}

/* a configured video pool with GstVideoMeta: pool (a new GstVideoBufferPool
 * when NULL) for caps, size and min buffers; NULL when it refuses */
static GstBufferPool *
video_pool (GstBufferPool * pool, GstCaps * caps, guint size, guint min,
    guint max)
{
  GstStructure *config;

  if (!pool)
    pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (!set_pool_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

void
gst_cv_allocation_propose (GstCudaVisionBase * self, GstQuery * query)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstCaps *caps;
  GstVideoInfo info;
  gboolean need_pool;
  guint min = gst_cv_scheduler_get_depth (priv->sched) + 1;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return;
  if (gst_cv_caps_is_cuda_memory (caps)) {
    /* device memory of our context: the operators read it in place */
    if (priv->ctx && need_pool) {
      GstBufferPool *pool = video_pool (gst_cv_cuda_context_pool_new
          (priv->ctx), caps, GST_VIDEO_INFO_SIZE (&info), min, 0);
      if (pool) {
        gst_query_add_allocation_pool (query, pool,
            GST_VIDEO_INFO_SIZE (&info), min, 0);
        gst_object_unref (pool);
      }
    }
    return;
  }
  /* pinned memory: the upload is a DMA straight out of the buffer */
  if (priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA)
    gst_cv_pinned_propose_allocation (query, min);
}

/* Downloads go straight into pinned output buffers: our pinned pool, and
 * the pinned allocator as the query's first allocation param
 * (GstBaseTransform configures the pool with that allocator: left to
 * downstream's, or to none, the output buffers were system memory and every
 * frame was downloaded to staging and copied by the CPU). Downstream's
 * prefix, padding and alignment are kept, at least ours. */
static gboolean
decide_pinned (GstQuery * query, GstCaps * caps, const GstVideoInfo * info,
    guint need)
{
  GstBufferPool *pool = gst_cv_pinned_pool_new (caps, info, need);
  GstAllocator *pinned;
  GstAllocationParams params;

  if (!pool)
    return FALSE;
  pinned = gst_cv_pinned_allocator_get ();
  gst_cv_pinned_allocation_params (&params);
  if (gst_query_get_n_allocation_params (query) > 0) {
    GstAllocationParams theirs;

    gst_query_parse_nth_allocation_param (query, 0, NULL, &theirs);
    theirs.align |= params.align;
    gst_query_set_nth_allocation_param (query, 0, pinned, &theirs);
  } else {
    gst_query_add_allocation_param (query, pinned, &params);
  }
  if (pinned)
    gst_object_unref (pinned);
  set_or_add_pool (query, pool, GST_VIDEO_INFO_SIZE (info), need, 0);
  gst_object_unref (pool);
  return TRUE;
}

gboolean
gst_cv_allocation_decide (GstCudaVisionBase * self, GstQuery * query)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  guint need = gst_cv_scheduler_get_depth (priv->sched) + 1;
  gboolean cuda_mem;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  cuda_mem = gst_cv_caps_is_cuda_memory (caps);
  if (!cuda_mem && priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA
      && decide_pinned (query, caps, &info, need))
    return TRUE;

  /* downstream's pool if it suits (a CUDA pool of our context for CUDA
   * memory) and holds the frames in flight, else ours */
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && ((cuda_mem && !gst_cv_cuda_context_owns_pool (priv->ctx, pool))
          || (max != 0 && max < need)))
    gst_clear_object (&pool);
  if (!pool) {
    pool = cuda_mem ? gst_cv_cuda_context_pool_new (priv->ctx) : NULL;
    min = need;
    max = 0;
  }
  size = MAX (size, GST_VIDEO_INFO_SIZE (&info));
  min = MAX (min, need);
  pool = video_pool (pool, caps, size, min, max);
  if (!pool) {
    GST_ERROR_OBJECT (self, "the output buffer pool refused its "
        "configuration");
    return FALSE;
  }
  set_or_add_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

void
gst_cv_allocation_activate (GstCudaVisionBase * self, GstQuery * query)
{
  GstBufferPool *pool = NULL, *old;
  gint64 t0;

  /* (output-is-input: no output buffer is ever taken from it) */
  if (GST_CV_PRIV (self)->active_backend != GST_CUDA_VISION_BACKEND_CUDA
      || GST_CV_PRIV (self)->output_is_input
      || gst_query_get_n_allocation_pools (query) == 0)
    return;
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  if (!pool)
    return;
  /* GstBaseTransform's set_allocation () deactivates its old pool after
   * this: the same pool again is left to the first frame (set_allocation
   * would free what was made here); another old pool is deactivated
   * first, so that its buffers are freed before the new pool's are made
   * (the frames in flight were drained before the caps changed) */
  old = gst_base_transform_get_buffer_pool (GST_BASE_TRANSFORM (self));
  if (old == pool) {
    gst_object_unref (old);
    gst_object_unref (pool);
    return;
  }
  if (old) {
    gst_buffer_pool_set_active (old, FALSE);
    gst_object_unref (old);
  }
  t0 = g_get_monotonic_time ();
  if (!gst_buffer_pool_set_active (pool, TRUE))
    GST_WARNING_OBJECT (self, "the output pool %" GST_PTR_FORMAT " could not "
        "be activated at negotiation (left to the first frame)", pool);
  else
    GST_DEBUG_OBJECT (self, "output pool %" GST_PTR_FORMAT " activated in "
        "%.3f ms", pool, (g_get_monotonic_time () - t0) / 1000.0);
  gst_object_unref (pool);
}
