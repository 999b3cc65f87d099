/* The shared base element, exercised through cudasobel: frames in flight,
 * order and timestamps, EOS drain, flush, caps changes, latency, backend
 * choice and errors, state cycles, statistics.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"

#include <string.h>

#define FPS_N 30
#define FRAME_DUR (GST_SECOND / FPS_N)

/* frames a backend keeps in flight at a depth */
static guint
in_flight (guint depth)
{
  return cvtest_backend_is_cuda ()? depth - 1 : 0;
}

/* GRAY8 frame: left half 10, right half 10 + amp: edge value 4 * amp */
static GstBuffer *
step_frame (GstVideoFormat fmt, int w, int h, guint amp)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  int x, y, c;

  gst_video_info_set_format (&info, fmt, w, h);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (buf, 0, 128, GST_VIDEO_INFO_SIZE (&info));
  gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (c = 0; c < (int) GST_VIDEO_FRAME_N_COMPONENTS (&f); c++) {
        guint8 *p;
        if (c == 3 || (c > 0 && GST_VIDEO_INFO_IS_YUV (&info)))
          continue;
        p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, c) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&f, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);
        *p = x < w / 2 ? 10 : 10 + amp;
      }
  gst_video_frame_unmap (&f);
  return buf;
}

/* edge value at the step, row 1, of a GRAY8 output of width w */
static guint
edge_value (GstBuffer * out, int w, int h)
{
  GstVideoInfo info;
  GstVideoFrame f;
  guint v;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  v = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
          0))[GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + w / 2];
  gst_video_frame_unmap (&f);
  return v;
}

static GstHarness *
harness_with_depth (guint depth, GstVideoFormat fmt, int width, int height)
{
  GstHarness *h = cvtest_harness_new ("cudasobel", NULL);

  g_object_set (h->element, "pipeline-depth", depth, NULL);
  gst_harness_set_src_caps (h, cvtest_caps (fmt, width, height));
  return h;
}

GST_START_TEST (test_order_timestamps_depths)
{
  GstCaps *ref_caps = gst_caps_new_empty_simple ("timestamp/x-test");
  guint depth;

  for (depth = 1; depth <= 4; depth++) {
    GstHarness *h = harness_with_depth (depth, GST_VIDEO_FORMAT_GRAY8, 32, 8);
    const guint n = 12;
    guint i;

    for (i = 0; i < n; i++) {
      GstBuffer *b = step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, i + 1);
      GST_BUFFER_PTS (b) = i * FRAME_DUR;
      GST_BUFFER_DTS (b) = i * FRAME_DUR;
      GST_BUFFER_DURATION (b) = FRAME_DUR;
      GST_BUFFER_OFFSET (b) = i;
      GST_BUFFER_OFFSET_END (b) = i + 1;
      if (i == 0)
        GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
      else
        GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DELTA_UNIT);
      gst_buffer_add_reference_timestamp_meta (b, ref_caps, 1000 + i,
          GST_CLOCK_TIME_NONE);
      fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
      /* the element holds exactly depth - 1 frames on the GPU */
      fail_unless_equals_int (gst_harness_buffers_in_queue (h),
          (i + 1 > in_flight (depth)) ? i + 1 - in_flight (depth) : 0);
    }
    /* EOS drains everything */
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
    for (i = 0; i < n; i++) {
      GstBuffer *o = gst_harness_pull (h);
      GstReferenceTimestampMeta *m;

      fail_unless_equals_uint64 (GST_BUFFER_PTS (o), i * FRAME_DUR);
      fail_unless_equals_uint64 (GST_BUFFER_DTS (o), i * FRAME_DUR);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (o), FRAME_DUR);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (o), i);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (o), i + 1);
      fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (o,
              GST_BUFFER_FLAG_DELTA_UNIT), i != 0);
      fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (o,
              GST_BUFFER_FLAG_DISCONT), i == 0);
      m = gst_buffer_get_reference_timestamp_meta (o, ref_caps);
      fail_unless (m != NULL);
      fail_unless_equals_uint64 (m->timestamp, 1000 + i);
      /* the content is that frame's, in order */
      fail_unless_equals_int (edge_value (o, 32, 8), 4 * (i + 1));
      gst_buffer_unref (o);
    }
    gst_harness_teardown (h);
  }
  gst_caps_unref (ref_caps);
}

GST_END_TEST;

