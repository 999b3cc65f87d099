/* cudacanny: output against an independent reference of cv::Canny written
 * here (2D kernels, rint, a sweeping hysteresis: nothing of the library),
 * odd sizes, formats, swapped and fractional thresholds, every aperture
 * and norm, property changes while PLAYING, refused values, GPU == CPU,
 * real images.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"

#include <math.h>
#include <string.h>

static const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
};

/* ---- the reference, from the definition (cvcanny.h, OpenCV 4.x) ---- */

/* OpenCV's Sobel kernels (cv::getDerivKernels (1, 0, k, false)) */
static const int smooth3[] = { 1, 2, 1 };
static const int deriv3[] = { -1, 0, 1 };
static const int smooth5[] = { 1, 4, 6, 4, 1 };
static const int deriv5[] = { -1, -2, 0, 2, 1 };
static const int smooth7[] = { 1, 6, 15, 20, 15, 6, 1 };
static const int deriv7[] = { -1, -4, -5, 0, 5, 4, 1 };

static int
ref_luma (GstVideoFrame * f, int x, int y)
{
  const GstVideoFormatInfo *fi = f->info.finfo;

  if (GST_VIDEO_FORMAT_INFO_IS_YUV (fi) || GST_VIDEO_FORMAT_INFO_IS_GRAY (fi)) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, 0) +
        y * GST_VIDEO_FRAME_COMP_STRIDE (f, 0);
    return row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, 0)];
  } else {
    int c[3], i;
    for (i = 0; i < 3; i++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, i) +
          y * GST_VIDEO_FRAME_COMP_STRIDE (f, i);
      c[i] = row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, i)];
    }
    return (77 * c[0] + 150 * c[1] + 29 * c[2] + 128) / 256;
  }
}

typedef struct
{
  double low, high;
  int k;
  gboolean l2;
} Setting;

static guint8 *
ref_canny (GstBuffer * inbuf, const GstVideoInfo * info, const Setting * s)
{
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  const int k = s->k, r = k / 2;
  const int *sm = k == 3 ? smooth3 : k == 5 ? smooth5 : smooth7;
  const int *de = k == 3 ? deriv3 : k == 5 ? deriv5 : deriv7;
  int *Y = g_new (int, (gsize) w * h);
  long long *dx = g_new (long long, (gsize) w * h);
  long long *dy = g_new (long long, (gsize) w * h);
  long long *mag = g_new0 (long long, (gsize) (w + 2) * (h + 2));
  guint8 *cls = g_new0 (guint8, (gsize) w * h);
  guint8 *out = g_new0 (guint8, (gsize) w * h);
  double lo = s->low, hi = s->high;
  long long low, high;
  GstVideoFrame f;
  int x, y, i, j;
  gboolean changed;

#define M(xx, yy) mag[((yy) + 1) * (w + 2) + (xx) + 1]
  fail_unless (gst_video_frame_map (&f, info, inbuf, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      Y[y * w + x] = ref_luma (&f, x, y);
  gst_video_frame_unmap (&f);

  /* thresholds as cv::Canny */
  if (k == 7) {
    lo /= 16;
    hi /= 16;
  }
  if (lo > hi) {
    double t = lo;
    lo = hi;
    hi = t;
  }
  if (s->l2) {
    lo = MIN (32767.0, lo);
    hi = MIN (32767.0, hi);
    if (lo > 0)
      lo = lo * lo;
    if (hi > 0)
      hi = hi * hi;
  }
  low = (long long) floor (lo);
  high = (long long) floor (hi);

  /* the derivatives: the 2D kernels (outer products), border replicated */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      long long gx = 0, gy = 0;
      for (j = 0; j < k; j++)
        for (i = 0; i < k; i++) {
          int v = Y[CLAMP (y + j - r, 0, h - 1) * w + CLAMP (x + i - r, 0,
                  w - 1)];
          gx += (long long) sm[j] * de[i] * v;
          gy += (long long) de[j] * sm[i] * v;
        }
      if (k == 7) {
        /* cv::Sobel (CV_16S, scale 1/16): rounded, ties to even */
        gx = (long long) rint (gx / 16.0);
        gy = (long long) rint (gy / 16.0);
      }
      dx[y * w + x] = gx;
      dy[y * w + x] = gy;
      M (x, y) = s->l2 ? gx * gx + gy * gy : llabs (gx) + llabs (gy);
    }

  /* non-maximum suppression (tan 22.5° = 13573 / 2^15) and classes */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      long long m = M (x, y), ax = llabs (dx[y * w + x]);
      long long ay = llabs (dy[y * w + x]);
      gboolean keep;
      if (m <= low)
        continue;
      if (ay * 32768 < ax * 13573)
        keep = m > M (x - 1, y) && m >= M (x + 1, y);
      else if (ay * 32768 > ax * 13573 + ax * 65536)
        keep = m > M (x, y - 1) && m >= M (x, y + 1);
      else if ((dx[y * w + x] < 0) != (dy[y * w + x] < 0))
        keep = m > M (x + 1, y - 1) && m > M (x - 1, y + 1);
      else
        keep = m > M (x - 1, y - 1) && m > M (x + 1, y + 1);
      if (keep)
        cls[y * w + x] = m > high ? 2 : 1;
    }
#undef M

  /* hysteresis: sweep forwards and backwards until nothing changes */
  for (i = 0; i < w * h; i++)
    out[i] = cls[i] == 2 ? 255 : 0;
  do {
    int pass;
    changed = FALSE;
    for (pass = 0; pass < 2; pass++)
      for (i = 0; i < w * h; i++) {
        int p = pass ? w * h - 1 - i : i, px = p % w, py = p / w, a, b;
        if (cls[p] != 1 || out[p])
          continue;
        for (b = MAX (py - 1, 0); b <= MIN (py + 1, h - 1) && !out[p]; b++)
          for (a = MAX (px - 1, 0); a <= MIN (px + 1, w - 1); a++)
            if (out[b * w + a]) {
              out[p] = 255;
              changed = TRUE;
              break;
            }
      }
  } while (changed);

  g_free (Y);
  g_free (dx);
  g_free (dy);
  g_free (mag);
  g_free (cls);
  return out;
}

