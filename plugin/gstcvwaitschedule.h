/* gst-cuda-vision: when the output thread looks at a frame on the GPU
 * (wait-mode, docs/base-class.md): the recent frames' times, the first
 * sleep they give, the steps after it, and the wait itself, with the
 * query of the frame's state and the clock as callbacks; and when frames
 * come in a burst, whose frames the streaming thread completes
 * (GstCvBurst, the scheduler's). No CUDA call and
 * no GStreamer call: the CUDA backend waits with it (gstcvcudaslot.c:
 * cudaEventQuery, the monotonic clock), and tests/test_waitschedule.c with
 * a stand-in event and a clock of its own, on machines without a GPU
 * (internal header).
 *
 * All times are in microseconds; instants are on the clock's time line
 * (g_get_monotonic_time () for the CUDA backend).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_WAIT_SCHEDULE_H__
#define __GST_CV_WAIT_SCHEDULE_H__

#include <glib.h>

#include "gstcudavisionbase.h"

G_BEGIN_DECLS

/* the frames' times kept (the last ones) */
#define GST_CV_WAIT_RING 16
/* the times needed before there is an expectation (a first sleep) */
#define GST_CV_WAIT_MIN_TIMES 4
/* how long spin-then-block queries before it sleeps */
#define GST_CV_WAIT_SPIN_US 100
/* the bounds of the steps after the first sleep */
#define GST_CV_WAIT_STEP_MIN_US 4
#define GST_CV_WAIT_STEP_MAX_US 250

/**
 * GstCvWaitSchedule:
 * @took_us: the last frames' times from submission to done (us), a ring
 *   of GST_CV_WAIT_RING; entry (n % GST_CV_WAIT_RING) is the n-th time
 *   recorded since the last reset
 * @took_n: the times recorded since the last reset (the ring holds the
 *   last MIN (@took_n, GST_CV_WAIT_RING) of them)
 *
 * What the waits learn from the frames they saw. All zero is the reset
 * state (no time yet). Not locked: one thread waits (the output thread).
 */
typedef struct
{
  gint took_us[GST_CV_WAIT_RING];
  guint took_n;
} GstCvWaitSchedule;

/**
 * gst_cv_wait_schedule_reset:
 * @ws: the schedule
 *
 * Forget every time (new caps: new frames, new times). The expectation is
 * 0 again until GST_CV_WAIT_MIN_TIMES times are recorded.
 */
void gst_cv_wait_schedule_reset (GstCvWaitSchedule * ws);

/**
 * gst_cv_wait_schedule_record:
 * @ws: the schedule
 * @took_us: a frame's time from submission to done as
 *   gst_cv_wait_schedule_wait () returned it (us, >= 0; larger than
 *   G_MAXINT is kept as G_MAXINT), or -1 (done at the first query: the
 *   host's time, not the GPU's), which is not recorded
 *
 * Keep a frame's time, in place of the oldest of the GST_CV_WAIT_RING
 * kept once the ring is full.
 */
void gst_cv_wait_schedule_record (GstCvWaitSchedule * ws, gint64 took_us);

/**
 * gst_cv_wait_schedule_expectation:
 * @ws: the schedule
 *
 * Returns: the time (us) a frame is expected to take from submission to
 * done: the lower median of the times kept (the (n - 1) / 2-th smallest of
 * n: one slow frame among them does not move it), or 0 (no expectation:
 * no first sleep) while fewer than GST_CV_WAIT_MIN_TIMES are kept.
 */
gint gst_cv_wait_schedule_expectation (const GstCvWaitSchedule * ws);

/**
 * gst_cv_wait_schedule_first_deadline:
 * @submitted: when the frame was submitted (us, the clock's time line)
 * @expect_us: the expectation (gst_cv_wait_schedule_expectation (), >= 0)
 *
 * Returns: the instant the first sleep lasts until: @submitted + 3/4 of
 * @expect_us (rounded down). With no expectation (0) that is @submitted
 * itself: no first sleep.
 */
gint64 gst_cv_wait_schedule_first_deadline (gint64 submitted, gint expect_us);

/**
 * gst_cv_wait_schedule_step:
 * @elapsed_us: the time since the frame's submission (us; any value)
 *
 * Returns: the sleep (us) between two queries after the first sleep: 1/8
 * of @elapsed_us (rounded down), within GST_CV_WAIT_STEP_MIN_US ..
 * GST_CV_WAIT_STEP_MAX_US (4 .. 250). A frame is then seen done at most
 * that long after it was done.
 */
gint64 gst_cv_wait_schedule_step (gint64 elapsed_us);

/**
 * GstCvWaitQueryFunc:
 * @user_data: the query's data
 *
 * Ask whether the frame is still running (cudaEventQuery (): not ready).
 * Whatever else it learns (done, or an error) is the caller's to keep in
 * @user_data.
 *
 * Returns: TRUE while the frame is running, FALSE once it is done or the
 * query failed (the wait then ends).
 */
