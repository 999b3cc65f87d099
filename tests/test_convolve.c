/* cudaconvolve: output against an independent reference, chains against
 * consecutive elements, property handling, bad input, GPU == CPU.
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

static const gchar *borders[] = { "constant", "replicate", "reflect" };

/* ---- the reference: plain double loops, written from the definition ---- */

/* one plane, tightly packed: bpp bytes per pixel, the first nc filtered */
typedef struct
{
  int w, h, bpp, nc;
  guint8 *d;
} Img;

/* plane layouts of the formats, from the formats' definitions */
static int
format_planes (GstVideoFormat f, int bpp[3], int nc[3])
{
  switch (f) {
    case GST_VIDEO_FORMAT_GRAY8:
      bpp[0] = nc[0] = 1;
      return 1;
    case GST_VIDEO_FORMAT_I420:
      bpp[0] = bpp[1] = bpp[2] = nc[0] = nc[1] = nc[2] = 1;
      return 3;
    case GST_VIDEO_FORMAT_NV12:
      bpp[0] = nc[0] = 1;
      bpp[1] = nc[1] = 2;
      return 2;
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      bpp[0] = nc[0] = 3;
      return 1;
    default:                   /* RGBA, BGRA, RGBx, BGRx: alpha/x last */
      bpp[0] = 4;
      nc[0] = 3;
      return 1;
  }
}

static int
get_planes (GstBuffer * buf, const GstVideoInfo * info, Img * img)
{
  int bpp[3], nc[3], n, p, y;
  GstVideoFrame f;

  n = format_planes (GST_VIDEO_INFO_FORMAT (info), bpp, nc);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  for (p = 0; p < n; p++) {
    img[p].w = GST_VIDEO_INFO_COMP_WIDTH (info, p);
    img[p].h = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    img[p].bpp = bpp[p];
    img[p].nc = nc[p];
    img[p].d = g_malloc ((gsize) img[p].w * img[p].h * bpp[p]);
    for (y = 0; y < img[p].h; y++)
      memcpy (img[p].d + (gsize) y * img[p].w * bpp[p],
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, p) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p),
          (gsize) img[p].w * bpp[p]);
  }
  gst_video_frame_unmap (&f);
  return n;
}

static void
free_planes (Img * img, int n)
{
  int p;
  for (p = 0; p < n; p++)
    g_free (img[p].d);
}

/* border rule on one axis; -1 = constant 0 */
static int
ref_border (int p, int n, int mode)
{
  if (p >= 0 && p < n)
    return p;
  if (mode == 0)
    return -1;
  if (mode == 1)
    return p < 0 ? 0 : n - 1;
  if (n == 1)
    return 0;
  /* reflect-101, mirrored as often as needed */
  while (p < 0 || p >= n)
    p = p < 0 ? -p : 2 * (n - 1) - p;
  return p;
}

/* a filter of the chain: a k x k weight matrix (double) and its kind */
typedef struct
{
  const gchar *name;
  int k;
  double w[31 * 31];
} RefFilter;

