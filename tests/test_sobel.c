/* cudasobel: output against an independent reference, formats, semantics,
 * GPU == CPU, large frames, the real sample video.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"

#include <math.h>
#include <string.h>

static const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
};

/* ---- the reference: a plain double loop, written from the definition ---- */

/* luma of pixel (x, y): Y plane, or BT.601 (77 R + 150 G + 29 B + 128) >> 8 */
static int
ref_luma (GstVideoFrame * f, int x, int y)
{
  const GstVideoFormatInfo *fi = f->info.finfo;

  if (GST_VIDEO_FORMAT_INFO_IS_YUV (fi) || GST_VIDEO_FORMAT_INFO_IS_GRAY (fi)) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, 0) +
        y * GST_VIDEO_FRAME_COMP_STRIDE (f, 0);
    return row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, 0)];
  } else {
    int c[3];
    int i;
    for (i = 0; i < 3; i++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, i) +
          y * GST_VIDEO_FRAME_COMP_STRIDE (f, i);
      c[i] = row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, i)];
    }
    return (77 * c[0] + 150 * c[1] + 29 * c[2] + 128) / 256;
  }
}

static guint8 *
ref_sobel (GstBuffer * inbuf, const GstVideoInfo * info, int brightness,
    int threshold)
{
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  guint8 *out = g_malloc ((gsize) w * h);
  int *in = g_malloc (sizeof (int) * w * h);
  GstVideoFrame f;
  int x, y;
  static const int kx[3][3] = { {-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1} };
  static const int ky[3][3] = { {-1, -2, -1}, {0, 0, 0}, {1, 2, 1} };

  fail_unless (gst_video_frame_map (&f, info, inbuf, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      in[y * w + x] = CLAMP (ref_luma (&f, x, y) + brightness, 0, 255);
  gst_video_frame_unmap (&f);

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double gx = 0, gy = 0, m;
      int i, j;
      for (j = -1; j <= 1; j++)
        for (i = -1; i <= 1; i++) {
          int v = in[CLAMP (y + j, 0, h - 1) * w + CLAMP (x + i, 0, w - 1)];
          gx += kx[j + 1][i + 1] * v;
          gy += ky[j + 1][i + 1] * v;
        }
      m = floor (sqrt (gx * gx + gy * gy));
      if (m > 255)
        m = 255;
      out[y * w + x] = m > threshold ? (guint8) m : 0;
    }
  g_free (in);
  return out;
}

/* kernel sizes 3, 5, 7 and both norms: OpenCV's Sobel kernels
 * (cv::getDerivKernels (1, 0, k, false)) written out as 2D kernels, the
 * magnitude in doubles */
static const int ocv_smooth[3][7] = { {1, 2, 1}, {1, 4, 6, 4, 1},
{1, 6, 15, 20, 15, 6, 1}
};
static const int ocv_deriv[3][7] = { {-1, 0, 1}, {-1, -2, 0, 2, 1},
{-1, -4, -5, 0, 5, 4, 1}
};

static guint8 *
ref_sobel_k (GstBuffer * inbuf, const GstVideoInfo * info, int brightness,
    int threshold, int k, gboolean l1)
{
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  guint8 *out = g_malloc ((gsize) w * h);
  int *in = g_malloc (sizeof (int) * w * h);
  const int *sm = ocv_smooth[k / 2 - 1], *de = ocv_deriv[k / 2 - 1];
  const int r = k / 2;
  GstVideoFrame f;
  int x, y;

  fail_unless (gst_video_frame_map (&f, info, inbuf, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      in[y * w + x] = CLAMP (ref_luma (&f, x, y) + brightness, 0, 255);
  gst_video_frame_unmap (&f);

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      double gx = 0, gy = 0, m;
      int i, j;
      for (j = 0; j < k; j++)
        for (i = 0; i < k; i++) {
          int v = in[CLAMP (y + j - r, 0, h - 1) * w + CLAMP (x + i - r, 0,
                  w - 1)];
          gx += sm[j] * de[i] * v;
          gy += de[j] * sm[i] * v;
        }
      m = l1 ? fabs (gx) + fabs (gy) : floor (sqrt (gx * gx + gy * gy));
      if (m > 255)
        m = 255;
      out[y * w + x] = m > threshold ? (guint8) m : 0;
    }
  g_free (in);
  return out;
}

/* ---- running the element ---- */

static GstBuffer *
run_one_k (const gchar * backend, const GstVideoInfo * info, GstBuffer * in,
    int brightness, int threshold, int k, gboolean l1)
{
  GstHarness *h = cvtest_harness_new ("cudasobel", backend);

  g_object_set (h->element, "brightness", brightness, "threshold",
      (guint) threshold, "kernel-size", (guint) k, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "norm", l1 ? "l1" : "l2");
  return cvtest_harness_process (h, info, in);
}

/* the 3x3 L2 magnitude (the defaults) */
static GstBuffer *
run_one (const gchar * backend, const GstVideoInfo * info, GstBuffer * in,
    int brightness, int threshold)
{
  return run_one_k (backend, info, in, brightness, threshold, 3, FALSE);
}

static void
check_against_reference (GstVideoFormat fmt, int w, int hgt, guint pad,
    int brightness, int threshold, guint32 seed)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (seed);
  GstBuffer *in, *out;
  guint8 *ref;
  gchar *what;
  guint bad;

  gst_video_info_set_format (&info, fmt, w, hgt);
  in = cvtest_random_frame (&info, pad, rand);
  ref = ref_sobel (in, &info, brightness, threshold);
  out = run_one (NULL, &info, in, brightness, threshold);
  what = g_strdup_printf ("%s %dx%d pad %u b=%d t=%d",
      gst_video_format_to_string (fmt), w, hgt, pad, brightness, threshold);
  bad = cvtest_compare_gray (out, ref, w, hgt, what);
  fail_unless (bad == 0, "%s: %u pixels differ from the reference", what, bad);
  g_free (what);
  g_free (ref);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_rand_free (rand);
}

GST_START_TEST (test_registration_and_properties)
{
  GstElement *e = gst_element_factory_make ("cudasobel", NULL);
  GParamSpec *ps;
  guint t;
  gint b, dev, backend;
  guint depth;

  fail_unless (e != NULL);
  g_object_get (e, "threshold", &t, "brightness", &b, "device-id", &dev,
      "pipeline-depth", &depth, "backend", &backend, NULL);
  fail_unless_equals_int (t, 0);
  fail_unless_equals_int (b, 0);
  fail_unless_equals_int (dev, -1);
  fail_unless_equals_int (depth, 3);
  fail_unless_equals_int (backend, 0);

  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "threshold");
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 255);
  fail_unless (ps->flags & GST_PARAM_CONTROLLABLE);
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "brightness");
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->minimum, -255);
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->maximum, 255);
  fail_unless (ps->flags & GST_PARAM_CONTROLLABLE);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "kernel-size");
  fail_unless (ps->flags & GST_PARAM_CONTROLLABLE);
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "norm");
  fail_unless (ps->flags & GST_PARAM_CONTROLLABLE);
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "pipeline-depth");
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 1);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 4);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "active-backend");
  fail_unless (!(ps->flags & G_PARAM_WRITABLE));

  /* out-of-range values are refused by GObject, the value stays */
  g_object_set (e, "threshold", 100, NULL);
  g_object_get (e, "threshold", &t, NULL);
  fail_unless_equals_int (t, 100);
  gst_object_unref (e);
}

