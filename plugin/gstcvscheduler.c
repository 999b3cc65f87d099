/* gst-cuda-vision: the frames in flight of the base element.
 *
 * pipeline-depth slots; a frame enters in gst_cv_scheduler_submit () (its
 * buffers mapped and checked, its parameters snapshot, the subclass's
 * prepare_frame (), the backend's submit) and leaves in
 * gst_cv_scheduler_generate () once depth frames are in flight (the
 * backend's wait, statistics, the operator's results, the subclass's
 * finish_frame ()), oldest first: with the CUDA backend frame k uploads
 * while k-1 computes and k-2 downloads. Serialized events drain the frames
 * in flight, flushing drops them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudavisionbase-private.h"
#include "gstcvcudacontext.h"
#include "gstcvtrace.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

GstFlowReturn
gst_cv_scheduler_failed (GstCudaVisionBase * self, int status,
    const gchar * where)
{
  if (status == CV_ERROR_CANCELLED) {
    GST_DEBUG_OBJECT (self, "frame cancelled (flushing or stopping)");
    return GST_FLOW_FLUSHING;
  }
  if (status != GST_CUDA_VISION_ERROR_POSTED)
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Processing the frame on the %s failed: %s", where,
            gst_cuda_vision_status_string (status)), ("status %d", status));
  return GST_FLOW_ERROR;
}

/* the frame as the subclass sees it */
static void
frame_view (GstCudaVisionBase * self, GstCvSlot * s, GstCudaVisionFrame * f)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  f->in_info = &priv->in_info;
  f->out_info = &priv->out_info;
  f->params = s->params;
  f->backend = priv->active_backend;
  f->slot = s->index;
  f->results = NULL;
  f->store = s->store;
  f->centre = s->centre;
  f->radius = s->radius;
}

static void
clear_params (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);

  if (s->params_set && klass->clear_params)
    klass->clear_params (self, s->params);
  s->params_set = FALSE;
}

static void
slot_release (GstCudaVisionBase * self, GstCvSlot * s)
{
  if (s->in_mapped)
    gst_video_frame_unmap (&s->in_frame);
  if (s->out_mapped)
    gst_video_frame_unmap (&s->out_frame);
  s->in_mapped = s->out_mapped = FALSE;
  gst_clear_buffer (&s->inbuf);
  gst_clear_buffer (&s->outbuf);
  clear_params (self, s);
  s->busy = FALSE;
}

void
gst_cv_scheduler_drop (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstCvSlot *s;

  /* the device must be done with the buffers before they are released */
  while ((s = g_queue_pop_head (&priv->pending))) {
    priv->be->sync (self, s);
    slot_release (self, s);
  }
  gst_cv_history_reset (self);
}

void
gst_cv_scheduler_free_slots (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  guint i;

  if (!priv->be)
    return;
  gst_cv_scheduler_drop (self);
  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH; i++) {
    GstCvSlot *s = &priv->slots[i];

    priv->be->slot_free (self, s);
    g_clear_pointer (&s->params, g_free);
  }
}

/* Add one frame's timings (frame NULL: the end of the stream); post the
 * means once a second, and at the end for what is left. fps counts the
 * frames finished since the previous message (or since the first frame
 * was submitted) over that time, up to the last frame finished; the
 * message carries that frame's timing fields. */
