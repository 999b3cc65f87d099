/* test_waitschedule: the CUDA backend's wait for a frame on its own
 * (plugin/gstcvwaitschedule.c, which calls no CUDA), on a fake clock with
 * a fake event that completes at a chosen instant: every query, clock
 * read and sleep of a wait is seen, so the schedule's numbers are checked
 * exactly, on machines without a GPU (waitschedule-cpu, suite cpu).
 *
 * The recent times: no expectation (no first sleep) before 4 times; the
 * lower median of the last 16, one slow frame ignored; the ring wrapping
 * at 16; reset; -1 (done at the first query) and what it stands for not
 * recorded. The wait: the first sleep to 3/4 of the expectation after
 * the submission, then steps of 1/8 of the time waited within 4 .. 250
 * us; the time returned is the middle between the last query that found
 * the frame running and the one that found it done; spin never sleeps;
 * spin-then-block spins 100 us, then sleeps as block. A 1000 us frame
 * with an expectation of 1000 us: sleeps of 750, 93, 105 and 118 us, 5
 * queries, seen done 66 us late; for every frame time a frame is seen
 * done less than 1/8 of its time (4 .. 250 us) late.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>

#include "gstcvwaitschedule.h"

#define MAX_SLEEPS 4096

/* a frame on the fake GPU, the fake clock, and what the wait did */
typedef struct
{
  gint64 t;                     /* the fake clock (us) */
  gint64 done_at;               /* the event is done from this instant */
  gint64 query_us;              /* what a query costs on the clock */
  guint queries;
  guint reads;                  /* clock reads */
  guint n_sleeps;
  gint64 sleep_at[MAX_SLEEPS];  /* when each sleep began */
  gint64 sleep_us[MAX_SLEEPS];  /* how long it was */
  guint queries_at_sleep[MAX_SLEEPS];   /* queries made before it */
  gint64 last_running_at;       /* the last query that found it running */
  gint64 seen_done_at;          /* the query that found it done, or -1 */
} Fake;

static gboolean
fake_query (gpointer user_data)
{
  Fake *f = user_data;
  gint64 at = f->t;

  f->queries++;
  f->t += f->query_us;
  if (at < f->done_at) {
    f->last_running_at = at;
    return TRUE;
  }
  if (f->seen_done_at < 0)
    f->seen_done_at = at;
  return FALSE;
}

static gint64
fake_now (gpointer user_data)
{
  Fake *f = user_data;

  f->reads++;
  return f->t;
}

static void
fake_sleep (gpointer user_data, gint64 us)
{
  Fake *f = user_data;

  fail_unless (us > 0, "a sleep of %" G_GINT64_FORMAT " us", us);
  fail_unless (f->n_sleeps < MAX_SLEEPS);
  f->sleep_at[f->n_sleeps] = f->t;
  f->sleep_us[f->n_sleeps] = us;
  f->queries_at_sleep[f->n_sleeps] = f->queries;
  f->n_sleeps++;
  f->t += us;
}

/* One frame submitted at `submitted`, done at `done_at`, whose wait
 * begins at `start` (the output thread's turn), each query costing
 * query_us: the time the wait returns; f says how it went. */
static gint64
wait_frame (Fake * f, GstCudaVisionWaitMode mode, gint64 submitted,
    gint64 start, gint64 done_at, gint expect_us, gint64 query_us)
{
  GstCvWaitClock clock = { fake_now, fake_sleep, f };

  memset (f, 0, sizeof (*f));
  f->t = start;
  f->done_at = done_at;
  f->query_us = query_us;
  f->last_running_at = f->seen_done_at = -1;
  return gst_cv_wait_schedule_wait (mode, submitted, expect_us, fake_query,
      f, &clock);
}

static GstCvWaitSchedule *
schedule_of (gint n, ...)
{
  GstCvWaitSchedule *ws = g_new0 (GstCvWaitSchedule, 1);
  va_list ap;

  va_start (ap, n);
  while (n-- > 0)
    gst_cv_wait_schedule_record (ws, va_arg (ap, gint));
  va_end (ap);
  return ws;
}