/* ---- inputs ---- */

/* A frame of info's format whose colour components are smooth waves plus
 * noise (edges of every strength, long weak chains); rows padded by pad. */
static GstBuffer *
wave_frame (const GstVideoInfo * info, guint pad, GRand * rand, int noise)
{
  GstBuffer *buf = cvtest_random_frame (info, pad, rand);
  GstVideoFrame f;
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  const double fx = g_rand_double_range (rand, 0.05, 0.4);
  const double fy = g_rand_double_range (rand, 0.05, 0.4);
  const double ph = g_rand_double_range (rand, 0, 6.28);
  guint c, nc;
  int x, y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  nc = GST_VIDEO_INFO_IS_RGB (info) ? 3 : 1;
  for (c = 0; c < nc; c++)
    for (y = 0; y < h; y++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, c) +
          y * GST_VIDEO_FRAME_COMP_STRIDE (&f, c);
      for (x = 0; x < w; x++) {
        double v = 128 + 100 * sin (x * fx + ph) * cos (y * fy) +
            (x * 37 % 97 < 8 ? 60 : 0);
        int n = noise ? g_rand_int_range (rand, -noise, noise + 1) : 0;
        row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c)] =
            (guint8) CLAMP ((int) v + n, 0, 255);
      }
    }
  gst_video_frame_unmap (&f);
  return buf;
}

/* ---- running the element ---- */

static void
set_setting (GstElement * e, const Setting * s)
{
  g_object_set (e, "low-threshold", s->low, "high-threshold", s->high,
      "kernel-size", (guint) s->k, "l2-gradient", s->l2, NULL);
}

static GstBuffer *
run_one (const gchar * backend, const GstVideoInfo * info, GstBuffer * in,
    const Setting * s)
{
  GstHarness *h = cvtest_harness_new ("cudacanny", backend);

  set_setting (h->element, s);
  return cvtest_harness_process (h, info, in);
}