/* wait-mode (block, spin, spin-then-block): the same frames, in order, at
 * every depth (on the CPU backend the property is accepted and changes
 * nothing) */
GST_START_TEST (test_wait_modes)
{
  const gchar *modes[] = { "block", "spin", "spin-then-block" };
  guint m, depth;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    for (depth = 1; depth <= 3; depth += 2) {
      GstHarness *h = harness_with_depth (depth, GST_VIDEO_FORMAT_GRAY8, 64,
          16);
      const guint n = 8;
      guint i;
      gint v;

      gst_util_set_object_arg (G_OBJECT (h->element), "wait-mode", modes[m]);
      g_object_get (h->element, "wait-mode", &v, NULL);
      fail_unless_equals_int (v, (gint) m);
      for (i = 0; i < n; i++) {
        GstBuffer *b = step_frame (GST_VIDEO_FORMAT_GRAY8, 64, 16, i + 1);
        GST_BUFFER_PTS (b) = i * FRAME_DUR;
        fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
      }
      fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
      fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
      for (i = 0; i < n; i++) {
        GstBuffer *o = gst_harness_pull (h);
        fail_unless_equals_uint64 (GST_BUFFER_PTS (o), i * FRAME_DUR);
        fail_unless_equals_int (edge_value (o, 64, 16), 4 * (i + 1));
        gst_buffer_unref (o);
      }
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_serialized_event_drains)
{
  GstHarness *h = harness_with_depth (4, GST_VIDEO_FORMAT_GRAY8, 32, 8);
  GstStructure *st = gst_structure_new_empty ("x-test-marker");
  guint i;

  for (i = 0; i < 2; i++)
    gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 5));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h),
      2 - MIN (2, in_flight (4)));
  /* a serialized event must not overtake the frames before it */
  gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, st));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flush_drops_in_flight)
{
  const guint depth = 4;
  GstHarness *h = harness_with_depth (depth, GST_VIDEO_FORMAT_GRAY8, 32, 8);
  GstSegment seg;
  guint i, before, held;

  for (i = 0; i < 3; i++) {
    GstBuffer *b = step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1);
    GST_BUFFER_PTS (b) = i * FRAME_DUR;
    gst_harness_push (h, b);
  }
  held = MIN (3, in_flight (depth));
  before = gst_harness_buffers_in_queue (h);
  fail_unless_equals_int (before, 3 - held);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  for (i = 0; i < 2; i++) {
    GstBuffer *b = step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 7);
    GST_BUFFER_PTS (b) = (10 + i) * FRAME_DUR;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  /* the frames in flight at the flush are gone, the new ones all came */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), before + 2);
  for (i = 0; i < before; i++)
    gst_buffer_unref (gst_harness_pull (h));
  for (i = 0; i < 2; i++) {
    GstBuffer *o = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (o), (10 + i) * FRAME_DUR);
    fail_unless_equals_int (edge_value (o, 32, 8), 28);
    gst_buffer_unref (o);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_caps_renegotiation)
{
  GstHarness *h = harness_with_depth (3, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  guint i;

  for (i = 0; i < 4; i++)
    gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 64, 48, 3));
  /* new format and size mid-stream: frames in flight leave first, with the
   * old caps */
  gst_harness_set_src_caps (h, cvtest_caps (GST_VIDEO_FORMAT_RGBA, 33, 17));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 4);
  for (i = 0; i < 4; i++)
    gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_RGBA, 33, 17, 5));
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 8);
  for (i = 0; i < 8; i++) {
    GstBuffer *o = gst_harness_pull (h);
    if (i < 4) {
      fail_unless_equals_int (gst_buffer_get_size (o), 64 * 48);
      fail_unless_equals_int (edge_value (o, 64, 48), 12);
    } else {
      GstVideoInfo oi;
      gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, 33, 17);
      fail_unless (gst_buffer_get_size (o) >= GST_VIDEO_INFO_SIZE (&oi));
      fail_unless_equals_int (edge_value (o, 33, 17), 20);
    }
    gst_buffer_unref (o);
  }
  {
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    GstStructure *s = gst_caps_get_structure (caps, 0);
    gint w;
    gst_structure_get_int (s, "width", &w);
    fail_unless_equals_int (w, 33);
    gst_caps_unref (caps);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_latency)
{
  guint depth;

  for (depth = 1; depth <= 4; depth++) {
    GstHarness *h = harness_with_depth (depth, GST_VIDEO_FORMAT_GRAY8, 32, 8);
    GstClockTime expect;

    gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
    gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1));
    expect = 5 * GST_MSECOND + in_flight (depth) *
        gst_util_uint64_scale_int (GST_SECOND, 1, FPS_N);
    fail_unless_equals_uint64 (gst_harness_query_latency (h), expect);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_latency_message_on_depth_change)
{
  GstHarness *h = harness_with_depth (2, GST_VIDEO_FORMAT_GRAY8, 32, 8);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  gst_element_set_bus (h->element, bus);
  gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1));
  g_object_set (h->element, "pipeline-depth", 4, NULL);
  gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY);
  if (cvtest_backend_is_cuda ()) {
    fail_unless (msg != NULL, "no latency message after a depth change");
    gst_message_unref (msg);
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        3 * gst_util_uint64_scale_int (GST_SECOND, 1, FPS_N));
  } else {
    /* the CPU is synchronous: the latency does not change */
    fail_unless (msg == NULL);
    fail_unless_equals_uint64 (gst_harness_query_latency (h), 0);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Start an element alone and return the error message it posted, if any. */
static gchar *
start_error (GstElement * e, gint * active)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  gchar *text = NULL;

  gst_element_set_bus (e, bus);
  gst_element_set_state (e, GST_STATE_PAUSED);
  g_object_get (e, "active-backend", active, NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
    gst_message_unref (msg);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  return text;
}

GST_START_TEST (test_backend_cuda_without_gpu_is_an_error)
{
  GstElement *e = gst_element_factory_make ("cudasobel", NULL);
  gchar *err;
  gint active = -1;

  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  if (cvtest_gpu_available (NULL))
    g_object_set (e, "device-id", 9999, NULL);  /* a GPU that does not exist */
  err = start_error (e, &active);
  fail_unless (err != NULL, "no element error");
  fail_unless (strstr (err, "backend=cuda was requested but no CUDA GPU is "
          "usable") != NULL, "unexpected error text: %s", err);
  if (cvtest_gpu_available (NULL))
    fail_unless (strstr (err, "device-id 9999 does not exist") != NULL, "%s",
        err);
  g_free (err);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_backend_choice)
{
  GstElement *e = gst_element_factory_make ("cudasobel", NULL);
  gint active = -1;
  gchar *err;

  g_object_get (e, "active-backend", &active, NULL);
  fail_unless_equals_int (active, 0);   /* auto: not started */
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
  err = start_error (e, &active);
  fail_unless (err == NULL);
  fail_unless_equals_int (active, 2);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "auto");
  err = start_error (e, &active);
  fail_unless (err == NULL);
  fail_unless_equals_int (active, cvtest_gpu_available (NULL) ? 1 : 2);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_short_buffer_is_an_error)
{
  GstHarness *h = harness_with_depth (2, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              100, NULL)), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_state_cycles)
{
  guint cycle;
  GstBuffer *in = step_frame (GST_VIDEO_FORMAT_RGBx, 64, 48, 9);

  for (cycle = 0; cycle < 10; cycle++) {
    GstHarness *h = harness_with_depth (1 + cycle % 4, GST_VIDEO_FORMAT_RGBx,
        64, 48);
    guint i;

    for (i = 0; i < 5; i++)
      gst_harness_push (h, gst_buffer_ref (in));
    if (cycle % 2)
      gst_harness_push_event (h, gst_event_new_eos ());
    /* teardown with frames in flight (even cycles) must release them */
    gst_harness_teardown (h);
    fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (in), 1);
  }
  {
    /* a real pipeline through NULL -> PLAYING -> NULL */
    GstElement *p = gst_parse_launch ("videotestsrc num-buffers=8 ! "
        "video/x-raw,width=160,height=120 ! cudasobel name=s ! fakesink", NULL);
    GstElement *s = gst_bin_get_by_name (GST_BIN (p), "s");
    GstBus *bus = gst_element_get_bus (p);

    gst_util_set_object_arg (G_OBJECT (s), "backend", cvtest_backend ());
    for (cycle = 0; cycle < 5; cycle++) {
      GstMessage *m;
      gst_element_set_state (p, GST_STATE_PLAYING);
      m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
          GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
      fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
      gst_message_unref (m);
      gst_element_set_state (p, GST_STATE_NULL);
    }
    gst_object_unref (bus);
    gst_object_unref (s);
    gst_object_unref (p);
  }
  gst_buffer_unref (in);
}