GST_END_TEST;

/* every format, odd sizes, kernel sizes 3, 5, 7, both norms, against the
 * reference with OpenCV's kernels */
GST_START_TEST (test_reference_kernel_size_norm)
{
  static const int sizes[][2] = { {1, 1}, {2, 5}, {7, 3}, {23, 17},
  {131, 3}, {3, 67}, {257, 63}
  };
  guint f, s;
  int k, l1;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (k = 3; k <= 7; k += 2)
        for (l1 = 0; l1 < 2; l1++) {
          GstVideoInfo info;
          GRand *rand = g_rand_new_with_seed (f * 1000 + s * 10 + k + l1);
          int b = (int) (s * 13 % 41) - 20, t = (int) (f + s) % 3 * 40;
          GstBuffer *in, *out;
          guint8 *ref;
          gchar *what;

          gst_video_info_set_format (&info, formats[f], sizes[s][0],
              sizes[s][1]);
          in = cvtest_random_frame (&info, (s % 2) ? 5 : 0, rand);
          ref = ref_sobel_k (in, &info, b, t, k, l1);
          out = run_one_k (NULL, &info, in, b, t, k, l1);
          what = g_strdup_printf ("%s %dx%d k=%d %s b=%d t=%d",
              gst_video_format_to_string (formats[f]), sizes[s][0],
              sizes[s][1], k, l1 ? "l1" : "l2", b, t);
          fail_unless_equals_int (cvtest_compare_gray (out, ref, sizes[s][0],
                  sizes[s][1], what), 0);
          g_free (what);
          g_free (ref);
          gst_buffer_unref (out);
          gst_buffer_unref (in);
          g_rand_free (rand);
        }
}