static void
add_stats (GstCudaVisionBase * self, GstCvSlot * s, const gdouble ms[3],
    gdouble latency, gdouble wait_us)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gint64 now;
  gboolean enabled;

  /* a frame: post-stats as it was when the frame was submitted */
  if (s)
    enabled = s->stats;
  else {
    GST_OBJECT_LOCK (self);
    enabled = priv->post_stats;
    GST_OBJECT_UNLOCK (self);
  }
  if (!enabled)
    return;
  now = g_get_monotonic_time ();
  if (s) {
    if (priv->stats_frames == 0 && priv->stats_start == 0)
      priv->stats_start = s->submit_time;
    priv->stats_frames++;
    priv->stats_last = now;
    priv->stats_pts = GST_BUFFER_PTS (s->outbuf);
    priv->stats_duration = GST_BUFFER_DURATION (s->outbuf);
    priv->stats_upload += ms[0];
    priv->stats_kernel += ms[1];
    priv->stats_download += ms[2];
    priv->stats_latency += latency;
    priv->stats_submit += s->submit_us;
    priv->stats_wait += wait_us;
    priv->stats_finish += priv->last_finish_us;
  }
  if (priv->stats_frames > 0 && (!s
          || now - priv->stats_start >= G_USEC_PER_SEC)) {
    gdouble n = priv->stats_frames;
    GstStructure *st = gst_structure_new ("cudavision-stats",
        "backend", G_TYPE_STRING, priv->be->name,
        "frames", G_TYPE_UINT, priv->stats_frames,
        "fps", G_TYPE_DOUBLE, n * G_USEC_PER_SEC / MAX (priv->stats_last -
            priv->stats_start, 1),
        "upload-ms", G_TYPE_DOUBLE, priv->stats_upload / n,
        "kernel-ms", G_TYPE_DOUBLE, priv->stats_kernel / n,
        "download-ms", G_TYPE_DOUBLE, priv->stats_download / n,
        "latency-ms", G_TYPE_DOUBLE, priv->stats_latency / n,
        "host-transfers", G_TYPE_UINT64, priv->host_transfers,
        "host-submit-us", G_TYPE_DOUBLE, priv->stats_submit / n,
        "host-wait-us", G_TYPE_DOUBLE, priv->stats_wait / n,
        "host-finish-us", G_TYPE_DOUBLE, priv->stats_finish / n, NULL);
    /* the level of the element's CUDA streams (stream-priority clamped) */
    if (priv->stream_priority_used >= 0)
      gst_structure_set (st, "stream-priority", G_TYPE_INT,
          priv->stream_priority_used, NULL);
    gst_cv_set_frame_times (self, st, priv->stats_pts, priv->stats_duration);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), st));
    priv->stats_start = priv->stats_last;
    priv->stats_frames = 0;
    priv->stats_upload = priv->stats_kernel = priv->stats_download =
        priv->stats_latency = 0;
    priv->stats_submit = priv->stats_wait = priv->stats_finish = 0;
  }
}

void
gst_cv_scheduler_final_stats (GstCudaVisionBase * self)
{
  if (GST_CV_PRIV (self)->be)
    add_stats (self, NULL, NULL, 0, 0);
}

/* map the slot's buffers (CUDA memory of our context as device pointers,
 * anything else on the host) and check them against the caps */
static GstFlowReturn
map_frames (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstMapFlags cuda = gst_cv_cuda_context_map_flag ();
  gchar *why = NULL;
  gboolean in_ok;

  s->in_device = priv->in_cuda_mem &&
      gst_cv_cuda_context_owns_buffer (priv->ctx, s->inbuf);
  s->out_device = priv->out_cuda_mem && !priv->output_is_input &&
      gst_cv_cuda_context_owns_buffer (priv->ctx, s->outbuf);
  s->in_mapped = gst_video_frame_map (&s->in_frame, &priv->in_info,
      s->inbuf, GST_MAP_READ | (s->in_device ? cuda : 0));
  s->out_mapped = s->in_mapped && !priv->output_is_input &&
      gst_video_frame_map (&s->out_frame, &priv->out_info, s->outbuf,
      GST_MAP_WRITE | (s->out_device ? cuda : 0));
  if (!s->in_mapped || (!s->out_mapped && !priv->output_is_input)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The %s buffer does not hold "
            "a video frame of the negotiated caps", s->in_mapped ? "output" :
            "input"), ("could not map the %s video frame (buffer too small "
            "for the caps?)", s->in_mapped ? "output" : "input"));
    return GST_FLOW_ERROR;
  }
  in_ok = gst_cuda_vision_frame_is_sane (&s->in_frame, &priv->in_info, &why);
  if (!in_ok || (s->out_mapped && !gst_cuda_vision_frame_is_sane
          (&s->out_frame, &priv->out_info, &why))) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The %s buffer does not "
            "match the negotiated caps: %s", in_ok ? "output" : "input", why),
        ("buffer %" GST_PTR_FORMAT, in_ok ? s->outbuf : s->inbuf));
    g_free (why);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

GstFlowReturn
gst_cv_scheduler_submit (GstCudaVisionBase * self, GstBuffer * inbuf)
{
  return gst_cv_history_submit (self, inbuf);
}

