/* gst-cuda-vision: cudasobel, Sobel edge detection (seed 000).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudasobel
 * @title: cudasobel
 *
 * Sobel edge detection: the gradient magnitude of the frame's luma,
 * on the GPU (CUDA) or, where there is none, on the CPU with bit-identical
 * results.
 *
 * For every pixel, with Y the luma (the Y plane of I420/NV12, the GRAY8
 * value, or for RGB formats the BT.601 luma in 8-bit fixed point
 * Y = (77 R + 150 G + 29 B + 128) >> 8):
 *
 *   in  = clamp (Y + brightness, 0, 255)
 *   Gx  = [-1 0 1; -2 0 2; -1 0 1] * in,   Gy = [-1 -2 -1; 0 0 0; 1 2 1] * in
 *   m   = min (255, floor (sqrt (Gx² + Gy²)))     (norm=l2, the default)
 *   m   = min (255, |Gx| + |Gy|)                  (norm=l1)
 *   out = m > threshold ? m : 0
 *
 * kernel-size=5 or 7 uses OpenCV's larger Sobel kernels (cv::Sobel
 * ksize=5, 7, unnormalised: m is the magnitude of cv::Sobel clamped to
 * 255).
 *
 * Pixels outside the frame replicate the nearest edge pixel (OpenCV's
 * BORDER_REPLICATE). The output is an edge map of the input's size: GRAY8,
 * or NV12 / I420 with the edges in Y and neutral chroma (128), the formats
 * that CUDA memory can carry between GPU elements (GStreamer 1.22's CUDA
 * allocator has no GRAY8). GRAY8 is preferred where downstream accepts it.
 *
 * In a GPU pipeline frames stay in CUDA memory:
 * |[
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location=vtest-h264.mp4
 * gst-launch-1.0 filesrc location=vtest-h264.mp4 ! parsebin ! nvh264dec ! cudasobel ! cudadownload ! videoconvert ! autovideosink
 * ]|
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! cudasobel threshold=40 ! videoconvert ! autovideosink
gst-launch-1.0 videotestsrc num-buffers=30 ! cudasobel kernel-size=5 norm=l1 ! videoconvert ! fakesink
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! cudasobel ! videoconvert ! jpegenc ! avimux ! filesink location=edges.avi
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasobel.h"
#include "gstcvedgemap.h"
#include "cvsobel.h"
#include "sobel_core.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sobel_debug);
#define GST_CAT_DEFAULT gst_cuda_sobel_debug

#define DEFAULT_THRESHOLD 0
#define DEFAULT_BRIGHTNESS 0
#define DEFAULT_KERNEL_SIZE 3
#define DEFAULT_NORM GST_CUDA_SOBEL_NORM_L2

enum
{
  PROP_0,
  PROP_THRESHOLD,
  PROP_BRIGHTNESS,
  PROP_KERNEL_SIZE,
  PROP_NORM,
};

struct _GstCudaSobel
{
  GstCudaVisionBase parent;

  /* properties, GST_OBJECT_LOCK */
  guint threshold;
  gint brightness;
  guint kernel_size;
  GstCudaSobelNorm norm;
};

#define SINK_FORMATS GST_CV_EDGE_MAP_SINK_FORMATS
#define SRC_FORMATS GST_CV_EDGE_MAP_SRC_FORMATS

#define gst_cuda_sobel_parent_class parent_class
G_DEFINE_TYPE (GstCudaSobel, gst_cuda_sobel, GST_TYPE_CUDA_VISION_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudasobel, "cudasobel", GST_RANK_NONE,
    GST_TYPE_CUDA_SOBEL);