GST_END_TEST;

/* kernel-size outside 3, 5, 7: a warning on the bus, the value kept */
GST_START_TEST (test_kernel_size_refused)
{
  static const guint bad[] = { 4, 6 };
  GstElement *e = gst_element_factory_make ("cudasobel", NULL);
  GstBus *bus = gst_bus_new ();
  guint i, k;
  gint norm;

  g_object_get (e, "kernel-size", &k, "norm", &norm, NULL);
  fail_unless_equals_int (k, 3);
  fail_unless_equals_int (norm, 0);
  gst_element_set_bus (e, bus);
  g_object_set (e, "kernel-size", 7, NULL);
  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstMessage *msg;
    g_object_set (e, "kernel-size", bad[i], NULL);
    g_object_get (e, "kernel-size", &k, NULL);
    fail_unless_equals_int (k, 7);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "no warning for kernel-size %u", bad[i]);
    gst_message_unref (msg);
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_caps_per_format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstHarness *h = cvtest_harness_new ("cudasobel", NULL);
    GstCaps *caps = cvtest_caps (formats[i], 64, 36), *out_caps;
    GstStructure *s;
    gint w, hh;
    GstVideoInfo info;
    GRand *rand = g_rand_new_with_seed (i);

    gst_harness_set_src_caps (h, caps);
    gst_video_info_set_format (&info, formats[i], 64, 36);
    gst_harness_push (h, cvtest_random_frame (&info, 0, rand));
    gst_harness_push_event (h, gst_event_new_eos ());
    gst_buffer_unref (gst_harness_pull (h));
    out_caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (out_caps != NULL);
    s = gst_caps_get_structure (out_caps, 0);
    fail_unless_equals_string (gst_structure_get_string (s, "format"), "GRAY8");
    gst_structure_get_int (s, "width", &w);
    gst_structure_get_int (s, "height", &hh);
    fail_unless_equals_int (w, 64);
    fail_unless_equals_int (hh, 36);
    gst_caps_unref (out_caps);
    gst_harness_teardown (h);
    g_rand_free (rand);
  }
}

GST_END_TEST;

GST_START_TEST (test_unsupported_format_refused)
{
  GstHarness *h = cvtest_harness_new ("cudasobel", NULL);
  GstCaps *caps = cvtest_caps (GST_VIDEO_FORMAT_YUY2, 16, 16);

  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (1);

  /* YUY2 is not in the sink template: not negotiated, nothing comes out */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_YUY2, 16, 16);
  gst_harness_set_src_caps (h, caps);
  fail_unless_equals_int (gst_harness_push (h, cvtest_random_frame (&info, 0,
              rand)), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_reference_random_frames)
{
  static const int sizes[][2] = { {1, 1}, {2, 3}, {17, 9}, {641, 479} };
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      check_against_reference (formats[f], sizes[s][0], sizes[s][1],
          (s % 2) ? 13 : 0, 0, 0, f * 100 + s);
}

