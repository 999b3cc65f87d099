/* gst-cuda-vision: cudanlmeans, non-local-means denoising (seed 004).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudanlmeans
 * @title: cudanlmeans
 *
 * Non-local-means denoising (A. Buades, B. Coll, J.-M. Morel, "A non-local
 * algorithm for image denoising", CVPR 2005) on the GPU (CUDA) or, where
 * there is none, on the CPU (same single-precision formulation, within
 * 1 LSB). Every pixel becomes the average of the pixels of its search window
 * weighted by the similarity of their neighbourhoods:
 *
 *   out(x) = sum_y w(x,y) f(y) / sum_y w(x,y)
 *   w(x,y) = exp (-max (d²(x,y) - 2 sigma², 0) / h²)
 *
 * d² is the squared distance between the patch around x and the patch
 * around y, weighted by a Gaussian of standard deviation patch-sigma centred
 * on the patch and divided by the sum of those weights (uniform weights when
 * patch-sigma is 0), averaged over the colour components. Patch pixels
 * outside the frame are read with symmetric padding (MATLAB padarray
 * 'symmetric': ... c b a | a b c ...); the search window is clipped to the
 * frame. Output is rounded to nearest and saturated to 0..255.
 *
 * Formats: GRAY8; I420 and NV12 (the luma with h, the chroma planes, U and
 * V together, with h-color; h-color=0 copies them unchanged); RGB, BGR,
 * RGBA, BGRA, RGBx, BGRx: rgb-mode=ycrcb (default) converts them to YCrCb
 * with OpenCV's 8-bit integer maths (cv::cvtColor COLOR_RGB2YCrCb),
 * denoises Y with h and Cr, Cb together with h-color (0: kept), and
 * converts back (COLOR_YCrCb2RGB): the same luminance / colour split as
 * the I420 path; rgb-mode=joint-rgb denoises R, G, B together with h (one
 * weight per pixel from the colour patch distance, h-color unused: the
 * behaviour before rgb-mode). Alpha/padding bytes are copied. The output
 * has the input's format and size.
 *
 * temporal-window=N (odd, up to 7) extends the search over the (N-1)/2
 * previous and next frames with the weights of OpenCV's
 * fastNlMeansDenoisingMulti; the window shrinks symmetrically at the first
 * and last frames of a stream. The element then holds (N-1)/2 frames
 * (reported in the LATENCY query, drained at EOS and caps changes,
 * discarded on flush); frames and timestamps are unchanged.
 *
 * The seed (MATLAB/CUDA, images in [0,1]) uses w = exp (-d²/filtSigma²)
 * with filtSigma = 0.02: on 8-bit data the same weights come from
 * h = 255 * filtSigma = 5.1 (and sigma = 0).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! cudanlmeans h=12 ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/vtest.avi ! decodebin ! videoconvert ! video/x-raw,format=I420 ! cudanlmeans temporal-window=5 h=14 h-color=14 sigma=20 ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=/usr/share/doc/opencv-doc/examples/data/fruits.jpg ! jpegdec ! videoconvert ! videoscale ! video/x-raw,format=GRAY8,width=128,height=120 ! cudanlmeans search-window=0 patch-size=5 h=5.1 ! videoconvert ! pngenc ! filesink location=fruits-nlm.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudanlmeans.h"
#include "cvnlmeans.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_nl_means_debug);
#define GST_CAT_DEFAULT gst_cuda_nl_means_debug

#define DEFAULT_H 10.0
#define DEFAULT_PATCH_SIZE 7
#define DEFAULT_SEARCH_WINDOW 21
#define DEFAULT_PATCH_SIGMA (5.0 / 3.0)
#define DEFAULT_SIGMA 0.0
#define DEFAULT_H_COLOR -1.0
#define DEFAULT_TEMPORAL_WINDOW 1
#define DEFAULT_RGB_MODE GST_CUDA_NL_MEANS_RGB_YCRCB

enum
{
  PROP_0,
  PROP_H,
  PROP_PATCH_SIZE,
  PROP_SEARCH_WINDOW,
  PROP_PATCH_SIGMA,
  PROP_SIGMA,
  PROP_H_COLOR,
  PROP_TEMPORAL_WINDOW,
  PROP_RGB_MODE,
};

struct _GstCudaNlMeans
{
  GstCudaVisionBase parent;

  /* properties, GST_OBJECT_LOCK */
  gdouble h;
  guint patch_size;
  guint search_window;
  gdouble patch_sigma;
  gdouble sigma;
  gdouble h_color;
  guint temporal_window;
  GstCudaNlMeansRgbMode rgb_mode;

  /* set_info, streaming thread */
  gboolean colour;
  gboolean ycrcb;               /* colour with rgb-mode ycrcb */
  gboolean warned_patch;
  guint window;                 /* temporal-window of these caps (its
                                 * frames live in the operator) */
};

