/* gst-cuda-vision: the scheduler of the base element (gstcvscheduler.h).
 *
 * pipeline-depth slots, and one operator for them (made at negotiation
 * with as many slots: a frame runs in its slot's index, gstcvschedop.c).
 * A frame enters in gst_cv_scheduler_submit () in the streaming thread: a
 * free slot (waiting while every slot is busy: back-pressure), its output
 * buffer, its buffers mapped and checked, its parameters snapshot, the
 * subclass's prepare_frame (), the backend's submit. It leaves, oldest
 * first, in complete (): the backend's wait, statistics, the operator's
 * results (of the frame's slot), the subclass's finish_frame ().
 *
 * Asynchronous backends (CUDA): complete () runs as soon as the frame's
 * GPU work is done, and the output is pushed from there: no frame waits
 * for the next one to arrive (a live camera gets the GPU's time of added
 * latency, not a frame interval), while up to depth frames overlap (frame
 * k uploads while k-1 computes and k-2 downloads). Who completes it
 * (docs/base-class.md, "Who completes a frame"): the scheduler's output
 * thread, at once for frames that arrive apart (a camera) or while the
 * device is behind; in a burst (GstCvBurst: the streaming thread back
 * within 200 us, 3 times of the last 4) the streaming thread itself,
 * after its next submission, for every frame done by then (no thread
 * woken: the cost of a wake-up is the host's largest per frame), the
 * output thread only for a frame still there a handover (4 submission
 * intervals, 0.2-2 ms) after it was queued, or when a thread waits for a
 * slot or a drain. One frame is completed at a time, oldest first
 * (sc->current), so outputs leave in order. Serialized events and
 * queries wait until every earlier frame is pushed
 * (gst_cv_scheduler_drain ()); flushing drops the frames in flight; a
 * flow return other than OK met pushing reaches upstream from the next
 * submission.
 * Synchronous backends (CPU): complete () runs in the streaming thread
 * right after the submission, through GstBaseTransform's generate_output.
 *
 * The lookahead is gstcvlookahead.c's, the statistics and the latency
 * gstcvschedstats.c's, a slot's frame gstcvslot.c's, the operator
 * gstcvschedop.c's; their shared state
 * and its locking: gstcvscheduler-private.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "gstcvscheduler-private.h"
#include "gstcvcudacontext.h"
#include "gstcvtrace.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

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
  g_cond_init (&sc->out_cond);
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




/* lock held */
static void
slot_free (GstCvScheduler * sc, GstCvSlot * s)
{
  g_assert (s->busy && sc->in_flight > 0);
  s->busy = FALSE;
  sc->in_flight--;
  gst_cv_sched_wake (sc);
}

/* A free slot for the next frame: waits while depth frames are in flight
 * (asynchronous), or completes and pushes the oldest (synchronous: the
 * frames a lookahead owes at its drain). */
static GstFlowReturn complete_and_push (GstCvScheduler * sc);
static gboolean complete_done_locked (GstCvScheduler * sc);

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
      /* the oldest done already: completed here, no thread woken (but
       * not while the device is behind: the output thread's then) */
      if (!sc->behind && complete_done_locked (sc))
        continue;
      sc->urgent++;
      gst_cv_sched_out_wake (sc, 0);
      gst_cv_sched_wait (sc);
      sc->urgent--;
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
/* Submission (the streaming thread) */


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
GstFlowReturn
gst_cv_sched_submit_frame (GstCvScheduler * sc, GstBuffer * inbuf,
    GstBuffer * metabuf, gint64 store, gint64 centre, guint radius,
    gboolean discont)
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
  gst_cv_slot_clear_params (sc->self, s);
  if (GST_BUFFER_PTS_IS_VALID (inbuf))
    gst_object_sync_values (GST_OBJECT (self),
        gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
            GST_BUFFER_PTS (inbuf)));
  if (klass->get_params) {
    klass->get_params (self, s->params);
    s->params_set = TRUE;
  }

  CV_TRACE_PUSH ("cv:map");
  ret = gst_cv_slot_map (sc->self, s);
  CV_TRACE_POP ();
  if (ret == GST_FLOW_OK && klass->prepare_frame) {
    gst_cv_slot_view (sc->self, s, &frame);
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
  s->take_at = sc->handover_us > 0 ?
      t_start + s->submit_us + sc->handover_us : 0;
  if (s->take_at == 0) {
    GList *l;

    /* the output thread takes frames in order: those before it are due
     * too */
    for (l = sc->queue.head; l; l = l->next)
      ((GstCvSlot *) l->data)->take_at = 0;
  }
  g_queue_push_tail (&sc->queue, s);
  gst_cv_sched_out_wake (sc, s->take_at);
  g_mutex_unlock (&sc->lock);
  CV_TRACE_POP ();
  return GST_FLOW_OK;

failed:
  gst_cv_slot_clear (sc->self, s);
  g_mutex_lock (&sc->lock);
  slot_free (sc, s);
  g_mutex_unlock (&sc->lock);
  CV_TRACE_POP ();
  return ret;
}