/* no expectation, so no first sleep, before 4 times; the 4th gives one */
GST_START_TEST (test_no_first_sleep_before_4)
{
  GstCvWaitSchedule ws;
  Fake *f = g_new0 (Fake, 1);
  gint i;

  memset (&ws, 0, sizeof (ws));
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 0);
  for (i = 0; i < 3; i++) {
    gst_cv_wait_schedule_record (&ws, 1000);
    fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 0);
  }
  fail_unless_equals_int64 (gst_cv_wait_schedule_first_deadline (5000, 0),
      5000);

  /* no expectation: the first sleep is a step (4 us at the submission),
   * a 1000 us frame takes dozens of wake-ups */
  wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 0, 1000,
      gst_cv_wait_schedule_expectation (&ws), 0);
  fail_unless_equals_int64 (f->sleep_us[0], GST_CV_WAIT_STEP_MIN_US);
  fail_unless (f->n_sleeps > 20, "%u sleeps", f->n_sleeps);

  gst_cv_wait_schedule_record (&ws, 1000);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 1000);
  wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 0, 1000,
      gst_cv_wait_schedule_expectation (&ws), 0);
  fail_unless_equals_int64 (f->sleep_us[0], 750);
  fail_unless_equals_int (f->n_sleeps, 4);
  g_free (f);
}

GST_END_TEST;

/* the lower median: the (n - 1) / 2-th smallest, whatever the order */
GST_START_TEST (test_lower_median)
{
  GstCvWaitSchedule *ws;
  gint i;

  /* one slow frame among 4 is ignored, first or last */
  ws = schedule_of (4, 100, 100, 100, 10000);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 100);
  g_free (ws);
  ws = schedule_of (4, 10000, 100, 100, 100);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 100);
  g_free (ws);
  /* even n: the lower of the two middle ones (not their mean) */
  ws = schedule_of (4, 40, 10, 30, 20);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 20);
  g_free (ws);
  /* odd n: the median */
  ws = schedule_of (5, 50, 10, 40, 20, 30);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 30);
  g_free (ws);
  /* a full ring, one frame 1000 times slower */
  ws = g_new0 (GstCvWaitSchedule, 1);
  for (i = 0; i < 15; i++)
    gst_cv_wait_schedule_record (ws, 1000 + i);
  gst_cv_wait_schedule_record (ws, 1000000);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 1007);
  g_free (ws);
  /* half fast, half slow: the fast; one slow more: the slow */
  ws = g_new0 (GstCvWaitSchedule, 1);
  for (i = 0; i < 16; i++)
    gst_cv_wait_schedule_record (ws, i % 2 ? 100 : 900);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 100);
  g_free (ws);
  ws = schedule_of (5, 900, 100, 900, 100, 900);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 900);
  g_free (ws);
}

GST_END_TEST;

/* the ring keeps the last 16 times, the oldest replaced first */
GST_START_TEST (test_ring_wraps)
{
  GstCvWaitSchedule ws;
  gint i;

  memset (&ws, 0, sizeof (ws));
  for (i = 1; i <= 20; i++)
    gst_cv_wait_schedule_record (&ws, i);
  fail_unless_equals_int (ws.took_n, 20);
  /* 17..20 in entries 0..3, 5..16 in 4..15 */
  fail_unless_equals_int (ws.took_us[0], 17);
  fail_unless_equals_int (ws.took_us[3], 20);
  fail_unless_equals_int (ws.took_us[4], 5);
  fail_unless_equals_int (ws.took_us[15], 16);
  /* the lower median of 5..20 */
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 12);

  /* 16 slow ones replaced one by one: the expectation follows once half
   * of the ring is fast */
  memset (&ws, 0, sizeof (ws));
  for (i = 0; i < 16; i++)
    gst_cv_wait_schedule_record (&ws, 5000);
  for (i = 0; i < 7; i++) {
    gst_cv_wait_schedule_record (&ws, 100);
    fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 5000);
  }
  gst_cv_wait_schedule_record (&ws, 100);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 100);
  for (i = 0; i < 8; i++)
    gst_cv_wait_schedule_record (&ws, 100);
  for (i = 0; i < GST_CV_WAIT_RING; i++)
    fail_unless_equals_int (ws.took_us[i], 100);
}

