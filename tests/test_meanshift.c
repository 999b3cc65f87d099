/* cudameanshift: filter and segment output against an independent
 * reference (plain loops written from the definitions in
 * docs/cudameanshift.md), synthetic disks, ROI and colour ranges, the
 * label meta and the segment message, bad input, GPU vs CPU.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"

#include <math.h>
#include <string.h>

#define NO_LABEL 0xFFFFFFFFu

/* the label map, read from the custom meta through GStreamer's API only
 * (as an application does; the test does not link the plugin) */
typedef struct
{
  guint width;
  guint height;
  guint n_segments;
  guint32 *labels;
} LabelsMeta;

enum
{ K_UNIFORM, K_TRIANGULAR, K_EPANECHNIKOV, K_FLAT };
static const gchar *kernel_nick[] =
    { "uniform", "triangular", "epanechnikov", "flat" };

typedef struct
{
  int hs;
  double hc;
  int kernel;
  int iters;
  double eps;
  gboolean segment;
  int min_size;
  int roi[4];                   /* x, y, w, h (0, 0, 0, 0: whole frame) */
  int cmin[3], cmax[3];
} Params;

static Params
params_default (int kernel, gboolean segment)
{
  Params p = { 8, 16.0, kernel, 5, 1.0, segment, 20, {0, 0, 0, 0},
  {0, 0, 0}, {255, 255, 255}
  };
  return p;
}

/* ---- frames as plain arrays ---- */

typedef struct
{
  int w, h, nc;                 /* nc: 3 (RGB formats) or 1 (GRAY8) */
  int *c;                       /* nc values per pixel, R, G, B order */
} Img;

static Img
img_from_buffer (GstBuffer * buf, const GstVideoInfo * info)
{
  GstVideoFrame f;
  Img im;
  int x, y, k;

  im.w = GST_VIDEO_INFO_WIDTH (info);
  im.h = GST_VIDEO_INFO_HEIGHT (info);
  im.nc = GST_VIDEO_INFO_IS_GRAY (info) ? 1 : 3;
  im.c = g_new (int, (gsize) im.w * im.h * 3);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  for (y = 0; y < im.h; y++)
    for (x = 0; x < im.w; x++)
      for (k = 0; k < 3; k++) {
        int v = 0;
        if (k < im.nc) {
          const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f,
              k) + y * GST_VIDEO_FRAME_COMP_STRIDE (&f, k);
          v = row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, k)];
        }
        im.c[((gsize) y * im.w + x) * 3 + k] = v;
      }
  gst_video_frame_unmap (&f);
  return im;
}

static int
alpha_at (GstBuffer * buf, const GstVideoInfo * info, int x, int y)
{
  GstVideoFrame f;
  int v;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  v = ((const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 3))[y *
      GST_VIDEO_FRAME_COMP_STRIDE (&f,
          3) + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 3)];
  gst_video_frame_unmap (&f);
  return v;
}

/* ---- the reference, from the definitions ---- */

typedef struct
{
  int *c;                       /* output colour, 3 per pixel */
  double *mx, *my;              /* attractor positions (ROI coordinates) */
  guint32 *labels;              /* frame labels (segment mode) */
  guint n_segments;
} Ref;

static gboolean
in_range (const Params * p, const int *c, int nc)
{
  int k;
  for (k = 0; k < nc; k++)
    if (c[k] < p->cmin[k] || c[k] > p->cmax[k])
      return FALSE;
  return TRUE;
}

/* mean shift of the pixel (x0, y0) of the ROI image (w x h, colours im,
 * taking part: use) */
