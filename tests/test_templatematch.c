/* cudatemplatematch: scores and locations against an independent
 * double-precision reference, template sizes 1x1 .. frame, formats, real
 * frames, NMS and threshold, messages and metas, bad input, template
 * changes while playing, score map, GPU == CPU, and the CPU's two
 * correlation paths (direct, FFT) through their internal entry points.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"
#include "cvtemplatematch.h"
/* the CPU implementation behind the operator, and its two paths */
#include "cpu-internal.h"
#include "templatematch-paths.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

/* the C interface's method values (CvTemplateMatchMethod) */
enum
{ SQDIFF, SQDIFF_NORMED, CCORR_NORMED, CCOEFF_NORMED, CCORR, CCOEFF,
  N_METHODS
};
static const gchar *method_names[] = { "sqdiff", "sqdiff-normed",
  "ccorr-normed", "ccoeff-normed", "ccorr", "ccoeff"
};

/* the unnormalised methods: large scores, compared relatively */
static gboolean
unnormalised (int method)
{
  return method == SQDIFF || method == CCORR || method == CCOEFF;
}

/* ---- the reference: direct sums in double, from the definitions ---- */

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

/* luma of a frame as doubles */
static double *
frame_luma (GstBuffer * buf, const GstVideoInfo * info)
{
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  double *l = g_new (double, (gsize) w * h);
  GstVideoFrame f;
  int x, y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      l[(gsize) y * w + x] = ref_luma (&f, x, y);
  gst_video_frame_unmap (&f);
  return l;
}

/* The score of one window straight from the definition (OpenCV's
 * matchTemplate documentation): R = sum (T - I)^2, sum (T - I)^2 /
 * sqrt (sum T^2 sum I^2), sum T I / sqrt (...), sum T I,
 * sum (T - mean T) (I - mean I) and the Pearson
 * correlation of T and the window; a flat template gives 1 for
 * ccoeff-normed, a zero denominator gives 0 (correlations) or n / 0
 * (sqdiff-normed). */
static double
ref_score (const double *img, int w, const double *t, int tw, int th,
    int x, int y, int method)
{
  double n = (double) tw * th, st = 0, si = 0, sd = 0, stt = 0, sii = 0,
      sti = 0, mt, mi, num = 0, dt = 0, di = 0;
  int i, j;

  for (j = 0; j < th; j++)
    for (i = 0; i < tw; i++) {
      double a = t[j * tw + i], b = img[(gsize) (y + j) * w + x + i];
      st += a;
      si += b;
      sd += (a - b) * (a - b);
      stt += a * a;
      sii += b * b;
      sti += a * b;
    }
  switch (method) {
    case SQDIFF:
      return sd;
    case SQDIFF_NORMED:
      return sd / sqrt (stt * sii);
    case CCORR_NORMED:
      return stt * sii > 0 ? sti / sqrt (stt * sii) : 0;
    case CCORR:
      return sti;
    default:
      mt = st / n;
      mi = si / n;
      for (j = 0; j < th; j++)
        for (i = 0; i < tw; i++) {
          double a = t[j * tw + i] - mt;
          double b = img[(gsize) (y + j) * w + x + i] - mi;
          num += a * b;
          dt += a * a;
          di += b * b;
        }
      if (method == CCOEFF)
        return num;
      if (dt == 0)
        return 1;
      if (di < 1e-9)
        return 0;
      return num / sqrt (dt * di);
  }
}

static gboolean
lower_is_better (int method)
{
  return method == SQDIFF || method == SQDIFF_NORMED;
}

/* Reference score map (rw x rh) and its best window (first in raster
 * order among equal scores, NaN skipped). */
static double *
ref_map (const double *img, int w, int h, const double *t, int tw, int th,
    int method, int *bx, int *by)
{
  int rw = w - tw + 1, rh = h - th + 1, x, y;
  double *m = g_new (double, (gsize) rw * rh), best = 0;
  gboolean have = FALSE;

  for (y = 0; y < rh; y++)
    for (x = 0; x < rw; x++) {
      double r = ref_score (img, w, t, tw, th, x, y, method);
      m[(gsize) y * rw + x] = r;
      if (isnan (r))
        continue;
      if (!have || (lower_is_better (method) ? r < best : r > best)) {
        best = r;
        *bx = x;
        *by = y;
        have = TRUE;
      }
    }
  fail_unless (have);
  return m;
}

/* ---- running the element ---- */

typedef struct
{
  guint x, y, width, height;
  double result;
  gboolean has_sub;             /* x-subpixel and y-subpixel present */
  double sx, sy;
  double scale;
  gboolean masked;
} Match;

/* A GstSample of a tw x th template from doubles: GRAY8, or with alpha
 * (not NULL) RGBA with R = G = B = t, A = alpha. */
static GstSample *
rgba_sample (const double *t, const guint8 * alpha, int tw, int th)
{
  const int bpp = alpha ? 4 : 1;
  GstVideoInfo info;
  GstBuffer *buf;
  GstVideoFrame f;
  GstCaps *caps;
  GstSample *s;
  int x, y, c;

  gst_video_info_set_format (&info, alpha ? GST_VIDEO_FORMAT_RGBA :
      GST_VIDEO_FORMAT_GRAY8, tw, th);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < th; y++)
    for (x = 0; x < tw; x++) {
      guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x * bpp;
      for (c = 0; c < MIN (bpp, 3); c++)
        p[c] = (guint8) t[y * tw + x];
      if (alpha)
        p[3] = alpha[y * tw + x];
    }
  gst_video_frame_unmap (&f);
  caps = gst_video_info_to_caps (&info);
  s = gst_sample_new (buf, caps, NULL, NULL);
  gst_caps_unref (caps);
  gst_buffer_unref (buf);
  return s;
}

/* A GstSample holding a GRAY8 template of tw x th from doubles. */
static GstSample *
gray8_sample (const double *t, int tw, int th)
{
  return rgba_sample (t, NULL, tw, th);
}

/* Messages of the element under test: a bus whose sync handler keeps
 * every message in order (gst_bus_pop_filtered would drop the others). */
static GMutex msg_lock;

/* A sync handler that returns GST_BUS_DROP owns the message (GstBus does
 * not unref it): the queue takes that reference. (It took one more: every
 * message leaked, and with it its source, the element, so no element of
 * this suite was ever finalized and the shared pinned staging cache kept
 * its idle blocks to the end of the process: issue #28.) */
static GstBusSyncReply
keep_message (G_GNUC_UNUSED GstBus * bus, GstMessage * msg, gpointer data)
{
  GQueue *q = data;

  /* returning GST_BUS_DROP hands the message to the handler (see
   * GstBusSyncHandler): the queue takes this reference, no new one (an
   * extra ref leaked every message, and with it the element, its source) */
  g_mutex_lock (&msg_lock);
  g_queue_push_tail (q, msg);
  g_mutex_unlock (&msg_lock);
  return GST_BUS_DROP;
}

static GstBus *
collecting_bus (void)
{
  GstBus *bus = gst_bus_new ();
  GQueue *q = g_queue_new ();

  g_object_set_data_full (G_OBJECT (bus), "queue", q, NULL);
  gst_bus_set_sync_handler (bus, keep_message, q, NULL);
  return bus;
}

static void
free_bus (GstBus * bus)
{
  GQueue *q = g_object_get_data (G_OBJECT (bus), "queue");

  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  g_queue_free_full (q, (GDestroyNotify) gst_message_unref);
  gst_object_unref (bus);
}

/* gst_harness_teardown (h), and its element finalized by it: nothing
 * (such as a message whose source it is) keeps it alive. A kept element
 * keeps the process-wide pinned staging cache's idle blocks (freed when
 * the last element goes, gstcvpinnedcache.c): issue #28's 210 MB of
 * pinned memory "leaked" at the end of this suite on the GPU. */
static void
teardown_finalized (GstHarness * h)
{
  gpointer element = h->element;
  gchar *name = gst_element_get_name (h->element);

  g_object_add_weak_pointer (G_OBJECT (element), &element);
  gst_harness_teardown (h);
  if (element)
    g_object_remove_weak_pointer (G_OBJECT (element), &element);
  fail_unless (element == NULL, "%s is still alive after the harness's "
      "teardown (refcount %u)", name, element ?
      GST_OBJECT_REFCOUNT_VALUE (element) : 0);
  g_free (name);
}

/* the first kept message of a type, removed from the queue */
static GstMessage *
take_message (GstBus * bus, GstMessageType type)
{
  GQueue *q = g_object_get_data (G_OBJECT (bus), "queue");
  GstMessage *found = NULL;
  GList *l;

  g_mutex_lock (&msg_lock);
  for (l = q->head; l; l = l->next)
    if (GST_MESSAGE_TYPE (l->data) & type) {
      found = l->data;
      g_queue_delete_link (q, l);
      break;
    }
  g_mutex_unlock (&msg_lock);
  return found;
}

/* The template_match message's matches; returns the count, or -1 when
 * there was no message. */
