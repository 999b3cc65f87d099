/* gst-cuda-vision: cudaconvolve, convolution filters and fused filter
 * chains (seed 001).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudaconvolve
 * @title: cudaconvolve
 *
 * 2-D convolution filters (blur, gaussian, sharpen, edge-detect and a
 * custom kernel of up to 31x31) and chains of them, on the GPU (CUDA) or,
 * where there is none, on the CPU with bit-identical results.
 *
 * `filters` is a comma-separated chain applied in order, e.g.
 * `filters=blur,edge-detect`. Every colour channel (and every plane of
 * I420/NV12, at its own resolution) is filtered independently; alpha/x
 * bytes are copied. Every stage's result is rounded (half up) and
 * saturated to 0..255, and the next stage applies the border rule to that
 * 8-bit frame: a chain gives exactly what the same filters give as
 * consecutive elements. On the GPU a chain runs as one pass per plane with
 * the intermediates in shared memory. See docs/cudaconvolve.md and
 * kernels/cvconvolve.h for the exact arithmetic.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! cudaconvolve filters=blur,edge-detect ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! cudaconvolve filters=custom kernel="<0.0,-1.0,0.0,-1.0,5.0,-1.0,0.0,-1.0,0.0>" border-mode=replicate ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudaconvolve.h"
#include "cvconvolve.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_convolve_debug);
#define GST_CAT_DEFAULT gst_cuda_convolve_debug

#define DEFAULT_FILTERS "blur"
#define DEFAULT_BORDER_MODE GST_CUDA_CONVOLVE_BORDER_REFLECT_101

enum
{
  PROP_0,
  PROP_FILTERS,
  PROP_KERNEL,
  PROP_BORDER_MODE,
};

struct _GstCudaConvolve
{
  GstCudaVisionBase parent;

  /* properties, GST_OBJECT_LOCK: the chain ready to be copied per frame
   * (filters, border mode, custom kernel and its separable factors) */
  CvConvolveParams params;
  gchar *filters;
};

#define FORMATS "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR }"

#define gst_cuda_convolve_parent_class parent_class
G_DEFINE_TYPE (GstCudaConvolve, gst_cuda_convolve, GST_TYPE_CUDA_VISION_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudaconvolve, "cudaconvolve", GST_RANK_NONE,
    GST_TYPE_CUDA_CONVOLVE);

GType
gst_cuda_convolve_border_mode_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CONVOLVE_BORDER_CONSTANT, "Pixels outside the frame are 0",
        "constant"},
    {GST_CUDA_CONVOLVE_BORDER_REPLICATE,
        "Repeat the edge pixel (aaa|abcd|ddd)", "replicate"},
    {GST_CUDA_CONVOLVE_BORDER_REFLECT_101,
        "Mirror without repeating the edge pixel (dcb|abcd|cba), "
          "reflect-101", "reflect"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType t = g_enum_register_static ("GstCudaConvolveBorderMode", values);
    g_once_init_leave (&id, t);
  }
  return (GType) id;
}

/* the C interface's border mode (OpenCV's values) of a property value,
 * and back */
static CvBorderMode
border_mode_to_cv (gint mode)
{
  switch (mode) {
    case GST_CUDA_CONVOLVE_BORDER_CONSTANT:
      return CV_BORDER_CONSTANT;
    case GST_CUDA_CONVOLVE_BORDER_REPLICATE:
      return CV_BORDER_REPLICATE;
    default:
      return CV_BORDER_REFLECT_101;
  }
}

static gint
border_mode_from_cv (CvBorderMode mode)
{
  switch (mode) {
    case CV_BORDER_CONSTANT:
      return GST_CUDA_CONVOLVE_BORDER_CONSTANT;
    case CV_BORDER_REPLICATE:
      return GST_CUDA_CONVOLVE_BORDER_REPLICATE;
    default:
      return GST_CUDA_CONVOLVE_BORDER_REFLECT_101;
  }
}

