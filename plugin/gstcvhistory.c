/* gst-cuda-vision: the lookahead of the base element (temporal filters).
 *
 * An element that needs the `lookahead` frames after a frame to compute its
 * output (gst_cuda_vision_base_set_lookahead (), cudanlmeans'
 * temporal-window) still submits every input once, as it arrives
 * (frame->store = its index since the last reset; its operator keeps it in
 * a history of its own, e.g. on the GPU), but pairs it with the output of
 * the frame `lookahead` earlier (frame->centre): the output buffer is made
 * from that frame's input buffer (timestamps, duration, offsets, flags,
 * metas), which this unit keeps until then. The first `lookahead`
 * submissions produce no output (frame->centre = -1; their output buffer is
 * dropped when they complete). At EOS, caps changes, STREAM_START and
 * SEGMENT the frames still owed are submitted without an input
 * (frame->store = -1, nothing uploaded), their window shrunk to the frames
 * that exist (frame->radius), then the indices restart at 0; FLUSH_STOP and
 * stop discard them. Frames in = frames out, in order, timestamps
 * unchanged.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavisionbase-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

void
gst_cuda_vision_base_set_lookahead (GstCudaVisionBase * self, guint frames)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  g_return_if_fail (frames <= GST_CUDA_VISION_MAX_LOOKAHEAD);
  /* set_info runs after the drain of the old caps: nothing is owed */
  if (frames != priv->lookahead)
    GST_INFO_OBJECT (self, "lookahead %u frames", frames);
  priv->lookahead = frames;
}

GstFlowReturn
gst_cv_history_submit (GstCudaVisionBase * self, GstBuffer * inbuf)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gint64 store, centre;
  GstBuffer *meta = NULL;

  if (priv->lookahead == 0)
    return gst_cv_scheduler_submit_frame (self, inbuf, NULL, -1, -1, 0);
  store = priv->next_store++;
  g_queue_push_tail (&priv->history, gst_buffer_ref (inbuf));
  centre = store - priv->lookahead;
  if (centre >= 0) {
    g_assert (centre == priv->next_centre);
    meta = g_queue_pop_head (&priv->history);
    priv->next_centre++;
  }
  return gst_cv_scheduler_submit_frame (self, inbuf, meta, store,
      MAX (centre, -1), centre >= 0 ? (guint) MIN (centre,
          (gint64) priv->lookahead) : 0);
}

GstFlowReturn
gst_cv_history_drain (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  gint64 last = priv->next_store - 1;
  guint depth = priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA ?
      priv->depth : 1;
  GstBuffer *meta;

  if (!g_queue_is_empty (&priv->history))
    GST_DEBUG_OBJECT (self, "draining %u frames of lookahead",
        g_queue_get_length (&priv->history));
  while (ret == GST_FLOW_OK && (meta = g_queue_pop_head (&priv->history))) {
    gint64 c = priv->next_centre++;
    guint radius = (guint) MIN (MIN (c, last - c), (gint64) priv->lookahead);

    /* a free slot: complete what is in flight beyond depth - 1 */
    ret = gst_cv_scheduler_finish_until (self, depth);
    if (ret == GST_FLOW_OK)
      ret = gst_cv_scheduler_submit_frame (self, gst_buffer_ref (meta), meta,
          -1, c, radius);
    else
      gst_buffer_unref (meta);
  }
  if (ret == GST_FLOW_OK)
    ret = gst_cv_scheduler_drain (self);
  gst_cv_history_reset (self);
  return ret;
}

void
gst_cv_history_reset (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  g_queue_clear_full (&priv->history, (GDestroyNotify) gst_buffer_unref);
  priv->next_store = priv->next_centre = 0;
}