static int
pop_matches (GstBus * bus, Match * out, int max)
{
  GstMessage *msg;
  int n = -1;

  while ((msg = take_message (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    if (gst_structure_has_name (s, "template_match")) {
      const GValue *list = gst_structure_get_value (s, "matches");
      guint count, i;
      fail_unless (list && GST_VALUE_HOLDS_LIST (list));
      fail_unless (gst_structure_get_uint (s, "count", &count));
      fail_unless_equals_int (gst_value_list_get_size (list), count);
      /* the timing fields of the opencv plugin's messages */
      fail_unless (gst_structure_has_field_typed (s, "timestamp",
              G_TYPE_UINT64));
      fail_unless (gst_structure_has_field_typed (s, "stream-time",
              G_TYPE_UINT64));
      fail_unless (gst_structure_has_field_typed (s, "running-time",
              G_TYPE_UINT64));
      fail_unless (gst_structure_has_field_typed (s, "duration",
              G_TYPE_UINT64));
      n = count;
      for (i = 0; i < count && (int) i < max; i++) {
        const GstStructure *m =
            gst_value_get_structure (gst_value_list_get_value (list, i));
        fail_unless (gst_structure_get_uint (m, "x", &out[i].x));
        fail_unless (gst_structure_get_uint (m, "y", &out[i].y));
        fail_unless (gst_structure_get_uint (m, "width", &out[i].width));
        fail_unless (gst_structure_get_uint (m, "height", &out[i].height));
        fail_unless (gst_structure_get_double (m, "result", &out[i].result));
        fail_unless (gst_structure_get_double (m, "scale", &out[i].scale));
        fail_unless (gst_structure_get_boolean (m, "masked", &out[i].masked));
        out[i].has_sub = gst_structure_get_double (m, "x-subpixel", &out[i].sx);
        fail_unless (out[i].has_sub == gst_structure_get_double (m,
                "y-subpixel", &out[i].sy));
      }
      if (count > 0) {
        /* the best match also in the top-level fields, as the opencv
         * plugin's templatematch posts it */
        guint x, y;
        double r;
        fail_unless (gst_structure_get_uint (s, "x", &x));
        fail_unless (gst_structure_get_uint (s, "y", &y));
        fail_unless (gst_structure_get_double (s, "result", &r));
        fail_unless (x == out[0].x && y == out[0].y && r == out[0].result);
        if (out[0].has_sub) {
          double sx, sy;
          fail_unless (gst_structure_get_double (s, "x-subpixel", &sx));
          fail_unless (gst_structure_get_double (s, "y-subpixel", &sy));
          fail_unless (sx == out[0].sx && sy == out[0].sy);
        } else {
          fail_if (gst_structure_has_field (s, "x-subpixel"));
        }
      } else {
        fail_if (gst_structure_has_field (s, "x"));
      }
      gst_message_unref (msg);
      break;
    }
    gst_message_unref (msg);
  }
  return n;
}

typedef struct
{
  const gchar *backend;
  int method;
  guint max_matches;
  double threshold;
  gboolean subpixel;
} RunOpts;

/* More options of run_match (), for the masks and scales tests: scales
 * (NULL: the default), use-alpha=false, a template file instead of the
 * sample. */
static const gchar *opt_scales, *opt_path;
static gboolean opt_ignore_alpha;

/* One frame through the element; returns the number of matches. */
static int
run_match (const RunOpts * o, const GstVideoInfo * info, GstBuffer * in,
    GstSample * templ, Match * out, int max)
{
  GstHarness *h = cvtest_harness_new ("cudatemplatematch", o->backend);
  GstBus *bus = collecting_bus ();
  GstBuffer *ob;
  int n;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "template-sample", templ, "max-matches",
      o->max_matches ? o->max_matches : 1, "threshold", o->threshold,
      "pipeline-depth", 1, "subpixel", o->subpixel, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "method",
      method_names[o->method]);
  if (opt_scales)
    gst_util_set_object_arg (G_OBJECT (h->element), "scales", opt_scales);
  g_object_set (h->element, "use-alpha", !opt_ignore_alpha, NULL);
  if (opt_path)
    g_object_set (h->element, "template", opt_path, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  ob = gst_harness_pull (h);
  fail_unless (ob != NULL);
  /* ROI metas: one per match, same rectangles */
  n = pop_matches (bus, out, max);
  fail_unless (n >= 0, "no template_match message");
  {
    gpointer state = NULL;
    GstMeta *meta;
    int k = 0;
    while ((meta = gst_buffer_iterate_meta_filtered (ob, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
      GstStructure *p =
          gst_video_region_of_interest_meta_get_param (roi, "template-match");
      double score;
      fail_unless_equals_string (g_quark_to_string (roi->roi_type),
          "template-match");
      fail_unless (k < n && k < max);
      fail_unless (roi->x == out[k].x && roi->y == out[k].y
          && roi->w == out[k].width && roi->h == out[k].height);
      fail_unless (p && gst_structure_get_double (p, "score", &score));
      fail_unless (score == out[k].result);
      fail_unless (gst_structure_get_double (p, "scale", &score));
      fail_unless (score == out[k].scale);
      /* each match reachable by its rank, the meta's id */
      fail_unless_equals_int (roi->id, k);
      fail_unless (gst_buffer_get_video_region_of_interest_meta_id (ob, k)
          == roi);
      {
        guint rank = G_MAXUINT;
        fail_unless (gst_structure_get_uint (p, "rank", &rank));
        fail_unless_equals_int (rank, k);
      }
      /* the sub-pixel position as in the message, only when asked */
      fail_unless_equals_int (o->subpixel, out[k].has_sub);
      if (o->subpixel) {
        double sx, sy;
        fail_unless (gst_structure_get_double (p, "x-subpixel", &sx));
        fail_unless (gst_structure_get_double (p, "y-subpixel", &sy));
        fail_unless (sx == out[k].sx && sy == out[k].sy);
      } else {
        fail_if (gst_structure_has_field (p, "x-subpixel"));
      }
      k++;
    }
    fail_unless_equals_int (k, n);
  }
  gst_buffer_unref (ob);
  gst_element_set_bus (h->element, NULL);
  free_bus (bus);
  teardown_finalized (h);
  return n;
}

/* scores within 1e-4 (normed) or relative 1e-5 (sqdiff, ccorr, ccoeff) */
static gboolean
score_close (int method, double got, double ref)
{
  if (isinf (ref))
    return isinf (got) && (got > 0) == (ref > 0);
  if (unnormalised (method))
    return fabs (got - ref) <= 1e-5 * MAX (1.0, fabs (ref));
  return fabs (got - ref) <= 1e-4;
}

/* The element's best match against the reference: same location (or a
 * window whose reference score ties the best within float precision, the
 * scores being stored as float as OpenCV does), score close. */
static void
check_best (const gchar * what, int method, const Match * m,
    const double *map, int rw, int bx, int by)
{
  double best = map[(gsize) by * rw + bx];
  double at = map[(gsize) m->y * rw + m->x];
  double tie = 2e-7 * MAX (1.0, fabs (best));

  fail_unless (m->x == (guint) bx && m->y == (guint) by
      ? TRUE : fabs (at - best) <= tie,
      "%s: best at (%u,%u) score %.9g, reference (%d,%d) %.9g", what, m->x,
      m->y, m->result, bx, by, best);
  fail_unless (score_close (method, m->result, best),
      "%s: score %.9g, reference %.9g", what, m->result, best);
}

/* random template (or cut from the frame at (cx, cy) when cx >= 0) */
static double *
make_template (const double *img, int w, int tw, int th, int cx, int cy,
    GRand * rand)
{
  double *t = g_new (double, tw * th);
  int i;

  for (i = 0; i < tw * th; i++)
    t[i] = cx >= 0 ? img[(gsize) (cy + i / tw) * w + cx + i % tw] :
        g_rand_int_range (rand, 0, 256);
  return t;
}

static void
check_against_reference (GstVideoFormat fmt, int w, int h, guint pad, int tw,
    int th, gboolean cut, guint32 seed)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (seed);
  GstBuffer *in;
  double *img, *t;
  GstSample *ts;
  int method;

  gst_video_info_set_format (&info, fmt, w, h);
  in = cvtest_random_frame (&info, pad, rand);
  img = frame_luma (in, &info);
  t = make_template (img, w, tw, th, cut ? (w - tw) / 3 : -1,
      cut ? (h - th) / 2 : -1, rand);
  ts = gray8_sample (t, tw, th);
  for (method = 0; method < N_METHODS; method++) {
    RunOpts o = { NULL, method, 1, -1, FALSE };
    Match m[1];
    int bx = 0, by = 0, n;
    double *map = ref_map (img, w, h, t, tw, th, method, &bx, &by);
    gchar *what = g_strdup_printf ("%s %dx%d template %dx%d %s%s",
        gst_video_format_to_string (fmt), w, h, tw, th, method_names[method],
        cut ? " (cut)" : "");

    n = run_match (&o, &info, in, ts, m, 1);
    fail_unless_equals_int (n, 1);
    fail_unless_equals_int (m[0].width, tw);
    fail_unless_equals_int (m[0].height, th);
    check_best (what, method, &m[0], map, w - tw + 1, bx, by);
    g_free (what);
    g_free (map);
  }
  gst_sample_unref (ts);
  g_free (t);
  g_free (img);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

/* ---- tests ---- */

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudatemplatematch", NULL);
  GParamSpec *ps;
  gint method;
  guint mm;
  gdouble thr;
  gboolean display, score_map;
  gchar *path;

  fail_unless (e != NULL);
  g_object_get (e, "method", &method, "max-matches", &mm, "threshold", &thr,
      "display", &display, "score-map", &score_map, "template", &path, NULL);
  /* OpenCV's numbering (cv::TemplateMatchModes) */
  fail_unless_equals_int (method, 5);
  fail_unless_equals_int (mm, 1);
  fail_unless (thr == -1.0);
  fail_unless (!display && !score_map && path == NULL);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "method");
  {
    GEnumClass *ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
    const int opencv[N_METHODS] = { 0, 1, 3, 5, 2, 4 };
    int i;
    for (i = 0; i < N_METHODS; i++)
      fail_unless_equals_string (g_enum_get_value (ec, opencv[i])->value_nick,
          method_names[i]);
    fail_unless_equals_int (ec->n_values, N_METHODS);
  }
  {
    gboolean sub = TRUE;
    g_object_get (e, "subpixel", &sub, NULL);
    fail_unless (!sub);
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "subpixel");
    fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  }
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "max-matches");
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 1);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 64);
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "template");
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          "template-sample") != NULL);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_reference_template_sizes)
{
  /* template sizes of the issue, on frames as small as they allow */
  static const int cases[][4] = {
    {1, 1, 23, 17}, {3, 3, 40, 30}, {5, 5, 41, 29}, {64, 64, 90, 75},
    {200, 150, 221, 166}, {48, 36, 48, 36}, {1, 7, 20, 9}, {9, 2, 20, 9},
    {17, 13, 60, 40},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    check_against_reference (GST_VIDEO_FORMAT_GRAY8, cases[i][2],
        cases[i][3], i % 2 ? 7 : 0, cases[i][0], cases[i][1], FALSE, i);
    check_against_reference (GST_VIDEO_FORMAT_GRAY8, cases[i][2],
        cases[i][3], 3, cases[i][0], cases[i][1], TRUE, 100 + i);
  }
}

GST_END_TEST;

GST_START_TEST (test_reference_formats)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    check_against_reference (formats[i], 38, 26, 5, 5, 4, i % 2, 200 + i);
}

GST_END_TEST;

/* Real frames: a template cut from the frame is found at its place with
 * ccoeff-normed 1.0; reference checks on the real luma. */
GST_START_TEST (test_real_frames)
{
  static const gchar *names[] = { "lena.jpg", "vtest.avi" };
  guint i, found = 0;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *path = g_build_filename (cvtest_media_dir (), names[i], NULL);
    GstVideoInfo info, sinfo;
    GstBuffer *in = cvtest_load_image (path, i ? GST_VIDEO_FORMAT_I420 :
        GST_VIDEO_FORMAT_RGBx, &info);
    GstBuffer *small;
    GstVideoFrame sf;
    double *img, *t;
    GstSample *ts;
    Match m[3];
    RunOpts o = { NULL, CCOEFF_NORMED, 3, -1, FALSE };
    int w, h, cx, cy, n, y, method;

    g_free (path);
    if (!in)
      continue;
    found++;
    w = GST_VIDEO_INFO_WIDTH (&info);
    h = GST_VIDEO_INFO_HEIGHT (&info);
    img = frame_luma (in, &info);
    cx = w / 2 - 20;
    cy = h / 3;
    t = make_template (img, w, 48, 40, cx, cy, NULL);
    ts = gray8_sample (t, 48, 40);
    n = run_match (&o, &info, in, ts, m, 3);
    fail_unless_equals_int (n, 3);
    fail_unless_equals_int (m[0].x, cx);
    fail_unless_equals_int (m[0].y, cy);
    fail_unless (m[0].result > 0.9999, "%s: score %f", names[i], m[0].result);
    /* NMS: the others do not overlap it and are worse */
    for (y = 1; y < 3; y++) {
      fail_unless (abs ((int) m[y].x - cx) >= 48
          || abs ((int) m[y].y - cy) >= 40);
      fail_unless (m[y].result <= m[y - 1].result);
    }
    gst_buffer_unref (in);

    /* the reference on a 120x100 crop around the place (the full-frame
     * double reference would be slow), every method */
    gst_video_info_set_format (&sinfo, GST_VIDEO_FORMAT_GRAY8, 120, 100);
    small = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&sinfo), NULL);
    fail_unless (gst_video_frame_map (&sf, &sinfo, small, GST_MAP_WRITE));
    for (y = 0; y < 100; y++) {
      int x;
      for (x = 0; x < 120; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&sf, 0))[y *
            GST_VIDEO_FRAME_PLANE_STRIDE (&sf, 0) + x] =
            (guint8) img[(gsize) (cy - 30 + y) * w + cx - 30 + x];
    }
    gst_video_frame_unmap (&sf);
    g_free (img);
    img = frame_luma (small, &sinfo);
    for (method = 0; method < N_METHODS; method++) {
      RunOpts o2 = { NULL, method, 1, -1, FALSE };
      int bx = 0, by = 0;
      double *map = ref_map (img, 120, 100, t, 48, 40, method, &bx, &by);
      fail_unless_equals_int (run_match (&o2, &sinfo, small, ts, m, 1), 1);
      check_best (names[i], method, &m[0], map, 120 - 48 + 1, bx, by);
      /* ccorr favours bright windows: not always the template's place */
      fail_unless (method == CCORR || (m[0].x == 30 && m[0].y == 30));
      g_free (map);
    }
    g_free (img);
    g_free (t);
    gst_sample_unref (ts);
    gst_buffer_unref (small);
  }
  fail_unless (found > 0, "no sample media found in %s (opencv-doc)",
      cvtest_media_dir ());
}