static const struct
{
  const gchar *name;
  CvFilterKind kind;
} filter_names[] = {
  {"blur", CV_FILTER_BLUR},
  {"gaussian", CV_FILTER_GAUSSIAN},
  {"sharpen", CV_FILTER_SHARPEN},
  {"edge-detect", CV_FILTER_EDGE_DETECT},
  {"custom", CV_FILTER_CUSTOM},
};

/* Parse a comma-separated chain ("blur,edge-detect"; blanks around names
 * are ignored). Returns FALSE with *error set for an empty string, an
 * empty element (",,"), an unknown name or more than
 * CV_CONVOLVE_MAX_CHAIN filters. */
static gboolean
parse_filters (const gchar * str, int *filters, int *n_filters, gchar ** error)
{
  gchar **names;
  guint i, j, n;

  if (!str || !*str) {
    *error = g_strdup ("the chain is empty");
    return FALSE;
  }
  names = g_strsplit (str, ",", -1);
  n = g_strv_length (names);
  if (n > CV_CONVOLVE_MAX_CHAIN) {
    *error = g_strdup_printf ("%u filters, at most %d", n,
        CV_CONVOLVE_MAX_CHAIN);
    g_strfreev (names);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    const gchar *name = g_strstrip (names[i]);

    for (j = 0; j < G_N_ELEMENTS (filter_names); j++)
      if (!strcmp (name, filter_names[j].name))
        break;
    if (j == G_N_ELEMENTS (filter_names)) {
      *error = *name ? g_strdup_printf ("unknown filter \"%s\" (known: blur, "
          "gaussian, sharpen, edge-detect, custom)", name) :
          g_strdup_printf ("empty filter name at position %u", i + 1);
      g_strfreev (names);
      return FALSE;
    }
    filters[i] = filter_names[j].kind;
  }
  *n_filters = n;
  g_strfreev (names);
  return TRUE;
}

/* Read a GstValueArray of numbers into a square odd kernel. */
static gboolean
parse_kernel (const GValue * value, float *kernel, int *ksize, gchar ** error)
{
  guint n = gst_value_array_get_size (value), i;
  int k;

  for (k = 1; k <= CV_CONVOLVE_MAX_KSIZE; k += 2)
    if ((guint) (k * k) == n)
      break;
  if (k > CV_CONVOLVE_MAX_KSIZE) {
    *error = g_strdup_printf ("%u coefficients: need k*k for an odd k in "
        "1..%d (1, 9, 25, ..., 961)", n, CV_CONVOLVE_MAX_KSIZE);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    GValue f = G_VALUE_INIT;

    g_value_init (&f, G_TYPE_FLOAT);
    if (!g_value_transform (v, &f)) {
      *error = g_strdup_printf ("coefficient %u is a %s, not a number", i,
          G_VALUE_TYPE_NAME (v));
      return FALSE;
    }
    kernel[i] = g_value_get_float (&f);
    if (!isfinite (kernel[i])) {
      *error = g_strdup_printf ("coefficient %u is not finite", i);
      return FALSE;
    }
  }
  *ksize = k;
  return TRUE;
}

static gboolean
gst_cuda_convolve_set_info (GstCudaVisionBase * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info, gpointer op_info)
{
  CvConvolveInfo *info = op_info;
  guint p;

  if (GST_VIDEO_INFO_FORMAT (in_info) != GST_VIDEO_INFO_FORMAT (out_info) ||
      GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (out_info) ||
      GST_VIDEO_INFO_HEIGHT (in_info) != GST_VIDEO_INFO_HEIGHT (out_info)) {
    GST_ERROR_OBJECT (base, "output must have the input's format and size");
    return FALSE;
  }
  info->width = GST_VIDEO_INFO_WIDTH (in_info);
  info->height = GST_VIDEO_INFO_HEIGHT (in_info);
  info->n_planes = GST_VIDEO_INFO_N_PLANES (in_info);
  /* every plane at its own size; the colour bytes of a pixel are filtered,
   * alpha/x (byte 3 of the 4-byte formats) copied */
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (in_info); p++) {
    info->bpp[p] = gst_cuda_vision_plane_pixel_stride (in_info, p);
    info->channels[p] = MIN (info->bpp[p], 3);
  }
  switch (GST_VIDEO_INFO_FORMAT (in_info)) {
    case GST_VIDEO_FORMAT_GRAY8:
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      return TRUE;
    default:
      GST_ERROR_OBJECT (base, "unsupported format %s",
          GST_VIDEO_INFO_NAME (in_info));
      return FALSE;
  }
}