static void
ref_filter (RefFilter * f, const gchar * name, const double *custom, int ck)
{
  static const double blur[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  static const double gauss[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  static const double sharpen[9] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
  static const double edge[9] = { 0, -1, 0, -1, 4, -1, 0, -1, 0 };
  const double *src = NULL;
  int i;

  f->name = name;
  f->k = 3;
  if (!strcmp (name, "blur"))
    src = blur;
  else if (!strcmp (name, "gaussian"))
    src = gauss;
  else if (!strcmp (name, "sharpen"))
    src = sharpen;
  else if (!strcmp (name, "edge-detect"))
    src = edge;
  else {
    f->k = ck;
    src = custom;
  }
  for (i = 0; i < f->k * f->k; i++)
    f->w[i] = src[i];
}

/* 8-bit result of the exact sum: named filters divide by 9 / 16; all
 * round half up (floor (v + 0.5)) and saturate */
static int
ref_round (const RefFilter * f, double s)
{
  double v = s;
  if (!strcmp (f->name, "blur"))
    v = s / 9.0;
  else if (!strcmp (f->name, "gaussian"))
    v = s / 16.0;
  v = floor (v + 0.5);
  return v < 0 ? 0 : v > 255 ? 255 : (int) v;
}

/* one filter on one plane: in -> out (alpha/x bytes copied from alpha) */
static void
ref_apply (const RefFilter * f, const Img * in, Img * out, int mode)
{
  int x, y, c, i, j, r = f->k / 2;

  *out = *in;
  out->d = g_malloc ((gsize) in->w * in->h * in->bpp);
  memcpy (out->d, in->d, (gsize) in->w * in->h * in->bpp);
  for (y = 0; y < in->h; y++)
    for (x = 0; x < in->w; x++)
      for (c = 0; c < in->nc; c++) {
        double s = 0;
        for (i = 0; i < f->k; i++)
          for (j = 0; j < f->k; j++) {
            int yy = ref_border (y + i - r, in->h, mode);
            int xx = ref_border (x + j - r, in->w, mode);
            if (yy >= 0 && xx >= 0)
              s += f->w[i * f->k + j] *
                  in->d[((gsize) yy * in->w + xx) * in->bpp + c];
          }
        out->d[((gsize) y * in->w + x) * in->bpp + c] = ref_round (f, s);
      }
}

/* the chain on every plane of a frame */
static int
ref_chain (GstBuffer * in, const GstVideoInfo * info, const gchar * filters,
    const double *custom, int ck, int mode, Img * out)
{
  gchar **names = g_strsplit (filters, ",", -1);
  int n = get_planes (in, info, out), p;
  guint i;

  for (i = 0; names[i]; i++) {
    RefFilter *f = g_new0 (RefFilter, 1);
    ref_filter (f, g_strstrip (names[i]), custom, ck);
    for (p = 0; p < n; p++) {
      Img o;
      ref_apply (f, &out[p], &o, mode);
      g_free (out[p].d);
      out[p] = o;
    }
    g_free (f);
  }
  g_strfreev (names);
  return n;
}

/* ---- running the element ---- */

static void
set_kernel (GstElement * e, const double *k, int n)
{
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  int i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, G_TYPE_FLOAT);
  for (i = 0; i < n; i++) {
    g_value_set_float (&v, (float) k[i]);
    gst_value_array_append_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (e), "kernel", &arr);
  g_value_unset (&v);
  g_value_unset (&arr);
}

static GstBuffer *
run_one (const gchar * backend, const GstVideoInfo * info, GstBuffer * in,
    const gchar * filters, const double *custom, int ck, int mode)
{
  GstHarness *h = cvtest_harness_new ("cudaconvolve", backend);

  gst_util_set_object_arg (G_OBJECT (h->element), "border-mode", borders[mode]);
  g_object_set (h->element, "filters", filters, NULL);
  if (custom)
    set_kernel (h->element, custom, ck * ck);
  return cvtest_harness_process (h, info, in);
}

/* largest difference between the element's output and the reference
 * planes (every byte, alpha included) */
static int
max_diff (GstBuffer * out, const GstVideoInfo * info, const Img * ref,
    const gchar * what, guint * n_bad)
{
  Img got[3];
  int n = get_planes (out, info, got), p, worst = 0;
  gsize i;

  *n_bad = 0;
  for (p = 0; p < n; p++)
    for (i = 0; i < (gsize) got[p].w * got[p].h * got[p].bpp; i++) {
      int d = abs ((int) got[p].d[i] - (int) ref[p].d[i]);
      if (d) {
        if (*n_bad < 3)
          GST_ERROR ("%s: plane %d byte %" G_GSIZE_FORMAT ": got %u "
              "expected %u", what, p, i, got[p].d[i], ref[p].d[i]);
        (*n_bad)++;
      }
      worst = MAX (worst, d);
    }
  free_planes (got, n);
  return worst;
}

static void
check_reference (GstVideoFormat fmt, int w, int h, guint pad,
    const gchar * filters, const double *custom, int ck, int mode,
    int tolerance, guint32 seed)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (seed);
  GstBuffer *in, *out;
  Img ref[3];
  int n, d;
  guint bad;
  gchar *what;

  gst_video_info_set_format (&info, fmt, w, h);
  in = cvtest_random_frame (&info, pad, rand);
  n = ref_chain (in, &info, filters, custom, ck, mode, ref);
  out = run_one (NULL, &info, in, filters, custom, ck, mode);
  what = g_strdup_printf ("%s %dx%d pad %u '%s' k=%d %s",
      gst_video_format_to_string (fmt), w, h, pad, filters, ck, borders[mode]);
  d = max_diff (out, &info, ref, what, &bad);
  fail_unless (d <= tolerance, "%s: %u bytes differ from the reference, by "
      "up to %d", what, bad, d);
  g_free (what);
  free_planes (ref, n);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  g_rand_free (rand);
}

