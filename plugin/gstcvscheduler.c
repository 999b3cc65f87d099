/* gst-cuda-vision: the scheduler of the base element (gstcvscheduler.h).
 *
 * pipeline-depth slots. A frame enters in gst_cv_scheduler_submit () in
 * the streaming thread: a free slot (waiting while every slot is busy:
 * back-pressure), its output buffer, its buffers mapped and checked, its
 * parameters snapshot, the subclass's prepare_frame (), the backend's
 * submit. It leaves, oldest first, in complete (): the backend's wait,
 * statistics, the operator's results, the subclass's finish_frame ().
 *
 * Asynchronous backends (CUDA): complete () runs in the scheduler's output
 * thread as soon as the frame's GPU work is done, and the output is pushed
 * from there: no frame waits for the next one to arrive (a live camera
 * gets the GPU's time of added latency, not a frame interval), while up to
 * depth frames overlap (frame k uploads while k-1 computes and k-2
 * downloads). Serialized events and queries wait until every earlier frame
 * is pushed (gst_cv_scheduler_drain ()); flushing drops the frames in
 * flight; a flow return of the output thread other than OK reaches
 * upstream from the next submission.
 * Synchronous backends (CPU): complete () runs in the streaming thread
 * right after the submission, through GstBaseTransform's generate_output.
 *
 * The lookahead of temporal filters (gst_cuda_vision_base_set_lookahead (),
 * cudanlmeans' temporal-window) is the scheduler's too: every input is
 * submitted once, as it arrives (frame->store = its index since the last
 * reset; its operator keeps it in a history of its own, e.g. on the GPU),
 * paired with the output of the frame `lookahead` earlier (frame->centre):
 * the output buffer is made from that frame's input buffer (timestamps,
 * duration, offsets, flags, metas), kept until then. The first `lookahead`
 * submissions produce no output (frame->centre = -1). At EOS, caps changes,
 * STREAM_START and SEGMENT the frames still owed are submitted without an
 * input (frame->store = -1, nothing uploaded), their window shrunk to the
 * frames that exist (frame->radius), then the indices restart at 0;
 * FLUSH_STOP and stop discard them. Frames in = frames out, in order.
 *
 * Locking: sc->lock guards the slots' busy flags, the queue of frames in
 * flight, the flags, the flow return, the statistics and the latency
 * figures; a slot's contents belong to the thread that holds it (the
 * streaming thread from acquire to the queue, the completing thread after
 * it). The lookahead's state is the streaming thread's.
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

/* frames after start (or a caps change) not counted in the processing
 * latency: the first frames load modules and allocate */
#define WARM_UP_FRAMES 4

struct _GstCvScheduler
{
  GstCudaVisionBase *self;      /* the element (not a reference) */
  const GstCvBackend *be;       /* NULL: not started */
  gboolean async;

  GMutex lock;
  GCond cond;                   /* a slot freed, a frame queued, a flag */
  guint depth;
  GstCvSlot slots[GST_CUDA_VISION_MAX_DEPTH];
  GQueue queue;                 /* GstCvSlot *: submitted, oldest first */
  GstCvSlot *current;           /* the frame the output thread completes */
  guint in_flight;              /* busy slots */
  gboolean flushing, stopping;
  GstFlowReturn flow;           /* the output thread's first result other
                                 * than OK, not yet returned upstream */
  GThread *thread;
  GstClockTime position;        /* end of the last buffer pushed */

  /* the lookahead: the streaming thread's */
  guint lookahead;
  GQueue history;               /* GstBuffer *: inputs whose output is owed */
  gint64 next_store;            /* index of the next input */
  gint64 next_centre;           /* index of history's head */

  /* processing latency (lock) */
  guint completed;              /* frames completed since start or caps */
  GstClockTime proc_max;        /* the longest time in the element */
  GstClockTime proc_reported;   /* what the LATENCY query adds for it */

  /* statistics (lock) */
  gint64 stats_start, stats_last;
  GstClockTime stats_pts, stats_duration;
  guint stats_frames;
  gdouble stats_upload, stats_kernel, stats_download, stats_latency;
  gdouble stats_submit, stats_wait, stats_finish;       /* host, us */
  gdouble last_finish_us;       /* the previous frame's completion after
                                 * its wait (counted with the next one) */
};