GST_END_TEST;

/* reset forgets every time (new caps); all zero is the reset state */
GST_START_TEST (test_reset)
{
  GstCvWaitSchedule ws, zero;
  gint i;

  memset (&zero, 0, sizeof (zero));
  memset (&ws, 0, sizeof (ws));
  for (i = 0; i < 10; i++)
    gst_cv_wait_schedule_record (&ws, 3000);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 3000);
  gst_cv_wait_schedule_reset (&ws);
  fail_unless (memcmp (&ws, &zero, sizeof (ws)) == 0);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 0);
  /* the old times do not count towards the 4 */
  for (i = 0; i < 3; i++)
    gst_cv_wait_schedule_record (&ws, 200);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 0);
  gst_cv_wait_schedule_record (&ws, 200);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), 200);
}

GST_END_TEST;

/* -1 (done at the first query) is not recorded, and a wait that finds
 * the frame done at its first query returns -1 without reading the clock
 * or sleeping */
GST_START_TEST (test_done_at_first_query)
{
  GstCvWaitSchedule *ws = schedule_of (4, 100, 100, 100, 100);
  Fake *f = g_new0 (Fake, 1);
  gint64 took;
  guint mode;

  gst_cv_wait_schedule_record (ws, -1);
  fail_unless_equals_int (ws->took_n, 4);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (ws), 100);
  for (mode = GST_CUDA_VISION_WAIT_BLOCK;
      mode <= GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK; mode++) {
    /* submitted at 0, done at 500, the output thread there at 2000 */
    took = wait_frame (f, mode, 0, 2000, 500, 1000, 1);
    fail_unless_equals_int64 (took, -1);
    fail_unless_equals_int (f->queries, 1);
    fail_unless_equals_int (f->reads, 0);
    fail_unless_equals_int (f->n_sleeps, 0);
    gst_cv_wait_schedule_record (ws, took);
    fail_unless_equals_int (ws->took_n, 4);
  }
  /* 0 and more are recorded; above G_MAXINT kept as G_MAXINT */
  gst_cv_wait_schedule_record (ws, 0);
  fail_unless_equals_int (ws->took_n, 5);
  fail_unless_equals_int (ws->took_us[4], 0);
  gst_cv_wait_schedule_record (ws, G_MAXINT64);
  fail_unless_equals_int (ws->took_us[5], G_MAXINT);
  g_free (ws);
  g_free (f);
}

GST_END_TEST;

/* the first deadline and the steps */
GST_START_TEST (test_steps)
{
  gint64 e;

  fail_unless_equals_int64 (gst_cv_wait_schedule_first_deadline (0, 1000), 750);
  fail_unless_equals_int64 (gst_cv_wait_schedule_first_deadline (100, 1001),
      850);
  fail_unless_equals_int64 (gst_cv_wait_schedule_first_deadline (100, 3), 102);
  /* no overflow of the expectation's 3/4 */
  fail_unless_equals_int64 (gst_cv_wait_schedule_first_deadline (0,
          G_MAXINT), 3 * (gint64) G_MAXINT / 4);

  fail_unless_equals_int64 (gst_cv_wait_schedule_step (-100), 4);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (0), 4);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (39), 4);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (40), 5);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (750), 93);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (800), 100);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (2007), 250);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (2008), 250);
  fail_unless_equals_int64 (gst_cv_wait_schedule_step (G_MAXINT64), 250);
  for (e = 0; e < 5000; e++) {
    gint64 s = gst_cv_wait_schedule_step (e);

    fail_unless (s >= GST_CV_WAIT_STEP_MIN_US && s <= GST_CV_WAIT_STEP_MAX_US);
    fail_unless (s == e / 8 || (e / 8 < 4 && s == 4) || (e / 8 > 250
            && s == 250));
  }
}

GST_END_TEST;

/* a 1000 us frame, expectation 1000 us, the wait beginning at the
 * submission: first sleep to 750, then 1/8 of the time waited */