GST_END_TEST;

/* A GRAY8 frame of low noise with a distinctive patch pasted at given
 * places with given contrasts. */
static GstBuffer *
patch_frame (GstVideoInfo * info, int w, int h, const int (*pos)[3],
    int npos, double *patch, int pw, int ph, GRand * rand)
{
  GstBuffer *buf;
  GstVideoFrame f;
  int x, y, k;

  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, w, h);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x] =
          100 + g_rand_int_range (rand, 0, 8);
  for (k = 0; k < npos; k++)
    for (y = 0; y < ph; y++)
      for (x = 0; x < pw; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(pos[k][1] + y) *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + pos[k][0] + x] =
            (guint8) CLAMP (100 + (patch[y * pw + x] - 128) * pos[k][2] / 100
            + g_rand_int_range (rand, 0, 8 + (100 - pos[k][2])), 0, 255);
  gst_video_frame_unmap (&f);
  return buf;
}

GST_START_TEST (test_nms_and_threshold)
{
  /* three copies of a patch, decreasing quality */
  static const int pos[3][3] = { {10, 12, 100}, {70, 40, 80}, {33, 60, 60} };
  GRand *rand = g_rand_new_with_seed (7);
  GstVideoInfo info;
  double patch[16 * 12];
  GstBuffer *in;
  GstSample *ts;
  Match m[8];
  int i, n;

  for (i = 0; i < 16 * 12; i++)
    patch[i] = g_rand_int_range (rand, 0, 256);
  in = patch_frame (&info, 110, 90, pos, 3, patch, 16, 12, rand);
  ts = gray8_sample (patch, 16, 12);
  {
    /* max-matches 8, threshold 0.5: exactly the three copies, best first */
    RunOpts o = { NULL, CCOEFF_NORMED, 8, 0.5, FALSE };
    n = run_match (&o, &info, in, ts, m, 8);
    fail_unless_equals_int (n, 3);
    for (i = 0; i < 3; i++) {
      fail_unless_equals_int (m[i].x, pos[i][0]);
      fail_unless_equals_int (m[i].y, pos[i][1]);
      fail_unless (m[i].result >= 0.5);
      if (i > 0)
        fail_unless (m[i].result < m[i - 1].result);
    }
  }
  {
    /* no threshold: 8 matches, pairwise non-overlapping, sorted */
    RunOpts o = { NULL, CCOEFF_NORMED, 8, -1, FALSE };
    int a, b;
    n = run_match (&o, &info, in, ts, m, 8);
    fail_unless_equals_int (n, 8);
    for (a = 0; a < 8; a++)
      for (b = a + 1; b < 8; b++) {
        fail_unless (abs ((int) m[a].x - (int) m[b].x) >= 16
            || abs ((int) m[a].y - (int) m[b].y) >= 12,
            "matches %d and %d overlap", a, b);
        fail_unless (m[b].result <= m[a].result);
      }
  }
  {
    /* threshold above every score: a message with count 0 */
    RunOpts o = { NULL, CCOEFF_NORMED, 4, 1.5, FALSE };
    fail_unless_equals_int (run_match (&o, &info, in, ts, m, 4), 0);
  }
  {
    /* sqdiff (not offset-invariant): an exact copy at (10, 12) and a
     * noisy one at (70, 40); lower is better, the threshold keeps
     * R <= threshold */
    static const int pos2[1][3] = { {70, 40, 90} };
    RunOpts o = { NULL, SQDIFF, 4, -1, FALSE };
    double limit;
    GstVideoFrame f;
    int x, y;
    gst_buffer_unref (in);
    in = patch_frame (&info, 110, 90, pos2, 1, patch, 16, 12, rand);
    fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
    for (y = 0; y < 12; y++)
      for (x = 0; x < 16; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(12 + y) *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 10 + x] =
            (guint8) patch[y * 16 + x];
    gst_video_frame_unmap (&f);
    n = run_match (&o, &info, in, ts, m, 4);
    fail_unless_equals_int (n, 4);
    fail_unless (m[0].x == 10 && m[0].y == 12 && m[0].result == 0.0);
    fail_unless (m[1].result >= m[0].result);
    limit = (m[0].result + m[1].result) / 2;
    o.threshold = limit;
    fail_unless_equals_int (run_match (&o, &info, in, ts, m, 4), 1);
  }
  gst_sample_unref (ts);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

/* count the messages of a type whose text contains `text` */
static guint
count_messages (GstBus * bus, GstMessageType type, const gchar * text)
{
  GstMessage *msg;
  guint n = 0;

  while ((msg = take_message (bus, type))) {
    GError *e = NULL;
    gchar *dbg = NULL;
    if (type == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &e, &dbg);
    else
      gst_message_parse_warning (msg, &e, &dbg);
    GST_INFO ("message: %s (%s)", e->message, dbg);
    if (!text || strstr (e->message, text))
      n++;
    g_error_free (e);
    g_free (dbg);
    gst_message_unref (msg);
  }
  return n;
}

GST_START_TEST (test_no_template)
{
  GstHarness *h = cvtest_harness_new ("cudatemplatematch", NULL);
  GstBus *bus = collecting_bus ();
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (3);
  GstBuffer *in, *out;
  Match m[1];
  int i;

  gst_element_set_bus (h->element, bus);
  /* one frame in, one frame out: no frames held in flight */
  g_object_set (h->element, "pipeline-depth", 1, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 32, 24);
  in = cvtest_random_frame (&info, 0, rand);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 3; i++) {
    GstMapInfo a, b;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    /* passed through unchanged */
    gst_buffer_map (in, &a, GST_MAP_READ);
    gst_buffer_map (out, &b, GST_MAP_READ);
    fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
    fail_unless (gst_buffer_get_video_region_of_interest_meta (out) == NULL);
    gst_buffer_unref (out);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);
  fail_unless_equals_int (pop_matches (bus, m, 1), -1);
  fail_unless_equals_int (count_messages (bus, GST_MESSAGE_WARNING,
          "No template"), 1);
  gst_element_set_bus (h->element, NULL);
  free_bus (bus);
  gst_buffer_unref (in);
  teardown_finalized (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* set template to path: the next frame fails with an error naming it */
static void
check_template_error (const gchar * path, const gchar * text)
{
  GstHarness *h = cvtest_harness_new ("cudatemplatematch", NULL);
  GstBus *bus = collecting_bus ();
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (5);
  gchar *back;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "template", path, "pipeline-depth", 1, NULL);
  g_object_get (h->element, "template", &back, NULL);
  fail_unless_equals_string (back, path);
  g_free (back);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 40, 30);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  fail_unless_equals_int (gst_harness_push (h, cvtest_random_frame (&info, 0,
              rand)), GST_FLOW_ERROR);
  /* one error, posted by the base with the element's text */
  fail_unless (count_messages (bus, GST_MESSAGE_ERROR, text) == 1,
      "not one error containing '%s'", text);
  gst_element_set_bus (h->element, NULL);
  free_bus (bus);
  teardown_finalized (h);
  g_rand_free (rand);
}

/* A new empty file in the temporary folder whose name ends in name: the
 * suites (cpu, cpu-fft, cuda) may run at once, and each removes its own
 * files when done. */
static gchar *
unique_tmp (const gchar * name)
{
  gchar *tmpl = g_strconcat ("cvtm-XXXXXX-", name, NULL), *path = NULL;
  gint fd = g_file_open_tmp (tmpl, &path, NULL);

  fail_unless (fd >= 0, "no temporary file for %s", name);
  g_close (fd, NULL);
  g_free (tmpl);
  return path;
}

/* Write a GRAY8 template as a PNG file, encoded by GStreamer. */
static gchar *
write_png (const double *t, int tw, int th, const gchar * name)
{
  GstSample *s = gray8_sample (t, tw, th), *png;
  GstCaps *caps = gst_caps_new_empty_simple ("image/png");
  GError *err = NULL;
  GstMapInfo map;
  gchar *path = unique_tmp (name);

  png = gst_video_convert_sample (s, caps, 10 * GST_SECOND, &err);
  fail_unless (png != NULL, "PNG encoding: %s", err ? err->message : "?");
  gst_buffer_map (gst_sample_get_buffer (png), &map, GST_MAP_READ);
  fail_unless (g_file_set_contents (path, (const gchar *) map.data,
          map.size, NULL));
  gst_buffer_unmap (gst_sample_get_buffer (png), &map);
  gst_sample_unref (png);
  gst_sample_unref (s);
  gst_caps_unref (caps);
  return path;
}

GST_START_TEST (test_bad_template_files)
{
  gchar *text = unique_tmp ("cvtm-not-an-image.txt");
  gchar *big;

  /* missing file */
  check_template_error ("/nonexistent/cvtm-template.png",
      "/nonexistent/cvtm-template.png");
  /* a file that is no image */
  fail_unless (g_file_set_contents (text, "just some text, not an image\n",
          -1, NULL));
  check_template_error (text, "cvtm-not-an-image.txt");
  g_unlink (text);
  g_free (text);
  /* a template larger than the frame (40x30) */
  {
    double *b = g_new0 (double, 50 * 20);
    b[3] = 200;
    big = write_png (b, 50, 20, "cvtm-big.png");
    g_free (b);
  }
  check_template_error (big, "larger than the frame");
  g_unlink (big);
  g_free (big);
}

GST_END_TEST;

GST_START_TEST (test_flat_template)
{
  GRand *rand = g_rand_new_with_seed (11);
  GstVideoInfo info;
  GstBuffer *in;
  GstVideoFrame f;
  double flat[8 * 6];
  GstSample *ts;
  Match m[2];
  int i, x, y;

  for (i = 0; i < 8 * 6; i++)
    flat[i] = 100;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 40, 30);
  in = cvtest_random_frame (&info, 0, rand);
  /* a flat 8x6 region of 100 at (20, 11) */
  fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
  for (y = 11; y < 17; y++)
    for (x = 20; x < 28; x++)
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x] = 100;
  gst_video_frame_unmap (&f);
  ts = gray8_sample (flat, 8, 6);
  {
    /* OpenCV's definition: ccoeff-normed of a flat template is 1
     * everywhere: the first window wins, and a warning says why */
    GstHarness *h = cvtest_harness_new ("cudatemplatematch", NULL);
    GstBus *bus = collecting_bus ();
    gst_element_set_bus (h->element, bus);
    g_object_set (h->element, "template-sample", ts, "pipeline-depth", 1, NULL);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    for (i = 0; i < 2; i++) {
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      gst_buffer_unref (gst_harness_pull (h));
      fail_unless_equals_int (pop_matches (bus, m, 1), 1);
      fail_unless (m[0].x == 0 && m[0].y == 0 && m[0].result == 1.0);
    }
    fail_unless_equals_int (count_messages (bus, GST_MESSAGE_WARNING,
            "flat"), 1);
    gst_element_set_bus (h->element, NULL);
    free_bus (bus);
    teardown_finalized (h);
  }
  {
    /* sqdiff finds the flat region exactly (score 0) */
    RunOpts o = { NULL, SQDIFF, 1, -1, FALSE };
    fail_unless_equals_int (run_match (&o, &info, in, ts, m, 1), 1);
    fail_unless (m[0].x == 20 && m[0].y == 11 && m[0].result == 0.0);
  }
  {
    /* sqdiff-normed and ccorr-normed against the reference */
    double *img = frame_luma (in, &info);
    int method;
    for (method = SQDIFF_NORMED; method <= CCORR_NORMED; method++) {
      RunOpts o = { NULL, method, 1, -1, FALSE };
      int bx = 0, by = 0;
      double *map = ref_map (img, 40, 30, flat, 8, 6, method, &bx, &by);
      fail_unless_equals_int (run_match (&o, &info, in, ts, m, 1), 1);
      check_best ("flat", method, &m[0], map, 33, bx, by);
      g_free (map);
    }
    g_free (img);
  }
  gst_sample_unref (ts);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