/* A frame's status other than CV_OK: the one place its error is posted
 * (the error the backend or the subclass recorded in this thread, else
 * one made from the status); cancelled frames are flushing. */
static GstFlowReturn
status_failed (GstCudaVisionBase * self, CvStatus status, const gchar * where)
{
  if (status == CV_ERROR_CANCELLED) {
    GST_DEBUG_OBJECT (self, "frame cancelled (flushing or stopping)");
    gst_cv_clear_frame_error ();
    return GST_FLOW_FLUSHING;
  }
  gst_cv_post_frame_error (self, status, where);
  return GST_FLOW_ERROR;
}

static const gchar *
backend_where (GstCvScheduler * sc)
{
  return sc->be->kind == GST_CUDA_VISION_BACKEND_CPU ? "CPU" : "GPU";
}

/* results of the output thread that stay until a flush or stop: upstream
 * gets them from every submission */
static inline gboolean
flow_is_fatal (GstFlowReturn ret)
{
  return ret <= GST_FLOW_NOT_NEGOTIATED;
}

GstCvScheduler *
gst_cv_scheduler_new (GstCudaVisionBase * self)
{
  GstCvScheduler *sc = g_new0 (GstCvScheduler, 1);
  guint i;

  sc->self = self;
  g_mutex_init (&sc->lock);
  g_cond_init (&sc->cond);
  g_queue_init (&sc->queue);
  g_queue_init (&sc->history);
  sc->depth = 1;
  sc->flow = GST_FLOW_OK;
  sc->position = GST_CLOCK_TIME_NONE;
  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH; i++)
    sc->slots[i].index = i;
  return sc;
}

/* ------------------------------------------------------------------------ */
/* Slots */

/* the frame as the subclass sees it */
static void
frame_view (GstCvScheduler * sc, GstCvSlot * s, GstCudaVisionFrame * f)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (sc->self);

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
clear_params (GstCvScheduler * sc, GstCvSlot * s)
{
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (sc->self);

  if (s->params_set && klass->clear_params)
    klass->clear_params (sc->self, s->params);
  s->params_set = FALSE;
}

/* what the slot holds of its frame (not its busy flag: slot_free ()) */
static void
slot_clear (GstCvScheduler * sc, GstCvSlot * s)
{
  if (s->in_mapped)
    gst_video_frame_unmap (&s->in_frame);
  if (s->out_mapped)
    gst_video_frame_unmap (&s->out_frame);
  s->in_mapped = s->out_mapped = FALSE;
  gst_clear_buffer (&s->inbuf);
  gst_clear_buffer (&s->outbuf);
  clear_params (sc, s);
}

/* lock held */
static void
slot_free (GstCvScheduler * sc, GstCvSlot * s)
{
  g_assert (s->busy && sc->in_flight > 0);
  s->busy = FALSE;
  sc->in_flight--;
  g_cond_broadcast (&sc->cond);
}

/* A free slot for the next frame: waits while depth frames are in flight
 * (asynchronous), or completes and pushes the oldest (synchronous: the
 * frames a lookahead owes at its drain). */
static GstFlowReturn complete_and_push (GstCvScheduler * sc);

static GstFlowReturn
acquire_slot (GstCvScheduler * sc, GstCvSlot ** slot)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint i;

  *slot = NULL;
  g_mutex_lock (&sc->lock);
  while (TRUE) {
    if (sc->flushing) {
      ret = GST_FLOW_FLUSHING;
      break;
    }
    if (flow_is_fatal (sc->flow)) {
      ret = sc->flow;
      break;
    }
    if (sc->in_flight < sc->depth) {
      for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH && !*slot; i++)
        if (!sc->slots[i].busy)
          *slot = &sc->slots[i];
      g_assert (*slot != NULL);
      (*slot)->busy = TRUE;
      sc->in_flight++;
      break;
    }
    if (sc->async) {
      g_cond_wait (&sc->cond, &sc->lock);
      continue;
    }
    g_mutex_unlock (&sc->lock);
    ret = complete_and_push (sc);
    g_mutex_lock (&sc->lock);
    if (ret != GST_FLOW_OK)
      break;
  }
  g_mutex_unlock (&sc->lock);
  return ret;
}