GstFlowReturn
gst_cv_scheduler_submit_frame (GstCudaVisionBase * self, GstBuffer * inbuf,
    GstBuffer * metabuf, gint64 store, gint64 centre, guint radius)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *outbuf = NULL, *src = metabuf ? metabuf : inbuf;
  GstCudaVisionFrame frame;
  GstCvSlot *s = NULL;
  guint i;
  int status;
  gint64 t_start = g_get_monotonic_time ();

  if (priv->output_is_input)
    outbuf = gst_buffer_ref (src);
  else
    ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
        src, &outbuf);
  if (metabuf)
    gst_buffer_unref (metabuf);
  if (ret != GST_FLOW_OK || !outbuf) {
    gst_buffer_unref (inbuf);
    return ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
  }
  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH && !s; i++)
    if (!priv->slots[i].busy)
      s = &priv->slots[i];
  g_assert (s != NULL);         /* generate keeps < depth in flight */
  s->busy = TRUE;
  s->index = s - priv->slots;
  s->inbuf = inbuf;
  s->outbuf = outbuf;
  s->submit_time = g_get_monotonic_time ();
  s->cpu_ms = 0;
  CV_TRACE_PUSH ("cv:submit");
  /* what this frame's completion does: timings for post-stats and the
   * debug log, how to wait */
  GST_OBJECT_LOCK (self);
  s->stats = priv->post_stats;
  s->wait_mode = priv->wait_mode;
  GST_OBJECT_UNLOCK (self);
  s->timed = s->stats || gst_debug_category_get_threshold (GST_CAT_DEFAULT)
      >= GST_LEVEL_DEBUG;
  s->store = store;
  s->centre = centre;
  s->radius = radius;
  s->no_upload = priv->lookahead > 0 && store < 0;
  s->no_download = priv->lookahead > 0 && store >= 0 && centre < 0;

  /* the parameters at this frame: controlled properties (GstController)
   * take their value at its stream time */
  if (!s->params)
    s->params = g_malloc0 (MAX (klass->params_size, 1));
  clear_params (self, s);
  if (GST_BUFFER_PTS_IS_VALID (inbuf))
    gst_object_sync_values (GST_OBJECT (self),
        gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
            GST_BUFFER_PTS (inbuf)));
  if (klass->get_params) {
    klass->get_params (self, s->params);
    s->params_set = TRUE;
  }

  CV_TRACE_PUSH ("cv:map");
  ret = map_frames (self, s);
  CV_TRACE_POP ();
  if (ret == GST_FLOW_OK && klass->prepare_frame) {
    frame_view (self, s, &frame);
    status = klass->prepare_frame (self, &frame);
    if (status != CV_OK)
      ret = gst_cv_scheduler_failed (self, status, priv->be->name);
  }
  if (ret == GST_FLOW_OK) {
    CV_TRACE_PUSH ("cv:backend-submit");
    status = priv->be->submit (self, s);
    CV_TRACE_POP ();
    if (status != CV_OK)
      ret = gst_cv_scheduler_failed (self, status,
          priv->be == &gst_cv_backend_cpu ? "CPU" : "GPU");
  }
  if (ret != GST_FLOW_OK) {
    slot_release (self, s);
    CV_TRACE_POP ();
    return ret;
  }
  g_queue_push_tail (&priv->pending, s);
  s->submit_us = g_get_monotonic_time () - t_start;
  CV_TRACE_POP ();
  return GST_FLOW_OK;
}