GST_START_TEST (test_block_representative)
{
  Fake *f = g_new0 (Fake, 1);
  const gint64 sleeps[] = { 750, 93, 105, 118 };
  const gint64 base = G_GINT64_CONSTANT (1000000000);
  gint64 took;
  guint i;

  took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, base, base, base + 1000,
      1000, 0);
  fail_unless_equals_int (f->n_sleeps, G_N_ELEMENTS (sleeps));
  for (i = 0; i < G_N_ELEMENTS (sleeps); i++)
    fail_unless_equals_int64 (f->sleep_us[i], sleeps[i]);
  fail_unless_equals_int (f->queries, 5);
  fail_unless_equals_int64 (f->last_running_at - base, 948);
  fail_unless_equals_int64 (f->seen_done_at - base, 1066);
  /* 66 us late, within 1/8 of the frame's time */
  fail_unless (f->seen_done_at - base - 1000 <= 1000 / 8);
  /* the middle between 948 and 1066 */
  fail_unless_equals_int64 (took, 1007);

  /* the output thread there 300 us after the submission: the first
   * sleep still ends at 750 */
  wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 300, 1000, 1000, 0);
  fail_unless_equals_int64 (f->sleep_us[0], 450);
  fail_unless_equals_int64 (f->sleep_at[0] + f->sleep_us[0], 750);
  /* there after 3/4 of the expectation: no first sleep, a step */
  wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 900, 1000, 1000, 0);
  fail_unless_equals_int64 (f->sleep_us[0], 112);
  fail_unless_equals_int (f->n_sleeps, 1);
  g_free (f);
}

GST_END_TEST;

/* the time returned: the middle between the clock read after the last
 * query that found the frame running and the one after the query that
 * found it done */
GST_START_TEST (test_took_midpoint)
{
  Fake *f = g_new0 (Fake, 1);
  gint64 took;

  /* running at 0, done at the end of the first sleep (750) */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 0, 700, 1000, 0);
  fail_unless_equals_int (f->queries, 2);
  fail_unless_equals_int64 (took, 375);
  /* queries of 10 us: running at 0 (read at 10), sleep to 750, running
   * at 750 (read at 760), step 95 to 855, done (read at 865) */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 0, 800, 1000, 10);
  fail_unless_equals_int (f->queries, 3);
  fail_unless_equals_int64 (f->sleep_us[1], 95);
  fail_unless_equals_int64 (took, (760 + 865) / 2);
  /* relative to the submission, wherever the clock is */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 123456789,
      123456789 + 100, 123456789 + 800, 1000, 10);
  fail_unless_equals_int64 (took, (760 + 865) / 2);
  g_free (f);
}

GST_END_TEST;

/* for every frame time D (expectation D, the wait from the submission):
 * seen done less than CLAMP (D / 8, 4, 250) late, the time returned as
 * close, and few wake-ups while the steps are 1/8 of the time waited */
GST_START_TEST (test_lateness_any_time)
{
  Fake *f = g_new0 (Fake, 1);
  guint most = 0;
  gint64 d;

  for (d = 1; d <= 200000; d += d < 4000 ? 1 : 97) {
    gint64 bound = CLAMP (d / 8, 4, 250), took;

    took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 0, d, (gint) d, 0);
    fail_unless (f->seen_done_at >= d && f->seen_done_at - d < bound,
        "frame of %" G_GINT64_FORMAT " us seen done at %" G_GINT64_FORMAT,
        d, f->seen_done_at);
    fail_unless (took >= d - bound && took <= d + bound,
        "frame of %" G_GINT64_FORMAT " us: took %" G_GINT64_FORMAT, d, took);
    /* the first query, one each wake-up, and one before the first step
     * where there is no first sleep (d = 1: 3/4 of it is 0) */
    fail_unless_equals_int (f->queries, f->n_sleeps + (d > 1 ? 1 : 2));
    if (d >= 64 && d <= 2000)
      most = MAX (most, f->n_sleeps);
    else if (d > 2000)
      /* from 3/4 of d to d in steps of at least 1/8 of 3/4 of d */
      fail_unless (f->n_sleeps <= 2 + (d - 3 * d / 4) /
          gst_cv_wait_schedule_step (3 * d / 4),
          "frame of %" G_GINT64_FORMAT " us: %u sleeps", d, f->n_sleeps);
  }
  /* 3/4 to 1 in steps growing by 1/8: the first sleep and at most 4 */
  fail_unless (most <= 5, "%u sleeps", most);
  g_free (f);
}

