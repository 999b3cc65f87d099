/* gst-cuda-vision: cudameanshift, mean-shift filtering and segmentation
 * (seed 002).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudameanshift
 * @title: cudameanshift
 *
 * Mean-shift filtering and segmentation in the joint spatial-colour domain
 * (D. Comaniciu, P. Meer, "Mean shift: a robust approach toward feature
 * space analysis", IEEE PAMI 24(5), 2002), on the GPU (CUDA) or, where
 * there is none, on the CPU with the same results.
 *
 * Every pixel (x, y, c) climbs to its attractor: it moves to the
 * kernel-weighted mean of the pixels of its window, with weights k(g) of
 * g = |dxy|² / hs² + |dc|² / hc² (window g <= 1), until `max-iterations`
 * or a shift below `epsilon`. `mode=filter` paints each pixel with its
 * attractor's colour; `mode=segment` joins neighbours whose attractors are
 * closer than hs and hc, merges segments smaller than `min-segment-size`
 * into their most similar neighbour, paints each segment with its mean
 * colour, attaches the label map (the custom meta
 * "GstCudaMeanShiftLabelsMeta": width, height, segments and a GstBuffer of
 * labels, see gstmeanshiftmeta.h) and posts an
 * element message `meanshift-segments` (fields `segments` (guint),
 * `timestamp`, `stream-time`, `running-time`, `duration` (guint64 ns, as
 * the opencv plugin's messages)). `kernel=flat` is OpenCV's
 * pyrMeanShiftFiltering (maxLevel 0). See docs/cudameanshift.md.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! cudameanshift mode=segment ! videoconvert ! autovideosink
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=RGBx ! cudameanshift kernel=flat spatial-radius=10 color-radius=20 roi="<100,50,320,240>" ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudameanshift.h"
#include "gstmeanshiftmeta.h"
#include "cvmeanshift.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_mean_shift_debug);
#define GST_CAT_DEFAULT gst_cuda_mean_shift_debug

#define DEFAULT_SPATIAL_RADIUS 8
#define DEFAULT_COLOR_RADIUS 16.0
#define DEFAULT_KERNEL CV_MEANSHIFT_UNIFORM
#define DEFAULT_MAX_ITERATIONS 5
#define DEFAULT_EPSILON 1.0
#define DEFAULT_MODE CV_MEANSHIFT_FILTER
#define DEFAULT_MIN_SEGMENT_SIZE 20

enum
{
  PROP_0,
  PROP_SPATIAL_RADIUS,
  PROP_COLOR_RADIUS,
  PROP_KERNEL,
  PROP_MAX_ITERATIONS,
  PROP_EPSILON,
  PROP_MODE,
  PROP_MIN_SEGMENT_SIZE,
  PROP_ROI,
  PROP_COLOR_MIN,
  PROP_COLOR_MAX,
};

struct _GstCudaMeanShift
{
  GstCudaVisionBase parent;

  /* properties, GST_OBJECT_LOCK */
  guint spatial_radius;
  gdouble color_radius;
  gint kernel;
  guint max_iterations;
  gdouble epsilon;
  gint mode;
  guint min_segment_size;
  gint roi[4];                  /* x, y, width, height (0: to the edge) */
  guint8 color_min[3], color_max[3];
  gboolean roi_warned;          /* the current ROI's warning was posted */

  /* set_info */
  gint width, height;
};

#define FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8 }"