/* ------------------------------------------------------------------------ */
/* Statistics and latency */

/* Add one frame's timings (s NULL: the end of the stream); post the means
 * once a second, and at the end for what is left. fps counts the frames
 * finished since the previous message (or since the first frame was
 * submitted) over that time, up to the last frame finished; the message
 * carries that frame's timing fields. */
static void
add_stats (GstCvScheduler * sc, GstCvSlot * s, const gdouble ms[3],
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
  add_stats (sc, NULL, NULL, 0, 0);
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

/* ------------------------------------------------------------------------ */
/* Submission (the streaming thread) */

/* map the slot's buffers (CUDA memory of our context as device pointers,
 * anything else on the host) and check them against the caps */
static GstFlowReturn
map_frames (GstCvScheduler * sc, GstCvSlot * s)
{
  GstCudaVisionBase *self = sc->self;
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstMapFlags cuda = gst_cv_cuda_context_map_flag ();
  gchar *why = NULL;
  gboolean in_ok;

  s->in_device = priv->in_cuda_mem &&
      gst_cv_cuda_context_owns_buffer (priv->ctx, s->inbuf);
  s->out_device = priv->out_cuda_mem && !priv->output_is_input &&
      gst_cv_cuda_context_owns_buffer (priv->ctx, s->outbuf);
  /* video metas gst_video_frame_map () would assert on (a CRITICAL):
   * refused, as the frames below, before mapping */
  in_ok = gst_cuda_vision_meta_mappable (s->inbuf, &priv->in_info, &why);
  if (!in_ok || (!priv->output_is_input
          && !gst_cuda_vision_meta_mappable (s->outbuf, &priv->out_info, &why)))
    goto not_caps;
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
          (&s->out_frame, &priv->out_info, &why)))
    goto not_caps;
  return GST_FLOW_OK;

not_caps:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The %s buffer does not "
          "match the negotiated caps: %s", in_ok ? "output" : "input", why),
      ("buffer %" GST_PTR_FORMAT, in_ok ? s->outbuf : s->inbuf));
  g_free (why);
  return GST_FLOW_ERROR;
}

/* The output thread's result for upstream: fatal ones stay, the others
 * are returned once. */
static GstFlowReturn
take_flow (GstCvScheduler * sc)
{
  GstFlowReturn ret;

  g_mutex_lock (&sc->lock);
  ret = sc->flow;
  if (!flow_is_fatal (ret))
    sc->flow = GST_FLOW_OK;
  g_mutex_unlock (&sc->lock);
  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (sc->self, "returning %s from the output thread",
        gst_flow_get_name (ret));
  return ret;
}

/* Submit inbuf (taken) as frame `store` producing the output of frame
 * `centre` (metabuf, taken: the buffer the output buffer is made from;
 * NULL: inbuf, and no output when centre < 0 with a lookahead). */