static void
random_kernel (double *k, int n, GRand * rand, gboolean separable)
{
  int i, j, s = (int) sqrt (n);
  double a[31], b[31], sum = 0;

  for (i = 0; i < s; i++) {
    a[i] = g_rand_double_range (rand, -0.5, 1.0);
    b[i] = g_rand_double_range (rand, -0.5, 1.0);
  }
  for (i = 0; i < s; i++)
    for (j = 0; j < s; j++) {
      k[i * s + j] = separable ? a[i] * b[j] :
          g_rand_double_range (rand, -0.5, 1.0);
      sum += k[i * s + j];
    }
  /* keep the results in range (some saturation left on purpose) */
  if (fabs (sum) > 1e-3)
    for (i = 0; i < n; i++)
      k[i] = (float) (k[i] * 1.2 / sum);
}

/* ---- tests ---- */

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudaconvolve", NULL);
  GParamSpec *ps;
  gchar *filters;
  gint mode;
  GValue arr = G_VALUE_INIT;
  static const double k3[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  static const double k4[4] = { 1, 2, 3, 4 };

  fail_unless (e != NULL);
  g_object_get (e, "filters", &filters, "border-mode", &mode, NULL);
  fail_unless_equals_string (filters, "blur");
  fail_unless_equals_int (mode, 2);     /* reflect */
  g_free (filters);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "border-mode");
  fail_unless (ps->flags & GST_PARAM_CONTROLLABLE);
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "filters");
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "kernel");
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (G_PARAM_SPEC_VALUE_TYPE (ps) == GST_TYPE_ARRAY);

  /* the kernel round-trips */
  set_kernel (e, k3, 9);
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "kernel", &arr);
  fail_unless_equals_int (gst_value_array_get_size (&arr), 9);
  fail_unless (g_value_get_float (gst_value_array_get_value (&arr, 4)) == 5.0f);
  g_value_unset (&arr);

  /* a 2x2 kernel (even size) and a non-square count are refused */
  set_kernel (e, k4, 4);
  set_kernel (e, k3, 8);
  set_kernel (e, k3, 0);
  g_value_init (&arr, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "kernel", &arr);
  fail_unless_equals_int (gst_value_array_get_size (&arr), 9);
  g_value_unset (&arr);

  /* chains: accepted, blanks ignored */
  g_object_set (e, "filters", "blur, edge-detect", NULL);
  g_object_get (e, "filters", &filters, NULL);
  fail_unless_equals_string (filters, "blur, edge-detect");
  g_free (filters);
  /* bad chains keep the previous one */
  {
    static const gchar *bad[] = { "", ",", "blur,,sharpen", "blurr",
      "blur,median", " ", "blur,blur,blur,blur,blur,blur,blur,blur,blur",
      "BLUR", NULL
    };
    guint i;
    for (i = 0; bad[i]; i++) {
      g_object_set (e, "filters", bad[i], NULL);
      g_object_get (e, "filters", &filters, NULL);
      fail_unless_equals_string (filters, "blur, edge-detect");
      g_free (filters);
    }
    g_object_set (e, "filters", NULL, NULL);
    g_object_get (e, "filters", &filters, NULL);
    fail_unless_equals_string (filters, "blur, edge-detect");
    g_free (filters);
  }
  gst_object_unref (e);
}

GST_END_TEST;

/* every named filter, border mode and format on a padded odd-size frame */
GST_START_TEST (test_named_every_format)
{
  static const gchar *names[] = { "blur", "gaussian", "sharpen",
    "edge-detect"
  };
  guint f, n, b;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (n = 0; n < G_N_ELEMENTS (names); n++)
      for (b = 0; b < 3; b++)
        check_reference (formats[f], 23, 13, 5, names[n], NULL, 0, b, 0,
            f * 100 + n * 10 + b);
}

GST_END_TEST;