GST_END_TEST;

/* spin: queries until done, never sleeps, whatever the expectation */
GST_START_TEST (test_spin_never_sleeps)
{
  Fake *f = g_new0 (Fake, 1);
  gint64 took;

  /* queries of 1 us: at 0 .. 499 running, at 500 done */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_SPIN, 0, 0, 500, 1000, 1);
  fail_unless_equals_int (f->n_sleeps, 0);
  fail_unless_equals_int (f->queries, 501);
  fail_unless_equals_int64 (f->seen_done_at, 500);
  fail_unless_equals_int64 (took, (500 + 501) / 2);
  /* a long frame, an expectation of 0 */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_SPIN, 0, 0, 100000, 0, 1);
  fail_unless_equals_int (f->n_sleeps, 0);
  fail_unless_equals_int (f->queries, 100001);
  fail_unless_equals_int64 (took, 100000);
  g_free (f);
}

GST_END_TEST;

/* spin-then-block: queries for 100 us, then sleeps as block */
GST_START_TEST (test_spin_then_block)
{
  Fake *f = g_new0 (Fake, 1);
  gint64 took;

  /* done within the spin: no sleep */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK, 0, 0, 50, 1000,
      1);
  fail_unless_equals_int (f->n_sleeps, 0);
  fail_unless_equals_int (f->queries, 51);
  fail_unless_equals_int64 (took, 50);

  /* no expectation: spin queries at 0 .. 100 (the clock read after the
   * first is 1, the spin ends at the read of 101), no first sleep, block's
   * first query at 101, then steps */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK, 0, 0, 1000, 0, 1);
  fail_unless_equals_int (f->queries_at_sleep[0], 2 + GST_CV_WAIT_SPIN_US);
  fail_unless_equals_int64 (f->sleep_at[0], 2 + GST_CV_WAIT_SPIN_US);
  fail_unless_equals_int64 (f->sleep_us[0], gst_cv_wait_schedule_step (102));
  fail_unless (f->n_sleeps > 5);
  fail_unless (f->seen_done_at - 1000 < 1000 / 8);
  fail_unless (took >= 1000 - 125 && took <= 1000 + 125);

  /* with an expectation of 1000: after the spin, the first sleep to 750 */
  wait_frame (f, GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK, 0, 0, 1000, 1000, 1);
  fail_unless_equals_int64 (f->sleep_at[0], 101);
  fail_unless_equals_int64 (f->sleep_us[0], 750 - 101);
  fail_unless_equals_int (f->n_sleeps, 4);

  /* the spin counts from the wait's first query, not the submission;
   * the first deadline (750) has passed */
  wait_frame (f, GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK, 0, 2000, 5000, 1000, 1);
  fail_unless_equals_int (f->queries_at_sleep[0], 2 + GST_CV_WAIT_SPIN_US);
  fail_unless_equals_int64 (f->sleep_at[0], 2102);
  fail_unless_equals_int64 (f->sleep_us[0], 250);
  g_free (f);
}

GST_END_TEST;

/* frames of 1000 us one after another, their times recorded as the CUDA
 * backend does: the first 4 with steps only, then 3 or 4 wake-ups each; a slow
 * frame does not move the expectation; one found done at once leaves the
 * times as they were */
