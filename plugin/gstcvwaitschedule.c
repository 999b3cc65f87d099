/* gst-cuda-vision: when the output thread looks at a frame on the GPU,
 * and whether frames come in a burst (gstcvwaitschedule.h). Measured on an H200 against the shortest of the
 * last 16 times and steps doubling from 4 us (docs/benchmarks.md, issue
 * #24): as fast, with fewer wake-ups (4K RGBA: 3.2 against 7.7 a frame).
 * The output thread sleeps with a timer slack of 1 us
 * (gstcvscheduler.c), so that a step of 4 us is one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvwaitschedule.h"

void
gst_cv_wait_schedule_reset (GstCvWaitSchedule * ws)
{
  memset (ws, 0, sizeof (*ws));
}

void
gst_cv_wait_schedule_record (GstCvWaitSchedule * ws, gint64 took_us)
{
  if (took_us < 0)
    return;
  ws->took_us[ws->took_n++ % GST_CV_WAIT_RING] = (gint) MIN (took_us, G_MAXINT);
}

gint
gst_cv_wait_schedule_expectation (const GstCvWaitSchedule * ws)
{
  guint i, j, n = MIN (ws->took_n, GST_CV_WAIT_RING);
  gint t[GST_CV_WAIT_RING];

  if (n < GST_CV_WAIT_MIN_TIMES)
    return 0;
  /* insertion sort of the n kept */
  for (i = 0; i < n; i++) {
    for (j = i; j > 0 && t[j - 1] > ws->took_us[i]; j--)
      t[j] = t[j - 1];
    t[j] = ws->took_us[i];
  }
  return t[(n - 1) / 2];
}

gint64
gst_cv_wait_schedule_first_deadline (gint64 submitted, gint expect_us)
{
  return submitted + 3 * (gint64) expect_us / 4;
}

gint64
gst_cv_wait_schedule_step (gint64 elapsed_us)
{
  return CLAMP (elapsed_us / 8, GST_CV_WAIT_STEP_MIN_US,
      GST_CV_WAIT_STEP_MAX_US);
}

static gint64
real_now (gpointer user_data)
{
  return g_get_monotonic_time ();
}

static void
real_sleep (gpointer user_data, gint64 us)
{
  g_usleep ((gulong) us);
}

static const GstCvWaitClock real_clock = { real_now, real_sleep, NULL };

gint64
gst_cv_wait_schedule_wait (GstCudaVisionWaitMode mode, gint64 submitted,
    gint expect_us, GstCvWaitQueryFunc query, gpointer query_data,
    const GstCvWaitClock * clock)
{
  gint64 now, until, running;
  gboolean busy;

  if (!clock)
    clock = &real_clock;
  if (!query (query_data))
    return -1;
  /* running: the clock read after the last query that found the frame
   * running */
  running = now = clock->now (clock->user_data);
  if (mode != GST_CUDA_VISION_WAIT_BLOCK) {
    until = mode == GST_CUDA_VISION_WAIT_SPIN ? G_MAXINT64 :
        now + GST_CV_WAIT_SPIN_US;
    while ((busy = query (query_data))
        && (running = clock->now (clock->user_data)) < until);
    if (!busy)
      goto done;
  }
  until = gst_cv_wait_schedule_first_deadline (submitted, expect_us);
  now = clock->now (clock->user_data);
  if (until > now)
    clock->sleep (clock->user_data, until - now);
  while (query (query_data)) {
    running = clock->now (clock->user_data);
    clock->sleep (clock->user_data,
        gst_cv_wait_schedule_step (running - submitted));
  }
done:
  return (running + clock->now (clock->user_data)) / 2 - submitted;
}

void
gst_cv_burst_reset (GstCvBurst * b)
{
  memset (b, 0, sizeof (*b));
}

gboolean
gst_cv_burst_enter (GstCvBurst * b, gint64 now, gint64 * handover_us)
{
  gboolean short_gap = b->last_return > 0
      && now - b->last_return < GST_CV_BURST_GAP_US;

  if (b->last_enter > 0) {
    gint64 period = MAX (now - b->last_enter, 0);

    b->period_us = b->period_us == 0 ? period :
        b->period_us + (period - b->period_us) / 8;
  }
  b->last_enter = now;
  b->short_gaps = ((b->short_gaps << 1) | (short_gap ? 1 : 0)) & 0xf;
  *handover_us = CLAMP (4 * b->period_us, GST_CV_HANDOVER_MIN_US,
      GST_CV_HANDOVER_MAX_US);
  return ((b->short_gaps & 1) + ((b->short_gaps >> 1) & 1) +
      ((b->short_gaps >> 2) & 1) + ((b->short_gaps >> 3) & 1)) >=
      GST_CV_BURST_MIN_SHORT;
}

void
gst_cv_burst_leave (GstCvBurst * b, gint64 now)
{
  b->last_return = now;
}