/* odd and tiny sizes (1x1, frames smaller than the kernel) */
GST_START_TEST (test_named_sizes)
{
  static const int sizes[][2] = { {1, 1}, {2, 1}, {1, 3}, {2, 2}, {3, 5},
  {34, 17}, {65, 9}
  };
  static const gchar *names[] = { "blur", "gaussian", "sharpen",
    "edge-detect"
  };
  guint s, n, b;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (n = 0; n < G_N_ELEMENTS (names); n++)
      for (b = 0; b < 3; b++) {
        check_reference (GST_VIDEO_FORMAT_GRAY8, sizes[s][0], sizes[s][1],
            s % 3, names[n], NULL, 0, b, 0, s * 100 + n * 10 + b);
        check_reference (GST_VIDEO_FORMAT_BGRA, sizes[s][0], sizes[s][1],
            7, names[n], NULL, 0, b, 0, s * 100 + n * 10 + b + 5000);
      }
}

GST_END_TEST;

/* custom kernels of size 1, 3, 5, 7, 31, general and separable: within one
 * step of the double reference (float accumulation) */
GST_START_TEST (test_custom_sizes)
{
  static const int ks[] = { 1, 3, 5, 7, 31 };
  guint i, b, sep;
  GRand *rand = g_rand_new_with_seed (77);

  for (i = 0; i < G_N_ELEMENTS (ks); i++)
    for (sep = 0; sep < 2; sep++)
      for (b = 0; b < 3; b++) {
        double k[31 * 31];
        random_kernel (k, ks[i] * ks[i], rand, sep);
        check_reference (GST_VIDEO_FORMAT_GRAY8, 45, 37, 3, "custom", k,
            ks[i], b, 1, i * 10 + b);
        /* frames smaller than the kernel */
        check_reference (GST_VIDEO_FORMAT_RGB, 11, 6, 1, "custom", k, ks[i],
            b, 1, i * 10 + b + 100);
        check_reference (GST_VIDEO_FORMAT_NV12, 1, 1, 0, "custom", k, ks[i],
            b, 1, i * 10 + b + 200);
      }
  g_rand_free (rand);
}

GST_END_TEST;

/* chains against the reference: exact for named filters */
GST_START_TEST (test_chain_reference)
{
  static const gchar *chains[] = { "blur,edge-detect", "edge-detect,blur",
    "sharpen,gaussian,blur,edge-detect", "gaussian,gaussian"
  };
  static const int sizes[][2] = { {1, 1}, {2, 3}, {5, 4}, {37, 21} };
  guint c, s, b;

  for (c = 0; c < G_N_ELEMENTS (chains); c++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (b = 0; b < 3; b++)
        check_reference (s % 2 ? GST_VIDEO_FORMAT_RGBx :
            GST_VIDEO_FORMAT_I420, sizes[s][0], sizes[s][1], 3, chains[c],
            NULL, 0, b, 0, c * 100 + s * 10 + b);
}

GST_END_TEST;

/* The chain in one element equals the filters in consecutive elements,
 * bit for bit, borders included (custom kernels too). */
static int max_diff (GstBuffer * out, const GstVideoInfo * info,
    const Img * ref, const gchar * what, guint * n_bad);

static void
check_chain_vs_consecutive (const gchar * backend, GstVideoFormat fmt,
    int w, int h, const gchar * chain, const double *k, int ck, int mode,
    guint32 seed)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (seed);
  GstBuffer *in, *fused, *step;
  gchar **names = g_strsplit (chain, ",", -1);
  guint i;

  gst_video_info_set_format (&info, fmt, w, h);
  in = cvtest_random_frame (&info, 9, rand);
  fused = run_one (backend, &info, in, chain, k, ck, mode);
  step = gst_buffer_ref (in);
  for (i = 0; names[i]; i++) {
    GstBuffer *next = run_one (backend, &info, step, names[i], k, ck, mode);
    gst_buffer_unref (step);
    step = next;
  }
  /* every visible byte of every plane (row padding is not compared) */
  {
    Img pf[3];
    int np = get_planes (fused, &info, pf);
    guint bad;
    gchar *what = g_strdup_printf ("'%s' on %s %dx%d (%s)", chain,
        gst_video_format_to_string (fmt), w, h, borders[mode]);
    fail_unless (max_diff (step, &info, pf, what, &bad) == 0,
        "%s: fused chain != consecutive elements (%u bytes)", what, bad);
    g_free (what);
    free_planes (pf, np);
  }
  gst_buffer_unref (fused);
  gst_buffer_unref (step);
  gst_buffer_unref (in);
  g_strfreev (names);
  g_rand_free (rand);
}