/* mismatches of a GRAY8 output against the reference; every output byte
 * must be 0 or 255 */
static guint
compare_gray (GstBuffer * out, const guint8 * ref, int w, int hgt,
    const gchar * what)
{
  GstVideoInfo oi;
  GstVideoFrame f;
  int x, y;

  gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, w, hgt);
  fail_unless (gst_video_frame_map (&f, &oi, out, GST_MAP_READ));
  for (y = 0; y < hgt; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (x = 0; x < w; x++)
      fail_unless (row[x] == 0 || row[x] == 255, "%s: (%d,%d) = %u", what, x,
          y, row[x]);
  }
  gst_video_frame_unmap (&f);
  return cvtest_compare_gray (out, ref, w, hgt, what);
}

static guint
count_edges (const guint8 * map, gsize n)
{
  guint c = 0;
  gsize i;
  for (i = 0; i < n; i++)
    c += map[i] != 0;
  return c;
}

static void
check_reference (const GstVideoInfo * info, GstBuffer * in, const Setting * s,
    const gchar * label)
{
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  guint8 *ref = ref_canny (in, info, s);
  GstBuffer *out = run_one (NULL, info, in, s);
  gchar *what = g_strdup_printf ("%s %s %dx%d k=%d l2=%d t=%g/%g", label,
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)), w, h, s->k,
      s->l2, s->low, s->high);
  guint bad = compare_gray (out, ref, w, h, what);

  fail_unless (bad == 0, "%s: %u pixels differ from the reference", what, bad);
  g_free (what);
  g_free (ref);
  gst_buffer_unref (out);
}

/* ---- tests ---- */

GST_START_TEST (test_registration_and_properties)
{
  GstElement *e = gst_element_factory_make ("cudacanny", NULL);
  static const gchar *props[] = { "low-threshold", "high-threshold",
    "kernel-size", "l2-gradient"
  };
  gdouble lo, hi;
  guint k;
  gboolean l2;
  guint i;

  fail_unless (e != NULL);
  g_object_get (e, "low-threshold", &lo, "high-threshold", &hi,
      "kernel-size", &k, "l2-gradient", &l2, NULL);
  fail_unless_equals_float (lo, 50.0);
  fail_unless_equals_float (hi, 150.0);
  fail_unless_equals_int (k, 3);
  fail_unless (!l2);
  for (i = 0; i < G_N_ELEMENTS (props); i++) {
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        props[i]);
    fail_unless (ps != NULL, "%s", props[i]);
    fail_unless (ps->flags & GST_PARAM_CONTROLLABLE, "%s", props[i]);
    fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING, "%s", props[i]);
  }
  g_object_set (e, "kernel-size", 7, "low-threshold", 12.5, NULL);
  g_object_get (e, "kernel-size", &k, "low-threshold", &lo, NULL);
  fail_unless_equals_int (k, 7);
  fail_unless_equals_float (lo, 12.5);
  gst_object_unref (e);
}

GST_END_TEST;

/* kernel-size 4, 6 are in the GParamSpec's range but refused: a warning on
 * the bus, the previous value kept */
GST_START_TEST (test_kernel_size_refused)
{
  static const guint bad[] = { 4, 6 };
  GstElement *e = gst_element_factory_make ("cudacanny", NULL);
  GstBus *bus = gst_bus_new ();
  guint i, k;

  gst_element_set_bus (e, bus);
  g_object_set (e, "kernel-size", 5, NULL);
  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstMessage *msg;
    g_object_set (e, "kernel-size", bad[i], NULL);
    g_object_get (e, "kernel-size", &k, NULL);
    fail_unless_equals_int (k, 5);
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

GST_START_TEST (test_reference_sizes_formats)
{
  static const int sizes[][2] = { {1, 1}, {2, 3}, {3, 2}, {17, 9}, {31, 7},
  {257, 3}, {3, 131}, {127, 97}
  };
  static const Setting settings[] = {
    {50, 150, 3, FALSE}, {20, 60, 5, TRUE}, {300, 900, 7, FALSE},
    {10.5, 30.25, 3, TRUE}, {150, 50, 5, FALSE}, {40, 120, 7, TRUE},
  };
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstVideoInfo info;
      GRand *rand = g_rand_new_with_seed (f * 100 + s);
      GstBuffer *in;
      const Setting *st = &settings[(f + s) % G_N_ELEMENTS (settings)];

      gst_video_info_set_format (&info, formats[f], sizes[s][0], sizes[s][1]);
      in = wave_frame (&info, (s % 2) ? 13 : 0, rand, 12);
      check_reference (&info, in, st, "wave");
      gst_buffer_unref (in);
      g_rand_free (rand);
    }
}