#define GST_TYPE_CUDA_MEAN_SHIFT_KERNEL (gst_cuda_mean_shift_kernel_get_type ())
static GType
gst_cuda_mean_shift_kernel_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CV_MEANSHIFT_UNIFORM, "Uniform profile k(g) = 1 on g <= 1", "uniform"},
    {CV_MEANSHIFT_TRIANGULAR, "Triangular profile k(g) = 1 - sqrt (g)",
        "triangular"},
    {CV_MEANSHIFT_EPANECHNIKOV, "Epanechnikov profile k(g) = 1 - g",
        "epanechnikov"},
    {CV_MEANSHIFT_FLAT, "OpenCV pyrMeanShiftFiltering: square window, "
          "integer colour sphere, integer means", "flat"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaMeanShiftKernel", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_MEAN_SHIFT_MODE (gst_cuda_mean_shift_mode_get_type ())
static GType
gst_cuda_mean_shift_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CV_MEANSHIFT_FILTER, "Each pixel takes its attractor's colour",
        "filter"},
    {CV_MEANSHIFT_SEGMENT, "Segments of merged attractors painted with "
          "their mean colour, label map meta and segment count message",
        "segment"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaMeanShiftMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_cuda_mean_shift_parent_class parent_class
G_DEFINE_TYPE (GstCudaMeanShift, gst_cuda_mean_shift,
    GST_TYPE_CUDA_VISION_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudameanshift, "cudameanshift", GST_RANK_NONE,
    GST_TYPE_CUDA_MEAN_SHIFT);

static gboolean
gst_cuda_mean_shift_set_info (GstCudaVisionBase * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info, gpointer op_info)
{
  GstCudaMeanShift *self = GST_CUDA_MEAN_SHIFT (base);
  CvMeanShiftInfo *info = op_info;

  if (GST_VIDEO_INFO_FORMAT (in_info) != GST_VIDEO_INFO_FORMAT (out_info) ||
      GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (out_info) ||
      GST_VIDEO_INFO_HEIGHT (in_info) != GST_VIDEO_INFO_HEIGHT (out_info)) {
    GST_ERROR_OBJECT (self, "output must have the input's format and size");
    return FALSE;
  }
  /* GRAY8 or packed RGB: the pad templates allow nothing else */
  if (GST_VIDEO_INFO_IS_YUV (in_info)
      || !gst_cuda_vision_luma_layout (in_info, &info->layout)) {
    GST_ERROR_OBJECT (self, "unsupported format %s",
        GST_VIDEO_INFO_NAME (in_info));
    return FALSE;
  }
  info->width = GST_VIDEO_INFO_WIDTH (in_info);
  info->height = GST_VIDEO_INFO_HEIGHT (in_info);
  GST_OBJECT_LOCK (self);
  self->width = info->width;
  self->height = info->height;
  self->roi_warned = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* The ROI property clipped to the frame. Returns 0 when it lies inside
 * (or is the default), 1 when it was clipped, 2 when nothing of it is in
 * the frame (then the ROI is empty: every pixel passes through). */
static int
clip_roi (const gint roi[4], gint width, gint height, CvMeanShiftParams * p)
{
  gint64 x0 = roi[0], y0 = roi[1];
  gint64 x1 = roi[2] > 0 ? x0 + roi[2] : width;
  gint64 y1 = roi[3] > 0 ? y0 + roi[3] : height;
  int ret = 0;

  if (x1 > width || y1 > height)
    ret = 1;
  x1 = MIN (x1, width);
  y1 = MIN (y1, height);
  if (x0 >= x1 || y0 >= y1) {
    p->roi_x = p->roi_y = p->roi_width = p->roi_height = 0;
    return 2;
  }
  p->roi_x = (int) x0;
  p->roi_y = (int) y0;
  p->roi_width = (int) (x1 - x0);
  p->roi_height = (int) (y1 - y0);
  return ret;
}

static void
gst_cuda_mean_shift_get_params (GstCudaVisionBase * base, gpointer params)
{
  GstCudaMeanShift *self = GST_CUDA_MEAN_SHIFT (base);
  CvMeanShiftParams *p = params;
  gint roi[4], clip;
  gboolean warn;

  GST_OBJECT_LOCK (self);
  p->spatial_radius = self->spatial_radius;
  p->color_radius = self->color_radius;
  p->kernel = self->kernel;
  p->max_iterations = self->max_iterations;
  p->epsilon = self->epsilon;
  p->mode = self->mode;
  p->min_segment_size = (int) MIN (self->min_segment_size, G_MAXINT);
  memcpy (p->color_min, self->color_min, 3);
  memcpy (p->color_max, self->color_max, 3);
  memcpy (roi, self->roi, sizeof (roi));
  clip = clip_roi (roi, self->width, self->height, p);
  warn = clip != 0 && !self->roi_warned;
  if (warn)
    self->roi_warned = TRUE;
  GST_OBJECT_UNLOCK (self);

  if (warn && clip == 1)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("The region of interest <%d, %d, %d, %d> extends beyond the "
            "%dx%d frame: clipped to <%d, %d, %d, %d>", roi[0], roi[1],
            roi[2], roi[3], self->width, self->height, p->roi_x, p->roi_y,
            p->roi_width, p->roi_height), (NULL));
  else if (warn)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("The region of interest <%d, %d, %d, %d> lies outside the %dx%d "
            "frame: nothing is processed, frames pass through unchanged",
            roi[0], roi[1], roi[2], roi[3], self->width, self->height), (NULL));
}

