/* gst-cuda-vision: video formats as the operators see them (see
 * gstcvformat.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvformat.h"

static guint
plane_first_comp (const GstVideoInfo * info, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comp);
  return comp[0] >= 0 ? (guint) comp[0] : 0;
}

gsize
gst_cuda_vision_plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  guint c = plane_first_comp (info, plane);

  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
}

guint
gst_cuda_vision_plane_rows (const GstVideoInfo * info, guint plane)
{
  return GST_VIDEO_INFO_COMP_HEIGHT (info, plane_first_comp (info, plane));
}

guint
gst_cuda_vision_plane_pixel_stride (const GstVideoInfo * info, guint plane)
{
  return GST_VIDEO_INFO_COMP_PSTRIDE (info, plane_first_comp (info, plane));
}

gboolean
gst_cuda_vision_luma_layout (const GstVideoInfo * info, CvLumaLayout * layout)
{
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_GRAY8:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_I420:
      layout->bpp = 1;
      layout->r = layout->g = layout->b = -1;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      layout->bpp = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
      layout->r = GST_VIDEO_INFO_COMP_OFFSET (info, GST_VIDEO_COMP_R);
      layout->g = GST_VIDEO_INFO_COMP_OFFSET (info, GST_VIDEO_COMP_G);
      layout->b = GST_VIDEO_INFO_COMP_OFFSET (info, GST_VIDEO_COMP_B);
      return TRUE;
    default:
      return FALSE;
  }
}

void
gst_cuda_vision_frame_planes (GstVideoFrame * frame, CvPlane * planes)
{
  guint p;

  memset (planes, 0, sizeof (CvPlane) * GST_VIDEO_MAX_PLANES);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    guint c = plane_first_comp (&frame->info, p);
    planes[p].data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    planes[p].stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    planes[p].width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    planes[p].height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
  }
}

gboolean
gst_cuda_vision_frame_is_sane (GstVideoFrame * f, const GstVideoInfo * caps,
    gchar ** why)
{
  guint p;

  if (GST_VIDEO_FRAME_FORMAT (f) != GST_VIDEO_INFO_FORMAT (caps)
      || GST_VIDEO_FRAME_WIDTH (f) != GST_VIDEO_INFO_WIDTH (caps)
      || GST_VIDEO_FRAME_HEIGHT (f) != GST_VIDEO_INFO_HEIGHT (caps)) {
    *why = g_strdup_printf ("its video meta describes a %s %dx%d frame, the "
        "caps a %s %dx%d one", GST_VIDEO_FRAME_FORMAT (f) ==
        GST_VIDEO_FORMAT_UNKNOWN ? "unknown" : gst_video_format_to_string
        (GST_VIDEO_FRAME_FORMAT (f)), GST_VIDEO_FRAME_WIDTH (f),
        GST_VIDEO_FRAME_HEIGHT (f), GST_VIDEO_INFO_NAME (caps),
        GST_VIDEO_INFO_WIDTH (caps), GST_VIDEO_INFO_HEIGHT (caps));
    return FALSE;
  }
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (f); p++) {
    const GstMapInfo *map = f->meta ? &f->map[p] : &f->map[0];
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (f, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
    gsize row = gst_cuda_vision_plane_row_bytes (&f->info, p);
    gsize rows = gst_cuda_vision_plane_rows (&f->info, p);
    gsize start, end;

    if (stride < 0 || (gsize) stride < row) {
      *why = g_strdup_printf ("plane %u has a stride of %d bytes, less than "
          "its %" G_GSIZE_FORMAT "-byte rows", p, stride, row);
      return FALSE;
    }
    start = data >= map->data ? (gsize) (data - map->data) : G_MAXSIZE;
    end = start == G_MAXSIZE ? G_MAXSIZE : start + (rows - 1) * (gsize) stride
        + row;
    if (end > map->size) {
      *why = g_strdup_printf ("plane %u (offset %" G_GSSIZE_FORMAT ", stride "
          "%d, %" G_GSIZE_FORMAT " rows) ends beyond the %" G_GSIZE_FORMAT
          " bytes of its memory", p, data - map->data, stride, rows, map->size);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_cuda_vision_meta_mappable (GstBuffer * buf, const GstVideoInfo * info,
    gchar ** why)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  guint n_planes = GST_VIDEO_INFO_N_PLANES (info);

  if (!meta)
    return TRUE;
  if (meta->format != format || meta->width < (guint) info->width
      || meta->height < (guint) info->height) {
    *why = g_strdup_printf ("its video meta describes a %s %ux%u frame, the "
        "caps a %s %dx%d one", meta->format == GST_VIDEO_FORMAT_UNKNOWN ?
        "unknown" : gst_video_format_to_string (meta->format), meta->width,
        meta->height, gst_video_format_to_string (format), info->width,
        info->height);
    return FALSE;
  }
  if (meta->n_planes != n_planes) {
    *why = g_strdup_printf ("its video meta has %u plane%s, the caps' %s "
        "format %u: the video meta's plane count differs from the caps",
        meta->n_planes, meta->n_planes == 1 ? "" : "s",
        gst_video_format_to_string (format), n_planes);
    return FALSE;
  }
  return TRUE;
}
