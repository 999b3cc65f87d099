/* gst-cuda-vision: caps of the base element (see gstcvcaps.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvcaps.h"
#include "gstcudavisionbase-private.h"
#include "gstcvcudacontext.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

gboolean
gst_cv_caps_is_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *f;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f,
      GST_CUDA_VISION_CUDA_MEMORY_FEATURE);
}

/* caps with every structure given the feature (NULL: system memory) */
static GstCaps *
caps_with_features (GstCaps * caps, const gchar * feature)
{
  GstCaps *res = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (res); i++)
    gst_caps_set_features (res, i, feature ?
        gst_caps_features_new (feature, NULL) : NULL);
  return res;
}

/* The structures of plain (system memory) caps in CUDA memory, restricted
 * to the formats GStreamer's CUDA allocator can hold. */
static GstCaps *
cuda_memory_caps (GstCaps * plain)
{
  GstCaps *any_fmt = caps_with_features (plain,
      GST_CUDA_VISION_CUDA_MEMORY_FEATURE);
  GstCaps *fmts = gst_caps_from_string ("video/x-raw("
      GST_CUDA_VISION_CUDA_MEMORY_FEATURE "), format=(string) "
      GST_CUDA_VISION_CUDA_MEMORY_FORMATS);
  GstCaps *cuda = gst_caps_intersect_full (any_fmt, fmts,
      GST_CAPS_INTERSECT_FIRST);

  gst_caps_unref (any_fmt);
  gst_caps_unref (fmts);
  return cuda;
}

static GstPadTemplate *
pad_template (const gchar * name, GstPadDirection dir, const gchar * formats)
{
  gchar *str = g_strdup_printf ("video/x-raw, format=(string) %s, "
      "width=(int) [ 1, max ], height=(int) [ 1, max ], "
      "framerate=(fraction) [ 0, max ]", formats);
  GstCaps *caps = gst_caps_from_string (str);
  GstPadTemplate *t;

  g_free (str);
  g_return_val_if_fail (caps != NULL, NULL);
  /* CUDA memory first, where GStreamer's CUDA memory exists */
  if (gst_cv_cuda_context_supported ()) {
    GstCaps *cuda = cuda_memory_caps (caps);

    gst_caps_append (cuda, caps);
    caps = cuda;
  }
  t = gst_pad_template_new (name, dir, GST_PAD_ALWAYS, caps);
  gst_caps_unref (caps);
  return t;
}

void
gst_cuda_vision_base_class_add_pad_templates (GstElementClass * klass,
    const gchar * sink_formats, const gchar * src_formats)
{
  gst_element_class_add_pad_template (klass, pad_template ("sink",
          GST_PAD_SINK, sink_formats));
  gst_element_class_add_pad_template (klass, pad_template ("src",
          GST_PAD_SRC, src_formats));
}

/* CUDA memory can be offered: the element has a GPU version, GStreamer's
 * CUDA memory exists (gstreamer-cuda) and the element runs (or, not
 * started yet, may run) on the GPU. */
static gboolean
cuda_memory_possible (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean ok;

  if (!gst_cv_backend_cuda || !gst_cv_cuda_context_supported ()
      || !cv_op_available (GST_CUDA_VISION_BASE_GET_CLASS (self)->cuda_ops))
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (priv->active_backend == GST_CUDA_VISION_BACKEND_AUTO)
    ok = priv->backend != GST_CUDA_VISION_BACKEND_CPU;
  else
    ok = priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA;
  GST_OBJECT_UNLOCK (self);
  return ok;
}

GstCaps *
gst_cv_caps_transform (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  gboolean output_is_input =
      g_atomic_int_get (&GST_CV_PRIV (self)->want_output_is_input);
  gboolean cuda = cuda_memory_possible (self);
  GstCaps *res, *tmpl, *t;
  GstPad *other = direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans);

  if (output_is_input) {
    /* the input buffer is pushed on: same caps, same memory */
    res = gst_caps_copy (caps);
    if (!cuda) {
      guint i = 0;
      while (i < gst_caps_get_size (res)) {
        GstCapsFeatures *f = gst_caps_get_features (res, i);
        if (f && gst_caps_features_contains (f,
                GST_CUDA_VISION_CUDA_MEMORY_FEATURE))
          gst_caps_remove_structure (res, i);
        else
          i++;
      }
    }
  } else {
    GstCaps *plain = gst_caps_simplify (caps_with_features (caps, NULL));

    if (klass->transform_format_caps) {
      t = klass->transform_format_caps (self, direction, plain);
      gst_caps_unref (plain);
      plain = t;
    }
    if (cuda) {
      GstCaps *in_cuda = cuda_memory_caps (plain);

      if (gst_cv_caps_is_cuda_memory (caps)) {
        res = in_cuda;
        gst_caps_append (res, plain);
      } else {
        res = plain;
        gst_caps_append (res, in_cuda);
      }
    } else {
      res = plain;
    }
  }
  tmpl = gst_pad_get_pad_template_caps (other);
  t = gst_caps_intersect_full (res, tmpl, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (res);
  gst_caps_unref (tmpl);
  res = t;
  if (filter) {
    t = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = t;
  }
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

GstCaps *
gst_cv_caps_same_memory (GstCaps * caps, GstCaps * othercaps)
{
  gboolean cuda = gst_cv_caps_is_cuda_memory (caps);
  GstCaps *same = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (othercaps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (othercaps, i);
    gboolean is_cuda = f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, GST_CUDA_VISION_CUDA_MEMORY_FEATURE);
    if (is_cuda == cuda)
      gst_caps_append_structure_full (same,
          gst_structure_copy (gst_caps_get_structure (othercaps, i)),
          f ? gst_caps_features_copy (f) : NULL);
  }
  if (gst_caps_is_empty (same)) {
    gst_caps_unref (same);
    return othercaps;
  }
  gst_caps_unref (othercaps);
  return same;
}

gboolean
gst_cv_caps_unit_size (GstBaseTransform * trans, GstCaps * caps, gsize * size)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}