static GstFlowReturn
submit_frame (GstCvScheduler * sc, GstBuffer * inbuf, GstBuffer * metabuf,
    gint64 store, gint64 centre, guint radius, gboolean discont)
{
  GstCudaVisionBase *self = sc->self;
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstFlowReturn ret;
  GstBuffer *outbuf = NULL, *src = metabuf ? metabuf : inbuf;
  GstCudaVisionFrame frame;
  GstCvSlot *s = NULL;
  CvStatus status;
  gint64 t_enter = g_get_monotonic_time (), t_start;

  CV_TRACE_PUSH ("cv:slot");
  ret = acquire_slot (sc, &s);
  CV_TRACE_POP ();
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    if (metabuf)
      gst_buffer_unref (metabuf);
    return ret;
  }
  t_start = g_get_monotonic_time ();
  CV_TRACE_PUSH ("cv:submit");
  if (priv->output_is_input)
    outbuf = gst_buffer_ref (src);
  else
    ret = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans,
        src, &outbuf);
  if (metabuf)
    gst_buffer_unref (metabuf);
  s->inbuf = inbuf;
  s->outbuf = outbuf;
  if (ret != GST_FLOW_OK || !outbuf) {
    if (ret == GST_FLOW_OK)
      ret = GST_FLOW_ERROR;
    goto failed;
  }
  s->discont = discont;
  s->enter_time = t_enter;
  s->submit_time = t_start;
  s->cpu_ms = 0;
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
  s->no_upload = sc->lookahead > 0 && store < 0;
  s->no_download = sc->lookahead > 0 && store >= 0 && centre < 0;

  /* the parameters at this frame: controlled properties (GstController)
   * take their value at its stream time */
  if (!s->params)
    s->params = g_malloc0 (MAX (klass->params_size, 1));
  clear_params (sc, s);
  if (GST_BUFFER_PTS_IS_VALID (inbuf))
    gst_object_sync_values (GST_OBJECT (self),
        gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
            GST_BUFFER_PTS (inbuf)));
  if (klass->get_params) {
    klass->get_params (self, s->params);
    s->params_set = TRUE;
  }

  CV_TRACE_PUSH ("cv:map");
  ret = map_frames (sc, s);
  CV_TRACE_POP ();
  if (ret == GST_FLOW_OK && klass->prepare_frame) {
    frame_view (sc, s, &frame);
    status = klass->prepare_frame (self, &frame);
    if (status != CV_OK)
      ret = status_failed (self, status, backend_where (sc));
  }
  if (ret == GST_FLOW_OK) {
    CV_TRACE_PUSH ("cv:backend-submit");
    status = sc->be->submit (self, s);
    CV_TRACE_POP ();
    if (status != CV_OK)
      ret = status_failed (self, status, backend_where (sc));
  }
  if (ret != GST_FLOW_OK)
    goto failed;
  s->submit_us = g_get_monotonic_time () - t_start;
  g_mutex_lock (&sc->lock);
  g_queue_push_tail (&sc->queue, s);
  g_cond_broadcast (&sc->cond);
  g_mutex_unlock (&sc->lock);
  CV_TRACE_POP ();
  return GST_FLOW_OK;

failed:
  slot_clear (sc, s);
  g_mutex_lock (&sc->lock);
  slot_free (sc, s);
  g_mutex_unlock (&sc->lock);
  CV_TRACE_POP ();
  return ret;
}

static GstFlowReturn
lookahead_submit (GstCvScheduler * sc, GstBuffer * inbuf, gboolean discont)
{
  gint64 store, centre;
  GstBuffer *meta = NULL;

  if (sc->lookahead == 0)
    return submit_frame (sc, inbuf, NULL, -1, -1, 0, discont);
  store = sc->next_store++;
  g_queue_push_tail (&sc->history, gst_buffer_ref (inbuf));
  centre = store - sc->lookahead;
  if (centre >= 0) {
    g_assert (centre == sc->next_centre);
    meta = g_queue_pop_head (&sc->history);
    sc->next_centre++;
  }
  return submit_frame (sc, inbuf, meta, store, MAX (centre, -1),
      centre >= 0 ? (guint) MIN (centre, (gint64) sc->lookahead) : 0, discont);
}

GstFlowReturn
gst_cv_scheduler_submit (GstCvScheduler * sc, GstBuffer * inbuf,
    gboolean discont)
{
  GstFlowReturn ret;

  g_return_val_if_fail (sc->be != NULL, GST_FLOW_FLUSHING);
  /* a fatal result of the output thread refuses the frame */
  ret = take_flow (sc);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  ret = lookahead_submit (sc, inbuf, discont);
  if (ret == GST_FLOW_OK && sc->async)
    ret = take_flow (sc);
  return ret;
}

static void
lookahead_reset (GstCvScheduler * sc)
{
  g_queue_clear_full (&sc->history, (GDestroyNotify) gst_buffer_unref);
  sc->next_store = sc->next_centre = 0;
}

/* ------------------------------------------------------------------------ */
/* Completion (the output thread, or the streaming thread when
 * synchronous) */

/* Complete frame s: wait for it, statistics, unmap, results,
 * finish_frame (). *outbuf: the output to push (NULL: none). */