GST_START_TEST (test_learns)
{
  GstCvWaitSchedule ws;
  Fake *f = g_new0 (Fake, 1);
  gint64 took, sub;
  gint i;

  memset (&ws, 0, sizeof (ws));
  for (i = 0; i < 12; i++) {
    sub = 10000 * i;
    took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, sub, sub, sub + 1000,
        gst_cv_wait_schedule_expectation (&ws), 0);
    fail_unless (took >= 1000 - 125 && took <= 1000 + 125);
    if (i < GST_CV_WAIT_MIN_TIMES) {
      /* steps from 4 us: last running at 994, seen done at 1118 */
      fail_unless_equals_int (f->n_sleeps, 39);
      fail_unless_equals_int64 (took, 1056);
    } else {
      /* the first sleep to 3/4 of the expectation (3/4 of 1056 for frame
       * 4), then 2 or 3 steps */
      fail_unless_equals_int64 (f->sleep_us[0],
          3 * gst_cv_wait_schedule_expectation (&ws) / 4);
      if (i == GST_CV_WAIT_MIN_TIMES)
        fail_unless_equals_int64 (f->sleep_us[0], 792);
      fail_unless (f->n_sleeps >= 3 && f->n_sleeps <= 4, "frame %d: %u "
          "sleeps", i, f->n_sleeps);
    }
    gst_cv_wait_schedule_record (&ws, took);
  }
  i = gst_cv_wait_schedule_expectation (&ws);
  fail_unless (i >= 1000 - 125 && i <= 1000 + 125);
  /* a frame of 20 ms */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 0, 20000,
      gst_cv_wait_schedule_expectation (&ws), 0);
  gst_cv_wait_schedule_record (&ws, took);
  fail_unless_equals_int (gst_cv_wait_schedule_expectation (&ws), i);
  /* done before its wait began */
  took = wait_frame (f, GST_CUDA_VISION_WAIT_BLOCK, 0, 5000, 1000,
      gst_cv_wait_schedule_expectation (&ws), 0);
  fail_unless_equals_int64 (took, -1);
  gst_cv_wait_schedule_record (&ws, took);
  fail_unless_equals_int (ws.took_n, 13);
  g_free (f);
}

GST_END_TEST;

/* the real clock (NULL): a frame running for 3 queries */
static gboolean
three_queries (gpointer user_data)
{
  guint *n = user_data;

  return ++ * n <= 3;
}

GST_START_TEST (test_real_clock)
{
  gint64 now = g_get_monotonic_time (), took;
  guint n = 0;

  took = gst_cv_wait_schedule_wait (GST_CUDA_VISION_WAIT_BLOCK, now, 0,
      three_queries, &n, NULL);
  fail_unless_equals_int (n, 4);
  fail_unless (took >= 0 && took < G_USEC_PER_SEC, "took %" G_GINT64_FORMAT,
      took);
  fail_unless (g_get_monotonic_time () - now >= 2 * GST_CV_WAIT_STEP_MIN_US);
}

GST_END_TEST;

/* Bursts: a submission of `work` us every `period` us from t = 1000
 * (enter at t, return at t + work); returns whether the last of n was in
 * a burst and its handover */
static gboolean
run_submissions (GstCvBurst * b, gint64 * t, guint n, gint64 period,
    gint64 work, gint64 * handover)
{
  gboolean burst = FALSE;
  guint i;

  for (i = 0; i < n; i++) {
    burst = gst_cv_burst_enter (b, *t, handover);
    gst_cv_burst_leave (b, *t + work);
    *t += period;
  }
  return burst;
}

GST_START_TEST (test_burst_needs_three_short_gaps)
{
  GstCvBurst b;
  gint64 t = 1000, h;

  gst_cv_burst_reset (&b);
  /* submissions 25 us apart with 15 us of work: gaps of 10 us. The first
   * has no gap, the second and third 1 and 2 short ones: a burst from the
   * fourth on */
  fail_if (run_submissions (&b, &t, 3, 25, 15, &h));
  fail_unless (run_submissions (&b, &t, 1, 25, 15, &h));
  fail_unless (run_submissions (&b, &t, 100, 25, 15, &h));
}

GST_END_TEST;

GST_START_TEST (test_burst_never_for_a_camera)
{
  GstCvBurst b;
  gint64 t = 1000, h;
  guint i;

  gst_cv_burst_reset (&b);
  /* 30 fps, 0.3 ms of work a frame */
  for (i = 0; i < 100; i++)
    fail_if (run_submissions (&b, &t, 1, 33333, 300, &h));
  /* 1000 fps too: gaps of 0.7 ms */
  for (i = 0; i < 100; i++)
    fail_if (run_submissions (&b, &t, 1, 1000, 300, &h));
}