static void
ref_pixel (const Params * p, const int *im, const gboolean * use, int w,
    int h, int x0, int y0, int *out, double *ox, double *oy)
{
  const int *v0 = im + ((gsize) y0 * w + x0) * 3;
  int it;

  if (p->kernel == K_FLAT) {
    /* OpenCV pyrMeanShiftFiltering, maxLevel 0 */
    int isr2 = (int) rint (p->hc * p->hc), c0 = v0[0], c1 = v0[1], c2 = v0[2];
    int x = x0, y = y0;
    for (it = 0; it < p->iters; it++) {
      long long sx = 0, sy = 0, s0 = 0, s1 = 0, s2 = 0, n = 0;
      int xx, yy, x1, y1, n0, n1, n2;
      double ic;
      for (yy = MAX (y - p->hs, 0); yy <= MIN (y + p->hs, h - 1); yy++)
        for (xx = MAX (x - p->hs, 0); xx <= MIN (x + p->hs, w - 1); xx++) {
          const int *t = im + ((gsize) yy * w + xx) * 3;
          int d = (t[0] - c0) * (t[0] - c0) + (t[1] - c1) * (t[1] - c1) +
              (t[2] - c2) * (t[2] - c2);
          if (!use[(gsize) yy * w + xx] || d > isr2)
            continue;
          sx += xx;
          sy += yy;
          s0 += t[0];
          s1 += t[1];
          s2 += t[2];
          n++;
        }
      if (n == 0)
        break;
      ic = 1.0 / n;             /* cvRound (s * (1. / count)) */
      x1 = (int) rint (sx * ic);
      y1 = (int) rint (sy * ic);
      n0 = (int) rint (s0 * ic);
      n1 = (int) rint (s1 * ic);
      n2 = (int) rint (s2 * ic);
      {
        gboolean stop = (x1 == x && y1 == y) ||
            abs (x1 - x) + abs (y1 - y) + (n0 - c0) * (n0 - c0) +
            (n1 - c1) * (n1 - c1) + (n2 - c2) * (n2 - c2) <= p->eps;
        x = x1;
        y = y1;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        if (stop)
          break;
      }
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    *ox = x;
    *oy = y;
  } else {
    double px = x0, py = y0, c[3] = { v0[0], v0[1], v0[2] };
    int k;
    for (it = 0; it < p->iters; it++) {
      double sw = 0, sdx = 0, sdy = 0, sd[3] = { 0, 0, 0 }, m[3], mx, my, sh;
      int xx, yy;
      for (yy = MAX ((int) ceil (py - p->hs), 0);
          yy <= MIN ((int) floor (py + p->hs), h - 1); yy++)
        for (xx = MAX ((int) ceil (px - p->hs), 0);
            xx <= MIN ((int) floor (px + p->hs), w - 1); xx++) {
          const int *t = im + ((gsize) yy * w + xx) * 3;
          double dc2 = 0, g, wt;
          if (!use[(gsize) yy * w + xx])
            continue;
          for (k = 0; k < 3; k++)
            dc2 += (t[k] - c[k]) * (t[k] - c[k]);
          g = ((xx - px) * (xx - px) + (yy - py) * (yy - py)) /
              ((double) p->hs * p->hs) + dc2 / (p->hc * p->hc);
          if (g > 1)
            continue;
          wt = p->kernel == K_UNIFORM ? 1 : p->kernel == K_TRIANGULAR ?
              1 - sqrt (g) : 1 - g;
          sw += wt;
          sdx += wt * (xx - px);
          sdy += wt * (yy - py);
          for (k = 0; k < 3; k++)
            sd[k] += wt * (t[k] - c[k]);
        }
      if (sw <= 0)
        break;
      mx = sdx / sw;
      my = sdy / sw;
      px += mx;
      py += my;
      sh = mx * mx + my * my;
      for (k = 0; k < 3; k++) {
        m[k] = sd[k] / sw;
        c[k] += m[k];
        sh += m[k] * m[k];
      }
      if (sh < p->eps * p->eps)
        break;
    }
    for (k = 0; k < 3; k++)
      out[k] = CLAMP ((int) floor (c[k] + 0.5), 0, 255);
    *ox = px;
    *oy = py;
  }
}

/* the whole frame: ROI clipped as documented */
static Ref
ref_run (const Img * in, const Params * p)
{
  int W = in->w, H = in->h;
  int rx = p->roi[0], ry = p->roi[1];
  int rx1 = p->roi[2] ? MIN (rx + p->roi[2], W) : W;
  int ry1 = p->roi[3] ? MIN (ry + p->roi[3], H) : H;
  int w = MAX (rx1 - rx, 0), h = MAX (ry1 - ry, 0);
  gsize n = (gsize) w * h, i;
  int *im = g_new0 (int, n * 3 + 1), *filt = g_new0 (int, n * 3 + 1);
  gboolean *use = g_new0 (gboolean, n + 1);
  double *mx = g_new0 (double, n + 1), *my = g_new0 (double, n + 1);
  Ref r;
  int x, y, k;

  r.c = g_memdup2 (in->c, sizeof (int) * W * H * 3);
  r.labels = g_new (guint32, (gsize) W * H);
  for (i = 0; i < (gsize) W * H; i++)
    r.labels[i] = NO_LABEL;
  r.n_segments = 0;
  r.mx = mx;
  r.my = my;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      i = (gsize) y *w + x;
      memcpy (im + 3 * i, in->c + ((gsize) (ry + y) * W + rx + x) * 3,
          3 * sizeof (int));
      use[i] = in_range (p, im + 3 * i, in->nc);
    }
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      i = (gsize) y *w + x;
      if (use[i])
        ref_pixel (p, im, use, w, h, x, y, filt + 3 * i, &mx[i], &my[i]);
    }

  if (!p->segment) {
    for (i = 0; i < n; i++)
      if (use[i])
        memcpy (r.c + ((gsize) (ry + i / w) * W + rx + i % w) * 3,
            filt + 3 * i, 3 * sizeof (int));
  } else if (n > 0) {
    /* components of joined 4-neighbours by flood fill from the first
     * pixel in raster order: label = smallest index */
    gint64 *L = g_new (gint64, n), *stack = g_new (gint64, n);
    double hc2 = p->kernel == K_FLAT ? rint (p->hc * p->hc) : p->hc * p->hc;
    guint64 *cnt = g_new (guint64, n);
    double *sum = g_new (double, 3 * n);
    int round;

    for (i = 0; i < n; i++)
      L[i] = -1;
    for (i = 0; i < n; i++) {
      gsize top = 0;
      if (!use[i] || L[i] >= 0)
        continue;
      L[i] = i;
      stack[top++] = i;
      while (top) {
        gint64 a = stack[--top];
        int ax = a % w, ay = a / w, d;
        static const int dx[4] = { -1, 1, 0, 0 }, dy[4] = { 0, 0, -1, 1 };
        for (d = 0; d < 4; d++) {
          int bx = ax + dx[d], by = ay + dy[d];
          gint64 b;
          double ds, dc = 0;
          if (bx < 0 || by < 0 || bx >= w || by >= h)
            continue;
          b = (gint64) by *w + bx;
          if (!use[b] || L[b] >= 0)
            continue;
          ds = (mx[a] - mx[b]) * (mx[a] - mx[b]) +
              (my[a] - my[b]) * (my[a] - my[b]);
          for (k = 0; k < 3; k++)
            dc += (double) (filt[3 * a + k] - filt[3 * b + k]) *
                (filt[3 * a + k] - filt[3 * b + k]);
          if (ds <= (double) p->hs * p->hs && dc <= hc2) {
            L[b] = i;
            stack[top++] = b;
          }
        }
      }
    }
    /* small segments: rounds of "join the nearest-mean neighbour" */
    for (round = 0; round < 9; round++) {
      float *bestd = g_new (float, n);
      gint64 *best = g_new (gint64, n), *nl = g_new (gint64, n);
      gboolean any = FALSE, changed;

      memset (cnt, 0, n * sizeof (guint64));
      memset (sum, 0, 3 * n * sizeof (double));
      for (i = 0; i < n; i++)
        if (use[i]) {
          cnt[L[i]]++;
          for (k = 0; k < 3; k++)
            sum[3 * L[i] + k] += filt[3 * i + k];
        }
      if (round == 8 || p->min_size <= 1) {
        g_free (bestd);
        g_free (best);
        g_free (nl);
        break;
      }
      for (i = 0; i < n; i++) {
        best[i] = -1;
        nl[i] = i;
      }
      for (i = 0; i < n; i++) {
        int ax = i % w, ay = i / w, d;
        static const int dx[4] = { -1, 1, 0, 0 }, dy[4] = { 0, 0, -1, 1 };
        gint64 a = L[i];
        if (!use[i] || cnt[a] >= (guint64) p->min_size)
          continue;
        for (d = 0; d < 4; d++) {
          int bx = ax + dx[d], by = ay + dy[d];
          gint64 q, b;
          double d2 = 0;
          float f;
          if (bx < 0 || by < 0 || bx >= w || by >= h)
            continue;
          q = (gint64) by *w + bx;
          if (!use[q] || L[q] == a)
            continue;
          b = L[q];
          for (k = 0; k < 3; k++) {
            double dd = sum[3 * a + k] / cnt[a] - sum[3 * b + k] / cnt[b];
            d2 += dd * dd;
          }
          f = (float) d2;
          if (best[a] < 0 || f < bestd[a] || (f == bestd[a] && b < best[a])) {
            best[a] = b;
            bestd[a] = f;
          }
        }
      }
      /* join every pick at once: smallest label of each group */
      do {
        changed = FALSE;
        for (i = 0; i < n; i++)
          if (best[i] >= 0) {
            gint64 m = MIN (nl[i], nl[best[i]]);
            any = TRUE;
            if (nl[i] != m || nl[best[i]] != m) {
              nl[i] = nl[best[i]] = m;
              changed = TRUE;
            }
          }
      } while (changed);
      for (i = 0; i < n; i++)
        if (use[i])
          L[i] = nl[L[i]];
      g_free (bestd);
      g_free (best);
      g_free (nl);
      if (!any) {
        round = 7;              /* nothing joined: final statistics next */
      }
    }
    for (i = 0; i < n; i++) {
      gsize fi = (gsize) (ry + i / w) * W + rx + i % w;
      gint64 a = L[i];
      if (!use[i])
        continue;
      if (a == (gint64) i)
        r.n_segments++;
      for (k = 0; k < 3; k++)
        r.c[fi * 3 + k] =
            (int) (((guint64) sum[3 * a + k] + cnt[a] / 2) / cnt[a]);
      r.labels[fi] = (guint32) ((ry + a / w) * W + rx + a % w);
    }
    g_free (L);
    g_free (stack);
    g_free (cnt);
    g_free (sum);
  }
  g_free (im);
  g_free (filt);
  g_free (use);
  return r;
}