GstFlowReturn
gst_cv_scheduler_submit (GstCvScheduler * sc, GstBuffer * inbuf,
    gboolean discont)
{
  GstFlowReturn ret;
  gboolean inline_ok;

  g_return_val_if_fail (sc->be != NULL, GST_FLOW_FLUSHING);
  /* a fatal result of the output thread refuses the frame */
  ret = take_flow (sc);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  /* in a burst the next frame is expected soon: this one waits for it,
   * and the streaming thread completes what is done, unless the device
   * is behind (its frames would not be done by then: the output thread
   * completes them, as it does frames apart) */
  inline_ok = gst_cv_burst_enter (&sc->burst, g_get_monotonic_time (),
      &sc->handover_us) && sc->async && sc->be->done && !sc->behind;
  if (!inline_ok)
    sc->handover_us = 0;
  ret = gst_cv_sched_lookahead_submit (sc, inbuf, discont);
  sc->handover_us = 0;
  if (sc->async) {
    if (ret == GST_FLOW_OK && sc->be->done) {
      GstCvSlot *head, *last;

      g_mutex_lock (&sc->lock);
      if (inline_ok)
        while (complete_done_locked (sc));
      /* behind: a frame before this one still running on the device */
      head = g_queue_peek_head (&sc->queue);
      last = g_queue_peek_tail (&sc->queue);
      sc->behind = (sc->current && !sc->be->done (sc->self, sc->current))
          || (head && head != last && !sc->be->done (sc->self, head));
      g_mutex_unlock (&sc->lock);
    }
    if (ret == GST_FLOW_OK)
      ret = take_flow (sc);
  }
  gst_cv_burst_leave (&sc->burst, g_get_monotonic_time ());
  return ret;
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
    gst_cv_sched_add_stats (sc, s, ms, latency, (gdouble) (t1 - t0));

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

    gst_cv_slot_view (sc->self, s, &frame);
    frame.results = priv->ops->results && priv->op ?
        priv->ops->results (priv->op, (int) s->index) : NULL;
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
    gst_cv_sched_outgoing (sc, s, buf);
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (sc->self), buf);
  }
  gst_cv_slot_clear (sc->self, s);
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
    gst_cv_sched_outgoing (sc, s, *outbuf);
  gst_cv_slot_clear (sc->self, s);
  g_mutex_lock (&sc->lock);
  slot_free (sc, s);
  g_mutex_unlock (&sc->lock);
  return ret;
}

/* Asynchronous mode: complete frame s (sc->current, taken from the queue
 * by this thread) and push its output; the flow return kept for upstream,
 * the slot freed. Lock not held. */
static void
complete_one (GstCvScheduler * sc, GstCvSlot * s)
{
  GstCudaVisionBase *self = sc->self;
  GstBuffer *buf = NULL;
  GstFlowReturn ret;
  gboolean drop;

  ret = complete (sc, s, &buf);

  g_mutex_lock (&sc->lock);
  /* flushing: dropped; after a fatal result: dropped, upstream is told
   * at its next submission */
  drop = sc->flushing || flow_is_fatal (sc->flow);
  g_mutex_unlock (&sc->lock);
  if (buf && !drop && ret == GST_FLOW_OK) {
    gst_cv_sched_outgoing (sc, s, buf);
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "pushing a frame: %s", gst_flow_get_name (ret));
  } else if (buf) {
    gst_buffer_unref (buf);
  }
  gst_cv_slot_clear (sc->self, s);

  g_mutex_lock (&sc->lock);
  if (ret != GST_FLOW_OK && !(sc->flushing && ret == GST_FLOW_FLUSHING)
      && (sc->flow == GST_FLOW_OK || (flow_is_fatal (ret)
              && !flow_is_fatal (sc->flow))))
    sc->flow = ret;
  sc->current = NULL;
  slot_free (sc, s);
  /* the next frame, when it is due now and the output thread sleeps
   * past it (it slept while this one was completed) */
  if (!g_queue_is_empty (&sc->queue)) {
    GstCvSlot *next = g_queue_peek_head (&sc->queue);

    if (sc->urgent || next->take_at <= g_get_monotonic_time ())
      gst_cv_sched_out_wake (sc, 0);
  }
  g_mutex_unlock (&sc->lock);
}

/* Lock held: the streaming thread completes and pushes the oldest frame
 * when nothing else is being completed and the backend says it is done
 * (the lock released meanwhile). TRUE: one was. */
static gboolean
complete_done_locked (GstCvScheduler * sc)
{
  GstCvSlot *s = g_queue_peek_head (&sc->queue);

  if (!s || sc->current || sc->flushing || sc->stopping
      || flow_is_fatal (sc->flow) || !sc->be->done
      || !sc->be->done (sc->self, s))
    return FALSE;
  g_queue_pop_head (&sc->queue);
  sc->current = s;
  g_mutex_unlock (&sc->lock);
  CV_TRACE_PUSH ("cv:complete-inline");
  complete_one (sc, s);
  CV_TRACE_POP ();
  g_mutex_lock (&sc->lock);
  return TRUE;
}