GST_END_TEST;

GST_START_TEST (test_burst_never_for_pairs)
{
  GstCvBurst b;
  gint64 t = 1000, h;
  guint i;

  gst_cv_burst_reset (&b);
  /* a jitter buffer releasing two frames at once, 30 times a second:
   * every other gap is short, the others a frame interval */
  for (i = 0; i < 100; i++) {
    fail_if (gst_cv_burst_enter (&b, t, &h));
    gst_cv_burst_leave (&b, t + 20);
    fail_if (gst_cv_burst_enter (&b, t + 25, &h));
    gst_cv_burst_leave (&b, t + 45);
    t += 66666;
  }
}

GST_END_TEST;

GST_START_TEST (test_burst_one_long_gap)
{
  GstCvBurst b;
  gint64 t = 1000, h;

  gst_cv_burst_reset (&b);
  fail_unless (run_submissions (&b, &t, 20, 25, 15, &h));
  /* one late submission (the thread preempted): still a burst */
  t += 5000;
  fail_unless (run_submissions (&b, &t, 1, 25, 15, &h));
  fail_unless (run_submissions (&b, &t, 1, 25, 15, &h));
  /* two long gaps among the last 4: not, until 3 of 4 are short again */
  t += 5000;
  fail_if (run_submissions (&b, &t, 1, 25, 15, &h));
  fail_if (run_submissions (&b, &t, 1, 25, 15, &h));
  fail_unless (run_submissions (&b, &t, 1, 25, 15, &h));
}

GST_END_TEST;

GST_START_TEST (test_handover)
{
  GstCvBurst b;
  gint64 t = 1000, h;

  /* 4 smoothed intervals, within 200 .. 2000 us */
  gst_cv_burst_reset (&b);
  fail_unless (run_submissions (&b, &t, 100, 25, 15, &h));
  fail_unless_equals_int64 (h, GST_CV_HANDOVER_MIN_US);
  gst_cv_burst_reset (&b);
  fail_unless (run_submissions (&b, &t, 100, 150, 100, &h));
  fail_unless_equals_int64 (h, 600);
  gst_cv_burst_reset (&b);
  fail_unless (run_submissions (&b, &t, 100, 900, 850, &h));
  fail_unless_equals_int64 (h, GST_CV_HANDOVER_MAX_US);
  /* the interval is smoothed: one of 1 ms among 150 us moves it by
   * (1000 - 150) / 8 */
  gst_cv_burst_reset (&b);
  fail_unless (run_submissions (&b, &t, 100, 150, 100, &h));
  fail_unless (run_submissions (&b, &t, 1, 1000, 100, &h));
  fail_unless (run_submissions (&b, &t, 1, 150, 100, &h));
  fail_unless_equals_int64 (h, 4 * (150 + (1000 - 150) / 8));
}

GST_END_TEST;

static Suite *
waitschedule_suite (void)
{
  Suite *s = suite_create ("waitschedule");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_first_sleep_before_4);
  tcase_add_test (tc, test_lower_median);
  tcase_add_test (tc, test_ring_wraps);
  tcase_add_test (tc, test_reset);
  tcase_add_test (tc, test_done_at_first_query);
  tcase_add_test (tc, test_steps);
  tcase_add_test (tc, test_block_representative);
  tcase_add_test (tc, test_took_midpoint);
  tcase_add_test (tc, test_lateness_any_time);
  tcase_add_test (tc, test_spin_never_sleeps);
  tcase_add_test (tc, test_spin_then_block);
  tcase_add_test (tc, test_learns);
  tcase_add_test (tc, test_real_clock);
  tcase_add_test (tc, test_burst_needs_three_short_gaps);
  tcase_add_test (tc, test_burst_never_for_a_camera);
  tcase_add_test (tc, test_burst_never_for_pairs);
  tcase_add_test (tc, test_burst_one_long_gap);
  tcase_add_test (tc, test_handover);
  return s;
}

GST_CHECK_MAIN (waitschedule);