#define FORMATS "{ GRAY8, I420, NV12, RGBA, BGRA, RGBx, BGRx, RGB, BGR }"

#define gst_cuda_nl_means_parent_class parent_class
G_DEFINE_TYPE (GstCudaNlMeans, gst_cuda_nl_means, GST_TYPE_CUDA_VISION_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudanlmeans, "cudanlmeans", GST_RANK_NONE,
    GST_TYPE_CUDA_NL_MEANS);

GType
gst_cuda_nl_means_rgb_mode_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_NL_MEANS_RGB_YCRCB, "YCrCb (OpenCV integer maths): Y with h, "
          "Cr and Cb together with h-color", "ycrcb"},
    {GST_CUDA_NL_MEANS_RGB_JOINT, "R, G, B together with h (one weight per "
          "pixel; h-color unused)", "joint-rgb"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType t = g_enum_register_static ("GstCudaNlMeansRgbMode", values);
    g_once_init_leave (&id, t);
  }
  return (GType) id;
}

static gboolean
gst_cuda_nl_means_set_info (GstCudaVisionBase * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info, gpointer op_info)
{
  GstCudaNlMeans *self = GST_CUDA_NL_MEANS (base);
  CvNlMeansInfo *info = op_info;
  guint p;

  if (GST_VIDEO_INFO_FORMAT (in_info) != GST_VIDEO_INFO_FORMAT (out_info) ||
      GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (out_info) ||
      GST_VIDEO_INFO_HEIGHT (in_info) != GST_VIDEO_INFO_HEIGHT (out_info)) {
    GST_ERROR_OBJECT (self, "output must have the input's format and size");
    return FALSE;
  }
  /* GRAY8, packed RGB, or I420/NV12 whose luma is denoised and whose
   * chroma planes (1 ..) are copied unchanged */
  if (!gst_cuda_vision_luma_layout (in_info, &info->layout)) {
    GST_ERROR_OBJECT (self, "unsupported format %s",
        GST_VIDEO_INFO_NAME (in_info));
    return FALSE;
  }
  info->width = GST_VIDEO_INFO_WIDTH (in_info);
  info->height = GST_VIDEO_INFO_HEIGHT (in_info);
  info->n_planes = GST_VIDEO_INFO_N_PLANES (in_info);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (in_info); p++) {
    info->row_bytes[p] = gst_cuda_vision_plane_row_bytes (in_info, p);
    info->rows[p] = gst_cuda_vision_plane_rows (in_info, p);
  }
  self->colour = info->layout.r >= 0;
  self->warned_patch = FALSE;

  /* the temporal window of these caps: its frames after each frame are
   * the base's lookahead; the operator (made for these caps after
   * set_info) keeps the frames in its temporal ring, made for the window
   * at its creation */
  GST_OBJECT_LOCK (self);
  self->window = info->temporal_window = self->temporal_window;
  info->rgb_mode = self->rgb_mode == GST_CUDA_NL_MEANS_RGB_YCRCB ?
      CV_NLMEANS_RGB_YCRCB : CV_NLMEANS_RGB_JOINT;
  GST_OBJECT_UNLOCK (self);
  self->ycrcb = self->colour && info->rgb_mode == CV_NLMEANS_RGB_YCRCB;
  if (self->colour)
    GST_DEBUG_OBJECT (self, "RGB denoised %s", self->ycrcb ? "as YCrCb (Y "
        "with h, Cr and Cb with h-color)" : "jointly (R, G, B with h)");
  gst_cuda_vision_base_set_lookahead (base, self->window / 2);
  return TRUE;
}

