/* gst-cuda-vision: the scheduler of the base element: the frames in flight,
 * the lookahead of temporal filters, the output task and the statistics.
 * See docs/base-class.md ("The scheduler").
 *
 * One scheduler per element, created at init and freed at finalize;
 * started at GstBaseTransform::start with the backend chosen there and
 * stopped at ::stop. Its state is its own (an opaque struct): the base
 * and the backends reach it through these functions only.
 *
 * Two modes, one code path:
 * - asynchronous (the CUDA backend): the streaming thread maps, snapshots
 *   and submits a frame and returns; an output thread owned by the
 *   scheduler waits for the oldest frame's completion and pushes it on the
 *   source pad at once, oldest first (in a burst of frames, the streaming
 *   thread pushes those done by its next submission itself:
 *   docs/base-class.md, "Who completes a frame"). The streaming thread
 *   blocks only while `pipeline-depth` frames are in flight
 *   (back-pressure).
 * - synchronous (the CPU backend): depth 1 and no thread: the frame is
 *   computed in the streaming thread and handed to GstBaseTransform by
 *   generate_output.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_SCHEDULER_H__
#define __GST_CV_SCHEDULER_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS

typedef struct _GstCvScheduler GstCvScheduler;
typedef struct _GstCvBackend GstCvBackend;

GstCvScheduler *gst_cv_scheduler_new (GstCudaVisionBase * self);
void gst_cv_scheduler_free (GstCvScheduler * sc);

/* At GstBaseTransform::start: frames go to backend be; with an output
 * thread when the backend is asynchronous (be->async). FALSE (an element
 * error posted) when the thread cannot be started. */
gboolean gst_cv_scheduler_start (GstCvScheduler * sc, const GstCvBackend * be,
    guint depth);
/* At ::stop (and finalize): the output thread joined, the frames in
 * flight and owed dropped, every slot's operator and backend state freed.
 * Safe when not started. */
void gst_cv_scheduler_stop (GstCvScheduler * sc);
gboolean gst_cv_scheduler_is_async (GstCvScheduler * sc);

/* The most frames in flight (pipeline-depth; 1 when synchronous), from
 * the next submission on (the streaming thread, negotiated): less than the
 * operator's slots at once; more: the frames in flight leave, the operator
 * is made again with that many slots (FALSE flow: the drain's, or
 * GST_FLOW_ERROR with the error posted), except with a lookahead (its
 * frames live in the operator): then the bound stays at the operator's
 * slots until the next caps. */
GstFlowReturn gst_cv_scheduler_apply_depth (GstCvScheduler * sc, guint depth);
guint gst_cv_scheduler_get_depth (GstCvScheduler * sc);

/* The lookahead (gst_cuda_vision_base_set_lookahead ()): set while
 * nothing is owed (set_info, after gst_cv_scheduler_reset ()). */
void gst_cv_scheduler_set_lookahead (GstCvScheduler * sc, guint frames);
guint gst_cv_scheduler_get_lookahead (GstCvScheduler * sc);

/* The streaming thread: submit inbuf (taken; discont: its output is marked
 * DISCONT). Blocks while the frames in flight fill every slot; pushes
 * the frames done by then (asynchronous mode, see above). Returns the
 * submission's result, else the first flow return other than OK that a
 * completion met since the previous call (downstream's, or an error of a
 * frame's completion, in this thread or the output thread). */
GstFlowReturn gst_cv_scheduler_submit (GstCvScheduler * sc, GstBuffer * inbuf,
    gboolean discont);
/* GstBaseTransform::generate_output: synchronous mode: the frame just
 * submitted, computed (NULL: none, e.g. the first frames of a lookahead);
 * asynchronous mode: always NULL (the output thread pushes). */
GstFlowReturn gst_cv_scheduler_generate (GstCvScheduler * sc,
    GstBuffer ** outbuf);
/* Before a serialized event or query: returns once every frame submitted
 * so far has been pushed (or dropped, flushing). With finish_lookahead the
 * frames a lookahead still owes are submitted first, their window shrunk
 * to the frames that exist (EOS, SEGMENT, STREAM_START, caps). */
GstFlowReturn gst_cv_scheduler_drain (GstCvScheduler * sc,
    gboolean finish_lookahead);
/* Caps change: drain (lookahead included), then free the operator (it
 * belongs to the old caps) and the slots' state. */
void gst_cv_scheduler_reset (GstCvScheduler * sc);
/* At negotiation, after set_info: the element's one operator, made for
 * the negotiated info and depth frames in flight (pipeline-depth now; 1
 * when synchronous). FALSE when it cannot be made: with post, the error
 * is posted (the caps are to be refused). */
gboolean gst_cv_scheduler_create_operators (GstCvScheduler * sc,
    guint depth, gboolean post);
/* FLUSH_START and PAUSED -> READY: submissions and drains waiting return
 * GST_FLOW_FLUSHING at once; nothing more is pushed. */
void gst_cv_scheduler_flush_start (GstCvScheduler * sc);
/* FLUSH_STOP: the frames in flight and owed dropped, the flow return
 * cleared; the next output is marked DISCONT. */
void gst_cv_scheduler_flush_stop (GstCvScheduler * sc);

/* The LATENCY query's additions: the lookahead in frame durations of
 * info's framerate, and the processing time (the longest time a frame has
 * spent in the element after the first frames, measured). */
void gst_cv_scheduler_latency (GstCvScheduler * sc, const GstVideoInfo * info,
    GstQuery * query);
/* The end time (PTS + duration) of the last buffer pushed by the output
 * thread, GST_CLOCK_TIME_NONE when none (POSITION queries). */
GstClockTime gst_cv_scheduler_position (GstCvScheduler * sc);
/* cudavision-stats: post what is left (EOS, stop). */
void gst_cv_scheduler_final_stats (GstCvScheduler * sc);

G_END_DECLS
#endif