/* Seconds per pixel, iteration and window pixel (upper bounds: every
 * pixel iterating max-iterations times), measured at 1080p with hs 8 and
 * 5 iterations (docs/cudameanshift.md): the CPU per thread, the GPU on an
 * H100. */
#define MS_CPU_S_PER_OP 6e-9
#define MS_GPU_S_PER_OP 1.5e-12

/* The estimated cost of the frame's settings, on the bus when large. */
static CvStatus
gst_cuda_mean_shift_prepare_frame (GstCudaVisionBase * base,
    GstCudaVisionFrame * frame)
{
  const CvMeanShiftParams *p = frame->params;
  gboolean cuda = frame->backend == GST_CUDA_VISION_BACKEND_CUDA;
  gdouble px = (gdouble) p->roi_width * p->roi_height;
  gdouble side = 2.0 * p->spatial_radius + 1, ops, seconds;
  gchar *setting;

  ops = px * p->max_iterations * MIN (side * side, px);
  seconds = cuda ? ops * MS_GPU_S_PER_OP : ops * MS_CPU_S_PER_OP /
      gst_cuda_vision_base_cpu_threads (base);
  setting = g_strdup_printf ("spatial-radius=%d max-iterations=%d on a "
      "%dx%d region", p->spatial_radius, p->max_iterations, p->roi_width,
      p->roi_height);
  gst_cuda_vision_base_check_cost (base, seconds, setting);
  g_free (setting);
  return CV_OK;
}

/* segment mode: label map meta and the segment count message */
static GstFlowReturn
gst_cuda_mean_shift_finish_frame (GstCudaVisionBase * base,
    GstCudaVisionFrame * frame, GstBuffer ** outbuf)
{
  const CvMeanShiftParams *p = frame->params;
  const CvMeanShiftSegments *seg = frame->results;
  guint w = GST_VIDEO_INFO_WIDTH (frame->out_info);
  guint h = GST_VIDEO_INFO_HEIGHT (frame->out_info);
  GstStructure *st;

  if (p->mode != CV_MEANSHIFT_SEGMENT)
    return GST_FLOW_OK;
  g_return_val_if_fail (seg != NULL && seg->labels != NULL, GST_FLOW_ERROR);

  *outbuf = gst_buffer_make_writable (*outbuf);
  gst_buffer_add_cuda_mean_shift_labels_meta (*outbuf, w, h, seg->n_segments,
      seg->labels);

  st = gst_structure_new ("meanshift-segments",
      "segments", G_TYPE_UINT, seg->n_segments, NULL);
  gst_cuda_vision_base_post_frame_message (base, st, *outbuf);
  return GST_FLOW_OK;
}

/* An array property of n ints each in [lo, hi] into out; FALSE with
 * *rejected (why) when the value does not fit. n_alt: another accepted
 * length (its single value then fills all n), 0 for none. */
