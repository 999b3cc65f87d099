/* gst-cuda-vision: cudatemplatematch's scales and masks (see
 * gstcvtmscales.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcvtmscales.h"
#include "gstcudatemplatematch.h"

void
gst_cv_tm_scales_init (GstCvTmScales * s)
{
  memset (s, 0, sizeof (*s));
  s->n = 1;
  s->v[0] = 1.0;
}

static gboolean
number_of (const GValue * v, gdouble * d)
{
  if (G_VALUE_HOLDS_DOUBLE (v))
    *d = g_value_get_double (v);
  else if (G_VALUE_HOLDS_FLOAT (v))
    *d = g_value_get_float (v);
  else if (G_VALUE_HOLDS_INT (v))
    *d = g_value_get_int (v);
  else if (G_VALUE_HOLDS_UINT (v))
    *d = g_value_get_uint (v);
  else
    return FALSE;
  return TRUE;
}

gchar *
gst_cv_tm_scales_set (GstCvTmScales * s, const GValue * value)
{
  GstCvTmScales t;
  guint i, n;

  if (!value || !GST_VALUE_HOLDS_ARRAY (value))
    return g_strdup ("scales must be an array of numbers, e.g. "
        "<0.5, 1.0, 2.0>; keeping the previous scales");
  n = gst_value_array_get_size (value);
  if (n == 0 || n > GST_CV_TM_MAX_SCALES)
    return g_strdup_printf ("scales must hold 1 to %d values, got %u; "
        "keeping the previous scales", GST_CV_TM_MAX_SCALES, n);
  memset (&t, 0, sizeof (t));
  t.n = n;
  for (i = 0; i < n; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    gdouble d;

    if (!number_of (v, &d))
      return g_strdup_printf ("scales value %u is not a number (%s); "
          "keeping the previous scales", i, G_VALUE_TYPE_NAME (v));
    if (!(d > 0.0) || !isfinite (d) || d > GST_CV_TM_MAX_SCALE)
      return g_strdup_printf ("scales value %u must be > 0 and <= %g, got "
          "%g; keeping the previous scales", i, GST_CV_TM_MAX_SCALE, d);
    t.v[i] = d;
  }
  *s = t;
  return NULL;
}

void
gst_cv_tm_scales_get (const GstCvTmScales * s, GValue * value)
{
  guint i;

  for (i = 0; i < s->n; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, s->v[i]);
    gst_value_array_append_and_take_value (value, &v);
  }
}

void
gst_cv_tm_scaled_size (gint tw, gint th, gdouble f, gint * w, gint * h)
{
  /* rint: half to even in the default rounding mode, as cvRound */
  *w = MAX (1, (gint) rint (tw * f));
  *h = MAX (1, (gint) rint (th * f));
}

void
gst_cv_tm_resize_nearest (const guint8 * src, gint sw, gint sh, gint ss,
    guint8 * dst, gint dw, gint dh)
{
  /* OpenCV's resizeNN: ifx = 1 / fx with fx = dw / sw */
  const double ifx = 1. / ((double) dw / sw), ify = 1. / ((double) dh / sh);
  gint x, y;

  for (y = 0; y < dh; y++) {
    gint sy = MIN ((gint) floor (y * ify), sh - 1);
    const guint8 *srow = src + (gsize) sy * ss;
    for (x = 0; x < dw; x++)
      dst[(gsize) y * dw + x] = srow[MIN ((gint) floor (x * ifx), sw - 1)];
  }
}

GstCvTmSet *
gst_cv_tm_set_ref (GstCvTmSet * set)
{
  return set ? g_atomic_rc_box_acquire (set) : NULL;
}

static void
set_clear (gpointer p)
{
  GstCvTmSet *set = p;
  guint i;

  for (i = 0; i < set->n; i++) {
    g_free (set->pix[i]);
    g_free (set->mask[i]);
  }
  gst_cv_template_unref (set->base);
}