/* sc->lock held: the output thread sleeps on its condition until `until`
 * (monotonic us; G_MAXINT64: until woken) */
static void
out_wait (GstCvScheduler * sc, gint64 until)
{
  sc->out_wait_until = until;
  if (until == G_MAXINT64)
    g_cond_wait (&sc->out_cond, &sc->lock);
  else
    g_cond_wait_until (&sc->out_cond, &sc->lock, until);
  sc->out_wait_until = 0;
}

/* The output thread: complete the oldest frame as soon as the backend
 * says it is done and push it, from its take_at on (at once when a thread
 * waits for a slot or a drain); nothing while flushing (FLUSH_STOP drops
 * what is queued) or while the streaming thread completes one. */
static gpointer
output_loop (gpointer data)
{
  GstCvScheduler *sc = data;
  GstCudaVisionBase *self = sc->self;

  GST_DEBUG_OBJECT (self, "output thread started");
#ifdef __linux__
  /* the CUDA backend's waits sleep a few microseconds at a time
   * (gstcvcudaslot.c); with Linux's default timer slack each would last
   * 50 us more. It applies to everything this thread runs, downstream's
   * timed waits included (harmless: they wake on time, not later).
   * Elsewhere g_usleep's granularity is the system's. */
  prctl (PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
  g_mutex_lock (&sc->lock);
  while (!sc->stopping) {
    GstCvSlot *s;

    if (sc->flushing || g_queue_is_empty (&sc->queue)) {
      out_wait (sc, G_MAXINT64);
      continue;
    }
    if (sc->current) {
      /* the streaming thread completes one: back when the next is due
       * (signalled then, if it is now) or in a handover at the latest */
      out_wait (sc, g_get_monotonic_time () + GST_CV_HANDOVER_MIN_US);
      continue;
    }
    s = g_queue_peek_head (&sc->queue);
    if (!sc->urgent && s->take_at > 0 && s->take_at > g_get_monotonic_time ()) {
      out_wait (sc, s->take_at);
      continue;
    }
    sc->current = g_queue_pop_head (&sc->queue);
    g_mutex_unlock (&sc->lock);
    complete_one (sc, s);
    g_mutex_lock (&sc->lock);
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
  if (finish_lookahead)
    ret = gst_cv_sched_lookahead_finish (sc);
  if (sc->async) {
    g_mutex_lock (&sc->lock);
    if (sc->in_flight)
      GST_DEBUG_OBJECT (sc->self, "waiting for %u frames", sc->in_flight);
    sc->urgent++;
    gst_cv_sched_out_wake (sc, 0);
    while (sc->in_flight > 0 && !sc->flushing)
      gst_cv_sched_wait (sc);
    sc->urgent--;
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
    gst_cv_sched_wait (sc);
  while ((s = g_queue_pop_head (&sc->queue))) {
    g_mutex_unlock (&sc->lock);
    sc->be->sync (sc->self, s);
    gst_cv_slot_clear (sc->self, s);
    g_mutex_lock (&sc->lock);
    slot_free (sc, s);
  }
  g_mutex_unlock (&sc->lock);
  gst_cv_sched_lookahead_reset (sc);
}

void
gst_cv_scheduler_flush_start (GstCvScheduler * sc)
{
  g_mutex_lock (&sc->lock);
  sc->flushing = TRUE;
  gst_cv_sched_wake (sc);
  gst_cv_sched_out_wake (sc, 0);
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
  gst_cv_sched_free_slots (sc);
  g_mutex_lock (&sc->lock);
  sc->completed = 0;
  sc->op_slots = 0;
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
  sc->want_depth = sc->depth;
  sc->flushing = sc->stopping = FALSE;
  sc->flow = GST_FLOW_OK;
  sc->position = GST_CLOCK_TIME_NONE;
  sc->completed = 0;
  sc->proc_max = sc->proc_reported = 0;
  sc->stats_frames = 0;
  sc->stats_start = 0;
  sc->last_finish_us = 0;
  gst_cv_burst_reset (&sc->burst);
  sc->handover_us = 0;
  sc->behind = FALSE;
  sc->urgent = 0;
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
  gst_cv_sched_wake (sc);
  gst_cv_sched_out_wake (sc, 0);
  g_mutex_unlock (&sc->lock);
  if (sc->thread) {
    g_thread_join (sc->thread);
    sc->thread = NULL;
  }
  drop_all (sc);
  gst_cv_sched_free_slots (sc);
  sc->op_slots = 0;
  sc->be = NULL;
}

void
gst_cv_scheduler_free (GstCvScheduler * sc)
{
  gst_cv_scheduler_stop (sc);
  gst_cv_sched_lookahead_reset (sc);
  g_mutex_clear (&sc->lock);
  g_cond_clear (&sc->cond);
  g_cond_clear (&sc->out_cond);
  g_free (sc);
}

gboolean
gst_cv_scheduler_is_async (GstCvScheduler * sc)
{
  return sc->be != NULL && sc->async;
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