GST_END_TEST;

GST_START_TEST (test_post_stats)
{
  GstHarness *h = harness_with_depth (1, GST_VIDEO_FORMAT_GRAY8, 32, 8);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  const GstStructure *s;
  guint frames;
  gdouble kernel;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "post-stats", TRUE, NULL);
  gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);
  g_usleep (1100 * 1000);
  gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no statistics message after a second");
  s = gst_message_get_structure (msg);
  fail_unless (gst_structure_has_name (s, "cudavision-stats"));
  fail_unless_equals_string (gst_structure_get_string (s, "backend"),
      cvtest_backend ());
  fail_unless (gst_structure_get_uint (s, "frames", &frames));
  fail_unless_equals_int (frames, 2);
  fail_unless (gst_structure_get_double (s, "kernel-ms", &kernel));
  fail_unless (kernel >= 0.0);
  fail_unless (gst_structure_has_field (s, "upload-ms"));
  fail_unless (gst_structure_has_field (s, "download-ms"));
  /* the host side: a frame's time in the element (latency, from its
   * submission to the end of its wait) holds the wait for it */
  {
    gdouble sub, wait, fin, lat;
    fail_unless (gst_structure_get_double (s, "host-submit-us", &sub));
    fail_unless (gst_structure_get_double (s, "host-wait-us", &wait));
    fail_unless (gst_structure_get_double (s, "host-finish-us", &fin));
    fail_unless (gst_structure_get_double (s, "latency-ms", &lat));
    fail_unless (sub > 0 && wait >= 0 && fin >= 0, "%g %g %g", sub, wait, fin);
    fail_unless (wait <= lat * 1000 + 1e-6, "wait %g us > latency %g ms",
        wait, lat);
  }
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The last statistics message of a stream (at EOS): its fps counts the
 * frames over the time from the first frame's submission to the last
 * one's end, so it can never exceed what the frames' own processing time
 * allows (one message used to say fps=184 for one frame of kernel-ms=1034);
 * it carries the last frame's timing fields. */