static void
ref_free (Ref * r)
{
  g_free (r->c);
  g_free (r->mx);
  g_free (r->my);
  g_free (r->labels);
}

/* ---- running the element ---- */

static void
set_int_array (GstElement * e, const gchar * name, const int *v, guint n)
{
  GValue arr = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&arr, n);
  for (i = 0; i < n; i++) {
    GValue x = G_VALUE_INIT;
    g_value_init (&x, G_TYPE_INT);
    g_value_set_int (&x, v[i]);
    gst_value_array_append_and_take_value (&arr, &x);
  }
  g_object_set_property (G_OBJECT (e), name, &arr);
  g_value_unset (&arr);
}

static void
apply_params (GstElement * e, const Params * p)
{
  gst_util_set_object_arg (G_OBJECT (e), "kernel", kernel_nick[p->kernel]);
  gst_util_set_object_arg (G_OBJECT (e), "mode",
      p->segment ? "segment" : "filter");
  g_object_set (e, "spatial-radius", (guint) p->hs, "color-radius", p->hc,
      "max-iterations", (guint) p->iters, "epsilon", p->eps,
      "min-segment-size", (guint) p->min_size, NULL);
  set_int_array (e, "roi", p->roi, 4);
  set_int_array (e, "color-min", p->cmin, 3);
  set_int_array (e, "color-max", p->cmax, 3);
}

/* one frame through the element; *segments from the element message
 * (G_MAXUINT if none was posted); *warnings: warning messages posted */