/* Changing the template file while playing, with frames in flight: the
 * frames pushed after the change use the new template. */
GST_START_TEST (test_template_change_while_playing)
{
  static const int pos[2][3] = { {8, 6, 100}, {60, 40, 100} };
  GRand *rand = g_rand_new_with_seed (21);
  GstHarness *h = cvtest_harness_new ("cudatemplatematch", NULL);
  GstBus *bus = collecting_bus ();
  double a[12 * 10], b[20 * 8];
  GstVideoInfo info;
  GstBuffer *in, *out;
  gchar *pa, *pb;
  Match m[1];
  int i, k;

  for (i = 0; i < 12 * 10; i++)
    a[i] = g_rand_int_range (rand, 0, 256);
  for (i = 0; i < 20 * 8; i++)
    b[i] = g_rand_int_range (rand, 0, 256);
  /* the frame holds exact copies of A at pos[0] and B at pos[1] */
  in = patch_frame (&info, 100, 70, pos, 0, a, 12, 10, rand);
  {
    GstVideoFrame f;
    int x, y;
    fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
    for (y = 0; y < 10; y++)
      for (x = 0; x < 12; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(pos[0][1] + y) *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + pos[0][0] + x] =
            (guint8) a[y * 12 + x];
    for (y = 0; y < 8; y++)
      for (x = 0; x < 20; x++)
        ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(pos[1][1] + y) *
            GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + pos[1][0] + x] =
            (guint8) b[y * 20 + x];
    gst_video_frame_unmap (&f);
  }
  pa = write_png (a, 12, 10, "cvtm-a.png");
  pb = write_png (b, 20, 8, "cvtm-b.png");

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "template", pa, "pipeline-depth", 3, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (k = 0; k < 9; k++) {
    if (k == 3)
      g_object_set (h->element, "template", pb, NULL);
    if (k == 6)
      g_object_set (h->element, "template", pa, NULL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  for (k = 0; k < 9; k++) {
    gboolean use_b = k >= 3 && k < 6;
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    gst_buffer_unref (out);
    fail_unless_equals_int (pop_matches (bus, m, 1), 1);
    fail_unless_equals_int (m[0].x, use_b ? 60 : 8);
    fail_unless_equals_int (m[0].y, use_b ? 40 : 6);
    fail_unless_equals_int (m[0].width, use_b ? 20 : 12);
    fail_unless_equals_int (m[0].height, use_b ? 8 : 10);
    fail_unless (m[0].result > 0.999);
  }
  gst_element_set_bus (h->element, NULL);
  free_bus (bus);
  g_unlink (pa);
  g_unlink (pb);
  g_free (pa);
  g_free (pb);
  gst_buffer_unref (in);
  teardown_finalized (h);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_failing_change_while_playing)
{
  GRand *rand = g_rand_new_with_seed (31);
  GstHarness *h = cvtest_harness_new ("cudatemplatematch", NULL);
  GstBus *bus = collecting_bus ();
  GstVideoInfo info;
  GstBuffer *in;
  double t[4 * 4];
  GstSample *ts;
  Match m[1];
  int i;

  for (i = 0; i < 16; i++)
    t[i] = g_rand_int_range (rand, 0, 256);
  ts = gray8_sample (t, 4, 4);
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "template-sample", ts, "pipeline-depth", 1, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 30, 20);
  in = cvtest_random_frame (&info, 0, rand);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless_equals_int (pop_matches (bus, m, 1), 1);
  /* the new file cannot be read: the next frame errors out (no match
   * with the old template) */
  g_object_set (h->element, "template", "/nonexistent/cvtm-2.png", NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_ERROR);
  fail_unless_equals_int (pop_matches (bus, m, 1), -1);
  fail_unless (count_messages (bus, GST_MESSAGE_ERROR, "cvtm-2.png") >= 1);
  gst_element_set_bus (h->element, NULL);
  free_bus (bus);
  gst_sample_unref (ts);
  gst_buffer_unref (in);
  teardown_finalized (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* display=true: rectangle outline drawn on a copy, input untouched */
GST_START_TEST (test_display)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_BGRx
  };
  guint fi;

  for (fi = 0; fi < G_N_ELEMENTS (fmts); fi++) {
    GRand *rand = g_rand_new_with_seed (41);
    GstHarness *h = cvtest_harness_new ("cudatemplatematch", NULL);
    GstVideoInfo info;
    GstBuffer *in, *out, *orig;
    GstVideoFrame f;
    double *img, *t;
    GstSample *ts;
    const int cx = 13, cy = 9, tw = 10, th = 7;

    gst_video_info_set_format (&info, fmts[fi], 40, 30);
    in = cvtest_random_frame (&info, 0, rand);
    orig = gst_buffer_copy_deep (in);
    img = frame_luma (in, &info);
    t = make_template (img, 40, tw, th, cx, cy, NULL);
    ts = gray8_sample (t, tw, th);
    g_object_set (h->element, "template-sample", ts, "display", TRUE,
        "pipeline-depth", 1, NULL);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    gst_harness_push (h, gst_buffer_ref (in));
    out = gst_harness_pull (h);
    fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
    {
      int x, y;
      for (y = 0; y < 30; y++)
        for (x = 0; x < 40; x++) {
          gboolean inside = x >= cx && x < cx + tw && y >= cy && y < cy + th;
          gboolean border = inside && (x < cx + 2 || x >= cx + tw - 2
              || y < cy + 2 || y >= cy + th - 2);
          const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
              0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) +
              x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0);
          GstVideoFrame o;
          const guint8 *q;
          fail_unless (gst_video_frame_map (&o, &info, orig, GST_MAP_READ));
          q = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&o, 0) +
              y * GST_VIDEO_FRAME_PLANE_STRIDE (&o, 0) +
              x * GST_VIDEO_FRAME_COMP_PSTRIDE (&o, 0);
          if (border) {
            if (fmts[fi] == GST_VIDEO_FORMAT_GRAY8) {
              fail_unless_equals_int (p[0], 255);
            } else {            /* BGRx: green */
              fail_unless (p[0] == 0 && p[1] == 255 && p[2] == 0);
            }
          } else {
            fail_unless (memcmp (p, q, GST_VIDEO_FRAME_COMP_PSTRIDE (&f,
                        0)) == 0, "pixel (%d,%d) changed", x, y);
          }
          gst_video_frame_unmap (&o);
        }
    }
    gst_video_frame_unmap (&f);
    /* the pushed buffer itself is not drawn on */
    {
      GstMapInfo a, b;
      gst_buffer_map (in, &a, GST_MAP_READ);
      gst_buffer_map (orig, &b, GST_MAP_READ);
      fail_unless (memcmp (a.data, b.data, a.size) == 0);
      gst_buffer_unmap (in, &a);
      gst_buffer_unmap (orig, &b);
    }
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_buffer_unref (orig);
    gst_sample_unref (ts);
    g_free (img);
    g_free (t);
    teardown_finalized (h);
    g_rand_free (rand);
  }
}

GST_END_TEST;

/* score-map=true: GRAY8 (default) or GRAY16_LE output of the frame's size
 * with the scaled reference scores; switching it back renegotiates. */
static void
check_score_map (const gchar * backend, GstVideoFormat outfmt, int method)
{
  GRand *rand = g_rand_new_with_seed (51 + method);
  GstHarness *h = cvtest_harness_new ("cudatemplatematch", backend);
  const int w = 37, hh = 29, tw = 6, th = 5;
  GstVideoInfo info, oi;
  GstBuffer *in, *out;
  GstVideoFrame f;
  GstCaps *caps;
  double *img, *t, *map;
  GstSample *ts;
  int bx, by, x, y;
  const double n = tw * th;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, w, hh);
  in = cvtest_random_frame (&info, 3, rand);
  img = frame_luma (in, &info);
  t = make_template (img, w, tw, th, -1, -1, rand);
  ts = gray8_sample (t, tw, th);
  map = ref_map (img, w, hh, t, tw, th, method, &bx, &by);
  g_object_set (h->element, "template-sample", ts, "score-map", TRUE,
      "pipeline-depth", 1, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "method",
      method_names[method]);
  gst_video_info_set_format (&oi, outfmt, w, hh);
  gst_harness_set_sink_caps (h, gst_video_info_to_caps (&oi));
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&oi, caps));
  gst_caps_unref (caps);
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&oi), outfmt);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&oi), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&oi), hh);
  fail_unless (gst_video_frame_map (&f, &oi, out, GST_MAP_READ));
  for (y = 0; y < hh; y++)
    for (x = 0; x < w; x++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
      double maxv = outfmt == GST_VIDEO_FORMAT_GRAY8 ? 255 : 65535;
      double got = outfmt == GST_VIDEO_FORMAT_GRAY8 ? row[x] :
          ((const guint16 *) row)[x], u = 0, r;
      if (x < w - tw + 1 && y < hh - th + 1) {
        r = map[y * (w - tw + 1) + x];
        u = method == SQDIFF || method == CCORR ? r / (65025 * n) :
            method == CCOEFF_NORMED ? (r + 1) / 2 :
            method == CCOEFF ? r / (32512.5 * n) + 0.5 : r;
        if (isnan (u))
          u = 0;
        u = CLAMP (u, 0, 1);
      }
      /* +-1 code for the float rounding of the score */
      fail_unless (fabs (got - floor (u * maxv + 0.5)) <= 1.0,
          "%s map (%d,%d): %g, reference %g", method_names[method], x, y,
          got, floor (u * maxv + 0.5));
    }
  gst_video_frame_unmap (&f);
  gst_buffer_unref (out);

  /* back to pass-through: the output caps are the input's again */
  g_object_set (h->element, "score-map", FALSE, NULL);
  gst_harness_set_sink_caps (h, gst_caps_new_any ());
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&oi, caps));
  gst_caps_unref (caps);
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&oi), GST_VIDEO_FORMAT_I420);
  gst_buffer_unref (out);

  g_free (map);
  g_free (img);
  g_free (t);
  gst_sample_unref (ts);
  gst_buffer_unref (in);
  teardown_finalized (h);
  g_rand_free (rand);
}

GST_START_TEST (test_score_map)
{
  int method;

  for (method = 0; method < N_METHODS; method++)
    check_score_map (NULL, GST_VIDEO_FORMAT_GRAY8, method);
  check_score_map (NULL, GST_VIDEO_FORMAT_GRAY16_LE, CCOEFF_NORMED);
  check_score_map (NULL, GST_VIDEO_FORMAT_GRAY16_LE, SQDIFF);
}

GST_END_TEST;

/* ---- sub-pixel positions ---- */

/* The reference offset along one axis from the double-precision scores at
 * -1, 0, +1 (the documented parabola vertex), written out here. */
static double
ref_subpixel_offset (const double *map, int rw, int rh, int x, int y,
    int dx, int dy)
{
  double a, b, c, den, d;

  if (x - dx < 0 || y - dy < 0 || x + dx >= rw || y + dy >= rh)
    return 0;
  a = map[(gsize) (y - dy) * rw + x - dx];
  b = map[(gsize) y * rw + x];
  c = map[(gsize) (y + dy) * rw + x + dx];
  if (!isfinite (a) || !isfinite (b) || !isfinite (c))
    return 0;
  den = 2 * (a - 2 * b + c);
  if (den == 0)
    return 0;
  d = (a - c) / den;
  return CLAMP (d, -0.5, 0.5);
}

/* A smooth blob: the template's content as a function of continuous
 * coordinates (u, v) in template pixels. */
static double
blob (double u, double v, int tw, int th)
{
  double cx = tw / 2.0 - 0.5, cy = th / 2.0 - 0.5;
  double e1 = ((u - cx) * (u - cx) + (v - cy) * (v - cy)) / 18.0;
  double e2 = ((u - cx - 4) * (u - cx - 4) + (v - cy + 3) * (v - cy + 3))
      / 8.0;

  return 30 + 180 * exp (-e1) + 40 * exp (-e2) + 0.8 * u + 0.5 * v;
}