GType
gst_cuda_sobel_norm_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_SOBEL_NORM_L2, "Euclidean: sqrt (Gx² + Gy²)", "l2"},
    {GST_CUDA_SOBEL_NORM_L1, "Sum of absolute values: |Gx| + |Gy|", "l1"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaSobelNorm", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void
gst_cuda_sobel_get_params (GstCudaVisionBase * base, gpointer params)
{
  GstCudaSobel *self = GST_CUDA_SOBEL (base);
  CvSobelParams *p = params;

  GST_OBJECT_LOCK (self);
  p->brightness = self->brightness;
  p->threshold = self->threshold;
  p->kernel_size = (int) self->kernel_size;
  p->norm = self->norm == GST_CUDA_SOBEL_NORM_L1 ? CV_SOBEL_NORM_L1 :
      CV_SOBEL_NORM_L2;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_sobel_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSobel *self = GST_CUDA_SOBEL (object);
  gchar *rejected = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD:
      self->threshold = g_value_get_uint (value);
      break;
    case PROP_BRIGHTNESS:
      self->brightness = g_value_get_int (value);
      break;
    case PROP_KERNEL_SIZE:
      rejected = gst_cv_edge_map_set_kernel_size (&self->kernel_size,
          g_value_get_uint (value));
      break;
    case PROP_NORM:
      self->norm = g_value_get_enum (value);
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
gst_cuda_sobel_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaSobel *self = GST_CUDA_SOBEL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_THRESHOLD:
      g_value_set_uint (value, self->threshold);
      break;
    case PROP_BRIGHTNESS:
      g_value_set_int (value, self->brightness);
      break;
    case PROP_KERNEL_SIZE:
      g_value_set_uint (value, self->kernel_size);
      break;
    case PROP_NORM:
      g_value_set_enum (value, self->norm);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_sobel_class_init (GstCudaSobelClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaVisionBaseClass *base_class = GST_CUDA_VISION_BASE_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sobel_debug, "cudasobel", 0,
      "Sobel edge detection");

  gobject_class->set_property = gst_cuda_sobel_set_property;
  gobject_class->get_property = gst_cuda_sobel_get_property;

  /**
   * GstCudaSobel:threshold:
   * Edge magnitudes at or below this value become 0 (out = m > threshold ?
   * m : 0), in 8-bit magnitude levels, 0..255, default 0 (every non-zero
   * magnitude kept). Controllable; takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_uint ("threshold", "Threshold",
          "Gradient magnitudes <= threshold are set to 0 (0..255)", 0, 255,
          DEFAULT_THRESHOLD, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaSobel:brightness:
   * Offset added to the luma before filtering, in 8-bit luma levels,
   * -255..255, default 0; the sum is clamped to 0..255. Controllable; takes
   * effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_BRIGHTNESS,
      g_param_spec_int ("brightness", "Brightness",
          "Offset added to the luma before filtering, result clamped to "
          "0..255", -255, 255, DEFAULT_BRIGHTNESS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaSobel:kernel-size:
   * The Sobel aperture: 3 (the classic 3x3 kernels), 5 or 7 (OpenCV's
   * unnormalised cv::Sobel kernels of that size), in pixels, default 3.
   * Other values (even ones, 1, 9...) are refused with a warning on the bus
   * and the previous value kept. Controllable; takes effect at the next
   * frame.
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL_SIZE,
      g_param_spec_uint ("kernel-size", "Kernel size",
          "Sobel aperture in pixels: 3, 5 or 7 (OpenCV's kernels)", 3,
          CV_SOBEL_MAX_KSIZE, DEFAULT_KERNEL_SIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaSobel:norm:
   * The gradient magnitude: l2 = floor (sqrt (Gx² + Gy²)) (default, as
   * before this property existed), l1 = |Gx| + |Gy|; clamped to 255.
   * Controllable; takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_NORM,
      g_param_spec_enum ("norm", "Norm",
          "Gradient magnitude: l2 = sqrt (Gx² + Gy²), l1 = |Gx| + |Gy|",
          GST_TYPE_CUDA_SOBEL_NORM, DEFAULT_NORM,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING));
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SOBEL_NORM, 0);

  gst_cuda_vision_base_class_add_pad_templates (element_class, SINK_FORMATS,
      SRC_FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA Sobel edge detector", "Filter/Effect/Video/Hardware",
      "Sobel gradient magnitude of the luma with brightness offset and "
      "threshold, on the GPU or the CPU", GST_CUDA_VISION_AUTHOR);

  base_class->cpu_ops = &cv_sobel_cpu_ops;
  base_class->cuda_ops = &cv_sobel_cuda_ops;
  base_class->op_info_size = sizeof (CvEdgeMapInfo);
  base_class->params_size = sizeof (CvSobelParams);
  base_class->get_params = GST_DEBUG_FUNCPTR (gst_cuda_sobel_get_params);
  /* an edge map of the input's size (gstcvedgemap.c) */
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cv_edge_map_set_info);
  base_class->transform_format_caps =
      GST_DEBUG_FUNCPTR (gst_cv_edge_map_transform_format_caps);
}

static void
gst_cuda_sobel_init (GstCudaSobel * self)
{
  self->threshold = DEFAULT_THRESHOLD;
  self->brightness = DEFAULT_BRIGHTNESS;
  self->kernel_size = DEFAULT_KERNEL_SIZE;
  self->norm = DEFAULT_NORM;
}