typedef gboolean (*GstCvWaitQueryFunc) (gpointer user_data);

/**
 * GstCvWaitClock:
 * @now: the time now (us, monotonic)
 * @sleep: sleep for us microseconds (> 0)
 * @user_data: passed to both
 *
 * The clock a wait reads and sleeps on; NULL in gst_cv_wait_schedule_wait
 * () is the real one (g_get_monotonic_time (), g_usleep ()).
 */
typedef struct
{
  gint64 (*now) (gpointer user_data);
  void (*sleep) (gpointer user_data, gint64 us);
  gpointer user_data;
} GstCvWaitClock;

/**
 * gst_cv_wait_schedule_wait:
 * @mode: the element's wait-mode for this frame
 * @submitted: when the frame was submitted (us, on @clock's time line)
 * @expect_us: the expectation (gst_cv_wait_schedule_expectation (); 0:
 *   none)
 * @query: asks whether the frame is still running
 * @query_data: @query's data
 * @clock: the clock, or NULL for the real one
 *
 * Wait until @query says the frame is no longer running, as @mode says:
 * - %GST_CUDA_VISION_WAIT_BLOCK: one query; while running, a first sleep
 *   until gst_cv_wait_schedule_first_deadline () (none when that has
 *   passed), then a query after each sleep of gst_cv_wait_schedule_step
 *   () of the time since @submitted;
 * - %GST_CUDA_VISION_WAIT_SPIN: queries without sleeping until done;
 * - %GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK: queries without sleeping for
 *   GST_CV_WAIT_SPIN_US from the first one, then as block (its first
 *   sleep included, where its deadline is still ahead).
 *
 * Returns: the frame's time from @submitted to done as far as this wait
 * saw it (us): the middle between the clock read after the last query
 * that found it running and the clock read after the one that found it
 * done; -1 when the first query found it done already (that time is the
 * host's, not the GPU's: not to be recorded).
 */
gint64 gst_cv_wait_schedule_wait (GstCudaVisionWaitMode mode,
    gint64 submitted, gint expect_us, GstCvWaitQueryFunc query,
    gpointer query_data, const GstCvWaitClock * clock);

/* Bursts (docs/base-class.md, "Who completes a frame"): a gap, from the
 * streaming thread's return to its next submission, shorter than this is
 * short */
#define GST_CV_BURST_GAP_US 200
/* frames come in a burst while this many of the last 4 gaps were short */
#define GST_CV_BURST_MIN_SHORT 3
/* the bounds of the handover (4 times the smoothed interval between two
 * submissions) */
#define GST_CV_HANDOVER_MIN_US 200
#define GST_CV_HANDOVER_MAX_US 2000

/**
 * GstCvBurst:
 * @last_enter: when the last submission entered (us; 0: none yet)
 * @last_return: when the last submission returned (us; 0: none yet)
 * @period_us: the interval between two submissions' entries, smoothed
 *   (each new interval moves it by 1/8 of the difference; 0: none yet)
 * @short_gaps: the last 4 gaps, one bit each (bit 0 the last): 1 = short
 *
 * Whether the streaming thread's frames come in a burst, and how long a
 * frame of it waits for the next submission before the output thread
 * takes it. All zero is the reset state. Not locked: the streaming
 * thread's.
 */
typedef struct
{
  gint64 last_enter;
  gint64 last_return;
  gint64 period_us;
  guint short_gaps;
} GstCvBurst;

/**
 * gst_cv_burst_reset:
 * @b: the tracker
 *
 * Forget the submissions seen (start: no burst until 4 gaps are seen).
 */
void gst_cv_burst_reset (GstCvBurst * b);

/**
 * gst_cv_burst_enter:
 * @b: the tracker
 * @now: when the submission enters (us, monotonic)
 * @handover_us: (out): how long its frame waits for the next submission
 *   before the output thread takes it (us; with TRUE only): 4 times
 *   @period_us once updated, within GST_CV_HANDOVER_MIN_US ..
 *   GST_CV_HANDOVER_MAX_US (200 .. 2000)
 *
 * A submission enters: its gap (from the last return) and its interval
 * (from the last entry) are recorded.
 *
 * Returns: TRUE when the frames come in a burst: at least
 * GST_CV_BURST_MIN_SHORT (3) of the last 4 gaps shorter than
 * GST_CV_BURST_GAP_US (200 us). A camera's frames (gaps of a frame
 * interval) never are; nor are frames that arrive in pairs (a jitter
 * buffer's), whose every other gap is long.
 */
gboolean gst_cv_burst_enter (GstCvBurst * b, gint64 now, gint64 * handover_us);

/**
 * gst_cv_burst_leave:
 * @b: the tracker
 * @now: when the submission returns (us, monotonic)
 */
void gst_cv_burst_leave (GstCvBurst * b, gint64 now);

G_END_DECLS

#endif