/* The template (tw x th, blob () at integer positions) pasted into a
 * w x h GRAY8 frame at the fractional position (px, py) by bilinear
 * interpolation of the template; the rest of the frame is the blob's
 * background level with low noise. The subpixel property reports, for
 * every method, the integer match of the double-precision reference and
 * x-subpixel, y-subpixel equal to the reference's parabola vertex (from
 * the double reference scores, within float rounding); for the methods
 * that peak at the template's place, the estimate moves toward the true
 * (px, py). */
static void
check_subpixel (double px, double py)
{
  const int w = 320, h = 240, tw = 21, th = 19;
  GstVideoInfo info;
  GstBuffer *in;
  GstVideoFrame f;
  double *img, *t;
  GstSample *ts;
  GRand *rand = g_rand_new_with_seed (77);
  int x, y, method;

  t = g_new (double, tw * th);
  for (y = 0; y < th; y++)
    for (x = 0; x < tw; x++)
      t[y * tw + x] = floor (blob (x, y, tw, th) + 0.5);
  ts = gray8_sample (t, tw, th);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      /* template coordinates of this pixel */
      double u = x - px, v = y - py, val;
      if (u >= 0 && v >= 0 && u <= tw - 1 && v <= th - 1) {
        int u0 = MIN ((int) u, tw - 2), v0 = MIN ((int) v, th - 2);
        double fu = u - u0, fv = v - v0;
        val = (1 - fv) * ((1 - fu) * t[v0 * tw + u0] +
            fu * t[v0 * tw + u0 + 1]) + fv * ((1 - fu) * t[(v0 + 1) * tw +
                u0] + fu * t[(v0 + 1) * tw + u0 + 1]);
      } else {
        val = 30 + g_rand_int_range (rand, -2, 3);
      }
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x] =
          (guint8) CLAMP (floor (val + 0.5), 0, 255);
    }
  gst_video_frame_unmap (&f);
  img = frame_luma (in, &info);

  for (method = 0; method < N_METHODS; method++) {
    RunOpts o = { NULL, method, 1, -1, TRUE };
    Match m[1];
    int bx = 0, by = 0, rw = w - tw + 1, rh = h - th + 1;
    double *map = ref_map (img, w, h, t, tw, th, method, &bx, &by);
    double rx, ry;
    gchar *what = g_strdup_printf ("subpixel %s at (%g,%g)",
        method_names[method], px, py);

    fail_unless_equals_int (run_match (&o, &info, in, ts, m, 1), 1);
    check_best (what, method, &m[0], map, rw, bx, by);
    fail_unless (m[0].has_sub, "%s: no x-subpixel", what);
    rx = m[0].x + ref_subpixel_offset (map, rw, rh, m[0].x, m[0].y, 1, 0);
    ry = m[0].y + ref_subpixel_offset (map, rw, rh, m[0].x, m[0].y, 0, 1);
    fail_unless (fabs (m[0].sx - rx) <= 1e-3 && fabs (m[0].sy - ry) <= 1e-3,
        "%s: (%.6f,%.6f), reference (%.6f,%.6f)", what, m[0].sx, m[0].sy,
        rx, ry);
    fail_unless (fabs (m[0].sx - m[0].x) <= 0.5
        && fabs (m[0].sy - m[0].y) <= 0.5);
    if (method != CCORR) {
      /* found at the template's place, and closer to it than the
       * integer position */
      fail_unless (fabs (m[0].x - px) <= 0.5 && fabs (m[0].y - py) <= 0.5,
          "%s: integer match (%u,%u)", what, m[0].x, m[0].y);
      fail_unless (fabs (m[0].sx - px) < fabs (m[0].x - px)
          && fabs (m[0].sy - py) < fabs (m[0].y - py),
          "%s: (%.4f,%.4f) not closer than (%u,%u)", what, m[0].sx, m[0].sy,
          m[0].x, m[0].y);
    }
    g_free (what);
    g_free (map);
  }
  g_free (img);
  g_free (t);
  gst_sample_unref (ts);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_START_TEST (test_subpixel)
{
  check_subpixel (100.3, 60.7);
  check_subpixel (201.75, 150.2);
}

GST_END_TEST;

/* A match at the score image's border has offset 0 along that axis (a
 * template of the frame's width: one window per row), and the subpixel
 * fields follow the property while playing. */
GST_START_TEST (test_subpixel_border)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (78);
  GstBuffer *in;
  double *img, *t;
  GstSample *ts;
  int method;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 30, 40);
  in = cvtest_random_frame (&info, 0, rand);
  img = frame_luma (in, &info);
  t = make_template (img, 30, 30, 9, 0, 17, NULL);
  ts = gray8_sample (t, 30, 9);
  for (method = 0; method < N_METHODS; method++) {
    RunOpts o = { NULL, method, 1, -1, TRUE };
    RunOpts off = { NULL, method, 1, -1, FALSE };
    Match m[1];
    int bx = 0, by = 0;
    double *map = ref_map (img, 30, 40, t, 30, 9, method, &bx, &by);
    double ry;

    fail_unless_equals_int (run_match (&o, &info, in, ts, m, 1), 1);
    check_best (method_names[method], method, &m[0], map, 1, bx, by);
    fail_unless (m[0].x == 0 && m[0].sx == 0.0, "%s: x-subpixel %g",
        method_names[method], m[0].sx);
    ry = m[0].y + ref_subpixel_offset (map, 1, 32, 0, m[0].y, 0, 1);
    fail_unless (fabs (m[0].sy - ry) <= 1e-3, "%s: y-subpixel %g, ref %g",
        method_names[method], m[0].sy, ry);
    fail_unless_equals_int (run_match (&off, &info, in, ts, m, 1), 1);
    fail_if (m[0].has_sub);
    g_free (map);
  }
  g_free (img);
  g_free (t);
  gst_sample_unref (ts);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

/* ---- GPU suite ---- */

/* gpu_vs_cpu on bright frames: every byte 252 + (random & 3), so that the
 * window sums of squares come near N * 255^2 (the GPU's 32-bit integral
 * images up to 66051 template pixels: kernels/templatematch.cu) */
static gboolean bright_frames;

static void
gpu_vs_cpu (GstVideoFormat fmt, int w, int h, int tw, int th, int method,
    guint max_matches, guint32 seed)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (seed);
  GstBuffer *in;
  double *t;
  GstSample *ts;
  Match g[16], c[16];
  RunOpts og = { "cuda", method, max_matches, -1, TRUE };
  RunOpts oc = { "cpu", method, max_matches, -1, TRUE };
  int ng, nc, i;

  gst_video_info_set_format (&info, fmt, w, h);
  in = cvtest_random_frame (&info, seed % 5, rand);
  if (bright_frames) {
    GstMapInfo map;
    gsize i;

    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = 252 + (map.data[i] & 3);
    gst_buffer_unmap (in, &map);
  }
  if (seed % 2) {
    /* a template cut from the frame's luma */
    double *img = frame_luma (in, &info);
    t = make_template (img, w, tw, th, (w - tw) / 2, (h - th) / 3, NULL);
    g_free (img);
  } else {
    t = make_template (NULL, w, tw, th, -1, -1, rand);
  }
  ts = gray8_sample (t, tw, th);
  ng = run_match (&og, &info, in, ts, g, 16);
  nc = run_match (&oc, &info, in, ts, c, 16);
  fail_unless_equals_int (ng, nc);
  for (i = 0; i < ng; i++) {
    fail_unless (g[i].x == c[i].x && g[i].y == c[i].y,
        "%s %dx%d t %dx%d %s match %d: GPU (%u,%u) CPU (%u,%u)",
        gst_video_format_to_string (fmt), w, h, tw, th, method_names[method],
        i, g[i].x, g[i].y, c[i].x, c[i].y);
    fail_unless (fabs (g[i].result - c[i].result) <= 1e-4 *
        (unnormalised (method) ? MAX (1.0, fabs (c[i].result)) : 1.0));
    /* the same scores around: the same sub-pixel positions */
    fail_unless (g[i].has_sub && c[i].has_sub && g[i].sx == c[i].sx
        && g[i].sy == c[i].sy, "%s match %d: sub-pixel GPU (%.9g,%.9g) "
        "CPU (%.9g,%.9g)", method_names[method], i, g[i].sx, g[i].sy,
        c[i].sx, c[i].sy);
  }
  gst_sample_unref (ts);
  g_free (t);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_START_TEST (test_gpu_equals_cpu)
{
  static const int sizes[][4] = {
    {23, 17, 1, 1}, {40, 30, 3, 3}, {41, 29, 5, 5}, {129, 70, 8, 8},
    {130, 71, 9, 8}, {300, 200, 64, 64}, {230, 170, 200, 150},
    {48, 36, 48, 36}, {1920, 1080, 64, 64}, {4001, 2999, 3, 3},
    {700, 500, 33, 17},
  };
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB
  };
  guint s;
  int method;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (method = 0; method < N_METHODS; method++)
      gpu_vs_cpu (fmts[(s + method) % G_N_ELEMENTS (fmts)], sizes[s][0],
          sizes[s][1], sizes[s][2], sizes[s][3], method,
          (s % 3 == 0) ? 1 : 5, s * N_METHODS + method);
}

GST_END_TEST;

/* ---- the CPU's correlation paths (the internal entry points of
 * cpu-fallback/cpu-internal.h, below the operator) ---- */

#ifdef CVTM_TEST_HAVE_FFTW
#define FFT_PATH CV_TM_CPU_PATH_FFT
#else
#define FFT_PATH CV_TM_CPU_PATH_DIRECT  /* built without FFTW */
#endif

/* cv_template_match_cpu with 4 matches (no threshold; every window's
 * score is compared in test_cpu_paths_exact, and each search round is a
 * parallel pass that is slow on an overloaded CI machine) and a GRAY16
 * score map; a new workspace (*ws NULL) is made with CUDAVISION_TM_PATH =
 * path, and the path taken is checked. */
static void
cpu_match (const gchar * path, const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * t, int method, guint16 * map16,
    CvTemplateMatchResult * r, void **ws)
{
  /* the test's method numbers are the property's; the C interface takes
   * OpenCV's */
  static const int cv_method[N_METHODS] = { CV_TM_SQDIFF,
    CV_TM_SQDIFF_NORMED, CV_TM_CCORR_NORMED, CV_TM_CCOEFF_NORMED,
    CV_TM_CCORR, CV_TM_CCOEFF
  };
  CvTemplateMatchParams p = { cv_method[method], 4, -1, 16 };
  CvPlane mp = { (guint8 *) map16, (size_t) src->width * 2, src->width,
    src->height
  };
  gchar *old = g_strdup (g_getenv ("CUDAVISION_TM_PATH"));

  fail_unless (g_setenv ("CUDAVISION_TM_PATH", path, TRUE));
  fail_unless_equals_int (cv_template_match_cpu (src, layout, t, &p, &mp, r,
          ws, NULL), CV_OK);
  if (old)
    g_setenv ("CUDAVISION_TM_PATH", old, TRUE);
  else
    g_unsetenv ("CUDAVISION_TM_PATH");
  g_free (old);
  fail_unless_equals_int (cv_template_match_cpu_path (*ws),
      g_str_equal (path, "fft") ? FFT_PATH : CV_TM_CPU_PATH_DIRECT);
}

/* Direct and FFT results equal: the same matches with bit-identical
 * scores and the same score map. */