GST_END_TEST;

/* every aperture and norm, thresholds in order, swapped, fractional, equal,
 * zero; on a frame with edges of all strengths and on pure noise */
GST_START_TEST (test_reference_settings)
{
  static const double thr[][2] = { {50, 150}, {150, 50}, {12.5, 33.75},
  {100, 100}, {0, 0}, {0.5, 1e6}, {1000, 3000}
  };
  int k, l2;
  guint t, noise;

  for (noise = 0; noise < 2; noise++) {
    GstVideoInfo info;
    GRand *rand = g_rand_new_with_seed (77 + noise);
    GstBuffer *in;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 97, 61);
    in = noise ? cvtest_random_frame (&info, 3, rand) :
        wave_frame (&info, 3, rand, 6);
    for (k = 3; k <= 7; k += 2)
      for (l2 = 0; l2 < 2; l2++)
        for (t = 0; t < G_N_ELEMENTS (thr); t++) {
          Setting s = { thr[t][0], thr[t][1], k, l2 };
          check_reference (&info, in, &s, noise ? "noise" : "wave");
        }
    gst_buffer_unref (in);
    g_rand_free (rand);
  }
}

GST_END_TEST;

/* a vertical step 10 -> 200 at x = 8: |dx| = 4 * 190 = 760 on columns 7
 * and 8 (aperture 3, L1); the suppression keeps the first (m > left,
 * m >= right): one line at x = 7 */
static GstBuffer *
step_frame (GstVideoInfo * info, int w, int h)
{
  GstBuffer *buf;
  GstMapInfo map;
  int x, y, stride;

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, w, h);
  stride = GST_VIDEO_INFO_PLANE_STRIDE (info, 0);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < h; y++)
    for (x = 0; x < stride; x++)
      map.data[y * stride + x] = x < 8 ? 10 : 200;
  gst_buffer_unmap (buf, &map);
  return buf;
}

static guint8
pixel (GstBuffer * out, int w, int h, int x, int y)
{
  GstVideoInfo info;
  GstVideoFrame f;
  guint8 v;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  v = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
      GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
  gst_video_frame_unmap (&f);
  return v;
}

