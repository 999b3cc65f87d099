/* gst-cuda-vision: cudatemplatematch, template matching by SSD and
 * correlations (seed 003, issue #18).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudatemplatematch
 * @title: cudatemplatematch
 *
 * Finds a template image in every frame by one of OpenCV's matchTemplate
 * methods (`sqdiff`, `sqdiff-normed`, `ccorr`, `ccorr-normed`, `ccoeff`,
 * `ccoeff-normed`, with OpenCV's definitions and edge cases, see kernels/cvtemplatematch.h), on
 * the luma of the frame (GRAY8, the Y plane of I420/NV12, or BT.601 luma of
 * RGB formats), on the GPU or on the CPU with bit-identical scores.
 *
 * Frames pass through unchanged (unless `display` draws the matches or
 * `score-map` outputs the score image). For every frame matched, an element
 * message `template_match` is posted with the best match's x, y, width,
 * height (guint) and result (gdouble) as the opencv plugin's templatematch
 * posts them, plus `count` (guint), `matches` (a GstValueList of
 * `match` structures with x, y, width, height, result), `method` (string)
 * and `timestamp`, `stream-time`, `running-time`, `duration` (guint64 ns:
 * the buffer's PTS, its stream and running time, its duration, as the
 * opencv plugin's messages). x, y, width and height are
 * absent when no window passed the threshold (count = 0). Each match is
 * also attached as its own GstVideoRegionOfInterestMeta of roi_type
 * "template-match" whose id is the match's rank (0 = best: reach each with
 * gst_buffer_get_video_region_of_interest_meta_id ()), with a
 * "template-match" parameter structure holding "score" (gdouble) and
 * "rank" (guint). With `subpixel`, every match (in the message, its
 * top-level fields and the metas' parameters) also has "x-subpixel" and
 * "y-subpixel" (gdouble): x and y refined by a parabola through the scores
 * around the peak (docs/cudatemplatematch.md). Every match (message and
 * ROI meta parameters) has "scale" (gdouble, see `scales`) and "masked"
 * (gboolean, see `use-alpha`: the template's alpha as OpenCV's mask).
 *
 * Non-maximum suppression: after the best window, each further match is
 * the best window whose rectangle does not overlap any match found so far
 * (|x - mx| >= width or |y - my| >= height).
 *
 * Template: the `template` file is decoded through GStreamer
 * (filesrc ! decodebin ! videoconvert ! GRAY8 appsink) when the property is
 * set (also while playing: frames entering the element after that use the
 * new template). If loading fails, the previous template is dropped and
 * the next frame fails with an element error naming the file and the
 * decoder's reason (never a stale template). Without any template, frames
 * pass through, no message is posted, and one element warning says so.
 * A template larger than the frame is an element error. A flat template
 * (all pixels equal) with `ccoeff-normed` scores 1 everywhere (OpenCV's
 * definition): one element warning says so.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! videocrop left=240 top=210 right=472 bottom=262 ! pngenc snapshot=true ! filesink location=person.png
 * gst-launch-1.0 -m filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! cudatemplatematch template=person.png max-matches=3 display=true ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,width=320,height=240 ! videocrop left=30 top=40 right=258 bottom=168 ! pngenc ! filesink location=t.png
 * gst-launch-1.0 videotestsrc ! video/x-raw,width=320,height=240 ! cudatemplatematch template=t.png score-map=true ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudatemplatematch.h"
#include "gstcvtemplate.h"
#include "gstcvmatchresults.h"
#include "gstcvtmscales.h"
#include "cvtemplatematch.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_template_match_debug);
#define GST_CAT_DEFAULT gst_cuda_template_match_debug

#define DEFAULT_METHOD METHOD_CCOEFF_NORMED
#define DEFAULT_MAX_MATCHES 1
#define DEFAULT_THRESHOLD -1.0
#define DEFAULT_DISPLAY FALSE
#define DEFAULT_SCORE_MAP FALSE
#define DEFAULT_SUBPIXEL FALSE
#define DEFAULT_USE_ALPHA TRUE
#define TEMPLATE_LOAD_TIMEOUT (10 * GST_SECOND)

enum
{
  PROP_0,
  PROP_METHOD,
  PROP_TEMPLATE,
  PROP_TEMPLATE_SAMPLE,
  PROP_MAX_MATCHES,
  PROP_THRESHOLD,
  PROP_DISPLAY,
  PROP_SCORE_MAP,
  PROP_SUBPIXEL,
  PROP_SCALES,
  PROP_USE_ALPHA,
};

/* The parameter snapshot of a frame: the operator's parameters first (the
 * base hands them to the operator), then the template they point into,
 * which travels with the frame (a reference, released by clear_params),
 * and why loading it failed. */
