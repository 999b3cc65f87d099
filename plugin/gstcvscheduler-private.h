/* gst-cuda-vision: the scheduler's state and the functions its units
 * share (internal to gstcvscheduler.c, gstcvschedstats.c,
 * gstcvlookahead.c and gstcvslot.c; every other unit goes through
 * gstcvscheduler.h).
 *
 * Locking: sc->lock guards the slots' busy flags, the queue of frames in
 * flight, the flags, the flow return, the statistics and the latency
 * figures; a slot's contents belong to the thread that holds it (the
 * streaming thread from acquire to the queue, the completing thread after
 * it). The lookahead's state is the streaming thread's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_SCHEDULER_PRIVATE_H__
#define __GST_CV_SCHEDULER_PRIVATE_H__

#include "gstcudavisionbase-private.h"
#include "gstcvwaitschedule.h"

G_BEGIN_DECLS

/* frames after start (or a caps change) not counted in the processing
 * latency: the first frames load modules and allocate */
#define WARM_UP_FRAMES 4

struct _GstCvScheduler
{
  GstCudaVisionBase *self;      /* the element (not a reference) */
  const GstCvBackend *be;       /* NULL: not started */
  gboolean async;

  GMutex lock;
  GCond cond;                   /* a slot freed, a completion ended, a
                                 * flag: waited on with gst_cv_sched_wait
                                 * (), signalled with gst_cv_sched_wake () */
  guint waiters;                /* threads in gst_cv_sched_wait () */
  GCond out_cond;               /* the output thread's alone: a frame due
                                 * sooner than it sleeps, a thread that
                                 * needs a frame taken now, a flag */
  gint64 out_wait_until;        /* the output thread sleeps on out_cond
                                 * until then (monotonic us; G_MAXINT64:
                                 * no timeout); 0: it does not sleep */
  guint urgent;                 /* threads waiting for the output thread to
                                 * take frames at once (a slot, a drain) */
  guint depth;                  /* the bound: <= op_slots once made */
  guint want_depth;             /* pipeline-depth as last applied */
  guint op_slots;               /* the operator's slots, 0: none */
  GstCvSlot slots[GST_CUDA_VISION_MAX_DEPTH];
  GQueue queue;                 /* GstCvSlot *: submitted, oldest first */
  GstCvSlot *current;           /* the frame being completed (by the
                                 * output thread, or by the streaming
                                 * thread once done): one at a time, so
                                 * outputs leave in order */
  guint in_flight;              /* busy slots */
  gboolean flushing, stopping;
  GstFlowReturn flow;           /* the output thread's first result other
                                 * than OK, not yet returned upstream */
  GThread *thread;
  GstClockTime position;        /* end of the last buffer pushed */

  /* the streaming thread's: whether frames come in a burst
   * (gstcvwaitschedule.h), and this submission's handover: its frame
   * waits that long (us) for the next submission before the output thread
   * takes it (0: a frame apart, the output thread's at once) */
  GstCvBurst burst;
  gint64 handover_us;
  /* the streaming thread's: after its last submission an earlier frame
   * was still running (the device behind the host: its frames would not
   * be done by the next submission, so they go to the output thread at
   * once, as frames apart do) */
  gboolean behind;

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

static inline const gchar *
backend_where (GstCvScheduler * sc)
{
  return sc->be->kind == GST_CUDA_VISION_BACKEND_CPU ? "CPU" : "GPU";
}

/* sc->lock held. g_cond_broadcast () is a futex system call whether or
 * not a thread waits (GLib's Linux GCond): per frame the submission and
 * the completion each signal, so it is skipped when no thread waits
 * (0.17 us of CPU each on an H100's host, issue #24). Every
 * wait on sc->cond goes through gst_cv_sched_wait () and every signal
 * through gst_cv_sched_wake (), both under sc->lock, so a waiter counted
 * before it releases the lock is never missed. */
static inline void
gst_cv_sched_wake (GstCvScheduler * sc)
{
  if (sc->waiters > 0)
    g_cond_broadcast (&sc->cond);
}

static inline void
gst_cv_sched_wait (GstCvScheduler * sc)
{
  sc->waiters++;
  g_cond_wait (&sc->cond, &sc->lock);
  sc->waiters--;
}

/* sc->lock held: wake the output thread when it sleeps past `due`
 * (monotonic us; 0: whenever it sleeps). It sleeps until the oldest
 * frame's take_at, and frames are queued in the order of their take_at
 * (0 first), so a frame queued behind another needs no signal. */
static inline void
gst_cv_sched_out_wake (GstCvScheduler * sc, gint64 due)
{
  if (sc->out_wait_until > due)
    g_cond_signal (&sc->out_cond);
}

/* gstcvschedop.c: the operator (priv->op), then every slot's backend
 * state and parameter snapshot (nothing in flight) */
void gst_cv_sched_free_slots (GstCvScheduler * sc);

/* gstcvslot.c: a slot's frame, mapped and checked against the caps (an
 * element error otherwise), as the subclass sees it, released (buffers,
 * mappings, parameter snapshot; not the busy flag) */
GstFlowReturn gst_cv_slot_map (GstCudaVisionBase * self, GstCvSlot * s);
void gst_cv_slot_view (GstCudaVisionBase * self, GstCvSlot * s,
    GstCudaVisionFrame * f);
void gst_cv_slot_clear_params (GstCudaVisionBase * self, GstCvSlot * s);
void gst_cv_slot_clear (GstCudaVisionBase * self, GstCvSlot * s);

/* gstcvscheduler.c: submit inbuf (taken) as frame `store` producing the
 * output of frame `centre` (metabuf, taken: the buffer the output buffer
 * is made from; NULL: inbuf, and no output when centre < 0 with a
 * lookahead) */
GstFlowReturn gst_cv_sched_submit_frame (GstCvScheduler * sc,
    GstBuffer * inbuf, GstBuffer * metabuf, gint64 store, gint64 centre,
    guint radius, gboolean discont);

/* gstcvschedstats.c: a completed frame's timings (s NULL: the end of the
 * stream), and an output about to leave (position, processing latency) */
void gst_cv_sched_add_stats (GstCvScheduler * sc, GstCvSlot * s,
    const gdouble ms[3], gdouble latency, gdouble wait_us);
void gst_cv_sched_outgoing (GstCvScheduler * sc, GstCvSlot * s,
    GstBuffer * buf);

/* gstcvlookahead.c: an input through the lookahead (the streaming
 * thread); the frames still owed submitted without input (a drain with
 * finish_lookahead); what is owed discarded */
GstFlowReturn gst_cv_sched_lookahead_submit (GstCvScheduler * sc,
    GstBuffer * inbuf, gboolean discont);
GstFlowReturn gst_cv_sched_lookahead_finish (GstCvScheduler * sc);
void gst_cv_sched_lookahead_reset (GstCvScheduler * sc);

G_END_DECLS
#endif