static void
gst_cuda_nl_means_get_params (GstCudaVisionBase * base, gpointer params)
{
  GstCudaNlMeans *self = GST_CUDA_NL_MEANS (base);
  CvNlMeansParams *p = params;

  GST_OBJECT_LOCK (self);
  p->h = self->h;
  p->patch_size = self->patch_size;
  p->search_window = self->search_window;
  p->patch_sigma = self->patch_sigma;
  p->sigma = self->sigma;
  /* -1: as h; 0: the chroma copied */
  p->h_color = self->h_color < 0 ? self->h : self->h_color;
  GST_OBJECT_UNLOCK (self);
  p->store = p->centre = -1;
  p->radius = 0;
}

/* Seconds per pixel and search offset, measured at 1080p (patch 7,
 * search 21, docs/cudanlmeans.md): the CPU per thread, the GPU on an H100.
 * Colour frames cost about 1.35 times as much (rgb-mode=ycrcb: a grey
 * pass plus, with h-color, a colour one). */
#define NLM_CPU_S_PER_OP 4.5e-9
#define NLM_GPU_S_PER_OP 2.1e-12

/* Documented fallbacks and costly settings, on the bus: a patch larger
 * than the frame (once per caps), and the estimated cost per frame (once
 * per setting and frame size, above 1 s). */
static CvStatus
gst_cuda_nl_means_prepare_frame (GstCudaVisionBase * base,
    GstCudaVisionFrame * frame)
{
  GstCudaNlMeans *self = GST_CUDA_NL_MEANS (base);
  const CvNlMeansParams *p = frame->params;
  gboolean cuda = frame->backend == GST_CUDA_VISION_BACKEND_CUDA;
  gint w = GST_VIDEO_INFO_WIDTH (frame->in_info);
  gint h = GST_VIDEO_INFO_HEIGHT (frame->in_info);
  gint64 ox, oy;
  gdouble ops, seconds;
  gchar *setting;
  CvNlMeansParams *wp = frame->params;

  /* the frames of the window (base lookahead) */
  if (self->window > 1) {
    wp->store = frame->store;
    wp->centre = frame->centre;
    wp->radius = frame->radius;
  }

  if (!self->warned_patch && (p->patch_size > w || p->patch_size > h)) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("patch-size %d is larger "
            "than the %dx%d frame: the patch is completed by repeated "
            "symmetric reflection", p->patch_size, w, h), (NULL));
    self->warned_patch = TRUE;
  }
  /* offsets of the search window clipped to the frame */
  ox = p->search_window ? MIN (p->search_window, 2 * w - 1) : 2 * w - 1;
  oy = p->search_window ? MIN (p->search_window, 2 * h - 1) : 2 * h - 1;
  /* ycrcb: a grey pass (Y) and, with h-color, a colour-kernel pass (Cr,
   * Cb) of the frame's size */
  ops = (gdouble) w *h * ox * oy * (self->ycrcb ? (p->h_color > 0 ? 2.35 :
          1.0) : self->colour ? 1.35 : 1.0) *
      MAX (self->window, 1) * (GST_VIDEO_INFO_N_PLANES (frame->in_info) > 1
      && p->h_color > 0 ? 1.6 : 1.0);
  seconds = cuda ? ops * NLM_GPU_S_PER_OP : ops * NLM_CPU_S_PER_OP /
      gst_cuda_vision_base_cpu_threads (base);
  if (p->search_window == 0)
    setting = g_strdup_printf ("search-window=0 (the whole frame) on a %dx%d "
        "frame", w, h);
  else
    setting = g_strdup_printf ("search-window=%d on a %dx%d frame",
        p->search_window, w, h);
  gst_cuda_vision_base_check_cost (base, seconds, setting);
  g_free (setting);
  return CV_OK;
}

