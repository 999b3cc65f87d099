/* gst-cuda-vision: cudatemplatematch's scales and masks: the `scales`
 * property and the templates matched for one template (resampled once per
 * scale, masked by the template's alpha).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_TM_SCALES_H__
#define __GST_CV_TM_SCALES_H__

#include <gst/gst.h>

#include "gstcvtemplate.h"
#include "gstcvmatchresults.h"

G_BEGIN_DECLS

/* The method property's values are OpenCV's cv::TemplateMatchModes (and
 * the opencv plugin's templatematch method numbers): 0 sqdiff,
 * 1 sqdiff-normed, 2 ccorr, 3 ccorr-normed, 4 ccoeff, 5 ccoeff-normed. */
enum
{
  METHOD_SQDIFF = 0,
  METHOD_SQDIFF_NORMED = 1,
  METHOD_CCORR = 2,
  METHOD_CCORR_NORMED = 3,
  METHOD_CCOEFF = 4,
  METHOD_CCOEFF_NORMED = 5,
};

/* The C interface's method of a method property value, and its nick. */
int gst_cv_tm_method_to_cv (gint method);
const gchar *gst_cv_tm_method_nick (gint method);

/* Install the scales and use-alpha properties (documented there). */
void gst_cv_tm_install_properties (GObjectClass * klass, guint prop_scales,
    guint prop_use_alpha, GParamFlags flags);


/* Most scale factors, and the largest factor. */
#define GST_CV_TM_MAX_SCALES CV_TEMPLATE_MATCH_MAX_SCALES
#define GST_CV_TM_MAX_SCALE 16.0

/* The scales property's value: n factors (1 .. GST_CV_TM_MAX_SCALES). */
typedef struct
{
  guint n;
  gdouble v[GST_CV_TM_MAX_SCALES];
} GstCvTmScales;

/* The default, <1.0>. */
void gst_cv_tm_scales_init (GstCvTmScales * s);

/* Set s from a GstValueArray of numbers (gdouble, gfloat, gint, guint):
 * NULL when taken, else the refusal text (s unchanged): not an array of
 * numbers, empty, more than GST_CV_TM_MAX_SCALES values, a value not
 * > 0, not finite or above GST_CV_TM_MAX_SCALE. */
gchar *gst_cv_tm_scales_set (GstCvTmScales * s, const GValue * value);

/* The GstValueArray of gdouble of s into value (initialised to
 * GST_TYPE_ARRAY). */
void gst_cv_tm_scales_get (const GstCvTmScales * s, GValue * value);

/* The size of a template of tw x th pixels at scale f:
 * round (tw f) x round (th f) (half to even, as OpenCV's cvRound), at
 * least 1 x 1. */
void gst_cv_tm_scaled_size (gint tw, gint th, gdouble f, gint * w, gint * h);

/* Nearest-neighbour resampling of a GRAY8 image (sw x sh, stride ss) to
 * dw x dh (tight): cv2.resize (src, (dw, dh),
 * interpolation=cv2.INTER_NEAREST), pixel for pixel: source column
 * min (floor (x * (1 / (dw / sw))), sw - 1), likewise for rows. */
void gst_cv_tm_resize_nearest (const guint8 * src, gint sw, gint sh,
    gint ss, guint8 * dst, gint dw, gint dh);

/* The templates matched for one template: one per scale (in the scales'
 * order), each masked by the template's resampled alpha when use_alpha
 * and the template has an alpha (GstCvTemplate.alpha). A scale of 1.0
 * without a mask is the template itself (same pixels and id). Immutable,
 * shared by reference with the frames in flight. */
typedef struct
{
  GstCvTemplate *base;          /* reference */
  GstCvTmScales scales;
  gboolean use_alpha;
  gboolean masked;              /* the templates have masks */
  guint n;
  CvTemplate cv[GST_CV_TM_MAX_SCALES];
  guint8 *pix[GST_CV_TM_MAX_SCALES];    /* owned pixels (NULL: base's) */
  guint8 *mask[GST_CV_TM_MAX_SCALES];
} GstCvTmSet;

/* NULL (and *error) when a masked template is empty (all of its alpha 0 at
 * some scale). */
GstCvTmSet *gst_cv_tm_set_new (GstCvTemplate * base,
    const GstCvTmScales * scales, gboolean use_alpha, gchar ** error);
GstCvTmSet *gst_cv_tm_set_ref (GstCvTmSet * set);
void gst_cv_tm_set_unref (GstCvTmSet * set);
/* Does set stand for these (the same template, scales and use_alpha)? */
gboolean gst_cv_tm_set_is (const GstCvTmSet * set, GstCvTemplate * base,
    const GstCvTmScales * scales, gboolean use_alpha);

/* The templates of set that fit a w x h frame into out (at most
 * GST_CV_TM_MAX_SCALES) and their scales into sc->scale (sc->masked too):
 * their number. */
guint gst_cv_tm_set_fitting (const GstCvTmSet * set, gint w, gint h,
    CvTemplate * out, GstCvMatchScales * sc);

G_END_DECLS
#endif
