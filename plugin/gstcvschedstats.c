/* gst-cuda-vision: the scheduler's statistics (cudavision-stats, posted
 * once a second with post-stats), its processing latency (the LATENCY
 * query's share of the element) and its position (POSITION queries): see
 * gstcvscheduler.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvscheduler-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug
/* Add one frame's timings (s NULL: the end of the stream); post the means
 * once a second, and at the end for what is left. fps counts the frames
 * finished since the previous message (or since the first frame was
 * submitted) over that time, up to the last frame finished; the message
 * carries that frame's timing fields. */
void
gst_cv_sched_add_stats (GstCvScheduler * sc, GstCvSlot * s, const gdouble ms[3],
    gdouble latency, gdouble wait_us)
{
  GstCudaVisionBase *self = sc->self;
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstStructure *st = NULL;
  gboolean enabled;
  guint64 transfers = 0;
  gint level;
  gint64 now;

  /* a frame: post-stats as it was when the frame was submitted */
  if (s)
    enabled = s->stats;
  else {
    GST_OBJECT_LOCK (self);
    enabled = priv->post_stats;
    GST_OBJECT_UNLOCK (self);
  }
  if (!enabled || !sc->be)
    return;
  GST_OBJECT_LOCK (self);
  if (sc->be->host_transfers)
    transfers = sc->be->host_transfers (self);
  GST_OBJECT_UNLOCK (self);
  level = sc->be->priority_level ? sc->be->priority_level (self) : -1;
  now = g_get_monotonic_time ();
  g_mutex_lock (&sc->lock);
  if (s) {
    if (sc->stats_frames == 0 && sc->stats_start == 0)
      sc->stats_start = s->submit_time;
    sc->stats_frames++;
    sc->stats_last = now;
    sc->stats_pts = GST_BUFFER_PTS (s->outbuf);
    sc->stats_duration = GST_BUFFER_DURATION (s->outbuf);
    sc->stats_upload += ms[0];
    sc->stats_kernel += ms[1];
    sc->stats_download += ms[2];
    sc->stats_latency += latency;
    sc->stats_submit += s->submit_us;
    sc->stats_wait += wait_us;
    sc->stats_finish += sc->last_finish_us;
  }
  if (sc->stats_frames > 0 && (!s || now - sc->stats_start >= G_USEC_PER_SEC)) {
    gdouble n = sc->stats_frames;

    st = gst_structure_new ("cudavision-stats",
        "backend", G_TYPE_STRING, sc->be->name,
        "frames", G_TYPE_UINT, sc->stats_frames,
        "fps", G_TYPE_DOUBLE, n * G_USEC_PER_SEC / MAX (sc->stats_last -
            sc->stats_start, 1),
        "upload-ms", G_TYPE_DOUBLE, sc->stats_upload / n,
        "kernel-ms", G_TYPE_DOUBLE, sc->stats_kernel / n,
        "download-ms", G_TYPE_DOUBLE, sc->stats_download / n,
        "latency-ms", G_TYPE_DOUBLE, sc->stats_latency / n,
        "host-transfers", G_TYPE_UINT64, transfers,
        "host-submit-us", G_TYPE_DOUBLE, sc->stats_submit / n,
        "host-wait-us", G_TYPE_DOUBLE, sc->stats_wait / n,
        "host-finish-us", G_TYPE_DOUBLE, sc->stats_finish / n, NULL);
    /* the level of the element's CUDA streams (stream-priority clamped) */
    if (level >= 0)
      gst_structure_set (st, "stream-priority", G_TYPE_INT, level, NULL);
    gst_cv_set_frame_times (self, st, sc->stats_pts, sc->stats_duration);
    sc->stats_start = sc->stats_last;
    sc->stats_frames = 0;
    sc->stats_upload = sc->stats_kernel = sc->stats_download =
        sc->stats_latency = 0;
    sc->stats_submit = sc->stats_wait = sc->stats_finish = 0;
  }
  g_mutex_unlock (&sc->lock);
  if (st)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), st));
}

void
gst_cv_scheduler_final_stats (GstCvScheduler * sc)
{
  gst_cv_sched_add_stats (sc, NULL, NULL, 0, 0);
}

/* The lookahead in frame durations of the caps' framerate (nothing with a
 * framerate of 0/1: the duration is unknown) and the processing latency. */
void
gst_cv_scheduler_latency (GstCvScheduler * sc, const GstVideoInfo * info,
    GstQuery * query)
{
  gboolean live;
  GstClockTime min, max, frame = 0, extra, proc;

  gst_query_parse_latency (query, &live, &min, &max);
  if (info && GST_VIDEO_INFO_FPS_N (info) > 0)
    frame = gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
  g_mutex_lock (&sc->lock);
  proc = sc->proc_reported;
  g_mutex_unlock (&sc->lock);
  extra = (info ? sc->lookahead : 0) * frame + proc;
  min += extra;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += extra;
  GST_DEBUG_OBJECT (sc->self, "latency: adding %" GST_TIME_FORMAT " (%u "
      "frames of lookahead, processing %" GST_TIME_FORMAT "), min %"
      GST_TIME_FORMAT, GST_TIME_ARGS (extra), info ? sc->lookahead : 0,
      GST_TIME_ARGS (proc), GST_TIME_ARGS (min));
  gst_query_set_latency (query, live, min, max);
}

GstClockTime
gst_cv_scheduler_position (GstCvScheduler * sc)
{
  GstClockTime pos;

  g_mutex_lock (&sc->lock);
  pos = sc->position;
  g_mutex_unlock (&sc->lock);
  return pos;
}

/* An output about to leave: the position (its end) and the time its frame
 * spent in the element (from its submission, waiting for a slot included,
 * to now). The processing latency the LATENCY query adds is the longest
 * such time after the warm-up, with a quarter of margin, in steps of
 * 0.1 ms; a LATENCY message when it grows. */
void
gst_cv_sched_outgoing (GstCvScheduler * sc, GstCvSlot * s, GstBuffer * buf)
{
  GstClockTime t = (g_get_monotonic_time () - s->enter_time) * GST_USECOND;
  GstClockTime reported = GST_CLOCK_TIME_NONE;

  g_mutex_lock (&sc->lock);
  if (GST_BUFFER_PTS_IS_VALID (buf))
    sc->position = GST_BUFFER_PTS (buf) + (GST_BUFFER_DURATION_IS_VALID (buf)
        ? GST_BUFFER_DURATION (buf) : 0);
  if (++sc->completed > WARM_UP_FRAMES && t > sc->proc_max) {
    sc->proc_max = t;
    if (t > sc->proc_reported) {
      GstClockTime step = 100 * GST_USECOND;

      reported = sc->proc_reported = (t + t / 4 + step - 1) / step * step;
    }
  }
  g_mutex_unlock (&sc->lock);
  if (GST_CLOCK_TIME_IS_VALID (reported)) {
    GST_DEBUG_OBJECT (sc->self, "processing latency now %" GST_TIME_FORMAT
        " (longest frame %" GST_TIME_FORMAT ")", GST_TIME_ARGS (reported),
        GST_TIME_ARGS (t));
    gst_element_post_message (GST_ELEMENT (sc->self),
        gst_message_new_latency (GST_OBJECT (sc->self)));
  }
}