GST_END_TEST;

GST_START_TEST (test_reference_brightness_threshold)
{
  static const int bt[][2] = { {-255, 0}, {-40, 10}, {37, 60}, {255, 0},
  {0, 255}, {0, 128}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bt); i++) {
    check_against_reference (GST_VIDEO_FORMAT_GRAY8, 97, 31, 5, bt[i][0],
        bt[i][1], 1000 + i);
    check_against_reference (GST_VIDEO_FORMAT_BGRx, 45, 23, 7, bt[i][0],
        bt[i][1], 2000 + i);
  }
}

GST_END_TEST;

/* A GRAY8 frame whose left half is `a` and right half `b`. */
static GstBuffer *
step_frame (GstVideoInfo * info, int w, int h, guint8 a, guint8 b)
{
  GstBuffer *buf;
  GstMapInfo map;
  int x, y;

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, w, h);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < h; y++)
    for (x = 0; x < GST_VIDEO_INFO_PLANE_STRIDE (info, 0); x++)
      map.data[y * GST_VIDEO_INFO_PLANE_STRIDE (info, 0) + x] =
          x < w / 2 ? a : b;
  gst_buffer_unmap (buf, &map);
  return buf;
}

static guint8
pixel (GstBuffer * out, GstVideoInfo * info, int x, int y)
{
  GstVideoFrame f;
  guint8 v;

  fail_unless (gst_video_frame_map (&f, info, out, GST_MAP_READ));
  v = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
      GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
  gst_video_frame_unmap (&f);
  return v;
}