static GstBuffer *
run_one (const gchar * backend, const GstVideoInfo * info, GstBuffer * in,
    const Params * p, guint * segments, guint * warnings)
{
  GstHarness *h = cvtest_harness_new ("cudameanshift", backend);
  GstBus *bus = gst_bus_new ();
  GstBuffer *out;
  GstMessage *m;

  gst_element_set_bus (h->element, bus);
  apply_params (h->element, p);
  g_object_set (h->element, "pipeline-depth", 1, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  if (segments)
    *segments = G_MAXUINT;
  if (warnings)
    *warnings = 0;
  while ((m = gst_bus_pop (bus))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT && segments
        && gst_structure_has_name (s, "meanshift-segments")) {
      fail_unless (gst_structure_get_uint (s, "segments", segments));
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING && warnings)
      (*warnings)++;
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "error message");
    gst_message_unref (m);
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return out;
}

static void
labels_free (gpointer p)
{
  LabelsMeta *m = p;

  g_free (m->labels);
  g_free (m);
}

/* The "GstCudaMeanShiftLabelsMeta" custom meta of buf, NULL when absent.
 * What it says is kept with its labels buffer (made for each frame, freed
 * with the meta: pooled output buffers are reused, their labels are not). */
static const LabelsMeta *
labels_meta (GstBuffer * buf)
{
  static GQuark q = 0;
  GstCustomMeta *cm = gst_buffer_get_custom_meta (buf,
      "GstCudaMeanShiftLabelsMeta");
  const GstStructure *s;
  const GValue *v;
  GstBuffer *lb;
  LabelsMeta *m;

  if (!q)
    q = g_quark_from_static_string ("test-meanshift-labels");
  if (!cm)
    return NULL;
  s = gst_custom_meta_get_structure (cm);
  fail_unless (gst_structure_has_name (s, "GstCudaMeanShiftLabelsMeta"));
  v = gst_structure_get_value (s, "labels");
  fail_unless (v != NULL && G_VALUE_HOLDS (v, GST_TYPE_BUFFER));
  lb = gst_value_get_buffer (v);
  m = gst_mini_object_get_qdata (GST_MINI_OBJECT (lb), q);
  if (m)
    return m;
  m = g_new0 (LabelsMeta, 1);
  fail_unless (gst_structure_get (s, "width", G_TYPE_UINT, &m->width,
          "height", G_TYPE_UINT, &m->height, "segments", G_TYPE_UINT,
          &m->n_segments, NULL));
  fail_unless_equals_int (gst_buffer_get_size (lb),
      (gsize) m->width * m->height * 4);
  m->labels = g_malloc ((gsize) m->width * m->height * 4);
  gst_buffer_extract (lb, 0, m->labels, (gsize) m->width * m->height * 4);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (lb), q, m, labels_free);
  return m;
}

/* compare with the reference: returns pixels with any channel differing,
 * *maxd the largest difference */
static guint
compare (const Img * out, const Ref * r, int *maxd)
{
  gsize i, n = (gsize) out->w * out->h;
  guint bad = 0;
  int k;

  *maxd = 0;
  for (i = 0; i < n; i++) {
    int d = 0;
    for (k = 0; k < out->nc; k++)
      d = MAX (d, abs (out->c[3 * i + k] - r->c[3 * i + k]));
    if (d)
      bad++;
    *maxd = MAX (*maxd, d);
  }
  return bad;
}

/* Output, labels and count against the reference. flat is exact; the
 * other kernels are computed in float by the element and in double here:
 * a trajectory may end on the other side of a g <= 1 or epsilon boundary,
 * so >= 99 % equal pixels are required (segments: count within 2 % + 1). */
static void
check_reference (const GstVideoInfo * info, GstBuffer * in, const Params * p,
    const gchar * what)
{
  Img im = img_from_buffer (in, info), om;
  Ref r = ref_run (&im, p);
  guint seg, bad, warnings;
  GstBuffer *out = run_one (NULL, info, in, p, &seg, &warnings);
  int maxd;
  gsize n = (gsize) im.w * im.h;
  gboolean exact = p->kernel == K_FLAT;

  om = img_from_buffer (out, info);
  bad = compare (&om, &r, &maxd);
  GST_INFO ("%s: %u of %u pixels differ from the reference (max %d)", what,
      bad, (guint) n, maxd);
  if (exact)
    fail_unless (bad == 0, "%s: %u pixels differ (max %d)", what, bad, maxd);
  else
    fail_unless (bad <= n / 100, "%s: %u of %u pixels differ (max %d)", what,
        bad, (guint) n, maxd);
  if (!p->segment) {
    fail_unless (labels_meta (out) == NULL);
    fail_unless_equals_int (seg, G_MAXUINT);
  } else {
    const LabelsMeta *m = labels_meta (out);
    gsize i, lbad = 0;
    fail_unless (m != NULL, "%s: no labels meta", what);
    fail_unless_equals_int (m->width, im.w);
    fail_unless_equals_int (m->height, im.h);
    fail_unless_equals_int (m->n_segments, seg);
    for (i = 0; i < n; i++)
      lbad += m->labels[i] != r.labels[i];
    if (exact) {
      fail_unless_equals_int (seg, r.n_segments);
      fail_unless (lbad == 0, "%s: %u labels differ", what, (guint) lbad);
    } else {
      fail_unless (abs ((int) seg - (int) r.n_segments) <=
          (int) r.n_segments / 50 + 1, "%s: %u segments, reference %u",
          what, seg, r.n_segments);
    }
  }
  if (GST_VIDEO_INFO_HAS_ALPHA (info)) {
    int x, y;
    for (y = 0; y < im.h; y++)
      for (x = 0; x < im.w; x++)
        fail_unless_equals_int (alpha_at (out, info, x, y),
            alpha_at (in, info, x, y));
  }
  g_free (im.c);
  g_free (om.c);
  ref_free (&r);
  gst_buffer_unref (out);
}