static GstFlowReturn
complete (GstCvScheduler * sc, GstCvSlot * s, GstBuffer ** outbuf)
{
  GstCudaVisionBase *self = sc->self;
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  gdouble ms[3] = { 0, 0, 0 }, latency;
  gint64 t0 = g_get_monotonic_time (), t1;
  gboolean output = !(s->store >= 0 && s->centre < 0);
  CvStatus status;

  *outbuf = NULL;
  CV_TRACE_PUSH ("cv:wait");
  status = sc->be->wait (self, s, ms);
  if (status != CV_OK) {
    CV_TRACE_POP ();
    return status_failed (self, status, backend_where (sc));
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
  if (output)
    add_stats (sc, s, ms, latency, (gdouble) (t1 - t0));

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

    frame_view (sc, s, &frame);
    frame.results = priv->ops->results ? priv->ops->results (s->op) : NULL;
    ret = klass->finish_frame (self, &frame, &s->outbuf);
  }
  if (ret == GST_FLOW_OK && output) {
    *outbuf = s->outbuf;
    s->outbuf = NULL;
    if (s->discont && !GST_BUFFER_IS_DISCONT (*outbuf)) {
      *outbuf = gst_buffer_make_writable (*outbuf);
      GST_BUFFER_FLAG_SET (*outbuf, GST_BUFFER_FLAG_DISCONT);
    }
  }
  /* counted with the next frame's statistics */
  g_mutex_lock (&sc->lock);
  sc->last_finish_us = g_get_monotonic_time () - t1;
  g_mutex_unlock (&sc->lock);
  CV_TRACE_POP ();
  return ret;
}

/* An output about to leave: the position (its end) and the time its frame
 * spent in the element (from its submission, waiting for a slot included,
 * to now). The processing latency the LATENCY query adds is the longest
 * such time after the warm-up, with a quarter of margin, in steps of
 * 0.1 ms; a LATENCY message when it grows. */
static void
outgoing (GstCvScheduler * sc, GstCvSlot * s, GstBuffer * buf)
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

/* Synchronous mode: complete the oldest frame and push its output. */
static GstFlowReturn
complete_and_push (GstCvScheduler * sc)
{
  GstCvSlot *s;
  GstBuffer *buf = NULL;
  GstFlowReturn ret;

  g_mutex_lock (&sc->lock);
  s = g_queue_pop_head (&sc->queue);
  g_mutex_unlock (&sc->lock);
  if (!s)
    return GST_FLOW_OK;
  ret = complete (sc, s, &buf);
  if (buf) {
    outgoing (sc, s, buf);
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (sc->self), buf);
  }
  slot_clear (sc, s);
  g_mutex_lock (&sc->lock);
  slot_free (sc, s);
  g_mutex_unlock (&sc->lock);
  return ret;
}

GstFlowReturn
gst_cv_scheduler_generate (GstCvScheduler * sc, GstBuffer ** outbuf)
{
  GstCvSlot *s;
  GstFlowReturn ret;

  *outbuf = NULL;
  if (sc->async || !sc->be)
    return GST_FLOW_OK;
  g_mutex_lock (&sc->lock);
  s = g_queue_pop_head (&sc->queue);
  g_mutex_unlock (&sc->lock);
  if (!s)
    return GST_FLOW_OK;
  ret = complete (sc, s, outbuf);
  if (*outbuf)
    outgoing (sc, s, *outbuf);
  slot_clear (sc, s);
  g_mutex_lock (&sc->lock);
  slot_free (sc, s);
  g_mutex_unlock (&sc->lock);
  return ret;
}

/* The output thread: complete the oldest frame as soon as the backend
 * says it is done and push it; nothing while flushing (FLUSH_STOP drops
 * what is queued). */