static gboolean
array_to_ints (const gchar * name, const GValue * value, guint n,
    guint n_alt, gint lo, gint hi, gint * out, gchar ** rejected)
{
  guint len = gst_value_array_get_size (value), i;
  gint tmp[4];

  if (len != n && (n_alt == 0 || len != n_alt)) {
    *rejected = g_strdup_printf ("%s needs %u values, got %u; the previous "
        "value is kept", name, n, len);
    return FALSE;
  }
  for (i = 0; i < len; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    if (!G_VALUE_HOLDS_INT (v) || g_value_get_int (v) < lo
        || g_value_get_int (v) > hi) {
      gchar *str = gst_value_serialize (v);
      *rejected = g_strdup_printf ("%s: %s (value %u) is not an integer in "
          "%d..%d; the previous value is kept", name, GST_STR_NULL (str),
          i + 1, lo, hi);
      g_free (str);
      return FALSE;
    }
    tmp[i] = g_value_get_int (v);
  }
  for (i = 0; i < n; i++)
    out[i] = tmp[len == n ? i : 0];
  return TRUE;
}

static void
ints_to_array (GValue * value, const gint * v, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    GValue e = G_VALUE_INIT;
    g_value_init (&e, G_TYPE_INT);
    g_value_set_int (&e, v[i]);
    gst_value_array_append_and_take_value (value, &e);
  }
}

static void
gst_cuda_mean_shift_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaMeanShift *self = GST_CUDA_MEAN_SHIFT (object);
  gchar *rejected = NULL;
  gint v[4], i;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SPATIAL_RADIUS:
      self->spatial_radius = g_value_get_uint (value);
      break;
    case PROP_COLOR_RADIUS:
      self->color_radius = g_value_get_double (value);
      break;
    case PROP_KERNEL:
      self->kernel = g_value_get_enum (value);
      break;
    case PROP_MAX_ITERATIONS:
      self->max_iterations = g_value_get_uint (value);
      break;
    case PROP_EPSILON:
      self->epsilon = g_value_get_double (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_MIN_SEGMENT_SIZE:
      self->min_segment_size = g_value_get_uint (value);
      break;
    case PROP_ROI:
      if (array_to_ints ("roi", value, 4, 0, 0, G_MAXINT, v, &rejected)) {
        memcpy (self->roi, v, sizeof (self->roi));
        self->roi_warned = FALSE;
      }
      break;
    case PROP_COLOR_MIN:
      if (array_to_ints ("color-min", value, 3, 1, 0, 255, v, &rejected))
        for (i = 0; i < 3; i++)
          self->color_min[i] = (guint8) v[i];
      break;
    case PROP_COLOR_MAX:
      if (array_to_ints ("color-max", value, 3, 1, 0, 255, v, &rejected))
        for (i = 0; i < 3; i++)
          self->color_max[i] = (guint8) v[i];
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (rejected)
    gst_cuda_vision_base_post_rejection (GST_CUDA_VISION_BASE (self), rejected);
}

static void
gst_cuda_mean_shift_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaMeanShift *self = GST_CUDA_MEAN_SHIFT (object);
  gint v[3], i;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SPATIAL_RADIUS:
      g_value_set_uint (value, self->spatial_radius);
      break;
    case PROP_COLOR_RADIUS:
      g_value_set_double (value, self->color_radius);
      break;
    case PROP_KERNEL:
      g_value_set_enum (value, self->kernel);
      break;
    case PROP_MAX_ITERATIONS:
      g_value_set_uint (value, self->max_iterations);
      break;
    case PROP_EPSILON:
      g_value_set_double (value, self->epsilon);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_MIN_SEGMENT_SIZE:
      g_value_set_uint (value, self->min_segment_size);
      break;
    case PROP_ROI:
      ints_to_array (value, self->roi, 4);
      break;
    case PROP_COLOR_MIN:
    case PROP_COLOR_MAX:
      for (i = 0; i < 3; i++)
        v[i] = prop_id == PROP_COLOR_MIN ? self->color_min[i] :
            self->color_max[i];
      ints_to_array (value, v, 3);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

#define PROP_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING)