/* a random frame of smooth blobs plus noise (pure noise makes every
 * pixel its own mode) */
static GstBuffer *
blob_frame (const GstVideoInfo * info, GRand * rand, int noise)
{
  GstBuffer *buf = cvtest_random_frame (info, 0, rand);
  GstVideoFrame f;
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  int x, y, k, nc = GST_VIDEO_INFO_IS_GRAY (info) ? 1 : 3;
  int cx = g_rand_int_range (rand, 0, w), cy = g_rand_int_range (rand, 0, h);
  int base[3], fg[3];

  for (k = 0; k < 3; k++) {
    base[k] = g_rand_int_range (rand, 0, 256);
    fg[k] = g_rand_int_range (rand, 0, 256);
  }
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      gboolean in = (x - cx) * (x - cx) + (y - cy) * (y - cy) < w * h / 6;
      for (k = 0; k < nc; k++) {
        guint8 *row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, k) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&f, k);
        int v = (in ? fg[k] : base[k]) + x * 2 - y +
            g_rand_int_range (rand, -noise, noise + 1);
        row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, k)] = CLAMP (v, 0, 255);
      }
    }
  gst_video_frame_unmap (&f);
  return buf;
}

static const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  GST_VIDEO_FORMAT_GRAY8,
};

/* ---- tests ---- */

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudameanshift", NULL);
  GParamSpec *ps;
  guint hs, it, ms;
  gdouble hc, eps;
  gint kernel, mode;
  GValue v = G_VALUE_INIT;
  int roi_bad[3] = { 1, 2, 3 }, roi_neg[4] = { -1, 0, 10, 10 },
      roi_ok[4] = { 1, 2, 3, 4 }, cmin_bad[3] = { 0, 300, 0 };

  fail_unless (e != NULL);
  g_object_get (e, "spatial-radius", &hs, "color-radius", &hc, "kernel",
      &kernel, "max-iterations", &it, "epsilon", &eps, "mode", &mode,
      "min-segment-size", &ms, NULL);
  fail_unless_equals_int (hs, 8);
  fail_unless_equals_float (hc, 16.0);
  fail_unless_equals_int (kernel, K_UNIFORM);
  fail_unless_equals_int (it, 5);
  fail_unless_equals_float (eps, 1.0);
  fail_unless_equals_int (mode, 0);
  fail_unless_equals_int (ms, 20);

  /* radius 0 is refused by the ranges */
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "spatial-radius");
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 1);
  fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "color-radius");
  fail_unless (G_PARAM_SPEC_DOUBLE (ps)->minimum >= 1.0);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "max-iterations");
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 1);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 100);

  gst_util_set_object_arg (G_OBJECT (e), "kernel", "epanechnikov");
  g_object_get (e, "kernel", &kernel, NULL);
  fail_unless_equals_int (kernel, K_EPANECHNIKOV);
  gst_util_set_object_arg (G_OBJECT (e), "kernel", "flat");
  gst_util_set_object_arg (G_OBJECT (e), "mode", "segment");
  g_object_get (e, "kernel", &kernel, "mode", &mode, NULL);
  fail_unless_equals_int (kernel, K_FLAT);
  fail_unless_equals_int (mode, 1);

  /* the ROI from a gst-launch string */
  gst_util_set_object_arg (G_OBJECT (e), "roi", "<10, 20, 30, 40>");
  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "roi", &v);
  fail_unless_equals_int (gst_value_array_get_size (&v), 4);
  fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v, 1)),
      20);
  fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v, 3)),
      40);
  g_value_unset (&v);
  /* wrong count and negative values: ignored, old value kept */
  set_int_array (e, "roi", roi_ok, 4);
  set_int_array (e, "roi", roi_bad, 3);
  set_int_array (e, "roi", roi_neg, 4);
  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "roi", &v);
  fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v, 0)),
      1);
  fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v, 3)),
      4);
  g_value_unset (&v);
  /* colour bounds: one value sets all channels; > 255 refused */
  gst_util_set_object_arg (G_OBJECT (e), "color-max", "<200>");
  set_int_array (e, "color-min", cmin_bad, 3);
  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "color-max", &v);
  fail_unless_equals_int (gst_value_array_get_size (&v), 3);
  fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v, 2)),
      200);
  g_value_unset (&v);
  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "color-min", &v);
  fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (&v, 1)),
      0);
  g_value_unset (&v);
  gst_object_unref (e);
}

GST_END_TEST;

