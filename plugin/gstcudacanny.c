/* gst-cuda-vision: cudacanny, Canny edge detection.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudacanny
 * @title: cudacanny
 *
 * Canny edge detection (J. Canny, 1986) of the frame's luma, on the GPU
 * (CUDA) or, where there is none, on the CPU with bit-identical results:
 * the same edges as OpenCV's cv::Canny (image, edges, low-threshold,
 * high-threshold, kernel-size, l2-gradient) on the same 8-bit luma.
 *
 * The luma Y is the Y plane of I420/NV12, the GRAY8 value, or for RGB
 * formats the BT.601 luma in 8-bit fixed point
 * Y = (77 R + 150 G + 29 B + 128) >> 8. Its Sobel derivatives (aperture
 * kernel-size, border replicated) give a gradient magnitude (|dx| + |dy|,
 * or with l2-gradient sqrt (dx² + dy²)); pixels that are not a local
 * maximum across the edge are dropped; the others are strong edges above
 * high-threshold, candidates above low-threshold, and a candidate is kept
 * when it is 8-connected to a strong edge through candidates. The output
 * is 255 on edges and 0 elsewhere: GRAY8, or NV12 / I420 with the edges in
 * Y and neutral chroma (128), as cudasobel's.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! cudacanny ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc num-buffers=30 ! cudacanny low-threshold=30 high-threshold=90 l2-gradient=true ! videoconvert ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacanny.h"
#include "gstcvedgemap.h"
#include "cvcanny.h"
#include "canny_core.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_canny_debug);
#define GST_CAT_DEFAULT gst_cuda_canny_debug

#define DEFAULT_LOW_THRESHOLD 50.0
#define DEFAULT_HIGH_THRESHOLD 150.0
#define DEFAULT_KERNEL_SIZE 3
#define DEFAULT_L2_GRADIENT FALSE

enum
{
  PROP_0,
  PROP_LOW_THRESHOLD,
  PROP_HIGH_THRESHOLD,
  PROP_KERNEL_SIZE,
  PROP_L2_GRADIENT,
};

struct _GstCudaCanny
{
  GstCudaVisionBase parent;

  /* properties, GST_OBJECT_LOCK */
  gdouble low_threshold;
  gdouble high_threshold;
  guint kernel_size;
  gboolean l2_gradient;
};

#define SINK_FORMATS GST_CV_EDGE_MAP_SINK_FORMATS
#define SRC_FORMATS GST_CV_EDGE_MAP_SRC_FORMATS

#define gst_cuda_canny_parent_class parent_class
G_DEFINE_TYPE (GstCudaCanny, gst_cuda_canny, GST_TYPE_CUDA_VISION_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudacanny, "cudacanny", GST_RANK_NONE,
    GST_TYPE_CUDA_CANNY);