static void
check_same (const gchar * what, const CvTemplateMatchResult * a,
    const guint16 * ma, const CvTemplateMatchResult * b, const guint16 * mb,
    int w, int h)
{
  int i;

  fail_unless_equals_int (a->count, b->count);
  for (i = 0; i < a->count; i++)
    fail_unless (a->match[i].x == b->match[i].x
        && a->match[i].y == b->match[i].y
        && memcmp (&a->match[i].score, &b->match[i].score,
            sizeof (double)) == 0
        && memcmp (a->match[i].around, b->match[i].around,
            sizeof (a->match[i].around)) == 0,
        "%s: match %d direct (%d,%d) %.9g, fft (%d,%d) %.9g", what, i,
        a->match[i].x, a->match[i].y, a->match[i].score, b->match[i].x,
        b->match[i].y, b->match[i].score);
  fail_unless (memcmp (ma, mb, (size_t) w * h * 2) == 0,
      "%s: score maps differ", what);
}

/* Every reported match against the reference score of its window; for
 * sqdiff the score is the exact integer sum stored as float, so the
 * comparison is exact (an FFT value rounded to a wrong integer would
 * show). */
static void
check_matches_ref (const gchar * what, const CvTemplateMatchResult * r,
    const double *img, int w, const double *t, int tw, int th, int method)
{
  int i;

  fail_unless (r->count >= 1, "%s: no match", what);
  for (i = 0; i < r->count; i++) {
    double ref = ref_score (img, w, t, tw, th, r->match[i].x,
        r->match[i].y, method);
    if (method == SQDIFF || method == CCORR)
      fail_unless (r->match[i].score == (double) (float) ref,
          "%s: match %d at (%d,%d) %.9g, exact %.9g", what, i, r->match[i].x,
          r->match[i].y, r->match[i].score, ref);
    else
      fail_unless (score_close (method, r->match[i].score, ref),
          "%s: match %d at (%d,%d) %.9g, reference %.9g", what, i,
          r->match[i].x, r->match[i].y, r->match[i].score, ref);
  }
}

/* An 8-bit frame w x h with bpp bytes per pixel and padded rows: random,
 * or (saturated) half of the pixels 255, to push the sums (and the FFT's
 * error) up; and its luma as doubles (BT.601 for bpp 4, channels r g b). */
static guint8 *
cpu_frame (int w, int h, int bpp, gboolean saturated, GRand * rand,
    CvPlane * pl, double **luma)
{
  size_t stride = (size_t) w * bpp + 13;
  guint8 *d = g_malloc (stride * h);
  double *l = g_new (double, (gsize) w * h);
  int x, y, c;

  for (y = 0; y < h; y++)
    for (x = 0; x < (int) stride; x++)
      d[(size_t) y * stride + x] = saturated && g_rand_boolean (rand) ? 255 :
          g_rand_int_range (rand, 0, 256);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      const guint8 *p = d + (size_t) y * stride + (size_t) x * bpp;
      if (bpp == 1) {
        l[(size_t) y * w + x] = p[0];
      } else {
        int v = 0;
        for (c = 0; c < 3; c++)
          v += (c == 0 ? 77 : c == 1 ? 150 : 29) * p[c];
        l[(size_t) y * w + x] = (v + 128) / 256;
      }
    }
  pl->data = d;
  pl->stride = stride;
  pl->width = w;
  pl->height = h;
  *luma = l;
  return d;
}

/* A GRAY8 template from doubles (0..255) with its statistics. */
static guint8 *
cpu_template (const double *t, int tw, int th, guint64 id, CvTemplate * ct)
{
  guint8 *d = g_malloc ((gsize) tw * th);
  int i;

  for (i = 0; i < tw * th; i++)
    d[i] = (guint8) t[i];
  memset (ct, 0, sizeof (*ct));
  ct->plane.data = d;
  ct->plane.stride = tw;
  ct->plane.width = tw;
  ct->plane.height = th;
  ct->id = id;
  fail_unless_equals_int (cv_template_stats (ct), CV_OK);
  return d;
}

/* The CPU's direct and FFT correlations (forced with CUDAVISION_TM_PATH)
 * on the same inputs give the same matches with bit-identical scores and
 * the same score map, and the matches agree with the reference: frames of
 * several FFT tiles whose size is no multiple of the tile's block of
 * windows, template == frame, 1-pixel-wide / -high templates, the issue's
 * 64x64 and 200x150, an RGBx frame through the luma, saturated frames. */
GST_START_TEST (test_cpu_paths)
{
  static const int cases[][5] = {
    /* w, h, tw, th, bpp */
    {700, 530, 48, 40, 1}, {96, 80, 96, 80, 1}, {333, 251, 200, 150, 4},
    {301, 97, 17, 16, 1}, {250, 64, 120, 1, 1}, {90, 260, 1, 70, 1},
    {1000, 330, 64, 64, 1}, {211, 183, 210, 183, 4},
  };
  guint c;
  int method;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const int w = cases[c][0], h = cases[c][1], tw = cases[c][2],
        th = cases[c][3], bpp = cases[c][4];
    CvLumaLayout layout = { bpp, bpp == 1 ? -1 : 0, bpp == 1 ? -1 : 1,
      bpp == 1 ? -1 : 2
    };
    GRand *rand = g_rand_new_with_seed (3000 + c);
    CvPlane src;
    double *img, *t;
    guint8 *fdata = cpu_frame (w, h, bpp, c % 2, rand, &src, &img);
    guint8 *tdata;
    CvTemplate ct;

    t = make_template (img, w, tw, th, c % 3 ? (w - tw) / 2 : -1,
        c % 3 ? (h - th) / 3 : -1, rand);
    tdata = cpu_template (t, tw, th, 7 + c, &ct);
    for (method = 0; method < N_METHODS; method++) {
      CvTemplateMatchResult rd, rf;
      guint16 *md = g_new (guint16, (gsize) w * h);
      guint16 *mf = g_new (guint16, (gsize) w * h);
      void *wd = NULL, *wf = NULL;
      gchar *what = g_strdup_printf ("%dx%d (%d bpp) template %dx%d %s", w, h,
          bpp, tw, th, method_names[method]);

      cpu_match ("direct", &src, layout, &ct, method, md, &rd, &wd);
      cpu_match ("fft", &src, layout, &ct, method, mf, &rf, &wf);
      check_same (what, &rd, md, &rf, mf, w, h);
      check_matches_ref (what, &rf, img, w, t, tw, th, method);
      if (tw == w && th == h)
        fail_unless (rf.count == 1 && rf.match[0].x == 0 && rf.match[0].y == 0);
      /* again with the kept plans and spectrum */
      cpu_match ("fft", &src, layout, &ct, method, mf, &rf, &wf);
      check_same (what, &rd, md, &rf, mf, w, h);
      cv_template_match_cpu_free (wd);
      cv_template_match_cpu_free (wf);
      g_free (what);
      g_free (md);
      g_free (mf);
    }
    g_free (tdata);
    g_free (t);
    g_free (img);
    g_free (fdata);
    g_rand_free (rand);
  }
}

GST_END_TEST;

/* The score of every window, from both CPU paths (their internal entry
 * points), bit for bit against the exact sums C, S, Q of the definition
 * (plain 64-bit integer loops here) through the shared score formula: any
 * FFT value rounded to a wrong integer shows. FFT tiles of the cost
 * model's size and small forced ones (many tiles, partial last ones),
 * saturated frames (large sums), template == frame. */
GST_START_TEST (test_cpu_paths_exact)
{
  static const int cases[][6] = {
    /* w, h, tw, th, forced tile dw, dh */
    {400, 300, 48, 40, 75, 64}, {96, 80, 96, 80, 100, 81},
    {260, 190, 200, 150, 243, 160}, {300, 200, 64, 64, 128, 90},
    {250, 64, 120, 1, 125, 5}, {90, 260, 1, 70, 2, 81},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const int w = cases[c][0], h = cases[c][1], tw = cases[c][2],
        th = cases[c][3], rw = w - tw + 1, rh = h - th + 1;
    const size_t nwin = (size_t) rw * rh;
    GRand *rand = g_rand_new_with_seed (5000 + c);
    CvPlane lum;
    double *img, *t;
    guint8 *fdata = cpu_frame (w, h, 1, c % 2 == 0, rand, &lum, &img);
    guint8 *tdata;
    CvTemplate ct;
    gint64 *rc = g_new (gint64, nwin), *rs = g_new (gint64, nwin),
        *rq = g_new (gint64, nwin);
    float *md = g_new (float, nwin), *mf = g_new (float, nwin);
    size_t i;
    int x, y, method, tile, dw = 0, dh = 0;

    t = make_template (img, w, tw, th, c % 3 ? (w - tw) / 2 : -1,
        (h - th) / 3, rand);
    if (c % 2 == 0)             /* saturated template too */
      for (i = 0; i < (size_t) tw * th; i += 2)
        t[i] = 255;
    tdata = cpu_template (t, tw, th, 0, &ct);
    /* the definition, in integers */
    for (y = 0; y < rh; y++)
      for (x = 0; x < rw; x++) {
        gint64 sc = 0, ss = 0, sq = 0;
        int i2, j;
        for (j = 0; j < th; j++) {
          const guint8 *p = lum.data + (size_t) (y + j) * lum.stride + x;
          const guint8 *tp = tdata + (size_t) j * tw;
          for (i2 = 0; i2 < tw; i2++) {
            sc += (gint64) tp[i2] * p[i2];
            ss += p[i2];
            sq += (gint64) p[i2] * p[i2];
          }
        }
        rc[(size_t) y * rw + x] = sc;
        rs[(size_t) y * rw + x] = ss;
        rq[(size_t) y * rw + x] = sq;
      }
#ifdef CVTM_TEST_HAVE_FFTW
    fail_unless (cvtm_fft_cost (w, h, tw, th, &dw, &dh) >= 0);
#endif
    for (method = 0; method < N_METHODS; method++) {
      CvTmScoreConst k = cvtm_score_const (method, tw, th, ct.sum, ct.sumsq,
          ct.flat);
      fail_unless_equals_int (cvtm_direct_scores (&lum, &ct, &k, md, NULL),
          CV_OK);
      for (tile = 0; tile < 2; tile++) {
#ifdef CVTM_TEST_HAVE_FFTW
        CvTmFft *f = NULL;
        fail_unless_equals_int (cvtm_fft_scores (&f, &lum, &ct, &k, mf,
                tile ? cases[c][4] : dw, tile ? cases[c][5] : dh, NULL), CV_OK);
        cvtm_fft_free (f);
#else
        memcpy (mf, md, nwin * sizeof (float));
#endif
        for (i = 0; i < nwin; i++) {
          float r = cvtm_score (&k, rc[i], rs[i], rq[i]);
          fail_unless (memcmp (&r, &md[i], sizeof r) == 0
              && memcmp (&r, &mf[i], sizeof r) == 0,
              "%dx%d template %dx%d %s, tile %dx%d: window (%d,%d) exact "
              "%.9g (C %" G_GINT64_FORMAT "), direct %.9g, fft %.9g", w, h,
              tw, th, method_names[method], tile ? cases[c][4] : dw,
              tile ? cases[c][5] : dh, (int) (i % rw), (int) (i / rw), r,
              rc[i], md[i], mf[i]);
        }
      }
    }
    g_free (rc);
    g_free (rs);
    g_free (rq);
    g_free (md);
    g_free (mf);
    g_free (tdata);
    g_free (t);
    g_free (img);
    g_free (fdata);
    g_rand_free (rand);
  }
}

GST_END_TEST;

/* One FFT workspace through template changes: the kept spectrum is
 * replaced when the template's id changes and recomputed every call with
 * id 0, and a template of another size changes the tile size; each result
 * equals the direct path's. */