/* every kernel, both modes, small random frames of every format */
GST_START_TEST (test_reference_random)
{
  static const int sizes[][2] = { {1, 1}, {2, 3}, {17, 9}, {32, 24} };
  guint f, s, k, seg;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (k = 0; k < 4; k++)
        for (seg = 0; seg < 2; seg++) {
          GstVideoInfo info;
          GRand *rand;
          GstBuffer *in;
          Params p = params_default (k, seg);
          gchar *what;

          /* the full sweep on RGBx and GRAY8, one kernel per other format */
          if (formats[f] != GST_VIDEO_FORMAT_RGBx
              && formats[f] != GST_VIDEO_FORMAT_GRAY8 && k != f % 4)
            continue;
          rand = g_rand_new_with_seed (f * 1000 + s * 10 + k);
          gst_video_info_set_format (&info, formats[f], sizes[s][0],
              sizes[s][1]);
          in = (s % 2) ? cvtest_random_frame (&info, 7, rand) :
              blob_frame (&info, rand, 6);
          p.hs = 3 + s;
          p.hc = 12.0 + 10 * s;
          p.min_size = 6;
          what = g_strdup_printf ("%s %dx%d %s %s",
              gst_video_format_to_string (formats[f]), sizes[s][0],
              sizes[s][1], kernel_nick[k], seg ? "segment" : "filter");
          check_reference (&info, in, &p, what);
          g_free (what);
          gst_buffer_unref (in);
          g_rand_free (rand);
        }
}

GST_END_TEST;

/* 32x24 crops of real images, default parameters, each kernel and mode */
GST_START_TEST (test_reference_real_crops)
{
  static const gchar *names[] = { "fruits.jpg", "baboon.jpg", "building.jpg" };
  guint i, k, seg, found = 0;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *path = g_build_filename (cvtest_media_dir (), names[i], NULL);
    GstVideoInfo info, ci;
    GstBuffer *full = cvtest_load_image (path, GST_VIDEO_FORMAT_RGB, &info);
    GstVideoFrame ff, cf;
    GstBuffer *crop;
    int y;

    g_free (path);
    if (!full)
      continue;
    found++;
    gst_video_info_set_format (&ci, GST_VIDEO_FORMAT_RGB, 32, 24);
    crop = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&ci), NULL);
    fail_unless (gst_video_frame_map (&ff, &info, full, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&cf, &ci, crop, GST_MAP_WRITE));
    for (y = 0; y < 24; y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&cf, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&cf, 0),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&ff, 0) +
          (GST_VIDEO_INFO_HEIGHT (&info) / 2 + y) *
          GST_VIDEO_FRAME_PLANE_STRIDE (&ff, 0) +
          GST_VIDEO_INFO_WIDTH (&info) / 2 * 3, 32 * 3);
    gst_video_frame_unmap (&cf);
    gst_video_frame_unmap (&ff);
    for (k = 0; k < 4; k++)
      for (seg = 0; seg < 2; seg++) {
        Params p = params_default (k, seg);
        gchar *what = g_strdup_printf ("%s crop %s %s", names[i],
            kernel_nick[k], seg ? "segment" : "filter");
        check_reference (&ci, crop, &p, what);
        g_free (what);
      }
    gst_buffer_unref (crop);
    gst_buffer_unref (full);
  }
  fail_unless (found > 0, "no sample image in %s", cvtest_media_dir ());
}

GST_END_TEST;

/* flat disks on a background are segmented into exactly the disks and the
 * background, each painted with its own colour */
GST_START_TEST (test_disks)
{
  static const int disks[][6] = {
    /* cx, cy, radius, R, G, B */
    {20, 20, 12, 220, 30, 30}, {60, 22, 14, 30, 200, 40},
    {100, 40, 16, 40, 40, 210}, {40, 60, 10, 230, 220, 40},
  };
  static const int bg[3] = { 120, 120, 120 };
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame f;
  guint k, seg;
  int x, y, d, c;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBx, 128, 80);
  in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
  for (y = 0; y < 80; y++)
    for (x = 0; x < 128; x++) {
      guint8 *px = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x * 4;
      const int *col = bg;
      for (d = 0; d < 4; d++)
        if ((x - disks[d][0]) * (x - disks[d][0]) + (y - disks[d][1]) *
            (y - disks[d][1]) <= disks[d][2] * disks[d][2])
          col = &disks[d][3];
      for (c = 0; c < 3; c++)
        px[c] = col[c];
      px[3] = 0;
    }
  gst_video_frame_unmap (&f);

  for (k = 0; k < 4; k++) {
    Params p = params_default (k, TRUE);
    const LabelsMeta *m;
    Img om;

    out = run_one (NULL, &info, in, &p, &seg, NULL);
    fail_unless_equals_int (seg, 5);
    m = labels_meta (out);
    fail_unless (m != NULL);
    fail_unless_equals_int (m->n_segments, 5);
    om = img_from_buffer (out, &info);
    for (y = 0; y < 80; y++)
      for (x = 0; x < 128; x++) {
        const int *col = bg;
        guint32 want = 0;       /* the background starts at (0, 0) */
        for (d = 0; d < 4; d++)
          if ((x - disks[d][0]) * (x - disks[d][0]) + (y - disks[d][1]) *
              (y - disks[d][1]) <= disks[d][2] * disks[d][2]) {
            col = &disks[d][3];
            /* the first pixel of the disk in raster order */
            want = (disks[d][1] - disks[d][2]) * 128 + disks[d][0];
          }
        fail_unless_equals_int (m->labels[y * 128 + x], want);
        for (c = 0; c < 3; c++)
          fail_unless_equals_int (om.c[(y * 128 + x) * 3 + c], col[c]);
      }
    g_free (om.c);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
}

GST_END_TEST;

/* ROI inside, partly outside (clipped, one warning), fully outside
 * (pass-through, one warning); colour ranges */