static void
gst_cuda_canny_get_params (GstCudaVisionBase * base, gpointer params)
{
  GstCudaCanny *self = GST_CUDA_CANNY (base);
  CvCannyParams *p = params;

  GST_OBJECT_LOCK (self);
  p->low_threshold = self->low_threshold;
  p->high_threshold = self->high_threshold;
  p->kernel_size = (int) self->kernel_size;
  p->l2_gradient = self->l2_gradient ? 1 : 0;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_canny_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCanny *self = GST_CUDA_CANNY (object);
  gchar *rejected = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOW_THRESHOLD:
      self->low_threshold = g_value_get_double (value);
      break;
    case PROP_HIGH_THRESHOLD:
      self->high_threshold = g_value_get_double (value);
      break;
    case PROP_KERNEL_SIZE:
      rejected = gst_cv_edge_map_set_kernel_size (&self->kernel_size,
          g_value_get_uint (value));
      break;
    case PROP_L2_GRADIENT:
      self->l2_gradient = g_value_get_boolean (value);
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
gst_cuda_canny_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaCanny *self = GST_CUDA_CANNY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOW_THRESHOLD:
      g_value_set_double (value, self->low_threshold);
      break;
    case PROP_HIGH_THRESHOLD:
      g_value_set_double (value, self->high_threshold);
      break;
    case PROP_KERNEL_SIZE:
      g_value_set_uint (value, self->kernel_size);
      break;
    case PROP_L2_GRADIENT:
      g_value_set_boolean (value, self->l2_gradient);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_canny_class_init (GstCudaCannyClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaVisionBaseClass *base_class = GST_CUDA_VISION_BASE_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_canny_debug, "cudacanny", 0,
      "Canny edge detection");

  gobject_class->set_property = gst_cuda_canny_set_property;
  gobject_class->get_property = gst_cuda_canny_get_property;

  /**
   * GstCudaCanny:low-threshold:
   * The hysteresis' lower threshold (cv::Canny's threshold1), in units of
   * the gradient magnitude of 8-bit luma (|dx| + |dy|, or sqrt (dx² + dy²)
   * with l2-gradient; for kernel-size 7 before the derivatives' division
   * by 16), 0..1e6, default 50. Candidates must exceed it. If it is above
   * high-threshold the two are swapped. Controllable; takes effect at the
   * next frame.
   */
  g_object_class_install_property (gobject_class, PROP_LOW_THRESHOLD,
      g_param_spec_double ("low-threshold", "Low threshold",
          "Hysteresis lower threshold on the gradient magnitude (edges are "
          "continued above it)", 0, CV_CANNY_MAX_THRESHOLD,
          DEFAULT_LOW_THRESHOLD, flags));
  /**
   * GstCudaCanny:high-threshold:
   * The hysteresis' upper threshold (cv::Canny's threshold2), same units,
   * 0..1e6, default 150: pixels whose magnitude exceeds it start edges.
   * Controllable; takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_HIGH_THRESHOLD,
      g_param_spec_double ("high-threshold", "High threshold",
          "Hysteresis upper threshold on the gradient magnitude (edges start "
          "above it)", 0, CV_CANNY_MAX_THRESHOLD, DEFAULT_HIGH_THRESHOLD,
          flags));
  /**
   * GstCudaCanny:kernel-size:
   * The Sobel aperture of the derivatives (cv::Canny's apertureSize): 3,
   * 5 or 7 pixels, default 3. Other values are refused with a warning on
   * the bus and the previous value kept. Controllable; takes effect at the
   * next frame.
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL_SIZE,
      g_param_spec_uint ("kernel-size", "Kernel size",
          "Sobel aperture in pixels: 3, 5 or 7", 3, CV_SOBEL_MAX_KSIZE,
          DEFAULT_KERNEL_SIZE, flags));
  /**
   * GstCudaCanny:l2-gradient:
   * The magnitude: FALSE (default) |dx| + |dy|, TRUE sqrt (dx² + dy²)
   * (cv::Canny's L2gradient). Controllable; takes effect at the next
   * frame.
   */
  g_object_class_install_property (gobject_class, PROP_L2_GRADIENT,
      g_param_spec_boolean ("l2-gradient", "L2 gradient",
          "Gradient magnitude sqrt (dx² + dy²) instead of |dx| + |dy|",
          DEFAULT_L2_GRADIENT, flags));

  gst_cuda_vision_base_class_add_pad_templates (element_class, SINK_FORMATS,
      SRC_FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA Canny edge detector", "Filter/Effect/Video/Hardware",
      "Canny edge detection of the luma (as OpenCV's cv::Canny), on the "
      "GPU or the CPU", GST_CUDA_VISION_AUTHOR);

  base_class->cpu_ops = &cv_canny_cpu_ops;
  base_class->cuda_ops = &cv_canny_cuda_ops;
  base_class->op_info_size = sizeof (CvEdgeMapInfo);
  base_class->params_size = sizeof (CvCannyParams);
  base_class->get_params = GST_DEBUG_FUNCPTR (gst_cuda_canny_get_params);
  /* an edge map of the input's size (gstcvedgemap.c) */
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cv_edge_map_set_info);
  base_class->transform_format_caps =
      GST_DEBUG_FUNCPTR (gst_cv_edge_map_transform_format_caps);
}

static void
gst_cuda_canny_init (GstCudaCanny * self)
{
  self->low_threshold = DEFAULT_LOW_THRESHOLD;
  self->high_threshold = DEFAULT_HIGH_THRESHOLD;
  self->kernel_size = DEFAULT_KERNEL_SIZE;
  self->l2_gradient = DEFAULT_L2_GRADIENT;
}