typedef struct
{
  CvTemplateMatchFrameParams op;
  GstCvTemplate *tmpl;
  GstCvTmSet *set;              /* its scales and masks (a reference) */
  CvTemplate fit[GST_CV_TM_MAX_SCALES]; /* those that fit: op.templ */
  GstCvMatchScales sc;          /* their scales */
  gchar *error;
  gint method;                  /* the property's value */
  gboolean display;
  gboolean subpixel;
} TmParams;

struct _GstCudaTemplateMatch
{
  GstCudaVisionBase parent;

  /* properties, GST_OBJECT_LOCK */
  gint method;
  guint max_matches;
  gdouble threshold;
  gboolean display;
  gboolean score_map;
  gboolean subpixel;
  GstCvTmScales scales;
  gboolean use_alpha;
  GstCvTmSet *set;              /* the last template set made (cache) */
  GstCvTemplateSource *tsrc;    /* template, own lock (gstcvtemplate.c) */

  /* streaming thread */
  gint map_bits;                /* 0, 8 or 16: output is the score map */
  gboolean warned_no_template;
  guint64 warned_flat_id;
  guint warned_skip;            /* scales skipped at the last warning */
};

#define SINK_FORMATS "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR }"
#define SRC_FORMATS \
  "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY16_LE }"

#define gst_cuda_template_match_parent_class parent_class
G_DEFINE_TYPE (GstCudaTemplateMatch, gst_cuda_template_match,
    GST_TYPE_CUDA_VISION_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudatemplatematch, "cudatemplatematch",
    GST_RANK_NONE, GST_TYPE_CUDA_TEMPLATE_MATCH);

/* ------------------------------------------------------------------------ */
/* Caps */

/* Frames pass through (same caps, in system or CUDA memory); with
 * score-map the output is a GRAY8 or GRAY16_LE image of the frame's size.
 * The base intersects with the pad templates and handles memory features. */