GST_START_TEST (test_chain_equals_consecutive)
{
  static const gchar *chains[] = { "blur,edge-detect", "edge-detect,blur",
    "custom,sharpen,custom", "gaussian,custom,blur"
  };
  static const int sizes[][2] = { {1, 1}, {3, 2}, {7, 5}, {40, 33} };
  GRand *rand = g_rand_new_with_seed (5);
  double k[25];
  guint c, s, b;

  for (c = 0; c < G_N_ELEMENTS (chains); c++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (b = 0; b < 3; b++) {
        random_kernel (k, 25, rand, c == 3);
        check_chain_vs_consecutive (NULL, s % 2 ? GST_VIDEO_FORMAT_BGR :
            GST_VIDEO_FORMAT_NV12, sizes[s][0], sizes[s][1], chains[c], k, 5,
            b, c * 100 + s * 10 + b);
      }
  g_rand_free (rand);
}

GST_END_TEST;

/* Property changes take effect at frame boundaries, even with frames in
 * flight. */
GST_START_TEST (test_change_while_playing)
{
  static const gchar *chains[] = { "blur", "edge-detect", "blur,sharpen" };
  GstHarness *h = cvtest_harness_new ("cudaconvolve", NULL);
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (11);
  GstBuffer *in;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 19, 11);
  in = cvtest_random_frame (&info, 0, rand);
  g_object_set (h->element, "pipeline-depth", 3, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 6; i++) {
    gst_util_set_object_arg (G_OBJECT (h->element), "border-mode",
        borders[i % 3]);
    g_object_set (h->element, "filters", chains[i % 3], NULL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  for (i = 0; i < 6; i++) {
    GstBuffer *out = gst_harness_pull (h);
    Img ref[1];
    guint bad;
    fail_unless (out != NULL);
    ref_chain (in, &info, chains[i % 3], NULL, 0, i % 3, ref);
    fail_unless_equals_int (max_diff (out, &info, ref, chains[i % 3], &bad), 0);
    free_planes (ref, 1);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A rejected filters string while playing keeps the previous chain: the
 * frames keep flowing, filtered with it. */
GST_START_TEST (test_bad_filters_keep_chain)
{
  GstHarness *h = cvtest_harness_new ("cudaconvolve", NULL);
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (12);
  GstBuffer *in, *out;
  Img ref[3];
  guint bad;
  static const double k4[4] = { 1, 1, 1, 1 };

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 9, 7);
  in = cvtest_random_frame (&info, 0, rand);
  g_object_set (h->element, "filters", "gaussian,sharpen", NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  g_object_set (h->element, "filters", "gaussian,,unknown", NULL);
  g_object_set (h->element, "filters", "", NULL);
  set_kernel (h->element, k4, 4);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  ref_chain (in, &info, "gaussian,sharpen", NULL, 0, 2, ref);
  fail_unless_equals_int (max_diff (out, &info, ref, "kept chain", &bad), 0);
  free_planes (ref, 3);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* a real picture (opencv-doc's fruits.jpg) through a chain */
GST_START_TEST (test_real_image)
{
  gchar *path = g_build_filename (cvtest_media_dir (), "fruits.jpg", NULL);
  GstVideoInfo info;
  GstBuffer *in = cvtest_load_image (path, GST_VIDEO_FORMAT_RGBA, &info);
  GstBuffer *out;
  Img ref[1];
  guint bad;

  fail_unless (in != NULL, "%s missing (opencv-doc)", path);
  out = run_one (NULL, &info, in, "blur,edge-detect", NULL, 0, 2);
  ref_chain (in, &info, "blur,edge-detect", NULL, 0, 2, ref);
  fail_unless_equals_int (max_diff (out, &info, ref, "fruits", &bad), 0);
  free_planes (ref, 1);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_free (path);
}

GST_END_TEST;

/* ---- GPU suite ---- */

static void
check_gpu_cpu (GstVideoFormat fmt, int w, int h, const gchar * chain,
    const double *k, int ck, int mode, int tolerance, guint32 seed)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (seed);
  GstBuffer *in, *gpu, *cpu;
  Img pc[3];
  int np, worst;
  guint bad;
  gchar *what;

  gst_video_info_set_format (&info, fmt, w, h);
  in = cvtest_random_frame (&info, (seed % 3) * 5, rand);
  gpu = run_one ("cuda", &info, in, chain, k, ck, mode);
  cpu = run_one ("cpu", &info, in, chain, k, ck, mode);
  what = g_strdup_printf ("'%s' k=%d %s on %s %dx%d", chain, ck,
      borders[mode], gst_video_format_to_string (fmt), w, h);
  np = get_planes (cpu, &info, pc);
  worst = max_diff (gpu, &info, pc, what, &bad);
  fail_unless (worst <= tolerance, "GPU != CPU for %s: %u bytes, by up to "
      "%d", what, bad, worst);
  free_planes (pc, np);
  g_free (what);
  gst_buffer_unref (gpu);
  gst_buffer_unref (cpu);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_START_TEST (test_gpu_equals_cpu_named)
{
  static const gchar *chains[] = { "blur", "gaussian", "sharpen",
    "edge-detect", "blur,edge-detect", "edge-detect,blur",
    "gaussian,sharpen,edge-detect", "blur,sharpen,gaussian,edge-detect",
    "edge-detect,blur,gaussian,sharpen,blur",
    "sharpen,gaussian,blur,edge-detect,blur,gaussian,sharpen,blur"
  };
  /* 772 x 49 and 1037 x 66: the last tile column / row of the GPU's
   * interior split is narrower than the rows and bytes its stages read */
  static const int sizes[][2] = { {1, 1}, {3, 2}, {33, 9}, {641, 479},
  {772, 49}, {1037, 66}, {1920, 1080}
  };
  guint f, c, s, b;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (c = 0; c < G_N_ELEMENTS (chains); c++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (b = 0; b < 3; b++)
          if (s < 6 || b == 2)
            check_gpu_cpu (formats[f], sizes[s][0], sizes[s][1], chains[c],
                NULL, 0, b, 0, f * 1000 + c * 100 + s * 10 + b);
}

GST_END_TEST;

/* custom kernels (general, separable; one-pass and, for long chains of
 * big kernels whose halo does not fit shared memory, stage by stage) */
GST_START_TEST (test_gpu_equals_cpu_custom)
{
  static const int ks[] = { 1, 3, 5, 7, 15, 31 };
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB
  };
  static const gchar *chains[] = { "custom", "blur,custom,edge-detect",
    "custom,custom", "custom,custom,custom,custom"
  };
  GRand *rand = g_rand_new_with_seed (99);
  guint i, f, c, sep;

  for (i = 0; i < G_N_ELEMENTS (ks); i++)
    for (sep = 0; sep < 2; sep++)
      for (f = 0; f < G_N_ELEMENTS (fmts); f++)
        for (c = 0; c < G_N_ELEMENTS (chains); c++) {
          double k[31 * 31];
          random_kernel (k, ks[i] * ks[i], rand, sep);
          check_gpu_cpu (fmts[f], 1, 1, chains[c], k, ks[i], c % 3, 1, i);
          check_gpu_cpu (fmts[f], 13, 7, chains[c], k, ks[i], c % 3, 1, i);
          /* full HD where the CPU side stays quick, else a mid size that
           * still spans many tiles (and the per-stage path for R = 60) */
          if (c == 0 || ks[i] <= 7)
            check_gpu_cpu (fmts[f], 1920, 1080, chains[c], k, ks[i],
                (c + sep) % 3, 1, i + 1);
          else
            check_gpu_cpu (fmts[f], 301, 203, chains[c], k, ks[i],
                (c + sep) % 3, 1, i + 1);
        }
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
convolve_suite (void)
{
  Suite *s = suite_create ("cudaconvolve");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_named_every_format);
  tcase_add_test (tc, test_named_sizes);
  tcase_add_test (tc, test_custom_sizes);
  tcase_add_test (tc, test_chain_reference);
  tcase_add_test (tc, test_chain_equals_consecutive);
  tcase_add_test (tc, test_change_while_playing);
  tcase_add_test (tc, test_bad_filters_keep_chain);
  tcase_add_test (tc, test_real_image);
  if (cvtest_backend_is_cuda ()) {
    tcase_add_test (tc, test_gpu_equals_cpu_named);
    tcase_add_test (tc, test_gpu_equals_cpu_custom);
  }
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cvtest_run_suite (convolve_suite ());
}