GST_START_TEST (test_step_edge)
{
  GstVideoInfo info;
  GstBuffer *in = step_frame (&info, 16, 8), *out;
  Setting s = { 50, 150, 3, FALSE };
  int x, y;

  out = run_one (NULL, &info, in, &s);
  for (y = 0; y < 8; y++)
    for (x = 0; x < 16; x++)
      fail_unless_equals_int (pixel (out, 16, 8, x, y), x == 7 ? 255 : 0);
  gst_buffer_unref (out);
  /* 760 is not above a high threshold of 760: no strong pixel, no edge */
  s.high = 760;
  out = run_one (NULL, &info, in, &s);
  for (y = 0; y < 8; y++)
    fail_unless_equals_int (pixel (out, 16, 8, 7, y), 0);
  gst_buffer_unref (out);
  s.high = 759.5;
  out = run_one (NULL, &info, in, &s);
  fail_unless_equals_int (pixel (out, 16, 8, 7, 3), 255);
  gst_buffer_unref (out);
  /* with L2 the magnitude compared is 760² */
  s.l2 = TRUE;
  s.high = 759.5;
  out = run_one (NULL, &info, in, &s);
  fail_unless_equals_int (pixel (out, 16, 8, 7, 3), 255);
  gst_buffer_unref (out);
  s.high = 760;
  out = run_one (NULL, &info, in, &s);
  fail_unless_equals_int (pixel (out, 16, 8, 7, 3), 0);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

GST_END_TEST;

/* hysteresis: a weak ramp connected to a strong end is kept entirely; the
 * same ramp without the strong end disappears */
GST_START_TEST (test_hysteresis_chain)
{
  const int w = 64, h = 16;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstMapInfo map;
  Setting s = { 20, 300, 3, FALSE };
  int x, y, stride, strong_end;

  for (strong_end = 0; strong_end < 2; strong_end++) {
    guint8 *ref;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
    stride = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
    in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    /* a horizontal step at y = 8 of height 20 (|dy| = 80), 100 on the
     * last 8 columns when strong_end (|dy| = 400 > 300) */
    for (y = 0; y < h; y++)
      for (x = 0; x < stride; x++)
        map.data[y * stride + x] = y < 8 ? 50 : (strong_end
            && x >= w - 8 ? 150 : 70);
    gst_buffer_unmap (in, &map);
    ref = ref_canny (in, &info, &s);
    out = run_one (NULL, &info, in, &s);
    fail_unless_equals_int (compare_gray (out, ref, w, h, "chain"), 0);
    if (strong_end) {
      /* the whole line, weak part included */
      for (x = 2; x < w - 10; x++)
        fail_unless_equals_int (pixel (out, w, h, x, 7), 255);
    } else {
      fail_unless_equals_int (count_edges (ref, (gsize) w * h), 0);
      for (x = 0; x < w; x++)
        fail_unless_equals_int (pixel (out, w, h, x, 7), 0);
    }
    g_free (ref);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
}

GST_END_TEST;

/* frames take the properties in force when they enter the element */
GST_START_TEST (test_change_while_playing)
{
  GstHarness *h = cvtest_harness_new ("cudacanny", NULL);
  GstVideoInfo info;
  GstBuffer *in = step_frame (&info, 16, 8), *out;
  guint i;

  g_object_set (h->element, "pipeline-depth", 3, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 8; i++) {
    /* odd frames: a high threshold above the step's 760: no edge; every
     * third frame aperture 5 (|dx| up to 48 * 190 = 9120: an edge at
     * x = 7 whatever the threshold here) */
    g_object_set (h->element, "high-threshold", i % 2 ? 800.0 : 150.0,
        "kernel-size", i % 3 == 2 ? 5u : 3u, NULL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_copy (in)),
        GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  for (i = 0; i < 8; i++) {
    int expect = i % 2 && i % 3 != 2 ? 0 : 255;
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_int (pixel (out, 16, 8, 7, 4), expect);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* NV12 / I420 output when downstream asks: the edges in Y, chroma 128 */
GST_START_TEST (test_yuv_output)
{
  static const gchar *outs[] = { "NV12", "I420" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (outs); i++) {
    GstHarness *h = cvtest_harness_new ("cudacanny", NULL);
    GstVideoInfo info, oi;
    GstBuffer *in = step_frame (&info, 16, 8), *out;
    GstVideoFrame f;
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s", outs[i]);
    int x, y;

    gst_harness_set_sink_caps_str (h, caps);
    g_free (caps);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    /* the CUDA backend holds pipeline-depth - 1 frames: EOS drains them */
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    out = gst_harness_pull (h);
    fail_unless (out != NULL, "no %s frame after EOS", outs[i]);
    gst_video_info_set_format (&oi, gst_video_format_from_string (outs[i]),
        16, 8);
    fail_unless (gst_video_frame_map (&f, &oi, out, GST_MAP_READ));
    for (y = 0; y < 8; y++)
      for (x = 0; x < 16; x++)
        fail_unless_equals_int (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
                    0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x],
            x == 7 ? 255 : 0);
    for (y = 0; y < 4; y++)
      fail_unless_equals_int (((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
                  1))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 1)], 128);
    gst_video_frame_unmap (&f);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_gpu_equals_cpu)
{
  static const int sizes[][2] = { {1, 1}, {3, 2}, {129, 9}, {641, 479},
  {1920, 1080}, {4001, 2999}
  };
  guint f, s;
  int k, l2;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (k = 3; k <= 7; k += 2)
        for (l2 = 0; l2 < 2; l2++) {
          GstVideoInfo info, oi;
          GRand *rand = g_rand_new_with_seed (f * 7 + s);
          GstBuffer *in, *gpu, *cpu;
          GstVideoFrame a, b;
          Setting st = { 30 + 10 * s, 90 + 20 * f, k, l2 };
          int y, w = sizes[s][0], hgt = sizes[s][1];

          gst_video_info_set_format (&info, formats[f], w, hgt);
          in = (s + k) % 2 ? cvtest_random_frame (&info, s * 3, rand) :
              wave_frame (&info, s * 3, rand, 10);
          gpu = run_one ("cuda", &info, in, &st);
          cpu = run_one ("cpu", &info, in, &st);
          gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, w, hgt);
          fail_unless (gst_video_frame_map (&a, &oi, gpu, GST_MAP_READ));
          fail_unless (gst_video_frame_map (&b, &oi, cpu, GST_MAP_READ));
          for (y = 0; y < hgt; y++)
            fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&a,
                        0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&a, 0),
                    (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&b, 0) +
                    (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&b, 0),
                    w) == 0, "GPU != CPU for %s %dx%d k=%d l2=%d, row %d",
                gst_video_format_to_string (formats[f]), w, hgt, k, l2, y);
          gst_video_frame_unmap (&a);
          gst_video_frame_unmap (&b);
          gst_buffer_unref (gpu);
          gst_buffer_unref (cpu);
          gst_buffer_unref (in);
          g_rand_free (rand);
        }
}