static gpointer
output_loop (gpointer data)
{
  GstCvScheduler *sc = data;
  GstCudaVisionBase *self = sc->self;

  GST_DEBUG_OBJECT (self, "output thread started");
  g_mutex_lock (&sc->lock);
  while (!sc->stopping) {
    GstCvSlot *s;
    GstBuffer *buf = NULL;
    GstFlowReturn ret;
    gboolean drop;

    if (sc->flushing || g_queue_is_empty (&sc->queue)) {
      g_cond_wait (&sc->cond, &sc->lock);
      continue;
    }
    s = sc->current = g_queue_pop_head (&sc->queue);
    g_mutex_unlock (&sc->lock);

    ret = complete (sc, s, &buf);

    g_mutex_lock (&sc->lock);
    /* flushing: dropped; after a fatal result: dropped, upstream is told
     * at its next submission */
    drop = sc->flushing || flow_is_fatal (sc->flow);
    g_mutex_unlock (&sc->lock);
    if (buf && !drop && ret == GST_FLOW_OK) {
      outgoing (sc, s, buf);
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
      if (ret != GST_FLOW_OK)
        GST_DEBUG_OBJECT (self, "pushing a frame: %s", gst_flow_get_name (ret));
    } else if (buf) {
      gst_buffer_unref (buf);
    }
    slot_clear (sc, s);

    g_mutex_lock (&sc->lock);
    if (ret != GST_FLOW_OK && !(sc->flushing && ret == GST_FLOW_FLUSHING)
        && (sc->flow == GST_FLOW_OK || (flow_is_fatal (ret)
                && !flow_is_fatal (sc->flow))))
      sc->flow = ret;
    sc->current = NULL;
    slot_free (sc, s);
  }
  g_mutex_unlock (&sc->lock);
  GST_DEBUG_OBJECT (self, "output thread stopped");
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Draining, flushing, starting and stopping */

GstFlowReturn
gst_cv_scheduler_drain (GstCvScheduler * sc, gboolean finish_lookahead)
{
  GstFlowReturn ret = GST_FLOW_OK;

  if (!sc->be)
    return GST_FLOW_OK;
  if (finish_lookahead) {
    gint64 last = sc->next_store - 1;
    GstBuffer *meta;

    if (!g_queue_is_empty (&sc->history))
      GST_DEBUG_OBJECT (sc->self, "draining %u frames of lookahead",
          g_queue_get_length (&sc->history));
    while (ret == GST_FLOW_OK && (meta = g_queue_pop_head (&sc->history))) {
      gint64 c = sc->next_centre++;
      guint radius = (guint) MIN (MIN (c, last - c), (gint64) sc->lookahead);

      ret = submit_frame (sc, gst_buffer_ref (meta), meta, -1, c, radius,
          FALSE);
    }
    lookahead_reset (sc);
  }
  if (sc->async) {
    g_mutex_lock (&sc->lock);
    if (sc->in_flight)
      GST_DEBUG_OBJECT (sc->self, "waiting for %u frames", sc->in_flight);
    while (sc->in_flight > 0 && !sc->flushing)
      g_cond_wait (&sc->cond, &sc->lock);
    if (sc->flushing)
      ret = GST_FLOW_FLUSHING;
    g_mutex_unlock (&sc->lock);
    if (ret == GST_FLOW_OK)
      ret = take_flow (sc);
  } else {
    while (ret == GST_FLOW_OK && sc->in_flight > 0)
      ret = complete_and_push (sc);
  }
  return ret;
}

/* Drop every frame in flight (the device done with its buffers first) and
 * what the lookahead owes; the output thread is idle or gone. */
static void
drop_all (GstCvScheduler * sc)
{
  GstCvSlot *s;

  g_mutex_lock (&sc->lock);
  while (sc->current)
    g_cond_wait (&sc->cond, &sc->lock);
  while ((s = g_queue_pop_head (&sc->queue))) {
    g_mutex_unlock (&sc->lock);
    sc->be->sync (sc->self, s);
    slot_clear (sc, s);
    g_mutex_lock (&sc->lock);
    slot_free (sc, s);
  }
  g_mutex_unlock (&sc->lock);
  lookahead_reset (sc);
}

void
gst_cv_scheduler_flush_start (GstCvScheduler * sc)
{
  g_mutex_lock (&sc->lock);
  sc->flushing = TRUE;
  g_cond_broadcast (&sc->cond);
  g_mutex_unlock (&sc->lock);
}

void
gst_cv_scheduler_flush_stop (GstCvScheduler * sc)
{
  /* (a FLUSH_STOP without FLUSH_START too: the output thread stops
   * taking frames first) */
  gst_cv_scheduler_flush_start (sc);
  if (sc->be)
    drop_all (sc);
  g_mutex_lock (&sc->lock);
  sc->flushing = FALSE;
  sc->flow = GST_FLOW_OK;
  sc->position = GST_CLOCK_TIME_NONE;
  g_mutex_unlock (&sc->lock);
}

/* every slot's operator and backend state (nothing in flight) */
static void
free_slots (GstCvScheduler * sc)
{
  guint i;

  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH; i++) {
    GstCvSlot *s = &sc->slots[i];

    g_assert (!s->busy);
    if (sc->be)
      sc->be->slot_free (sc->self, s);
    g_clear_pointer (&s->params, g_free);
  }
}