GST_START_TEST (test_post_stats_final)
{
  GstHarness *h = harness_with_depth (1, GST_VIDEO_FORMAT_GRAY8, 1920, 1080);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  const GstStructure *s;
  guint frames, i;
  gdouble kernel, fps;
  guint64 ts, dur, st, rt;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "post-stats", TRUE, NULL);
  for (i = 0; i < 2; i++) {
    GstBuffer *b = step_frame (GST_VIDEO_FORMAT_GRAY8, 1920, 1080, 1);
    GST_BUFFER_PTS (b) = i * FRAME_DUR;
    GST_BUFFER_DURATION (b) = FRAME_DUR;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no statistics message at EOS");
  s = gst_message_get_structure (msg);
  fail_unless (gst_structure_has_name (s, "cudavision-stats"));
  fail_unless (gst_structure_get_uint (s, "frames", &frames));
  fail_unless_equals_int (frames, 2);
  fail_unless (gst_structure_get_double (s, "kernel-ms", &kernel));
  fail_unless (gst_structure_get_double (s, "fps", &fps));
  /* two frames one after the other (depth 1): at least 2 kernel times */
  fail_unless (fps <= 1000.0 / kernel, "fps %g with kernel-ms %g", fps, kernel);
  fail_unless (gst_structure_get (s, "timestamp", G_TYPE_UINT64, &ts,
          "duration", G_TYPE_UINT64, &dur, "stream-time", G_TYPE_UINT64, &st,
          "running-time", G_TYPE_UINT64, &rt, NULL));
  fail_unless_equals_uint64 (ts, FRAME_DUR);
  fail_unless_equals_uint64 (dur, FRAME_DUR);
  fail_unless_equals_uint64 (st, FRAME_DUR);
  fail_unless_equals_uint64 (rt, FRAME_DUR);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* stream-priority: an int, 0 by default. On the GPU the level the
 * element's streams get (posted as stream-priority in cudavision-stats)
 * is the property clamped to the device's range: 0 for 0, the device's
 * highest level for anything at or above it, the value itself below it.
 * The CPU backend posts no level. */
static gint
posted_priority (gint want)
{
  GstHarness *h = harness_with_depth (1, GST_VIDEO_FORMAT_GRAY8, 32, 8);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  gint level = -1, got;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "post-stats", TRUE, "stream-priority", want, NULL);
  g_object_get (h->element, "stream-priority", &got, NULL);
  fail_unless_equals_int (got, want);
  fail_unless_equals_int (gst_harness_push (h, step_frame
          (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no statistics message at EOS");
  if (!gst_structure_get_int (gst_message_get_structure (msg),
          "stream-priority", &level))
    level = -1;
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return level;
}

GST_START_TEST (test_stream_priority)
{
  GstElement *e = gst_element_factory_make ("cudasobel", NULL);
  GParamSpecInt *ps = G_PARAM_SPEC_INT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "stream-priority"));
  gint v, top;

  fail_unless (ps != NULL);
  fail_unless_equals_int (ps->default_value, 0);
  fail_unless_equals_int (ps->minimum, 0);
  g_object_get (e, "stream-priority", &v, NULL);
  fail_unless_equals_int (v, 0);
  gst_object_unref (e);

  top = posted_priority (G_MAXINT);
  if (!cvtest_backend_is_cuda ()) {
    fail_unless_equals_int (top, -1);
    fail_unless_equals_int (posted_priority (0), -1);
    return;
  }
  g_print ("stream-priority: the device's highest level is %d\n", top);
  fail_unless (top >= 0);
  fail_unless_equals_int (posted_priority (0), 0);
  fail_unless_equals_int (posted_priority (1), MIN (1, top));
  fail_unless_equals_int (posted_priority (top), top);
  fail_unless_equals_int (posted_priority (top + 1), top);
}

GST_END_TEST;

/* QoS on by default, as GstVideoFilter: frames already late downstream
 * (running time before the QoS event's earliest time) are dropped, each
 * with a QoS message; later frames are computed. */
GST_START_TEST (test_qos_drops_late_frames)
{
  GstHarness *h = harness_with_depth (1, GST_VIDEO_FORMAT_GRAY8, 32, 8);
  GstBus *bus = gst_bus_new ();
  gboolean qos = FALSE;
  guint i, qos_msgs = 0, out = 0;
  GstMessage *m;

  g_object_get (h->element, "qos", &qos, NULL);
  fail_unless (qos);
  gst_element_set_bus (h->element, bus);
  /* the sink is 10 frames late at frame 0 */
  fail_unless (gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 32,
              8, 1)) == GST_FLOW_OK);
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 2.0, 10 * FRAME_DUR, 0)));
  for (i = 1; i < 20; i++) {
    GstBuffer *b = step_frame (GST_VIDEO_FORMAT_GRAY8, 32, 8, 1);
    GST_BUFFER_PTS (b) = i * FRAME_DUR;
    GST_BUFFER_DURATION (b) = FRAME_DUR;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS))) {
    qos_msgs++;
    gst_message_unref (m);
  }
  out = gst_harness_buffers_received (h);
  /* frames 1..10 are at or before the earliest time: dropped */
  fail_unless_equals_int (qos_msgs, 10);
  fail_unless_equals_int (out, 20 - 10);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* gst-inspect-1.0 metadata as nvcodec's and GStreamer's own plugins give
 * it: hardware elements, a named author. */