static GstCaps *
gst_cuda_template_match_transform_format_caps (GstCudaVisionBase * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (base);
  gboolean score_map;
  GstCaps *res;
  guint i;

  GST_OBJECT_LOCK (self);
  score_map = self->score_map;
  GST_OBJECT_UNLOCK (self);

  if (!score_map)
    return gst_caps_ref (caps);

  res = gst_caps_copy (caps);
  for (i = 0; i < gst_caps_get_size (res); i++)
    gst_structure_remove_fields (gst_caps_get_structure (res, i), "format",
        "colorimetry", "chroma-site", NULL);
  if (direction == GST_PAD_SINK) {
    GstCaps *fmts = gst_caps_from_string ("video/x-raw, format=(string) "
        "{ GRAY8, GRAY16_LE }");
    GstCaps *t = gst_caps_intersect_full (res, fmts, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    gst_caps_unref (fmts);
    res = t;
  }
  return gst_caps_simplify (res);
}

static gboolean
gst_cuda_template_match_set_info (GstCudaVisionBase * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info, gpointer op_info)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (base);
  CvTemplateMatchInfo *info = op_info;
  gboolean score_map;

  GST_OBJECT_LOCK (self);
  score_map = self->score_map;
  GST_OBJECT_UNLOCK (self);

  if (GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (out_info) ||
      GST_VIDEO_INFO_HEIGHT (in_info) != GST_VIDEO_INFO_HEIGHT (out_info)) {
    GST_ERROR_OBJECT (self, "output must have the input's size");
    return FALSE;
  }
  if (score_map) {
    switch (GST_VIDEO_INFO_FORMAT (out_info)) {
      case GST_VIDEO_FORMAT_GRAY8:
        self->map_bits = 8;
        break;
      case GST_VIDEO_FORMAT_GRAY16_LE:
        self->map_bits = 16;
        break;
      default:
        GST_ERROR_OBJECT (self, "score-map output must be GRAY8 or GRAY16_LE");
        return FALSE;
    }
  } else {
    if (GST_VIDEO_INFO_FORMAT (in_info) != GST_VIDEO_INFO_FORMAT (out_info)) {
      GST_ERROR_OBJECT (self, "frames pass through: output caps must equal "
          "the input caps");
      return FALSE;
    }
    self->map_bits = 0;
  }
#if G_BYTE_ORDER != G_LITTLE_ENDIAN
  if (self->map_bits == 16) {
    GST_ERROR_OBJECT (self, "GRAY16_LE score map on a big-endian host");
    return FALSE;
  }
#endif

  if (!gst_cuda_vision_luma_layout (in_info, &info->layout)) {
    GST_ERROR_OBJECT (self, "unsupported format %s",
        GST_VIDEO_INFO_NAME (in_info));
    return FALSE;
  }
  info->width = GST_VIDEO_INFO_WIDTH (in_info);
  info->height = GST_VIDEO_INFO_HEIGHT (in_info);
  info->score_map = self->map_bits;
  if (info->layout.r < 0)       /* the Y plane is the luma: all it reads */
    gst_cuda_vision_base_set_upload_planes (base, 1);
  gst_cuda_vision_base_set_output_is_input (base, self->map_bits == 0);
  self->warned_no_template = FALSE;
  self->warned_flat_id = 0;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Frames */

/* The template set of t for the current scales and use-alpha, made and
 * cached (resampled once per template and property change); NULL when the
 * template's alpha masks everything. */
static GstCvTmSet *
gst_cv_tm_template_set (GstCudaTemplateMatch * self, GstCvTemplate * t)
{
  GstCvTmScales scales;
  gboolean use_alpha;
  GstCvTmSet *set, *old;
  gchar *error = NULL;

  GST_OBJECT_LOCK (self);
  scales = self->scales;
  use_alpha = self->use_alpha;
  GST_OBJECT_UNLOCK (self);
  set = gst_cv_tm_set_new (t, &scales, use_alpha, &error);
  if (!set) {
    GST_WARNING_OBJECT (self, "%s", error);
    g_free (error);
    return NULL;
  }
  GST_OBJECT_LOCK (self);
  old = self->set;
  self->set = gst_cv_tm_set_ref (set);
  GST_OBJECT_UNLOCK (self);
  gst_cv_tm_set_unref (old);
  return set;
}

static void
gst_cuda_template_match_get_params (GstCudaVisionBase * base, gpointer params)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (base);
  TmParams *p = params;
  GstCvTemplate *t;

  /* a template file set before this frame is waited for (bounded) */
  gst_cv_template_source_get (self->tsrc, &p->tmpl, &p->error);
  t = p->tmpl;

  GST_OBJECT_LOCK (self);
  if (t && gst_cv_tm_set_is (self->set, t, &self->scales, self->use_alpha))
    p->set = gst_cv_tm_set_ref (self->set);
  p->method = self->method;
  p->op.match.method = gst_cv_tm_method_to_cv (self->method);
  p->op.match.max_matches = self->max_matches;
  p->op.match.threshold = self->threshold;
  p->op.match.score_map = self->map_bits;
  p->display = self->display;
  p->subpixel = self->subpixel;
  GST_OBJECT_UNLOCK (self);
  p->op.templ = NULL;
  if (t && !p->set)
    p->set = gst_cv_tm_template_set (self, t);
  if (t && !p->set && !p->error)
    p->error = g_strdup ("(its alpha is 0 everywhere: nothing to match; "
        "use-alpha=false ignores the alpha)");
}

static void
gst_cuda_template_match_clear_params (GstCudaVisionBase * base, gpointer params)
{
  TmParams *p = params;

  gst_cv_template_unref (p->tmpl);
  gst_cv_tm_set_unref (p->set);
  g_free (p->error);
  memset (p, 0, sizeof (TmParams));
}

/* Checks before matching: the template's load error, its absence (frames
 * pass through unmatched, one warning), a template larger than the frame,
 * a flat one with ccoeff-normed. */