void
gst_cv_scheduler_reset (GstCvScheduler * sc)
{
  GstFlowReturn ret;

  if (!sc->be)
    return;
  ret = gst_cv_scheduler_drain (sc, TRUE);
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (sc->self, "drain before new caps: %s",
        gst_flow_get_name (ret));
    drop_all (sc);
  }
  free_slots (sc);
  g_mutex_lock (&sc->lock);
  sc->completed = 0;
  g_mutex_unlock (&sc->lock);
}

gboolean
gst_cv_scheduler_start (GstCvScheduler * sc, const GstCvBackend * be,
    guint depth)
{
  GError *err = NULL;

  g_return_val_if_fail (sc->be == NULL, FALSE);
  sc->be = be;
  sc->async = be->async;
  g_mutex_lock (&sc->lock);
  sc->depth = sc->async ? CLAMP (depth, 1, GST_CUDA_VISION_MAX_DEPTH) : 1;
  sc->flushing = sc->stopping = FALSE;
  sc->flow = GST_FLOW_OK;
  sc->position = GST_CLOCK_TIME_NONE;
  sc->completed = 0;
  sc->proc_max = sc->proc_reported = 0;
  sc->stats_frames = 0;
  sc->stats_start = 0;
  sc->last_finish_us = 0;
  g_mutex_unlock (&sc->lock);
  if (sc->async) {
    sc->thread = g_thread_try_new ("cudavision-out", output_loop, sc, &err);
    if (!sc->thread) {
      GST_ELEMENT_ERROR (sc->self, RESOURCE, FAILED, ("Could not start the "
              "output thread: %s", err->message), (NULL));
      g_error_free (err);
      sc->be = NULL;
      return FALSE;
    }
  }
  return TRUE;
}

void
gst_cv_scheduler_stop (GstCvScheduler * sc)
{
  if (!sc->be)
    return;
  g_mutex_lock (&sc->lock);
  sc->stopping = sc->flushing = TRUE;
  g_cond_broadcast (&sc->cond);
  g_mutex_unlock (&sc->lock);
  if (sc->thread) {
    g_thread_join (sc->thread);
    sc->thread = NULL;
  }
  drop_all (sc);
  free_slots (sc);
  sc->be = NULL;
}

void
gst_cv_scheduler_free (GstCvScheduler * sc)
{
  gst_cv_scheduler_stop (sc);
  lookahead_reset (sc);
  g_mutex_clear (&sc->lock);
  g_cond_clear (&sc->cond);
  g_free (sc);
}

gboolean
gst_cv_scheduler_is_async (GstCvScheduler * sc)
{
  return sc->be != NULL && sc->async;
}

void
gst_cv_scheduler_set_depth (GstCvScheduler * sc, guint depth)
{
  g_mutex_lock (&sc->lock);
  if (sc->async)
    sc->depth = CLAMP (depth, 1, GST_CUDA_VISION_MAX_DEPTH);
  g_cond_broadcast (&sc->cond);
  g_mutex_unlock (&sc->lock);
}

guint
gst_cv_scheduler_get_depth (GstCvScheduler * sc)
{
  guint d;

  g_mutex_lock (&sc->lock);
  d = sc->depth;
  g_mutex_unlock (&sc->lock);
  return d;
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