GST_START_TEST (test_roi_and_color_range)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (77);
  GstBuffer *in, *out;
  guint seg, warnings, k;
  GstMapInfo a, b;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_BGRx, 40, 30);
  in = blob_frame (&info, rand, 5);
  for (k = 0; k < 2; k++) {
    Params p = params_default (k ? K_FLAT : K_UNIFORM, k);
    p.roi[0] = 5;
    p.roi[1] = 4;
    p.roi[2] = 20;
    p.roi[3] = 15;
    check_reference (&info, in, &p, "roi inside");
    out = run_one (NULL, &info, in, &p, NULL, &warnings);
    fail_unless_equals_int (warnings, 0);
    gst_buffer_unref (out);

    /* partly outside: clipped to the frame, a warning */
    p.roi[0] = 25;
    p.roi[2] = 100;
    check_reference (&info, in, &p, "roi clipped");
    out = run_one (NULL, &info, in, &p, &seg, &warnings);
    fail_unless_equals_int (warnings, 1);
    gst_buffer_unref (out);

    /* outside: output = input, no segment, a warning */
    p.roi[0] = 50;
    out = run_one (NULL, &info, in, &p, &seg, &warnings);
    fail_unless_equals_int (warnings, 1);
    if (p.segment) {
      fail_unless_equals_int (seg, 0);
      fail_unless (labels_meta (out)->labels[0] == NO_LABEL);
    }
    gst_buffer_map (in, &a, GST_MAP_READ);
    gst_buffer_map (out, &b, GST_MAP_READ);
    fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
    gst_buffer_unref (out);

    /* colour ranges: pixels outside are left out */
    p = params_default (k ? K_FLAT : K_EPANECHNIKOV, k);
    p.cmin[0] = 40;
    p.cmax[1] = 180;
    p.cmax[2] = 200;
    check_reference (&info, in, &p, "colour range");
  }
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

/* huge radii, 1x1 frames, many iterations, epsilon 0: results, no crash */
GST_START_TEST (test_bad_input)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (5);
  GstBuffer *in;
  guint k, seg;

  for (k = 0; k < 4; k++)
    for (seg = 0; seg < 2; seg++) {
      Params p = params_default (k, seg);
      p.hs = 255;
      p.hc = 1000.0;
      gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, 21, 13);
      in = cvtest_random_frame (&info, 0, rand);
      check_reference (&info, in, &p, "huge radii");
      gst_buffer_unref (in);

      p = params_default (k, seg);
      p.iters = 100;
      p.eps = 0.0;
      p.hc = 1.0;
      p.hs = 1;
      gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1, 1);
      in = cvtest_random_frame (&info, 0, rand);
      check_reference (&info, in, &p, "1x1");
      gst_buffer_unref (in);
    }
  g_rand_free (rand);
}

GST_END_TEST;

/* the meta is copied with the buffer; every label is the first pixel of
 * its segment and the label set matches the count */
GST_START_TEST (test_labels_meta)
{
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (11);
  GstBuffer *in, *out, *copy;
  Params p = params_default (K_UNIFORM, TRUE);
  const LabelsMeta *m, *mc;
  guint seg, i, roots = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 48, 32);
  in = blob_frame (&info, rand, 10);
  out = run_one (NULL, &info, in, &p, &seg, NULL);
  m = labels_meta (out);
  fail_unless (m != NULL);
  for (i = 0; i < 48 * 32; i++) {
    fail_unless (m->labels[i] <= i, "label after its pixel");
    fail_unless_equals_int (m->labels[m->labels[i]], m->labels[i]);
    roots += m->labels[i] == i;
  }
  fail_unless_equals_int (roots, seg);
  copy = gst_buffer_copy (out);
  mc = labels_meta (copy);
  fail_unless (mc != NULL);
  fail_unless (gst_buffer_get_custom_meta (copy, "GstCudaMeanShiftLabelsMeta")
      != gst_buffer_get_custom_meta (out, "GstCudaMeanShiftLabelsMeta"));
  fail_unless_equals_int (mc->n_segments, m->n_segments);
  fail_unless (memcmp (mc->labels, m->labels, 48 * 32 * 4) == 0);
  gst_buffer_unref (copy);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_rand_free (rand);
}

GST_END_TEST;

/* GPU vs CPU: filter within 1 LSB on >= 99.9 % of the pixels, segment
 * count within 1 %, on random, real and 1080p frames */
static void
gpu_vs_cpu (const GstVideoInfo * info, GstBuffer * in, const Params * p,
    const gchar * what)
{
  guint sg, sc;
  GstBuffer *g = run_one ("cuda", info, in, p, &sg, NULL);
  GstBuffer *c = run_one ("cpu", info, in, p, &sc, NULL);
  Img gi = img_from_buffer (g, info), ci = img_from_buffer (c, info);
  gsize i, n = (gsize) gi.w * gi.h, off = 0, equal = 0;
  int k;

  for (i = 0; i < n; i++) {
    int d = 0;
    for (k = 0; k < gi.nc; k++)
      d = MAX (d, abs (gi.c[3 * i + k] - ci.c[3 * i + k]));
    off += d > 1;
    equal += d == 0;
  }
  GST_INFO ("%s: %.4f %% equal, %u off by > 1, segments gpu %u cpu %u",
      what, 100.0 * equal / n, (guint) off, sg, sc);
  if (!p->segment) {
    fail_unless (off * 1000 <= n, "%s: %u of %u pixels differ by > 1", what,
        (guint) off, (guint) n);
  } else {
    fail_unless (abs ((int) sg - (int) sc) * 100 <= (int) sc,
        "%s: %u segments on the GPU, %u on the CPU", what, sg, sc);
    fail_unless_equals_int (labels_meta (g)->n_segments, sg);
  }
  g_free (gi.c);
  g_free (ci.c);
  gst_buffer_unref (g);
  gst_buffer_unref (c);
}