static CvStatus
gst_cuda_template_match_prepare_frame (GstCudaVisionBase * base,
    GstCudaVisionFrame * frame)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (base);
  TmParams *p = frame->params;
  GstCvTemplate *t = p->tmpl;
  guint n;
  gint w = GST_VIDEO_INFO_WIDTH (frame->in_info);
  gint h = GST_VIDEO_INFO_HEIGHT (frame->in_info);

  if (p->error)
    return GST_CUDA_VISION_FRAME_ERROR (self, CV_ERROR_INVALID_ARGUMENT,
        RESOURCE, OPEN_READ, ("Could not load the template %s", p->error),
        (NULL));
  if (!t) {
    if (!self->warned_no_template)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
          ("No template set: frames pass through without matching"),
          ("set the template or template-sample property"));
    self->warned_no_template = TRUE;
    return CV_OK;
  }
  self->warned_no_template = FALSE;
  n = gst_cv_tm_set_fitting (p->set, w, h, p->fit, &p->sc);
  if (n == 0) {
    return GST_CUDA_VISION_FRAME_ERROR (self, CV_ERROR_INVALID_ARGUMENT,
        STREAM, FAILED, ("The template (%dx%d) is larger than the frame "
            "(%dx%d)%s", p->set->cv[0].plane.width,
            p->set->cv[0].plane.height, w, h,
            p->set->n > 1 ? " at every scale" : ""), (NULL));
  }
  if (n < p->set->n && self->warned_skip != p->set->n - n)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("%u of the %u scales skipped: the template is larger than the "
            "frame (%dx%d) there", p->set->n - n, p->set->n, w, h), (NULL));
  self->warned_skip = p->set->n - n;
  p->op.templ = p->fit;
  p->op.n_templ = (int) n;
  if (t->cv.flat && p->op.match.method == CV_TM_CCOEFF_NORMED
      && self->warned_flat_id != t->cv.id) {
    self->warned_flat_id = t->cv.id;
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("The template is flat (all pixels equal): ccoeff-normed scores "
            "are 1 everywhere"), ("OpenCV's definition for a zero-variance "
            "template; use another method"));
  }
  return CV_OK;
}

static GstFlowReturn
gst_cuda_template_match_finish_frame (GstCudaVisionBase * base,
    GstCudaVisionFrame * frame, GstBuffer ** outbuf)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (base);
  const TmParams *p = frame->params;
  const CvTemplateMatchResult *r = frame->results;

  /* no template: no message, no metas */
  if (!p->tmpl || !r)
    return GST_FLOW_OK;

  /* the message and one ROI meta per match (gstcvmatchresults.c) */
  gst_cuda_vision_base_post_frame_message (base,
      gst_cv_match_results_structure (r, &p->sc,
          gst_cv_tm_method_nick (p->method), p->subpixel), *outbuf);
  if (r->count == 0)
    return GST_FLOW_OK;
  *outbuf = gst_buffer_make_writable (*outbuf);
  gst_cv_match_results_add_metas (*outbuf, r, &p->sc, p->subpixel);
  if (p->display && !p->op.match.score_map
      && !gst_cv_match_results_draw (*outbuf, frame->in_info, r))
    GST_WARNING_OBJECT (self, "could not map the frame to draw on it");
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------------------ */
/* Properties */