static void
gst_cuda_convolve_get_params (GstCudaVisionBase * base, gpointer params)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (base);

  GST_OBJECT_LOCK (self);
  memcpy (params, &self->params, sizeof (CvConvolveParams));
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_convolve_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (object);
  gchar *error = NULL;

  switch (prop_id) {
    case PROP_FILTERS:{
      const gchar *str = g_value_get_string (value);
      int filters[CV_CONVOLVE_MAX_CHAIN], n;

      if (!parse_filters (str, filters, &n, &error)) {
        gchar *kept;

        GST_OBJECT_LOCK (self);
        kept = g_strdup (self->filters);
        GST_OBJECT_UNLOCK (self);
        gst_cuda_vision_base_post_rejection (GST_CUDA_VISION_BASE (self),
            g_strdup_printf ("filters \"%s\" rejected: %s; keeping \"%s\"",
                GST_STR_NULL (str), error, kept));
        g_free (kept);
        break;
      }
      GST_OBJECT_LOCK (self);
      memcpy (self->params.filters, filters, sizeof (int) * n);
      self->params.n_filters = n;
      g_free (self->filters);
      self->filters = g_strdup (str);
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_KERNEL:{
      CvConvolveParams p;

      GST_OBJECT_LOCK (self);
      p = self->params;
      GST_OBJECT_UNLOCK (self);
      if (!parse_kernel (value, p.kernel, &p.ksize, &error)) {
        gst_cuda_vision_base_post_rejection (GST_CUDA_VISION_BASE (self),
            g_strdup_printf ("kernel rejected: %s; keeping the previous "
                "%dx%d kernel", error, p.ksize, p.ksize));
        break;
      }
      cv_convolve_params_prepare (&p);
      GST_DEBUG_OBJECT (self, "%dx%d kernel, %sseparable", p.ksize, p.ksize,
          p.separable ? "" : "not ");
      GST_OBJECT_LOCK (self);
      self->params.ksize = p.ksize;
      memcpy (self->params.kernel, p.kernel, sizeof (p.kernel));
      self->params.separable = p.separable;
      memcpy (self->params.krow, p.krow, sizeof (p.krow));
      memcpy (self->params.kcol, p.kcol, sizeof (p.kcol));
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_BORDER_MODE:
      GST_OBJECT_LOCK (self);
      self->params.border_mode = border_mode_to_cv (g_value_get_enum (value));
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_free (error);
}

static void
gst_cuda_convolve_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FILTERS:
      g_value_set_string (value, self->filters);
      break;
    case PROP_KERNEL:{
      int i;
      GValue v = G_VALUE_INIT;

      g_value_init (&v, G_TYPE_FLOAT);
      for (i = 0; i < self->params.ksize * self->params.ksize; i++) {
        g_value_set_float (&v, self->params.kernel[i]);
        gst_value_array_append_value (value, &v);
      }
      g_value_unset (&v);
      break;
    }
    case PROP_BORDER_MODE:
      g_value_set_enum (value, border_mode_from_cv (self->params.border_mode));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_convolve_finalize (GObject * object)
{
  GstCudaConvolve *self = GST_CUDA_CONVOLVE (object);

  g_free (self->filters);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_convolve_class_init (GstCudaConvolveClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaVisionBaseClass *base_class = GST_CUDA_VISION_BASE_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_convolve_debug, "cudaconvolve", 0,
      "Convolution filters and fused filter chains");

  gobject_class->set_property = gst_cuda_convolve_set_property;
  gobject_class->get_property = gst_cuda_convolve_get_property;
  gobject_class->finalize = gst_cuda_convolve_finalize;

  /**
   * GstCudaConvolve:filters:
   * Comma-separated chain of filters applied in order: blur (3x3 box,
   * 1/9), gaussian (3x3, [1 2 1]^T[1 2 1]/16), sharpen
   * ([0,-1,0;-1,5,-1;0,-1,0]), edge-detect ([0,-1,0;-1,4,-1;0,-1,0]),
   * custom (the `kernel` property); 1 to 8 filters, blanks around names
   * ignored. An empty or malformed string, an unknown name or more than 8
   * filters is rejected with a warning and the previous chain kept.
   * Default "blur". Takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_FILTERS,
      g_param_spec_string ("filters", "Filters",
          "Comma-separated chain applied in order: blur, gaussian, sharpen, "
          "edge-detect, custom (1..8 filters; invalid strings are rejected "
          "with a warning and the previous chain kept)", DEFAULT_FILTERS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaConvolve:kernel:
   * Weights of the `custom` filter, row-major, k*k floats for an odd k in
   * 1..31 (a correlation like OpenCV's filter2D: not flipped). Another
   * count, or a value that is not a finite number, is rejected with a
   * warning and the previous kernel kept. Default: the 1x1 identity <1.0>.
   * Rank-1 kernels take the separable path. Takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      gst_param_spec_array ("kernel", "Kernel",
          "Weights of the custom filter, row-major, k*k for an odd k in "
          "1..31 (other counts are rejected with a warning)",
          g_param_spec_float ("weight", "Weight", "One kernel weight",
              -G_MAXFLOAT, G_MAXFLOAT, 0.0f,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS),
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaConvolve:border-mode:
   * What every stage reads outside its input frame: constant (0),
   * replicate (edge pixel) or reflect (reflect-101, dcb|abcd|cba, as
   * OpenCV's BORDER_DEFAULT), default reflect. Controllable; takes effect at
   * the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_BORDER_MODE,
      g_param_spec_enum ("border-mode", "Border mode",
          "Pixels outside the frame: constant (0), replicate or reflect "
          "(reflect-101)", GST_TYPE_CUDA_CONVOLVE_BORDER_MODE,
          DEFAULT_BORDER_MODE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING));

  gst_cuda_vision_base_class_add_pad_templates (element_class, FORMATS,
      FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA convolution filters", "Filter/Effect/Video/Hardware",
      "Blur, gaussian, sharpen, edge-detect and custom convolution kernels "
      "and fused chains of them, on the GPU or the CPU",
      GST_CUDA_VISION_AUTHOR);

  base_class->cpu_ops = &cv_convolve_cpu_ops;
  base_class->cuda_ops = &cv_convolve_cuda_ops;
  base_class->op_info_size = sizeof (CvConvolveInfo);
  base_class->params_size = sizeof (CvConvolveParams);
  base_class->get_params = GST_DEBUG_FUNCPTR (gst_cuda_convolve_get_params);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_convolve_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CONVOLVE_BORDER_MODE, 0);
}

static void
gst_cuda_convolve_init (GstCudaConvolve * self)
{
  memset (&self->params, 0, sizeof (self->params));
  self->params.n_filters = 1;
  self->params.filters[0] = CV_FILTER_BLUR;
  self->params.border_mode = border_mode_to_cv (DEFAULT_BORDER_MODE);
  self->params.ksize = 1;
  self->params.kernel[0] = 1.0f;
  cv_convolve_params_prepare (&self->params);
  self->filters = g_strdup (DEFAULT_FILTERS);
}