void
gst_cv_tm_set_unref (GstCvTmSet * set)
{
  if (set)
    g_atomic_rc_box_release_full (set, set_clear);
}

gboolean
gst_cv_tm_set_is (const GstCvTmSet * set, GstCvTemplate * base,
    const GstCvTmScales * scales, gboolean use_alpha)
{
  return set && set->base == base && set->use_alpha == use_alpha
      && set->scales.n == scales->n
      && !memcmp (set->scales.v, scales->v, scales->n * sizeof (gdouble));
}

GstCvTmSet *
gst_cv_tm_set_new (GstCvTemplate * base, const GstCvTmScales * scales,
    gboolean use_alpha, gchar ** error)
{
  GstCvTmSet *set = g_atomic_rc_box_new0 (GstCvTmSet);
  const CvPlane *bp = &base->cv.plane;
  guint i;

  set->base = gst_cv_template_ref (base);
  set->scales = *scales;
  set->use_alpha = use_alpha;
  set->masked = use_alpha && base->alpha != NULL;
  set->n = scales->n;
  for (i = 0; i < set->n; i++) {
    CvTemplate *t = &set->cv[i];
    gint w, h;

    gst_cv_tm_scaled_size (bp->width, bp->height, scales->v[i], &w, &h);
    if (!set->masked && w == bp->width && h == bp->height) {
      /* the template itself: its pixels, statistics and id */
      *t = base->cv;
      continue;
    }
    memset (t, 0, sizeof (*t));
    set->pix[i] = g_malloc ((gsize) w * h);
    gst_cv_tm_resize_nearest (bp->data, bp->width, bp->height, bp->stride,
        set->pix[i], w, h);
    t->plane.data = set->pix[i];
    t->plane.width = w;
    t->plane.height = h;
    t->plane.stride = w;
    if (set->masked) {
      set->mask[i] = g_malloc ((gsize) w * h);
      gst_cv_tm_resize_nearest (base->alpha, bp->width, bp->height,
          bp->width, set->mask[i], w, h);
      t->mask.data = set->mask[i];
      t->mask.width = w;
      t->mask.height = h;
      t->mask.stride = w;
    }
    if (cv_template_stats (t) != CV_OK) {
      *error = g_strdup_printf ("the template's alpha is 0 everywhere%s",
          scales->n > 1 ? " at one of the scales" : "");
      gst_cv_tm_set_unref (set);
      return NULL;
    }
    t->id = gst_cv_template_next_id ();
  }
  return set;
}

guint
gst_cv_tm_set_fitting (const GstCvTmSet * set, gint w, gint h,
    CvTemplate * out, GstCvMatchScales * sc)
{
  guint i, n = 0;

  memset (sc, 0, sizeof (*sc));
  sc->masked = set->masked;
  for (i = 0; i < set->n; i++) {
    if (set->cv[i].plane.width > w || set->cv[i].plane.height > h)
      continue;
    out[n] = set->cv[i];
    sc->scale[n] = set->scales.v[i];
    n++;
  }
  return n;
}

/* ------------------------------------------------------------------------ */
/* The method property */