GST_END_TEST;

/* Real frames: the sample images through jpegdec, against the reference
 * (and, in the GPU suite, the CPU). */
GST_START_TEST (test_real_images)
{
  static const gchar *names[] = { "fruits.jpg", "baboon.jpg" };
  static const Setting settings[] = { {50, 150, 3, FALSE},
  {80, 200, 5, TRUE}, {400, 1200, 7, FALSE}
  };
  guint i, j, found = 0;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *path = g_build_filename (cvtest_media_dir (), names[i], NULL);
    GstVideoInfo info;
    GstBuffer *in = cvtest_load_image (path, GST_VIDEO_FORMAT_GRAY8, &info);

    g_free (path);
    if (!in)
      continue;
    found++;
    for (j = 0; j < G_N_ELEMENTS (settings); j++) {
      guint8 *ref = ref_canny (in, &info, &settings[j]);
      GstBuffer *out = run_one (NULL, &info, in, &settings[j]);
      fail_unless (count_edges (ref, GST_VIDEO_INFO_WIDTH (&info) *
              GST_VIDEO_INFO_HEIGHT (&info)) > 1000);
      fail_unless_equals_int (compare_gray (out, ref,
              GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
              names[i]), 0);
      gst_buffer_unref (out);
      if (cvtest_backend_is_cuda ()) {
        GstBuffer *cpu = run_one ("cpu", &info, in, &settings[j]);
        fail_unless_equals_int (compare_gray (cpu, ref,
                GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
                "cpu"), 0);
        gst_buffer_unref (cpu);
      }
      g_free (ref);
    }
    gst_buffer_unref (in);
  }
  fail_unless (found > 0, "no sample image found in %s (opencv-doc)",
      cvtest_media_dir ());
}

GST_END_TEST;

static Suite *
canny_suite (void)
{
  Suite *s = suite_create ("cudacanny");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_registration_and_properties);
  tcase_add_test (tc, test_kernel_size_refused);
  tcase_add_test (tc, test_reference_sizes_formats);
  tcase_add_test (tc, test_reference_settings);
  tcase_add_test (tc, test_step_edge);
  tcase_add_test (tc, test_hysteresis_chain);
  tcase_add_test (tc, test_change_while_playing);
  tcase_add_test (tc, test_yuv_output);
  if (cvtest_backend_is_cuda ())
    tcase_add_test (tc, test_gpu_equals_cpu);
  tcase_add_test (tc, test_real_images);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cvtest_run_suite (canny_suite ());
}