static gboolean
odd_in_range (guint v, guint lo, guint hi)
{
  return v >= lo && v <= hi && (v & 1);
}

static void
gst_cuda_nl_means_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaNlMeans *self = GST_CUDA_NL_MEANS (object);
  gchar *rejected = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_H:{
      gdouble v = g_value_get_double (value);
      if (v > 0)
        self->h = v;
      else
        rejected = g_strdup_printf ("h must be > 0, got %g; keeping %g", v,
            self->h);
      break;
    }
    case PROP_PATCH_SIZE:{
      guint v = g_value_get_uint (value);
      if (odd_in_range (v, 3, CV_NLMEANS_MAX_PATCH))
        self->patch_size = v;
      else
        rejected = g_strdup_printf ("patch-size must be odd (3..%d), got %u; "
            "keeping %u", CV_NLMEANS_MAX_PATCH, v, self->patch_size);
      break;
    }
    case PROP_SEARCH_WINDOW:{
      guint v = g_value_get_uint (value);
      if (v == 0 || odd_in_range (v, 3, CV_NLMEANS_MAX_SEARCH))
        self->search_window = v;
      else
        rejected = g_strdup_printf ("search-window must be 0 or odd "
            "(3..%d), got %u; keeping %u", CV_NLMEANS_MAX_SEARCH, v,
            self->search_window);
      break;
    }
    case PROP_PATCH_SIGMA:
      self->patch_sigma = g_value_get_double (value);
      break;
    case PROP_SIGMA:
      self->sigma = g_value_get_double (value);
      break;
    case PROP_H_COLOR:{
      gdouble v = g_value_get_double (value);
      if (v >= 0 || v == -1)
        self->h_color = v;
      else
        rejected = g_strdup_printf ("h-color must be -1 (as h), 0 (chroma "
            "unchanged) or > 0, got %g; keeping %g", v, self->h_color);
      break;
    }
    case PROP_RGB_MODE:
      self->rgb_mode = g_value_get_enum (value);
      break;
    case PROP_TEMPORAL_WINDOW:{
      guint v = g_value_get_uint (value);
      if (odd_in_range (v, 1, CV_NLMEANS_MAX_TEMPORAL))
        self->temporal_window = v;
      else
        rejected = g_strdup_printf ("temporal-window must be odd (1..%d), "
            "got %u; keeping %u", CV_NLMEANS_MAX_TEMPORAL, v,
            self->temporal_window);
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (rejected)
    gst_cuda_vision_base_post_rejection (GST_CUDA_VISION_BASE (self), rejected);
}