GST_START_TEST (test_semantics)
{
  GstVideoInfo info;
  GstBuffer *in, *out;

  /* step 10 -> 20: |Gx| = 4 * 10 = 40 on the two columns at the step */
  in = step_frame (&info, 16, 8, 10, 20);
  out = run_one (NULL, &info, in, 0, 0);
  fail_unless_equals_int (pixel (out, &info, 7, 4), 40);
  fail_unless_equals_int (pixel (out, &info, 8, 4), 40);
  fail_unless_equals_int (pixel (out, &info, 3, 4), 0);
  gst_buffer_unref (out);
  /* threshold keeps m > threshold only */
  out = run_one (NULL, &info, in, 0, 40);
  fail_unless_equals_int (pixel (out, &info, 7, 4), 0);
  gst_buffer_unref (out);
  out = run_one (NULL, &info, in, 0, 39);
  fail_unless_equals_int (pixel (out, &info, 7, 4), 40);
  gst_buffer_unref (out);
  /* brightness shifts both sides equally: same edge */
  out = run_one (NULL, &info, in, 100, 0);
  fail_unless_equals_int (pixel (out, &info, 7, 4), 40);
  gst_buffer_unref (out);
  /* brightness saturating both sides to 255 (or 0) removes the edge */
  out = run_one (NULL, &info, in, 250, 0);
  fail_unless_equals_int (pixel (out, &info, 7, 4), 0);
  gst_buffer_unref (out);
  out = run_one (NULL, &info, in, -255, 0);
  fail_unless_equals_int (pixel (out, &info, 7, 4), 0);
  gst_buffer_unref (out);
  /* partial saturation: 10+240=250, 20+240=255 -> |Gx| = 20 */
  out = run_one (NULL, &info, in, 240, 0);
  fail_unless_equals_int (pixel (out, &info, 7, 4), 20);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  /* a strong edge saturates at 255: 0 -> 100 gives 400 */
  in = step_frame (&info, 16, 8, 0, 100);
  out = run_one (NULL, &info, in, 0, 0);
  fail_unless_equals_int (pixel (out, &info, 8, 0), 255);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

GST_END_TEST;

GST_START_TEST (test_threshold_change_while_playing)
{
  GstHarness *h = cvtest_harness_new ("cudasobel", NULL);
  GstVideoInfo info;
  GstBuffer *in = step_frame (&info, 16, 8, 10, 20), *out;
  guint i;

  g_object_set (h->element, "pipeline-depth", 3, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  /* frames take the threshold in force when they enter the element, even
   * with frames in flight */
  for (i = 0; i < 6; i++) {
    g_object_set (h->element, "threshold", i % 2 ? 50u : 0u, NULL);
    gst_harness_push (h, gst_buffer_copy (in));
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  for (i = 0; i < 6; i++) {
    out = gst_harness_pull (h);
    fail_unless_equals_int (pixel (out, &info, 7, 4), i % 2 ? 0 : 40);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_gpu_equals_cpu_kernel_size_norm)
{
  static const int sizes[][2] = { {1, 1}, {5, 3}, {129, 9}, {641, 479},
  {1920, 1080}
  };
  guint f, s;
  int k, l1;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (k = 3; k <= 7; k += 2)
        for (l1 = 0; l1 < 2; l1++) {
          GstVideoInfo info;
          GRand *rand = g_rand_new_with_seed (f * 7 + s + k);
          GstBuffer *in, *gpu, *cpu;
          int w = sizes[s][0], hgt = sizes[s][1];
          guint8 *ref;

          gst_video_info_set_format (&info, formats[f], w, hgt);
          in = cvtest_random_frame (&info, s * 3, rand);
          gpu = run_one_k ("cuda", &info, in, 9, (int) f * 9, k, l1);
          cpu = run_one_k ("cpu", &info, in, 9, (int) f * 9, k, l1);
          /* both against the reference where it is affordable */
          if (w * hgt <= 641 * 479) {
            ref = ref_sobel_k (in, &info, 9, (int) f * 9, k, l1);
            fail_unless_equals_int (cvtest_compare_gray (gpu, ref, w, hgt,
                    "gpu"), 0);
            fail_unless_equals_int (cvtest_compare_gray (cpu, ref, w, hgt,
                    "cpu"), 0);
            g_free (ref);
          } else {
            GstVideoInfo oi;
            GstVideoFrame a, b;
            int y;
            gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, w, hgt);
            fail_unless (gst_video_frame_map (&a, &oi, gpu, GST_MAP_READ));
            fail_unless (gst_video_frame_map (&b, &oi, cpu, GST_MAP_READ));
            for (y = 0; y < hgt; y++)
              fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a,
                          0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&a,
                          0), (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) +
                      (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0),
                      w) == 0, "GPU != CPU %s %dx%d k=%d l1=%d row %d",
                  gst_video_format_to_string (formats[f]), w, hgt, k, l1, y);
            gst_video_frame_unmap (&a);
            gst_video_frame_unmap (&b);
          }
          gst_buffer_unref (gpu);
          gst_buffer_unref (cpu);
          gst_buffer_unref (in);
          g_rand_free (rand);
        }
}

GST_END_TEST;