GST_START_TEST (test_element_metadata)
{
  const gchar *names[] = { "cudasobel", "cudaconvolve", "cudanlmeans",
    "cudatemplatematch", "cudameanshift", "cudacanny"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);
    const gchar *klass, *author;

    fail_unless (f != NULL);
    klass = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_KLASS);
    author = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_AUTHOR);
    fail_unless (g_str_has_suffix (klass, "/Video/Hardware"), "%s: %s",
        names[i], klass);
    fail_unless (strchr (author, '<') && strchr (author, '@'), "%s: %s",
        names[i], author);
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* On the GPU the output frames are downloaded by DMA straight into pinned
 * buffers of the element's pool (downstream, here the harness, names no
 * allocator): no staging copy. On the CPU they are plain system memory. */
GST_START_TEST (test_output_memory)
{
  GstHarness *h = harness_with_depth (1, GST_VIDEO_FORMAT_GRAY8, 64, 8);
  GstBuffer *out;
  gboolean pinned;
  guint64 transfers = 0;

  gst_harness_push (h, step_frame (GST_VIDEO_FORMAT_GRAY8, 64, 8, 20));
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless_equals_int (edge_value (out, 64, 8), 80);
  pinned = gst_memory_is_type (gst_buffer_peek_memory (out, 0),
      "CudaVisionPinnedMemory");
  fail_unless_equals_int (pinned, cvtest_backend_is_cuda ());
  g_object_get (h->element, "host-transfers", &transfers, NULL);
  /* one upload and one download of the single plane */
  fail_unless_equals_int ((int) transfers, cvtest_backend_is_cuda ()? 2 : 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Every element's pad templates list its formats in system memory and, in
 * CUDA memory, only those GStreamer's CUDA allocator can hold (GRAY8 is
 * not one: a template offering it could never be negotiated). */
GST_START_TEST (test_pad_templates)
{
  const gchar *names[] = { "cudasobel", "cudaconvolve", "cudanlmeans",
    "cudatemplatematch", "cudameanshift", "cudacanny"
  };
  GstCaps *gray_sys = gst_caps_from_string ("video/x-raw, format=GRAY8");
  GstCaps *gray_cuda =
      gst_caps_from_string ("video/x-raw(memory:CUDAMemory), format=GRAY8");
  GstCaps *nv12_sys = gst_caps_from_string ("video/x-raw, format=NV12");
  GstCaps *rgba_cuda =
      gst_caps_from_string ("video/x-raw(memory:CUDAMemory), format=RGBA");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);
    const GList *l;
    guint n = 0;

    fail_unless (f != NULL, "no element %s", names[i]);
    for (l = gst_element_factory_get_static_pad_templates (f); l;
        l = l->next, n++) {
      GstCaps *caps = gst_static_caps_get (&((GstStaticPadTemplate *)
              l->data)->static_caps);
      fail_unless (gst_caps_can_intersect (caps, gray_sys),
          "%s: no GRAY8 in system memory", names[i]);
      fail_if (gst_caps_can_intersect (caps, gray_cuda),
          "%s: GRAY8 offered in CUDA memory", names[i]);
#ifdef CVTEST_HAVE_GST_CUDA
      /* built with gstreamer-cuda: the formats it can hold are offered */
      if (((GstStaticPadTemplate *) l->data)->direction == GST_PAD_SINK)
        fail_unless (gst_caps_can_intersect (caps, rgba_cuda),
            "%s: no RGBA in CUDA memory", names[i]);
#else
      fail_if (gst_caps_can_intersect (caps, rgba_cuda),
          "%s: CUDA memory offered without gstreamer-cuda", names[i]);
#endif
      gst_caps_unref (caps);
    }
    fail_unless_equals_int (n, 2);
    gst_object_unref (f);
  }
  /* cudameanshift takes no NV12 at all: the list is the element's own */
  {
    GstElementFactory *f = gst_element_factory_find ("cudameanshift");
    const GList *l = gst_element_factory_get_static_pad_templates (f);
    GstCaps *caps = gst_static_caps_get (&((GstStaticPadTemplate *)
            l->data)->static_caps);
    fail_if (gst_caps_can_intersect (caps, nv12_sys));
    gst_caps_unref (caps);
    gst_object_unref (f);
  }
  gst_caps_unref (gray_sys);
  gst_caps_unref (gray_cuda);
  gst_caps_unref (nv12_sys);
  gst_caps_unref (rgba_cuda);
}

GST_END_TEST;

static Suite *
base_suite (void)
{
  Suite *s = suite_create ("cudavisionbase");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_order_timestamps_depths);
  tcase_add_test (tc, test_serialized_event_drains);
  tcase_add_test (tc, test_wait_modes);
  tcase_add_test (tc, test_flush_drops_in_flight);
  tcase_add_test (tc, test_caps_renegotiation);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_latency_message_on_depth_change);
  tcase_add_test (tc, test_backend_cuda_without_gpu_is_an_error);
  tcase_add_test (tc, test_backend_choice);
  tcase_add_test (tc, test_short_buffer_is_an_error);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_post_stats);
  tcase_add_test (tc, test_post_stats_final);
  tcase_add_test (tc, test_qos_drops_late_frames);
  tcase_add_test (tc, test_element_metadata);
  tcase_add_test (tc, test_pad_templates);
  tcase_add_test (tc, test_output_memory);
  tcase_add_test (tc, test_stream_priority);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cvtest_run_suite (base_suite ());
}