GType
gst_cuda_template_match_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {METHOD_SQDIFF, "Sum of squared differences (SSD), lower is better",
        "sqdiff"},
    {METHOD_SQDIFF_NORMED, "Normalized sum of squared differences, lower is "
          "better", "sqdiff-normed"},
    {METHOD_CCORR, "Cross-correlation (unnormalized), higher is better",
        "ccorr"},
    {METHOD_CCORR_NORMED, "Normalized cross-correlation, higher is better",
        "ccorr-normed"},
    {METHOD_CCOEFF, "Zero-mean cross-correlation (unnormalized), higher is "
          "better", "ccoeff"},
    {METHOD_CCOEFF_NORMED, "Pearson correlation coefficient (zero-mean "
          "normalized cross-correlation), higher is better", "ccoeff-normed"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaTemplateMatchMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* the C interface's method of a property value */
int
gst_cv_tm_method_to_cv (gint method)
{
  switch (method) {
    case METHOD_SQDIFF:
      return CV_TM_SQDIFF;
    case METHOD_SQDIFF_NORMED:
      return CV_TM_SQDIFF_NORMED;
    case METHOD_CCORR:
      return CV_TM_CCORR;
    case METHOD_CCORR_NORMED:
      return CV_TM_CCORR_NORMED;
    case METHOD_CCOEFF:
      return CV_TM_CCOEFF;
    default:
      return CV_TM_CCOEFF_NORMED;
  }
}

const gchar *
gst_cv_tm_method_nick (gint method)
{
  GEnumValue *v = g_enum_get_value (g_type_class_peek
      (GST_TYPE_CUDA_TEMPLATE_MATCH_METHOD), method);

  return v ? v->value_nick : "unknown";
}


/* ------------------------------------------------------------------------ */
/* The scales and use-alpha properties */

void
gst_cv_tm_install_properties (GObjectClass * klass, guint prop_scales,
    guint prop_use_alpha, GParamFlags flags)
{
  /**
   * GstCudaTemplateMatch:scales:
   * Template scale factors searched together in every frame, a
   * GstValueArray of numbers (gst-launch: scales="<0.5, 0.75, 1.0, 1.5,
   * 2.0>"), 1 to 16 values, each > 0 and <= 16; default <1.0>. The
   * template (and its alpha) is resampled once per scale when the template
   * or this property changes: round (w f) x round (h f) pixels (at least
   * 1x1), nearest neighbour, pixel for pixel cv2.resize (t, (round (w f),
   * round (h f)), interpolation=cv2.INTER_NEAREST). One search over all
   * scales: the normed methods compare scores as they are; sqdiff, ccorr
   * and ccoeff (whose scores grow with the template's area) compare the
   * score per template pixel, score / N; non-maximum suppression across
   * scales (rectangles of each match's own size). Each match reports its
   * scale ("scale" in the message and the ROI metas) and has its scaled
   * size (width, height, the drawn rectangle). Scales whose template does
   * not fit the frame are skipped with an element warning (an error when
   * none fits). Other values are refused with a warning on the bus and the
   * previous scales kept (the element's own check, so the value type's
   * range is not narrowed). With several scales, score-map shows the first
   * fitting scale's scores. Takes effect at the next frame.
   */
  g_object_class_install_property (klass, prop_scales,
      gst_param_spec_array ("scales", "Scales",
          "Template scale factors searched together (e.g. <0.5, 1.0, 2.0>)",
          g_param_spec_double ("scale", "Scale", "A template scale factor",
              -G_MAXDOUBLE, G_MAXDOUBLE, 1.0,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS), flags));
  /**
   * GstCudaTemplateMatch:use-alpha:
   * Match a template that has an alpha channel (a PNG with transparency,
   * a template-sample of a format with alpha) with its alpha as OpenCV's
   * matchTemplate mask: pixels of alpha 0 do not count, every other pixel
   * counts fully (OpenCV treats an 8-bit mask as binary, mask > 0), so
   * the scores equal cv2.matchTemplate (image, templ, method, mask=alpha)
   * for all six methods (see docs/cudatemplatematch.md). A template whose
   * alpha is 255 everywhere is matched unmasked (the same scores); one
   * whose alpha is 0 everywhere makes frames fail with an element error.
   * FALSE ignores the alpha. Messages and ROI metas say "masked". Takes
   * effect at the next frame. Default TRUE.
   */
  g_object_class_install_property (klass, prop_use_alpha,
      g_param_spec_boolean ("use-alpha", "Use alpha",
          "Mask the template by its alpha channel (OpenCV's matchTemplate "
          "mask: alpha 0 is ignored)", TRUE, flags | GST_PARAM_CONTROLLABLE));
}