static void
gst_cuda_mean_shift_class_init (GstCudaMeanShiftClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaVisionBaseClass *base_class = GST_CUDA_VISION_BASE_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_mean_shift_debug, "cudameanshift", 0,
      "Mean-shift filtering and segmentation");

  gobject_class->set_property = gst_cuda_mean_shift_set_property;
  gobject_class->get_property = gst_cuda_mean_shift_get_property;

  /**
   * GstCudaMeanShift:spatial-radius:
   * hs, the spatial bandwidth in pixels, 1..255, default 8. flat: the
   * window is the square |dx|, |dy| <= hs; other kernels: the disc of
   * g <= 1. Segment mode joins attractors at most hs apart. Cost grows
   * with hs². Controllable.
   */
  g_object_class_install_property (gobject_class, PROP_SPATIAL_RADIUS,
      g_param_spec_uint ("spatial-radius", "Spatial radius",
          "hs: spatial bandwidth in pixels", 1,
          CV_MEANSHIFT_MAX_SPATIAL_RADIUS, DEFAULT_SPATIAL_RADIUS,
          PROP_FLAGS | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaMeanShift:color-radius:
   * hc, the colour (range) bandwidth in 8-bit levels (Euclidean over
   * R, G, B, or the grey level), 1..1000, default 16. flat: colour sphere
   * |dc|² <= round (hc²). Controllable.
   */
  g_object_class_install_property (gobject_class, PROP_COLOR_RADIUS,
      g_param_spec_double ("color-radius", "Color radius",
          "hc: colour bandwidth in 8-bit levels", 1.0, 1000.0,
          DEFAULT_COLOR_RADIUS, PROP_FLAGS | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaMeanShift:kernel:
   * The kernel profile: uniform, triangular (1 - sqrt g), epanechnikov
   * (1 - g), or flat (OpenCV pyrMeanShiftFiltering, maxLevel 0, same
   * integer arithmetic and stopping rule). Default uniform.
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("kernel", "Kernel", "Kernel profile",
          GST_TYPE_CUDA_MEAN_SHIFT_KERNEL, DEFAULT_KERNEL, PROP_FLAGS));
  /**
   * GstCudaMeanShift:max-iterations:
   * Mean-shift steps per pixel at most, 1..100, default 5. Controllable.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_ITERATIONS,
      g_param_spec_uint ("max-iterations", "Maximum iterations",
          "Mean-shift steps per pixel at most", 1,
          CV_MEANSHIFT_MAX_ITERATIONS, DEFAULT_MAX_ITERATIONS,
          PROP_FLAGS | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaMeanShift:epsilon:
   * Stop when the shift is below epsilon, 0..1e6, default 1.0. uniform,
   * triangular, epanechnikov: the Euclidean length of the step in (x, y,
   * R, G, B) (pixels and 8-bit levels), stop when < epsilon. flat
   * (OpenCV): stop when the position did not move or |dx| + |dy| + |dc|²
   * <= epsilon. Controllable.
   */
  g_object_class_install_property (gobject_class, PROP_EPSILON,
      g_param_spec_double ("epsilon", "Epsilon",
          "Stop iterating when the shift is below this", 0.0, 1e6,
          DEFAULT_EPSILON, PROP_FLAGS | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaMeanShift:mode:
   * filter: each pixel takes its attractor's colour. segment: attractors
   * of neighbouring pixels closer than hs and hc are joined, segments
   * smaller than min-segment-size merged into their most similar
   * neighbour, each segment painted with its mean colour; the label map is
   * attached as GstMeanShiftLabelsMeta and the count posted in a
   * `meanshift-segments` element message. Default filter.
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "filter or segment",
          GST_TYPE_CUDA_MEAN_SHIFT_MODE, DEFAULT_MODE, PROP_FLAGS));
  /**
   * GstCudaMeanShift:min-segment-size:
   * Segment mode: segments of fewer pixels are merged into their most
   * similar neighbour (nearest mean colour), in up to 8 rounds; 0 or 1:
   * none. Default 20. Controllable.
   */
  g_object_class_install_property (gobject_class, PROP_MIN_SEGMENT_SIZE,
      g_param_spec_uint ("min-segment-size", "Minimum segment size",
          "Segments with fewer pixels are merged into a neighbour", 0,
          G_MAXINT, DEFAULT_MIN_SEGMENT_SIZE,
          PROP_FLAGS | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaMeanShift:roi:
   * Region of interest <x, y, width, height> in pixels (x, y >= 0; width or
   * height 0: up to the frame's edge), default <0, 0, 0, 0> = the whole
   * frame. Only the ROI is computed (windows see only the ROI); pixels
   * outside pass through unchanged and have no label. A ROI extending
   * beyond the frame is clipped, one outside it processes nothing; both
   * post a warning message once. Values of the wrong count or negative are
   * ignored (GST_WARNING, old value kept).
   * gst-launch: roi="<10, 20, 320, 240>".
   */
  g_object_class_install_property (gobject_class, PROP_ROI,
      gst_param_spec_array ("roi", "Region of interest",
          "<x, y, width, height> in pixels; width/height 0: to the frame edge",
          g_param_spec_int ("roi-value", "ROI value", "x, y, width or height",
              G_MININT, G_MAXINT, 0, G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS), PROP_FLAGS));
  /**
   * GstCudaMeanShift:color-min:
   * Per-channel lower bounds <R, G, B> (0..255; GRAY8 uses the first; one
   * value sets all three), default <0, 0, 0>. Pixels with a channel below
   * are left out of the computation: they take part in no window, pass
   * through unchanged and have no label. gst-launch: color-min="<20, 0, 0>".
   * Values outside 0..255, or another count than 1 or 3, are rejected with a
   * GST_WARNING and the previous bounds kept.
   */
  g_object_class_install_property (gobject_class, PROP_COLOR_MIN,
      gst_param_spec_array ("color-min", "Colour minimum",
          "<R, G, B> lower bounds of the pixels taking part",
          g_param_spec_int ("color-value", "Colour value", "0..255",
              G_MININT, G_MAXINT, 0, G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS), PROP_FLAGS));
  /**
   * GstCudaMeanShift:color-max:
   * Per-channel upper bounds <R, G, B> (0..255, one value sets all three),
   * default <255, 255, 255>; errors as color-min.
   */
  g_object_class_install_property (gobject_class, PROP_COLOR_MAX,
      gst_param_spec_array ("color-max", "Colour maximum",
          "<R, G, B> upper bounds of the pixels taking part",
          g_param_spec_int ("color-value", "Colour value", "0..255",
              G_MININT, G_MAXINT, 255, G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS), PROP_FLAGS));

  gst_cuda_vision_base_class_add_pad_templates (element_class, FORMATS,
      FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA mean-shift filter and segmentation", "Filter/Effect/Video/Hardware",
      "Mean-shift filtering and segmentation in the joint spatial-colour "
      "domain (Comaniciu & Meer 2002), on the GPU or the CPU",
      GST_CUDA_VISION_AUTHOR);

  base_class->cpu_ops = &cv_meanshift_cpu_ops;
  base_class->cuda_ops = &cv_meanshift_cuda_ops;
  base_class->op_info_size = sizeof (CvMeanShiftInfo);
  base_class->params_size = sizeof (CvMeanShiftParams);
  base_class->get_params = GST_DEBUG_FUNCPTR (gst_cuda_mean_shift_get_params);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_mean_shift_set_info);
  base_class->prepare_frame =
      GST_DEBUG_FUNCPTR (gst_cuda_mean_shift_prepare_frame);
  base_class->finish_frame =
      GST_DEBUG_FUNCPTR (gst_cuda_mean_shift_finish_frame);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_MEAN_SHIFT_KERNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_MEAN_SHIFT_MODE, 0);
  /* register the meta when the element class is made */
  gst_cuda_mean_shift_labels_meta_register ();
}

static void
gst_cuda_mean_shift_init (GstCudaMeanShift * self)
{
  gint i;

  self->spatial_radius = DEFAULT_SPATIAL_RADIUS;
  self->color_radius = DEFAULT_COLOR_RADIUS;
  self->kernel = DEFAULT_KERNEL;
  self->max_iterations = DEFAULT_MAX_ITERATIONS;
  self->epsilon = DEFAULT_EPSILON;
  self->mode = DEFAULT_MODE;
  self->min_segment_size = DEFAULT_MIN_SEGMENT_SIZE;
  for (i = 0; i < 4; i++)
    self->roi[i] = 0;
  for (i = 0; i < 3; i++) {
    self->color_min[i] = 0;
    self->color_max[i] = 255;
  }
}