GST_START_TEST (test_gpu_equals_cpu)
{
  static const int sizes[][2] = { {1, 1}, {33, 17}, {640, 480} };
  guint f, s, k, seg;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (k = 0; k < 4; k++)
        for (seg = 0; seg < 2; seg++) {
          GstVideoInfo info;
          GRand *rand = g_rand_new_with_seed (f * 100 + s * 10 + k);
          GstBuffer *in;
          Params p = params_default (k, seg);
          gchar *what;

          if (s == 2 && k != f % 4)
            continue;
          gst_video_info_set_format (&info, formats[f], sizes[s][0],
              sizes[s][1]);
          in = blob_frame (&info, rand, 8);
          what = g_strdup_printf ("%s %dx%d %s %s",
              gst_video_format_to_string (formats[f]), sizes[s][0],
              sizes[s][1], kernel_nick[k], seg ? "segment" : "filter");
          gpu_vs_cpu (&info, in, &p, what);
          /* a ROI and colour range too */
          p.roi[0] = sizes[s][0] / 4;
          p.roi[1] = sizes[s][1] / 3;
          p.cmin[1] = 30;
          gpu_vs_cpu (&info, in, &p, what);
          g_free (what);
          gst_buffer_unref (in);
          g_rand_free (rand);
        }
}

GST_END_TEST;

GST_START_TEST (test_gpu_equals_cpu_real)
{
  static const gchar *names[] = { "fruits.jpg", "baboon.jpg", "building.jpg" };
  guint i, k, seg, found = 0;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *path = g_build_filename (cvtest_media_dir (), names[i], NULL);
    GstVideoInfo info;
    GstBuffer *in = cvtest_load_image (path, GST_VIDEO_FORMAT_RGB, &info);

    g_free (path);
    if (!in)
      continue;
    found++;
    for (k = 0; k < 4; k++)
      for (seg = 0; seg < 2; seg++) {
        Params p = params_default (k, seg);
        gchar *what = g_strdup_printf ("%s %s %s", names[i], kernel_nick[k],
            seg ? "segment" : "filter");
        gpu_vs_cpu (&info, in, &p, what);
        g_free (what);
      }
    gst_buffer_unref (in);
  }
  fail_unless (found > 0);
}

GST_END_TEST;

/* the sample video in segment mode: one message per frame, same count as
 * the meta, timestamps kept */
GST_START_TEST (test_real_video)
{
  gchar *path = g_build_filename (cvtest_media_dir (), "vtest.avi", NULL);
  gchar *desc;
  GstElement *pipe, *sink;
  GstBus *bus;
  guint frames = 0;
  GstClockTime last = GST_CLOCK_TIME_NONE;

  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_free (path);
    fail ("vtest.avi not found in %s", cvtest_media_dir ());
    return;
  }
  desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! videoscale ! video/x-raw,format=RGB,width=192,height=144"
      " ! cudameanshift name=ms backend=%s mode=segment kernel=flat "
      "spatial-radius=4 ! appsink name=sink sync=false", path,
      cvtest_backend ());
  pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  g_free (path);
  fail_unless (pipe != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (frames < 5) {
    GstSample *sample = NULL;
    GstBuffer *b;
    const LabelsMeta *m;
    GstMessage *msg;
    guint seg = G_MAXUINT;
    guint64 ts = 0;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    fail_unless (sample != NULL);
    b = gst_sample_get_buffer (sample);
    m = labels_meta (b);
    fail_unless (m != NULL);
    fail_unless_equals_int (m->width, 192);
    fail_unless (m->n_segments > 1);
    /* the message of this frame */
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
      const GstStructure *s = gst_message_get_structure (msg);
      if (gst_structure_has_name (s, "meanshift-segments")) {
        gst_structure_get_uint (s, "segments", &seg);
        gst_structure_get_uint64 (s, "timestamp", &ts);
        if (ts == GST_BUFFER_PTS (b)) {
          gst_message_unref (msg);
          break;
        }
      }
      gst_message_unref (msg);
    }
    fail_unless_equals_int (seg, m->n_segments);
    fail_unless_equals_uint64 (ts, GST_BUFFER_PTS (b));
    if (GST_CLOCK_TIME_IS_VALID (last))
      fail_unless (GST_BUFFER_PTS (b) > last);
    last = GST_BUFFER_PTS (b);
    gst_sample_unref (sample);
    frames++;
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
meanshift_suite (void)
{
  Suite *s = suite_create ("cudameanshift");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_reference_random);
  tcase_add_test (tc, test_reference_real_crops);
  tcase_add_test (tc, test_disks);
  tcase_add_test (tc, test_roi_and_color_range);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_labels_meta);
  if (cvtest_backend_is_cuda ()) {
    tcase_add_test (tc, test_gpu_equals_cpu);
    tcase_add_test (tc, test_gpu_equals_cpu_real);
  }
  tcase_add_test (tc, test_real_video);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cvtest_run_suite (meanshift_suite ());
}