GST_START_TEST (test_gpu_equals_cpu)
{
  static const int sizes[][2] = { {1, 1}, {3, 2}, {129, 9}, {641, 479},
  {1920, 1080}, {4001, 2999}
  };
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstVideoInfo info;
      GRand *rand = g_rand_new_with_seed (f * 7 + s);
      GstBuffer *in, *gpu, *cpu;

      gst_video_info_set_format (&info, formats[f], sizes[s][0], sizes[s][1]);
      in = cvtest_random_frame (&info, s * 3, rand);
      gpu = run_one ("cuda", &info, in, (int) s * 20 - 50, (int) f * 9);
      cpu = run_one ("cpu", &info, in, (int) s * 20 - 50, (int) f * 9);
      {
        /* compare the pixels (rows may carry padding) */
        GstVideoInfo oi;
        GstVideoFrame a, b;
        int y, w = sizes[s][0], hgt = sizes[s][1];

        gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, w, hgt);
        fail_unless (gst_video_frame_map (&a, &oi, gpu, GST_MAP_READ));
        fail_unless (gst_video_frame_map (&b, &oi, cpu, GST_MAP_READ));
        for (y = 0; y < hgt; y++)
          fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a, 0) +
                  (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0),
                  (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) +
                  (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0), w) == 0,
              "GPU != CPU for %s %dx%d, row %d",
              gst_video_format_to_string (formats[f]), w, hgt, y);
        gst_video_frame_unmap (&a);
        gst_video_frame_unmap (&b);
      }
      gst_buffer_unref (gpu);
      gst_buffer_unref (cpu);
      gst_buffer_unref (in);
      g_rand_free (rand);
    }
}

GST_END_TEST;

/* Real frames: the sample images through jpegdec, reference and (GPU
 * suite) CPU == GPU. */
GST_START_TEST (test_real_images)
{
  static const gchar *names[] = { "fruits.jpg", "baboon.jpg", "building.jpg" };
  guint i, found = 0;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *path = g_build_filename (cvtest_media_dir (), names[i], NULL);
    GstVideoInfo info;
    GstBuffer *in = cvtest_load_image (path, GST_VIDEO_FORMAT_RGBx, &info);
    GstBuffer *out;
    guint8 *ref;

    g_free (path);
    if (!in)
      continue;
    found++;
    ref = ref_sobel (in, &info, 0, 20);
    out = run_one (NULL, &info, in, 0, 20);
    fail_unless_equals_int (cvtest_compare_gray (out, ref,
            GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
            names[i]), 0);
    if (cvtest_backend_is_cuda ()) {
      GstBuffer *cpu = run_one ("cpu", &info, in, 0, 20);
      fail_unless_equals_int (cvtest_compare_gray (cpu, ref,
              GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
              "cpu"), 0);
      gst_buffer_unref (cpu);
    }
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    g_free (ref);
  }
  fail_unless (found > 0, "no sample image found in %s (opencv-doc)",
      cvtest_media_dir ());
}

GST_END_TEST;

/* The seed's largest frame, 20000x13176 GRAY8: the reference on a band of
 * rows at the top, middle and bottom (a full double-loop reference would
 * take minutes here). */
GST_START_TEST (test_huge_frame)
{
  const int w = 20000, hgt = 13176;
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (42);
  GstBuffer *in, *out, *band_in;
  GstVideoFrame fi, fo, fb;
  static const int bands[] = { 0, 6580, 13176 - 5 };
  guint b;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hgt);
  in = cvtest_random_frame (&info, 0, rand);
  out = run_one (NULL, &info, in, 3, 17);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
  {
    GstVideoInfo oi;
    gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, w, hgt);
    fail_unless (gst_video_frame_map (&fo, &oi, out, GST_MAP_READ));
  }
  for (b = 0; b < G_N_ELEMENTS (bands); b++) {
    /* a 5-row band: the reference of the band's middle 3 rows equals the
     * full-frame reference there (except at the frame's own border rows,
     * where clamping happens inside the band as well) */
    GstVideoInfo bi;
    guint8 *ref;
    int y, y0 = bands[b];
    gst_video_info_set_format (&bi, GST_VIDEO_FORMAT_GRAY8, w, 5);
    band_in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&bi), NULL);
    fail_unless (gst_video_frame_map (&fb, &bi, band_in, GST_MAP_WRITE));
    for (y = 0; y < 5; y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, 0),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, 0) +
          (gsize) (y0 + y) * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0), w);
    gst_video_frame_unmap (&fb);
    ref = ref_sobel (band_in, &bi, 3, 17);
    for (y = 0; y < 5; y++) {
      int fy = y0 + y;
      const guint8 *row;
      gboolean interior = (y >= 1 && y <= 3) || (fy == 0 && y == 0) ||
          (fy == hgt - 1 && y == 4);
      if (!interior)
        continue;
      row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0) +
          (gsize) fy *GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0);
      fail_unless (memcmp (row, ref + (gsize) y * w, w) == 0,
          "row %d differs from the reference", fy);
    }
    g_free (ref);
    gst_buffer_unref (band_in);
  }
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_rand_free (rand);
}