GST_START_TEST (test_cpu_fft_workspace)
{
  static const int tsz[][3] = {
    /* tw, th, id */
    {40, 30, 1}, {40, 30, 2}, {40, 30, 1}, {40, 30, 0}, {40, 30, 0},
    {90, 70, 3}, {40, 30, 1},
  };
  const int w = 420, h = 300;
  CvLumaLayout layout = { 1, -1, -1, -1 };
  GRand *rand = g_rand_new_with_seed (4000);
  CvPlane src;
  double *img;
  guint8 *fdata = cpu_frame (w, h, 1, FALSE, rand, &src, &img);
  guint16 *md = g_new (guint16, (gsize) w * h);
  guint16 *mf = g_new (guint16, (gsize) w * h);
  void *wf = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (tsz); i++) {
    const int tw = tsz[i][0], th = tsz[i][1];
    /* distinct contents per id (0: a new random template every call) */
    GRand *tr =
        g_rand_new_with_seed (tsz[i][2] ? 50 + (guint) tsz[i][2] : 90 + i);
    double *t = make_template (img, w, tw, th, -1, -1, tr);
    CvTemplate ct;
    guint8 *tdata = cpu_template (t, tw, th, tsz[i][2], &ct);
    CvTemplateMatchResult rd, rf;
    void *wd = NULL;
    gchar *what = g_strdup_printf ("step %u: template %dx%d id %d", i, tw, th,
        tsz[i][2]);

    cpu_match ("direct", &src, layout, &ct, SQDIFF, md, &rd, &wd);
    cpu_match ("fft", &src, layout, &ct, SQDIFF, mf, &rf, &wf);
    check_same (what, &rd, md, &rf, mf, w, h);
    check_matches_ref (what, &rf, img, w, t, tw, th, SQDIFF);
    cv_template_match_cpu_free (wd);
    g_free (what);
    g_free (tdata);
    g_free (t);
    g_rand_free (tr);
  }
  cv_template_match_cpu_free (wf);
  g_free (md);
  g_free (mf);
  g_free (img);
  g_free (fdata);
  g_rand_free (rand);
}

GST_END_TEST;

/* The seed's largest case on the GPU: 8140x9925 with a 3x3 template, the
 * GPU against the CPU; and a tall frame whose integral images' column
 * scans take segments longer than 128 rows (3000 rows: 16 segments of 192;
 * kernels/templatematch.cu, int_seg_rows). */
GST_START_TEST (test_gpu_huge_frame)
{
  gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, 8140, 9925, 3, 3, CCOEFF_NORMED, 3, 1);
  gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, 8140, 9925, 3, 3, SQDIFF, 1, 2);
  gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, 300, 3000, 20, 20, CCOEFF_NORMED, 3, 3);
  gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, 300, 3000, 20, 20, SQDIFF, 2, 4);
}

GST_END_TEST;

/* Both correlation paths of the GPU (CUDAVISION_TM_PATH, read when the
 * element's GPU workspace is made), forced for every template size, against
 * the CPU: the __dp4a direct path and the two 8-bit tensor-core kernels
 * (gemm, gemm3; on devices without sm_80 code they fall back to direct);
 * the CPU's own path follows the same variable (direct: direct; gemm,
 * gemm3: its automatic choice), and a last round forces the CPU's FFT path
 * with the GPU on its automatic choice.
 * Sizes around the automatic switch (16x16), the kernels' chunk edges
 * (dp4a: 64 columns x 16 rows; gemm: 64 x 64, k-steps of 32; gemm3's row
 * chunks of at most 160 rows, 160 and 161 here, its 64-column chunks, its
 * 128 x 32 tiles and its ring of 8-row stages), frame
 * widths that are no multiple of 4, template == frame, 1x1, and templates
 * past the 32-bit exact limits (gemm > 32768 pixels, dp4a > 65536, the
 * 32-bit integral images > 66051), the last two also on bright frames
 * (window sums of squares near 2^32). The tensor-core kernels split the
 * template where the device chooses to (test_gpu_split_k forces it). */
GST_START_TEST (test_gpu_paths)
{
  static const int sizes[][4] = {
    {23, 17, 1, 1}, {40, 30, 3, 3}, {61, 45, 9, 8}, {77, 50, 15, 15},
    {77, 50, 16, 16}, {150, 97, 17, 13}, {301, 133, 33, 31},
    {333, 201, 64, 64}, {259, 190, 65, 70}, {48, 36, 48, 36},
    {230, 170, 200, 150}, {237, 181, 200, 170}, {301, 229, 300, 220},
    {331, 250, 300, 230},
    {1921, 1081, 64, 64}, {403, 77, 4, 40}, {403, 77, 130, 5},
    {250, 175, 70, 160}, {211, 190, 33, 161},
  };
  /* 300x220 = 66000 pixels: 32-bit integral images, window sums of squares
   * up to 66000 * 65025 = 4291650000 < 2^32; 300x230: 64-bit */
  static const int bright[][4] = {
    {301, 229, 300, 220}, {331, 250, 300, 230},
  };
  /* gemm, gemm3: the tensor-core kernels; "fft": the GPU's automatic
   * choice against the CPU's FFT path */
  static const char *paths[] = { "direct", "gemm", "gemm3", "fft" };
  guint s, p;
  int method;

  for (p = 0; p < G_N_ELEMENTS (paths); p++) {
    fail_unless (g_setenv ("CUDAVISION_TM_PATH", paths[p], TRUE));
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (method = 0; method < N_METHODS; method++) {
        if (sizes[s][0] > 1000 && method != CCOEFF_NORMED)
          continue;             /* the large frame once */
        gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, sizes[s][0], sizes[s][1],
            sizes[s][2], sizes[s][3], method, (s + method) % 2 ? 1 : 4,
            1000 + p * 100 + s * N_METHODS + method);
      }
    /* an RGB frame through the luma conversion */
    gpu_vs_cpu (GST_VIDEO_FORMAT_BGRx, 130, 90, 20, 18, CCOEFF_NORMED, 3,
        1999 + p);
    bright_frames = TRUE;
    for (s = 0; s < G_N_ELEMENTS (bright); s++)
      for (method = 0; method < N_METHODS; method++)
        gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, bright[s][0], bright[s][1],
            bright[s][2], bright[s][3], method, 2, 3000 + p * 100 +
            s * N_METHODS + method);
    bright_frames = FALSE;
  }
  g_unsetenv ("CUDAVISION_TM_PATH");
}

GST_END_TEST;

GST_START_TEST (test_gpu_score_map)
{
  int method;

  for (method = 0; method < N_METHODS; method++)
    check_score_map ("cuda", GST_VIDEO_FORMAT_GRAY8, method);
  check_score_map ("cuda", GST_VIDEO_FORMAT_GRAY16_LE, CCOEFF_NORMED);
}

GST_END_TEST;

/* ---- masks and scales ---- */

/* The GRAY8 template the element uses for a sample (its template-sample
 * read back), as doubles. */
static double *
used_template (GstSample * sample, int tw, int th)
{
  GstElement *e = gst_element_factory_make ("cudatemplatematch", NULL);
  GstSample *g = NULL;
  GstVideoInfo info;
  GstVideoFrame f;
  double *t = g_new (double, (gsize) tw * th);
  int x, y;

  g_object_set (e, "template-sample", sample, NULL);
  g_object_get (e, "template-sample", &g, NULL);
  fail_unless (g != NULL);
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (g)));
  fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info),
      GST_VIDEO_FORMAT_GRAY8);
  fail_unless (gst_video_frame_map (&f, &info, gst_sample_get_buffer (g),
          GST_MAP_READ));
  for (y = 0; y < th; y++)
    for (x = 0; x < tw; x++)
      t[y * tw + x] = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
  gst_video_frame_unmap (&f);
  gst_sample_unref (g);
  gst_object_unref (e);
  return t;
}

/* OpenCV's masked score (matchTemplateMask with a binary mask: sums over
 * the pixels of alpha != 0), in double: sqdiff, ccorr-normed,
 * ccoeff-normed. */
static double
ref_masked (const double *img, int w, const double *t, const guint8 * a,
    int tw, int th, int x, int y, int method)
{
  double c = 0, s = 0, q = 0, st = 0, qt = 0, n = 0;
  int i, j;

  for (j = 0; j < th; j++)
    for (i = 0; i < tw; i++) {
      double v = img[(y + j) * w + x + i], tv = t[j * tw + i];
      if (!a[j * tw + i])
        continue;
      c += v * tv;
      s += v;
      q += v * v;
      st += tv;
      qt += tv * tv;
      n++;
    }
  if (method == SQDIFF)
    return q - 2 * c + qt;
  if (method == CCORR_NORMED)
    return c / sqrt (q * qt);
  return (c - s * st / n) / sqrt ((q - s * s / n) * (qt - st * st / n));
}

/* A masked template (alpha 0 outside an ellipse, 1..255 inside, noise
 * under the transparent pixels) cut from a smooth frame: the element's
 * best match is the reference's best window of OpenCV's masked score (or
 * a tie), given as a template-sample and as a PNG file with
 * transparency; with use-alpha=false the match is unmasked. */
static void
check_masked (const gchar * backend, int method)
{
  const int w = 120, h = 90, tw = 23, th = 19, cx = 61, cy = 33;
  GRand *rand = g_rand_new_with_seed (18 + method);
  GstVideoInfo info;
  GstBuffer *in;
  double *img, *t, *used, best = 0;
  guint8 *alpha = g_malloc ((gsize) tw * th);
  GstSample *rgba, *png;
  GstCaps *pngcaps = gst_caps_new_empty_simple ("image/png");
  GstMapInfo map;
  gchar *path = unique_tmp ("masked.png");
  Match m[2];
  int x, y, bx = -1, by = -1, k;
  gboolean lower = method == SQDIFF;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  in = cvtest_random_frame (&info, 1, rand);
  img = frame_luma (in, &info);
  t = make_template (img, w, tw, th, cx, cy, NULL);
  for (y = 0; y < th; y++)
    for (x = 0; x < tw; x++) {
      double u = (x - tw / 2.0) / (tw / 2.0), v = (y - th / 2.0) / (th / 2.0);
      gboolean inside = u * u + v * v <= 1;
      alpha[y * tw + x] = inside ? g_rand_int_range (rand, 1, 256) : 0;
      if (!inside)
        t[y * tw + x] = g_rand_int_range (rand, 0, 256);
    }
  rgba = rgba_sample (t, alpha, tw, th);
  used = used_template (rgba, tw, th);
  for (y = 0; y + th <= h; y++)
    for (x = 0; x + tw <= w; x++) {
      double r = ref_masked (img, w, used, alpha, tw, th, x, y, method);
      if (bx < 0 || (lower ? r < best : r > best)) {
        best = r;
        bx = x;
        by = y;
      }
    }
  png = gst_video_convert_sample (rgba, pngcaps, 10 * GST_SECOND, NULL);
  fail_unless (png != NULL);
  gst_buffer_map (gst_sample_get_buffer (png), &map, GST_MAP_READ);
  fail_unless (g_file_set_contents (path, (const gchar *) map.data,
          map.size, NULL));
  gst_buffer_unmap (gst_sample_get_buffer (png), &map);
  for (k = 0; k < 3; k++) {
    RunOpts o = { backend, method, 1, -1, FALSE };
    double r;
    opt_ignore_alpha = k == 2;
    opt_path = k == 1 ? path : NULL;
    fail_unless_equals_int (run_match (&o, &info, in, rgba, m, 2), 1);
    opt_ignore_alpha = FALSE;
    opt_path = NULL;
    fail_unless_equals_int (m[0].masked, k != 2);
    fail_unless_equals_int (m[0].width, tw);
    fail_unless (m[0].scale == 1.0);
    if (k == 2)
      continue;
    r = ref_masked (img, w, used, alpha, tw, th, m[0].x, m[0].y, method);
    fail_unless ((m[0].x == (guint) bx && m[0].y == (guint) by)
        || fabs (r - best) <= 1e-6 * MAX (1.0, fabs (best)),
        "%s %s: masked best (%u,%u) %.9g, reference (%d,%d) %.9g",
        backend, method_names[method], m[0].x, m[0].y, r, bx, by, best);
    fail_unless (score_close (method, m[0].result, r),
        "%s: score %.9g, reference %.9g", method_names[method], m[0].result, r);
  }
  g_unlink (path);
  g_free (path);
  gst_caps_unref (pngcaps);
  gst_sample_unref (png);
  gst_sample_unref (rgba);
  g_free (used);
  g_free (t);
  g_free (img);
  g_free (alpha);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_START_TEST (test_masked)
{
  check_masked ("cpu", SQDIFF);
  check_masked ("cpu", CCORR_NORMED);
  check_masked ("cpu", CCOEFF_NORMED);
}

GST_END_TEST;

/* scales: read back, refused values (a warning, the previous kept) */
GST_START_TEST (test_scales_property)
{
  static const gchar *bad[] = { "<>", "<0.0>", "<1.0, -2.0>", "<17.0>",
    "<1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, "
        "1.0, 1.0, 1.0>"
  };
  GstElement *e = gst_element_factory_make ("cudatemplatematch", NULL);
  GstBus *bus = gst_bus_new ();
  GValue v = G_VALUE_INIT;
  guint i;
  gboolean ua;

  gst_element_set_bus (e, bus);
  g_object_get (e, "use-alpha", &ua, NULL);
  fail_unless (ua);
  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "scales", &v);
  fail_unless_equals_int (gst_value_array_get_size (&v), 1);
  fail_unless (g_value_get_double (gst_value_array_get_value (&v, 0)) == 1.0);
  g_value_unset (&v);
  gst_util_set_object_arg (G_OBJECT (e), "scales", "<0.5, 1, 2.25>");
  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstMessage *msg;
    GError *err = NULL;
    /* (gst_util_set_object_arg leaks the value it cannot parse) */
    g_value_init (&v, GST_TYPE_ARRAY);
    if (gst_value_deserialize (&v, bad[i]))
      g_object_set_property (G_OBJECT (e), "scales", &v);
    g_value_unset (&v);
    g_value_init (&v, GST_TYPE_ARRAY);
    g_object_get_property (G_OBJECT (e), "scales", &v);
    fail_unless_equals_int (gst_value_array_get_size (&v), 3);
    fail_unless (g_value_get_double (gst_value_array_get_value (&v, 2)) ==
        2.25);
    g_value_unset (&v);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "no warning for scales %s", bad[i]);
    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (strstr (err->message, "scales") != NULL
        && strstr (err->message, "keeping the previous scales") != NULL,
        "%s", err->message);
    g_error_free (err);
    gst_message_unref (msg);
  }
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* Several scales: a template pasted at 2x (nearest neighbour) is found at
 * scale 2 with the scaled size; a scale too large is skipped with one
 * warning; no scale fitting is an error. */