static void
gst_cuda_template_match_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (object);
  gboolean reconfigure = FALSE;
  gchar *rejected = NULL;

  switch (prop_id) {
    case PROP_TEMPLATE:
      /* loads in a thread of its own: returns at once */
      gst_cv_template_source_set_path (self->tsrc, g_value_get_string (value));
      return;
    case PROP_TEMPLATE_SAMPLE:{
      gchar *error = NULL;
      if (!gst_cv_template_source_set_sample (self->tsrc,
              g_value_get_boxed (value), &error))
        GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("Could not use the "
                "template-sample: %s", error), ("the next frame fails"));
      g_free (error);
      return;
    }
    default:
      break;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_MAX_MATCHES:
      self->max_matches = g_value_get_uint (value);
      break;
    case PROP_THRESHOLD:
      self->threshold = g_value_get_double (value);
      break;
    case PROP_DISPLAY:
      self->display = g_value_get_boolean (value);
      break;
    case PROP_SUBPIXEL:
      self->subpixel = g_value_get_boolean (value);
      break;
    case PROP_SCALES:
      rejected = gst_cv_tm_scales_set (&self->scales, value);
      break;
    case PROP_USE_ALPHA:
      self->use_alpha = g_value_get_boolean (value);
      break;
    case PROP_SCORE_MAP:
      reconfigure = self->score_map != g_value_get_boolean (value);
      self->score_map = g_value_get_boolean (value);
      /* frames pass through unless the score map replaces them */
      gst_cuda_vision_base_set_output_is_input (GST_CUDA_VISION_BASE (self),
          !self->score_map);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (rejected)
    gst_cuda_vision_base_post_rejection (GST_CUDA_VISION_BASE (self), rejected);
  if (reconfigure)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_template_match_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (object);

  switch (prop_id) {
    case PROP_TEMPLATE:
      g_value_take_string (value, gst_cv_template_source_dup_path (self->tsrc));
      return;
    case PROP_TEMPLATE_SAMPLE:{
      /* waits for a template being loaded from a file (bounded) */
      GstCvTemplate *t = NULL;
      gchar *error = NULL;
      gst_cv_template_source_get (self->tsrc, &t, &error);
      g_value_set_boxed (value, t ? t->sample : NULL);
      gst_cv_template_unref (t);
      g_free (error);
      return;
    }
    default:
      break;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_MAX_MATCHES:
      g_value_set_uint (value, self->max_matches);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, self->threshold);
      break;
    case PROP_DISPLAY:
      g_value_set_boolean (value, self->display);
      break;
    case PROP_SUBPIXEL:
      g_value_set_boolean (value, self->subpixel);
      break;
    case PROP_SCALES:
      gst_cv_tm_scales_get (&self->scales, value);
      break;
    case PROP_USE_ALPHA:
      g_value_set_boolean (value, self->use_alpha);
      break;
    case PROP_SCORE_MAP:
      g_value_set_boolean (value, self->score_map);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_template_match_finalize (GObject * object)
{
  GstCudaTemplateMatch *self = GST_CUDA_TEMPLATE_MATCH (object);

  gst_cv_template_source_free (self->tsrc);
  gst_cv_tm_set_unref (self->set);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_template_match_class_init (GstCudaTemplateMatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaVisionBaseClass *base_class = GST_CUDA_VISION_BASE_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_template_match_debug,
      "cudatemplatematch", 0, "Template matching");

  gobject_class->set_property = gst_cuda_template_match_set_property;
  gobject_class->get_property = gst_cuda_template_match_get_property;
  gobject_class->finalize = gst_cuda_template_match_finalize;

  /**
   * GstCudaTemplateMatch:method:
   * Matching score, OpenCV's matchTemplate definitions: sqdiff (0, SSD,
   * lower is better), sqdiff-normed (1, lower is better), ccorr (2, sum of
   * T I, 0 .. 65025 N for an N-pixel template, higher is better),
   * ccorr-normed (3, 0..1, higher is better), ccoeff (4, sum of
   * (T - mean T) (I - mean I), -16256.25 N .. 16256.25 N, higher is
   * better), ccoeff-normed (5, Pearson correlation, -1..1, higher is
   * better). The numbers are OpenCV's cv::TemplateMatchModes and the opencv
   * plugin's templatematch method values. Default ccoeff-normed (the seed's
   * PCC; the opencv plugin defaults to 3). Takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "Matching score (OpenCV's matchTemplate methods)",
          GST_TYPE_CUDA_TEMPLATE_MATCH_METHOD, DEFAULT_METHOD,
          flags | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaTemplateMatch:template:
   * Path of the template image (any format GStreamer decodes; its luma is
   * used), 1x1 up to the frame's size. Loaded when set (also while
   * playing). NULL or "" removes the template. A file that cannot be
   * loaded makes the next frame fail with an element error. Reads back
   * NULL when the template came from template-sample. Default NULL (no
   * template: frames pass through, one warning).
   */
  g_object_class_install_property (gobject_class, PROP_TEMPLATE,
      g_param_spec_string ("template", "Template",
          "Template image file (decoded with GStreamer, matched on luma)",
          NULL, flags));
  /**
   * GstCudaTemplateMatch:template-sample:
   * The template as a GstSample of raw video (any format
   * gst_video_convert_sample() converts to GRAY8), for applications.
   * Reads back the GRAY8 sample in use (from either property). The last
   * of template / template-sample set wins.
   */
  g_object_class_install_property (gobject_class, PROP_TEMPLATE_SAMPLE,
      g_param_spec_boxed ("template-sample", "Template sample",
          "Template as a GstSample of raw video (converted to GRAY8)",
          GST_TYPE_SAMPLE, flags));
  /**
   * GstCudaTemplateMatch:max-matches:
   * Most matches reported per frame, 1..64, default 1. Further matches
   * never overlap earlier ones (non-maximum suppression).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_MATCHES,
      g_param_spec_uint ("max-matches", "Max matches",
          "Most matches reported per frame (non-overlapping)", 1,
          CV_TEMPLATE_MATCH_MAX_MATCHES, DEFAULT_MAX_MATCHES,
          flags | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaTemplateMatch:threshold:
   * Scores worse than this are not reported: sqdiff / sqdiff-normed report
   * only score <= threshold (sqdiff in summed squared 8-bit differences,
   * sqdiff-normed 0..1; a negative threshold: no limit);
   * ccorr, ccorr-normed, ccoeff, ccoeff-normed report only
   * score >= threshold (-1 or less: no limit, also for ccoeff whose scores
   * go below -1). Default -1: no limit for every method.
   */
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Worst score reported (<= for the sqdiff methods, negative = no "
          "limit; >= for the correlation methods, -1 or less = no limit)",
          -G_MAXDOUBLE, G_MAXDOUBLE,
          DEFAULT_THRESHOLD, flags | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaTemplateMatch:display:
   * Draw a 2-pixel rectangle around each match (white luma for YUV/GRAY,
   * green for RGB). Ignored with score-map. Default FALSE.
   */
  g_object_class_install_property (gobject_class, PROP_DISPLAY,
      g_param_spec_boolean ("display", "Display",
          "Draw rectangles around the matches", DEFAULT_DISPLAY,
          flags | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaTemplateMatch:score-map:
   * Output the score image instead of the frame: GRAY8 or GRAY16_LE (as
   * negotiated) of the frame's size, the score of the window with top-left
   * (x, y) at (x, y), 0 where the template does not fit; see the docs for
   * the scaling. Changing it renegotiates the output caps; frames keep the
   * mode they were negotiated with until then. Default FALSE.
   */
  g_object_class_install_property (gobject_class, PROP_SCORE_MAP,
      g_param_spec_boolean ("score-map", "Score map",
          "Output the score image (GRAY8/GRAY16_LE) instead of the frame",
          DEFAULT_SCORE_MAP, flags));
  /**
   * GstCudaTemplateMatch:subpixel:
   * Also report each match's sub-pixel position, x-subpixel and
   * y-subpixel (gdouble) in the message and the ROI metas: x and y plus
   * the vertex of the parabola through the scores at -1, 0, +1 along each
   * axis, (R[-1] - R[+1]) / (2 (R[-1] - 2 R[0] + R[+1])), clamped to
   * [-0.5, 0.5], 0 at the score image's border or with a zero denominator.
   * Takes effect at the next frame. Default FALSE.
   */
  g_object_class_install_property (gobject_class, PROP_SUBPIXEL,
      g_param_spec_boolean ("subpixel", "Sub-pixel",
          "Also report sub-pixel positions (x-subpixel, y-subpixel) of the "
          "matches", DEFAULT_SUBPIXEL, flags | GST_PARAM_CONTROLLABLE));

  gst_cv_tm_install_properties (gobject_class, PROP_SCALES, PROP_USE_ALPHA,
      flags);

  gst_cuda_vision_base_class_add_pad_templates (element_class, SINK_FORMATS,
      SRC_FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA template matching", "Filter/Analyzer/Video/Hardware",
      "Finds a template in the frames by SSD or correlation "
      "(OpenCV's matchTemplate methods), on the GPU or the CPU",
      GST_CUDA_VISION_AUTHOR);

  base_class->transform_format_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_template_match_transform_format_caps);
  base_class->cpu_ops = &cv_template_match_cpu_ops;
  base_class->cuda_ops = &cv_template_match_cuda_ops;
  base_class->op_info_size = sizeof (CvTemplateMatchInfo);
  base_class->params_size = sizeof (TmParams);
  base_class->get_params =
      GST_DEBUG_FUNCPTR (gst_cuda_template_match_get_params);
  base_class->clear_params =
      GST_DEBUG_FUNCPTR (gst_cuda_template_match_clear_params);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_template_match_set_info);
  base_class->prepare_frame =
      GST_DEBUG_FUNCPTR (gst_cuda_template_match_prepare_frame);
  base_class->finish_frame =
      GST_DEBUG_FUNCPTR (gst_cuda_template_match_finish_frame);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_TEMPLATE_MATCH_METHOD, 0);
}

static void
gst_cuda_template_match_init (GstCudaTemplateMatch * self)
{
  self->method = DEFAULT_METHOD;
  self->max_matches = DEFAULT_MAX_MATCHES;
  self->threshold = DEFAULT_THRESHOLD;
  self->display = DEFAULT_DISPLAY;
  self->score_map = DEFAULT_SCORE_MAP;
  self->subpixel = DEFAULT_SUBPIXEL;
  gst_cv_tm_scales_init (&self->scales);
  self->use_alpha = DEFAULT_USE_ALPHA;
  self->tsrc = gst_cv_template_source_new (TEMPLATE_LOAD_TIMEOUT);
  gst_cuda_vision_base_set_output_is_input (GST_CUDA_VISION_BASE (self),
      !self->score_map);
}