GST_END_TEST;

/* The main job: the real sample video decoded by GStreamer, a few seconds
 * of it, every frame compared with the reference. */
GST_START_TEST (test_real_video)
{
  gchar *path = g_build_filename (cvtest_media_dir (), "vtest.avi", NULL);
  gchar *desc;
  GstElement *pipe, *sink;
  GstSample *sample;
  guint frames = 0;
  GstClockTime last = GST_CLOCK_TIME_NONE;
  GstBus *bus;
  GstMessage *msg;

  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_free (path);
    fail ("vtest.avi not found in %s (install opencv-doc)",
        cvtest_media_dir ());
    return;
  }
  desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! video/x-raw,format=I420 ! tee name=t "
      "t. ! queue ! cudasobel name=sobel backend=%s threshold=20 ! "
      "appsink name=edges sync=false "
      "t. ! queue ! appsink name=frames sync=false", path, cvtest_backend ());
  pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  g_free (path);
  fail_unless (pipe != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "edges");
  {
    GstElement *frames_sink = gst_bin_get_by_name (GST_BIN (pipe), "frames");
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
        GST_STATE_CHANGE_ASYNC);
    /* 3 s of the 10 fps video */
    while (frames < 30) {
      GstSample *src_sample = NULL;
      GstVideoInfo info, oi;
      guint8 *ref;
      GstBuffer *ob;

      g_signal_emit_by_name (sink, "pull-sample", &sample);
      g_signal_emit_by_name (frames_sink, "pull-sample", &src_sample);
      fail_unless (sample != NULL && src_sample != NULL);
      gst_video_info_from_caps (&info, gst_sample_get_caps (src_sample));
      gst_video_info_from_caps (&oi, gst_sample_get_caps (sample));
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&oi), 768);
      fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&oi), 576);
      ob = gst_sample_get_buffer (sample);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (ob),
          GST_BUFFER_PTS (gst_sample_get_buffer (src_sample)));
      if (GST_CLOCK_TIME_IS_VALID (last))
        fail_unless (GST_BUFFER_PTS (ob) > last);
      last = GST_BUFFER_PTS (ob);
      ref = ref_sobel (gst_sample_get_buffer (src_sample), &info, 0, 20);
      fail_unless_equals_int (cvtest_compare_gray (ob, ref, 768, 576, "vtest"),
          0);
      g_free (ref);
      gst_sample_unref (sample);
      gst_sample_unref (src_sample);
      frames++;
    }
    gst_object_unref (frames_sink);
  }
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "error on the bus");
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
sobel_suite (void)
{
  Suite *s = suite_create ("cudasobel");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_registration_and_properties);
  tcase_add_test (tc, test_caps_per_format);
  tcase_add_test (tc, test_unsupported_format_refused);
  tcase_add_test (tc, test_reference_random_frames);
  tcase_add_test (tc, test_reference_brightness_threshold);
  tcase_add_test (tc, test_reference_kernel_size_norm);
  tcase_add_test (tc, test_kernel_size_refused);
  tcase_add_test (tc, test_semantics);
  tcase_add_test (tc, test_threshold_change_while_playing);
  if (cvtest_backend_is_cuda ())
    tcase_add_test (tc, test_gpu_equals_cpu);
  if (cvtest_backend_is_cuda ())
    tcase_add_test (tc, test_gpu_equals_cpu_kernel_size_norm);
  tcase_add_test (tc, test_real_images);
  tcase_add_test (tc, test_huge_frame);
  tcase_add_test (tc, test_real_video);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cvtest_run_suite (sobel_suite ());
}
