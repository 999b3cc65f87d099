/* gst-cuda-vision: the edge-map output shared by cudasobel and cudacanny:
 * the output caps (an edge map of the input's size and rate, GRAY8, or
 * NV12 / I420 with neutral chroma, whatever the input format) and the
 * operator info the negotiated caps fix (CvEdgeMapInfo, kernels/cvop.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvedgemap.h"
#include "gstcvformat.h"
#include "sobel_core.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

/* GstCudaVisionBaseClass::transform_format_caps of such elements: the
 * format (and the colour description) dropped; towards the src pad only
 * the map's formats. Upstream of it any of the input formats will do (the
 * base intersects with the pad templates and adds the memory features). */
GstCaps *
gst_cv_edge_map_transform_format_caps (GstCudaVisionBase * base,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *res = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (res); i++)
    gst_structure_remove_fields (gst_caps_get_structure (res, i), "format",
        "colorimetry", "chroma-site", NULL);
  if (direction == GST_PAD_SINK) {
    GstCaps *fmts = gst_caps_from_string ("video/x-raw, format=(string) "
        GST_CV_EDGE_MAP_SRC_FORMATS);
    GstCaps *t = gst_caps_intersect_full (res, fmts, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    gst_caps_unref (fmts);
    res = t;
  }
  return gst_caps_simplify (res);
}

/* GstCudaVisionBaseClass::set_info of such elements (op_info: a
 * CvEdgeMapInfo). Fills it from the negotiated formats; FALSE (with the reason in the
 * debug log) for an output that is not GRAY8, NV12 or I420 of the input's
 * size, an input whose luma cannot be read, or 2^31 pixels or more. Only
 * the Y plane is uploaded where it is the luma. */
gboolean
gst_cv_edge_map_set_info (GstCudaVisionBase * base, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info, gpointer op_info)
{
  CvEdgeMapInfo *info = op_info;
  GstVideoFormat of = GST_VIDEO_INFO_FORMAT (out_info);
  guint p;

  if (GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (out_info) ||
      GST_VIDEO_INFO_HEIGHT (in_info) != GST_VIDEO_INFO_HEIGHT (out_info) ||
      !(of == GST_VIDEO_FORMAT_GRAY8 || of == GST_VIDEO_FORMAT_NV12 ||
          of == GST_VIDEO_FORMAT_I420)) {
    GST_ERROR_OBJECT (base, "output must be GRAY8, NV12 or I420 of the "
        "input's size");
    return FALSE;
  }
  if (!gst_cuda_vision_luma_layout (in_info, &info->layout)) {
    GST_ERROR_OBJECT (base, "unsupported format %s",
        GST_VIDEO_INFO_NAME (in_info));
    return FALSE;
  }
  info->width = GST_VIDEO_INFO_WIDTH (in_info);
  info->height = GST_VIDEO_INFO_HEIGHT (in_info);
  if ((gint64) info->width * info->height >= G_MAXINT32) {
    GST_ERROR_OBJECT (base, "frames of 2^31 pixels or more are not "
        "supported");
    return FALSE;
  }
  /* the edges in plane 0, neutral chroma in the others */
  info->n_out_planes = GST_VIDEO_INFO_N_PLANES (out_info);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (out_info); p++)
    info->out_pixel_stride[p] =
        gst_cuda_vision_plane_pixel_stride (out_info, p);
  if (info->layout.r < 0)       /* the Y plane is the luma: all it reads */
    gst_cuda_vision_base_set_upload_planes (base, 1);
  return TRUE;
}

/* The `kernel-size` property of such elements (a Sobel aperture): stores
 * value in *kernel_size when it is 3, 5 or 7 and returns NULL; else keeps
 * *kernel_size and returns the text of the refusal, for
 * gst_cuda_vision_base_post_rejection () once the object lock is
 * released. Called under the object lock. */
gchar *
gst_cv_edge_map_set_kernel_size (guint * kernel_size, guint value)
{
  if (cv_sobel_ksize_valid ((int) value)) {
    *kernel_size = value;
    return NULL;
  }
  return g_strdup_printf ("kernel-size must be 3, 5 or 7, got %u; keeping %u",
      value, *kernel_size);
}