static void
check_scales (const gchar * backend)
{
  const int w = 100, h = 80, tw = 15, th = 12;
  GRand *rand = g_rand_new_with_seed (7);
  GstVideoInfo info;
  GstBuffer *in;
  GstVideoFrame f;
  double *t = make_template (NULL, w, tw, th, -1, -1, rand);
  GstSample *ts = gray8_sample (t, tw, th);
  Match m[4];
  int x, y, method;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  in = cvtest_random_frame (&info, 0, rand);
  fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
  for (y = 0; y < 2 * th; y++)
    for (x = 0; x < 2 * tw; x++)
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[(40 + y) *
          GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + 30 + x] =
          (guint8) t[(y / 2) * tw + x / 2];
  gst_video_frame_unmap (&f);
  for (method = 0; method < N_METHODS; method++) {
    RunOpts o = { backend, method, 1, -1, FALSE };
    if (method == CCORR)
      continue;                 /* favours bright windows, not the paste */
    opt_scales = "<0.5, 1.0, 2.0, 7.0>";
    fail_unless_equals_int (run_match (&o, &info, in, ts, m, 4), 1);
    opt_scales = NULL;
    fail_unless (m[0].scale == 2.0 && m[0].x == 30 && m[0].y == 40
        && m[0].width == 2 * tw && m[0].height == 2 * th,
        "%s: scale %g (%u,%u) %ux%u", method_names[method], m[0].scale,
        m[0].x, m[0].y, m[0].width, m[0].height);
    fail_if (m[0].masked);
  }
  gst_sample_unref (ts);
  g_free (t);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_START_TEST (test_scales)
{
  check_scales ("cpu");
}

GST_END_TEST;

GST_START_TEST (test_gpu_masks_scales)
{
  static const int methods[] = { SQDIFF, CCORR_NORMED, CCOEFF_NORMED };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (methods); i++)
    check_masked ("cuda", methods[i]);
  check_scales ("cuda");
}

GST_END_TEST;

/* GPU == CPU with a masked template at several scales: the same matches
 * (template index, position, score). */
static void
gpu_cpu_masked_scales (void)
{
  const int w = 640, h = 360, tw = 40, th = 33;
  GRand *rand = g_rand_new_with_seed (99);
  GstVideoInfo info;
  GstBuffer *in;
  double *img, *t;
  guint8 *alpha = g_malloc ((gsize) tw * th);
  GstSample *rgba;
  int i, method;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, w, h);
  in = cvtest_random_frame (&info, 2, rand);
  img = frame_luma (in, &info);
  t = make_template (img, w, tw, th, 200, 100, NULL);
  for (i = 0; i < tw * th; i++)
    alpha[i] = (i % tw) * (i / tw) % 5 ? 255 : 0;
  rgba = rgba_sample (t, alpha, tw, th);
  for (method = 0; method < N_METHODS; method++) {
    RunOpts og = { "cuda", method, 5, -1, TRUE };
    RunOpts oc = { "cpu", method, 5, -1, TRUE };
    Match g[5], c[5];
    int ng, nc;
    opt_scales = "<0.5, 1.0, 1.3, 2.0>";
    ng = run_match (&og, &info, in, rgba, g, 5);
    nc = run_match (&oc, &info, in, rgba, c, 5);
    opt_scales = NULL;
    fail_unless_equals_int (ng, nc);
    for (i = 0; i < ng; i++)
      fail_unless (g[i].x == c[i].x && g[i].y == c[i].y
          && g[i].scale == c[i].scale && g[i].result == c[i].result
          && g[i].sx == c[i].sx && g[i].sy == c[i].sy && g[i].masked,
          "%s match %d: GPU %g (%u,%u) %.9g, CPU %g (%u,%u) %.9g",
          method_names[method], i, g[i].scale, g[i].x, g[i].y, g[i].result,
          c[i].scale, c[i].x, c[i].y, c[i].result);
  }
  gst_sample_unref (rgba);
  g_free (t);
  g_free (img);
  g_free (alpha);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_START_TEST (test_gpu_equals_cpu_masked_scales)
{
  gpu_cpu_masked_scales ();
}

GST_END_TEST;

/* Split-K of the tensor-core correlations (CUDAVISION_TM_SPLITK, read when
 * the element's GPU workspace is made; kernels/templatematch.cu,
 * choose_split) forced on the two kernels, against the CPU: "0" no split
 * (the automatic choice splits most of the small frames here, so the
 * unsplit kernels are checked with it), N bands shaped as the automatic
 * ones (3: 1 x 3 row bands on one k-step, 2 x 2 on 64x64; 5 and 12:
 * counts that divide neither the rows nor the k-steps evenly, down to
 * bands of 1 row) and explicit shapes ("2x1"; "9x40": more column and
 * row bands than most templates have, capped to their k-steps and rows).
 * On the 1080p frame "12" and "9x40" would pass the partial planes'
 * memory limit: no split there. Templates of one 32-column k-step and of
 * several (200 wide: 7, the last of 8 columns; 65 and 130 wide: a last
 * band of 1 or 2 columns), 1 row or 1 column, the 32-bit limits on bright
 * frames (300x220: 32-bit parts, whole sums near 2^32; 300x230: 64-bit
 * parts and the 64-bit kernels), and masked templates at several scales
 * (their three raw correlations split too). */
GST_START_TEST (test_gpu_split_k)
{
  static const int sizes[][4] = {
    {150, 97, 17, 13}, {77, 50, 16, 16}, {333, 201, 64, 64},
    {259, 190, 65, 70}, {230, 170, 200, 150}, {403, 77, 4, 40},
    {403, 77, 130, 5}, {301, 133, 33, 31}, {23, 17, 1, 1}, {90, 60, 1, 37},
    {200, 40, 97, 1}, {1921, 1081, 64, 64},
  };
  static const int bright[][4] = {
    {301, 229, 300, 220}, {331, 250, 300, 230},
  };
  static const char *paths[] = { "gemm", "gemm3" };
  static const char *splits[] = { "0", "3", "5", "12", "2x1", "9x40" };
  guint p, k, s, i;

  for (p = 0; p < G_N_ELEMENTS (paths); p++)
    for (k = 0; k < G_N_ELEMENTS (splits); k++) {
      const guint32 seed = 5000 + (p * G_N_ELEMENTS (splits) + k) * 100;

      fail_unless (g_setenv ("CUDAVISION_TM_PATH", paths[p], TRUE));
      fail_unless (g_setenv ("CUDAVISION_TM_SPLITK", splits[k], TRUE));
      for (s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (i = 0; i < 2; i++) {
          /* two methods a size, all six over the sizes */
          const int method = (s + k + 3 * i) % N_METHODS;
          if (sizes[s][0] > 1000 && i > 0)
            continue;           /* the large frame once */
          gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, sizes[s][0], sizes[s][1],
              sizes[s][2], sizes[s][3], method, (s + i) % 2 ? 1 : 4,
              seed + s * 2 + i);
        }
      bright_frames = TRUE;
      for (s = 0; s < G_N_ELEMENTS (bright); s++)
        for (i = 0; i < 2; i++)
          gpu_vs_cpu (GST_VIDEO_FORMAT_GRAY8, bright[s][0], bright[s][1],
              bright[s][2], bright[s][3], (s + k + 3 * i) % N_METHODS, 2,
              seed + 50 + s * 2 + i);
      bright_frames = FALSE;
      gpu_cpu_masked_scales ();
    }
  g_unsetenv ("CUDAVISION_TM_PATH");
  g_unsetenv ("CUDAVISION_TM_SPLITK");
}

GST_END_TEST;

static Suite *
templatematch_suite (void)
{
  Suite *s = suite_create ("cudatemplatematch");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_reference_template_sizes);
  tcase_add_test (tc, test_reference_formats);
  tcase_add_test (tc, test_real_frames);
  tcase_add_test (tc, test_nms_and_threshold);
  tcase_add_test (tc, test_no_template);
  tcase_add_test (tc, test_bad_template_files);
  tcase_add_test (tc, test_flat_template);
  tcase_add_test (tc, test_template_change_while_playing);
  tcase_add_test (tc, test_failing_change_while_playing);
  tcase_add_test (tc, test_display);
  tcase_add_test (tc, test_score_map);
  tcase_add_test (tc, test_subpixel);
  tcase_add_test (tc, test_subpixel_border);
  tcase_add_test (tc, test_masked);
  tcase_add_test (tc, test_scales_property);
  tcase_add_test (tc, test_scales);
  /* the CPU path tests force their paths: once, not again in the run
   * with CUDAVISION_TM_PATH=fft */
  if (!cvtest_backend_is_cuda () && !g_getenv ("CUDAVISION_TM_PATH")) {
    tcase_add_test (tc, test_cpu_paths);
    tcase_add_test (tc, test_cpu_paths_exact);
    tcase_add_test (tc, test_cpu_fft_workspace);
  }
  if (cvtest_backend_is_cuda ()) {
    tcase_add_test (tc, test_gpu_equals_cpu);
    tcase_add_test (tc, test_gpu_huge_frame);
    tcase_add_test (tc, test_gpu_score_map);
    tcase_add_test (tc, test_gpu_paths);
    tcase_add_test (tc, test_gpu_masks_scales);
    tcase_add_test (tc, test_gpu_equals_cpu_masked_scales);
    tcase_add_test (tc, test_gpu_split_k);
  }
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cvtest_run_suite (templatematch_suite ());
}
