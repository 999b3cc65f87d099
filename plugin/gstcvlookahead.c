/* gst-cuda-vision: the scheduler's lookahead, for temporal filters
 * (gst_cuda_vision_base_set_lookahead (), cudanlmeans' temporal-window):
 * every input is submitted once, as it arrives (frame->store = its index
 * since the last reset), paired with the output of the frame `lookahead`
 * earlier (frame->centre), whose input buffer is kept until then for the
 * output's timestamps and metas; the first `lookahead` submissions produce
 * no output. At EOS, caps changes, STREAM_START and SEGMENT the frames
 * still owed are submitted without an input (store -1), their window
 * shrunk (frame->radius); FLUSH_STOP and stop discard them. The state is
 * the streaming thread's. See gstcvscheduler.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvscheduler-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug
GstFlowReturn
gst_cv_sched_lookahead_submit (GstCvScheduler * sc, GstBuffer * inbuf,
    gboolean discont)
{
  gint64 store, centre;
  GstBuffer *meta = NULL;

  if (sc->lookahead == 0)
    return gst_cv_sched_submit_frame (sc, inbuf, NULL, -1, -1, 0, discont);
  store = sc->next_store++;
  g_queue_push_tail (&sc->history, gst_buffer_ref (inbuf));
  centre = store - sc->lookahead;
  if (centre >= 0) {
    g_assert (centre == sc->next_centre);
    meta = g_queue_pop_head (&sc->history);
    sc->next_centre++;
  }
  return gst_cv_sched_submit_frame (sc, inbuf, meta, store, MAX (centre, -1),
      centre >= 0 ? (guint) MIN (centre, (gint64) sc->lookahead) : 0, discont);
}

void
gst_cv_sched_lookahead_reset (GstCvScheduler * sc)
{
  g_queue_clear_full (&sc->history, (GDestroyNotify) gst_buffer_unref);
  sc->next_store = sc->next_centre = 0;
}

/* The frames still owed, submitted without an input, their window shrunk
 * to the frames that exist; then the indices restart at 0. */
GstFlowReturn
gst_cv_sched_lookahead_finish (GstCvScheduler * sc)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gint64 last = sc->next_store - 1;
  GstBuffer *meta;

  if (!g_queue_is_empty (&sc->history))
    GST_DEBUG_OBJECT (sc->self, "draining %u frames of lookahead",
        g_queue_get_length (&sc->history));
  while (ret == GST_FLOW_OK && (meta = g_queue_pop_head (&sc->history))) {
    gint64 c = sc->next_centre++;
    guint radius = (guint) MIN (MIN (c, last - c), (gint64) sc->lookahead);

    ret = gst_cv_sched_submit_frame (sc, gst_buffer_ref (meta), meta, -1, c,
        radius, FALSE);
  }
  gst_cv_sched_lookahead_reset (sc);
  return ret;
}

void
gst_cv_scheduler_set_lookahead (GstCvScheduler * sc, guint frames)
{
  g_return_if_fail (frames <= GST_CUDA_VISION_MAX_LOOKAHEAD);
  if (frames != sc->lookahead)
    GST_INFO_OBJECT (sc->self, "lookahead %u frames", frames);
  sc->lookahead = frames;
}

guint
gst_cv_scheduler_get_lookahead (GstCvScheduler * sc)
{
  return sc->lookahead;
}

void
gst_cuda_vision_base_set_lookahead (GstCudaVisionBase * self, guint frames)
{
  gst_cv_scheduler_set_lookahead (GST_CV_PRIV (self)->sched, frames);
}