/* Complete the oldest frame in flight. */
static GstFlowReturn
finish_oldest (GstCudaVisionBase * self, GstBuffer ** outbuf)
{
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstCvSlot *s = g_queue_pop_head (&priv->pending);
  GstFlowReturn ret = GST_FLOW_OK;
  gdouble ms[3] = { 0, 0, 0 }, latency;
  gint64 t0 = g_get_monotonic_time (), t1;

  CV_TRACE_PUSH ("cv:wait");
  if (!priv->be->wait (self, s, ms)) {
    CV_TRACE_POP ();
    slot_release (self, s);
    return GST_FLOW_ERROR;
  }
  CV_TRACE_POP ();
  CV_TRACE_PUSH ("cv:finish");
  t1 = g_get_monotonic_time ();
  latency = (t1 - s->submit_time) / 1000.0;
  GST_DEBUG_OBJECT (self, "frame %" GST_TIME_FORMAT " slot %u: upload %.3f ms,"
      " kernel %.3f ms, download %.3f ms, in element %.3f ms",
      GST_TIME_ARGS (GST_BUFFER_PTS (s->outbuf)), s->index, ms[0], ms[1],
      ms[2], latency);
  /* lookahead: the first frames of a stream produce no output and are
   * not counted */
  if (!(s->store >= 0 && s->centre < 0))
    add_stats (self, s, ms, latency, (gdouble) (t1 - t0));

  /* unmap before handing the buffers on; with output_is_input, drop our
   * reference to the input so that finish_frame () can make it writable
   * without a copy */
  if (s->out_mapped)
    gst_video_frame_unmap (&s->out_frame);
  if (s->in_mapped)
    gst_video_frame_unmap (&s->in_frame);
  s->out_mapped = s->in_mapped = FALSE;
  gst_clear_buffer (&s->inbuf);

  if (klass->finish_frame) {
    GstCudaVisionFrame frame;

    frame_view (self, s, &frame);
    frame.results = priv->ops->results ? priv->ops->results (s->op) : NULL;
    ret = klass->finish_frame (self, &frame, &s->outbuf);
  }
  if (ret == GST_FLOW_OK && !(s->store >= 0 && s->centre < 0)) {
    *outbuf = s->outbuf;
    s->outbuf = NULL;
  }
  slot_release (self, s);
  /* counted with the next frame's statistics */
  priv->last_finish_us = g_get_monotonic_time () - t1;
  CV_TRACE_POP ();
  return ret;
}

GstFlowReturn
gst_cv_scheduler_generate (GstCudaVisionBase * self, GstBuffer ** outbuf)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  guint depth = priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA ?
      priv->depth : 1;

  *outbuf = NULL;
  if (g_queue_get_length (&priv->pending) < depth)
    return GST_FLOW_OK;
  return finish_oldest (self, outbuf);
}

GstFlowReturn
gst_cv_scheduler_finish_until (GstCudaVisionBase * self, guint max)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK && g_queue_get_length (&priv->pending) >= max) {
    GstBuffer *buf = NULL;

    ret = finish_oldest (self, &buf);
    if (ret == GST_FLOW_OK && buf)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  }
  return ret;
}

/* Frames in flight on the GPU (depth - 1) and the lookahead, in frame
 * durations of the caps' framerate (nothing with a framerate of 0/1:
 * the duration is unknown). */
void
gst_cv_scheduler_latency (GstCudaVisionBase * self, GstQuery * query)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean live;
  GstClockTime min, max, frame = 0, extra;
  guint depth;

  gst_query_parse_latency (query, &live, &min, &max);
  GST_OBJECT_LOCK (self);
  depth = priv->active_backend == GST_CUDA_VISION_BACKEND_CPU ? 1 :
      priv->pipeline_depth;
  GST_OBJECT_UNLOCK (self);
  if (priv->negotiated && GST_VIDEO_INFO_FPS_N (&priv->in_info) > 0)
    frame = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&priv->in_info),
        GST_VIDEO_INFO_FPS_N (&priv->in_info));
  extra = (depth - 1 + (priv->negotiated ? priv->lookahead : 0)) * frame;
  min += extra;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += extra;
  GST_DEBUG_OBJECT (self, "latency: adding %" GST_TIME_FORMAT " (%u frames "
      "in flight, %u of lookahead), min %" GST_TIME_FORMAT,
      GST_TIME_ARGS (extra), depth - 1, priv->lookahead, GST_TIME_ARGS (min));
  gst_query_set_latency (query, live, min, max);
}

GstFlowReturn
gst_cv_scheduler_drain (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;

  if (!g_queue_is_empty (&priv->pending))
    GST_DEBUG_OBJECT (self, "draining %u frames",
        g_queue_get_length (&priv->pending));
  while (!g_queue_is_empty (&priv->pending)) {
    GstBuffer *buf = NULL;

    if (ret != GST_FLOW_OK) {
      gst_cv_scheduler_drop (self);
      break;
    }
    ret = finish_oldest (self, &buf);
    if (ret == GST_FLOW_OK && buf)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  }
  return ret;
}