static void
gst_cuda_nl_means_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaNlMeans *self = GST_CUDA_NL_MEANS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_H:
      g_value_set_double (value, self->h);
      break;
    case PROP_PATCH_SIZE:
      g_value_set_uint (value, self->patch_size);
      break;
    case PROP_SEARCH_WINDOW:
      g_value_set_uint (value, self->search_window);
      break;
    case PROP_PATCH_SIGMA:
      g_value_set_double (value, self->patch_sigma);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, self->sigma);
      break;
    case PROP_H_COLOR:
      g_value_set_double (value, self->h_color);
      break;
    case PROP_TEMPORAL_WINDOW:
      g_value_set_uint (value, self->temporal_window);
      break;
    case PROP_RGB_MODE:
      g_value_set_enum (value, self->rgb_mode);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_nl_means_class_init (GstCudaNlMeansClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaVisionBaseClass *base_class = GST_CUDA_VISION_BASE_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_nl_means_debug, "cudanlmeans", 0,
      "Non-local-means denoising");

  gobject_class->set_property = gst_cuda_nl_means_set_property;
  gobject_class->get_property = gst_cuda_nl_means_get_property;

  /**
   * GstCudaNlMeans:h:
   * Filter strength in 8-bit intensity units (w = exp (-max (d² - 2 sigma²,
   * 0) / h²)), > 0 up to 10000, default 10. 0 is refused with a GST_WARNING
   * and the previous value kept. The seed's filtSigma on [0,1] data maps to
   * h = 255 * filtSigma (0.02 -> 5.1).
   */
  g_object_class_install_property (gobject_class, PROP_H,
      g_param_spec_double ("h", "h",
          "Filter strength in 8-bit intensity units (> 0)", 0.0, 10000.0,
          DEFAULT_H, flags));
  /**
   * GstCudaNlMeans:patch-size:
   * Side of the square patch in pixels, odd, 3..11, default 7. Even values
   * are refused with a GST_WARNING and the previous value kept.
   */
  g_object_class_install_property (gobject_class, PROP_PATCH_SIZE,
      g_param_spec_uint ("patch-size", "Patch size",
          "Side of the square patch in pixels (odd, 3..11)", 3,
          CV_NLMEANS_MAX_PATCH, DEFAULT_PATCH_SIZE, flags));
  /**
   * GstCudaNlMeans:search-window:
   * Side of the square search window centred on the pixel, odd, 3..65,
   * default 21; 0 = the whole frame (as the seed; cost grows with the
   * square of the pixel count: for small frames). The window is clipped to
   * the frame. Even values and 1 are refused with a GST_WARNING and the
   * previous value kept.
   */
  g_object_class_install_property (gobject_class, PROP_SEARCH_WINDOW,
      g_param_spec_uint ("search-window", "Search window",
          "Side of the square search window in pixels (odd, 3..65), "
          "0 = whole frame", 0, CV_NLMEANS_MAX_SEARCH, DEFAULT_SEARCH_WINDOW,
          flags));
  /**
   * GstCudaNlMeans:patch-sigma:
   * Standard deviation in pixels of the Gaussian weighting the patch
   * distance (centred on the patch), 0..100, default 5/3 as the seed;
   * 0 = uniform weights (as OpenCV's fastNlMeansDenoising).
   */
  g_object_class_install_property (gobject_class, PROP_PATCH_SIGMA,
      g_param_spec_double ("patch-sigma", "Patch sigma",
          "Standard deviation of the Gaussian patch weights in pixels "
          "(0 = uniform)", 0.0, 100.0, DEFAULT_PATCH_SIGMA, flags));
  /**
   * GstCudaNlMeans:sigma:
   * Known standard deviation of the noise in 8-bit units, 0..255, default
   * 0: distances up to 2 sigma² count as identical patches (w = 1).
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Known noise standard deviation in 8-bit units", 0.0, 255.0,
          DEFAULT_SIGMA, flags));

  /**
   * GstCudaNlMeans:h-color:
   * Filter strength of the chroma of I420 and NV12 in 8-bit units: U and V
   * are denoised together (one weight per chroma pixel from their joint
   * patch distance, averaged over the two components), as OpenCV's
   * fastNlMeansDenoisingColored denoises the a and b of Lab with its
   * hColor; the same for Cr and Cb of the RGB formats with rgb-mode=ycrcb
   * (the default). -1 (default): the value of h; 0: the chroma is kept
   * (I420/NV12: the planes copied unchanged, the behaviour before this
   * property; RGB: the original Cr, Cb with the denoised Y). Other
   * negative values are refused with a GST_WARNING and the previous value
   * kept. Not used by GRAY8 and by the RGB formats with rgb-mode=joint-rgb
   * (see docs/cudanlmeans.md).
   */
  g_object_class_install_property (gobject_class, PROP_H_COLOR,
      g_param_spec_double ("h-color", "h color",
          "Filter strength of the chroma (I420/NV12 U and V, RGB with "
          "rgb-mode=ycrcb: Cr and Cb) in 8-bit units "
          "(-1 = as h, 0 = chroma unchanged)", -1.0, 10000.0,
          DEFAULT_H_COLOR, flags));
  /**
   * GstCudaNlMeans:temporal-window:
   * Frames searched for similar patches, odd, 1..7, default 1 (each frame
   * on its own). With N > 1 the search extends over the (N-1)/2 previous
   * and next frames, with the same weights as OpenCV's
   * fastNlMeansDenoisingMulti (temporalWindowSize = N); at the first and
   * last (N-1)/2 frames of a stream the window shrinks symmetrically to the
   * frames that exist (OpenCV's with the largest centred window that fits).
   * The element then holds (N-1)/2 frames: that many frame durations of
   * latency (LATENCY query), drained at EOS. Read when caps are
   * negotiated: a change takes effect at the next caps (or restart). Even
   * values are refused with a GST_WARNING and the previous value kept.
   */
  g_object_class_install_property (gobject_class, PROP_TEMPORAL_WINDOW,
      g_param_spec_uint ("temporal-window", "Temporal window",
          "Frames searched, odd (1 = each frame on its own, N: (N-1)/2 "
          "before and after, adds (N-1)/2 frames of latency)", 1,
          CV_NLMEANS_MAX_TEMPORAL, DEFAULT_TEMPORAL_WINDOW,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstCudaNlMeans:rgb-mode:
   * How the packed RGB formats (RGB, BGR, RGBA, BGRA, RGBx, BGRx) are
   * denoised. ycrcb (default): each frame is converted to YCrCb with
   * OpenCV's 8-bit integer maths (cv::cvtColor COLOR_RGB2YCrCb /
   * COLOR_BGR2YCrCb, bit-exact), once (with temporal-window, when it
   * enters the window); Y is denoised with h, Cr and Cb together (one
   * weight per pixel from their joint patch distance) with h-color (-1: h;
   * 0: Cr and Cb kept, only Y denoised), then the result is converted back
   * (COLOR_YCrCb2RGB): the same as OpenCV's cvtColor ->
   * fastNlMeansDenoising(Multi) of Y with h and of the 2-channel CrCb with
   * hColor -> cvtColor back, and the split of the I420/NV12 path.
   * joint-rgb: R, G, B denoised together with h (one weight per pixel from
   * the RGB patch distance, as fastNlMeansDenoising on a 3-channel image;
   * h-color unused): the output of this element before rgb-mode existed.
   * Alpha/padding bytes are copied in both modes. Not used by GRAY8, I420
   * and NV12. Read when caps are negotiated: a change takes effect at the
   * next caps (or restart). Strings other than the two nicks are refused
   * by GObject/gst_util_set_object_arg and the previous value kept.
   */
  g_object_class_install_property (gobject_class, PROP_RGB_MODE,
      g_param_spec_enum ("rgb-mode", "RGB mode",
          "How RGB formats are denoised: YCrCb (Y with h, Cr and Cb with "
          "h-color) or R, G, B jointly with h",
          GST_TYPE_CUDA_NL_MEANS_RGB_MODE, DEFAULT_RGB_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_NL_MEANS_RGB_MODE, 0);

  gst_cuda_vision_base_class_add_pad_templates (element_class, FORMATS,
      FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA non-local-means denoiser", "Filter/Effect/Video/Hardware",
      "Non-local-means denoising (Buades, Coll, Morel) with Gaussian-weighted "
      "patch distances, on the GPU or the CPU", GST_CUDA_VISION_AUTHOR);

  base_class->cpu_ops = &cv_nlmeans_cpu_ops;
  base_class->cuda_ops = &cv_nlmeans_cuda_ops;
  base_class->op_info_size = sizeof (CvNlMeansInfo);
  base_class->params_size = sizeof (CvNlMeansParams);
  base_class->get_params = GST_DEBUG_FUNCPTR (gst_cuda_nl_means_get_params);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_nl_means_set_info);
  base_class->prepare_frame =
      GST_DEBUG_FUNCPTR (gst_cuda_nl_means_prepare_frame);
}

static void
gst_cuda_nl_means_init (GstCudaNlMeans * self)
{
  self->h = DEFAULT_H;
  self->patch_size = DEFAULT_PATCH_SIZE;
  self->search_window = DEFAULT_SEARCH_WINDOW;
  self->patch_sigma = DEFAULT_PATCH_SIGMA;
  self->sigma = DEFAULT_SIGMA;
  self->h_color = DEFAULT_H_COLOR;
  self->temporal_window = DEFAULT_TEMPORAL_WINDOW;
  self->rgb_mode = DEFAULT_RGB_MODE;
}
