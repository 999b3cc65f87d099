/* gst-cuda-vision: cudatemplatematch's results as GStreamer sees them: the
 * template_match message and the region-of-interest metas (see
 * gstcvmatchresults.h and the element's documentation).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvmatchresults.h"
#include "gstcvformat.h"
#include "cvdraw.h"

/* x-subpixel and y-subpixel of m into s */
static void
set_subpixel (GstStructure * s, const CvTemplateMatch * m)
{
  double sx, sy;

  cv_template_match_subpixel (m, &sx, &sy);
  gst_structure_set (s, "x-subpixel", G_TYPE_DOUBLE, sx, "y-subpixel",
      G_TYPE_DOUBLE, sy, NULL);
}

static GstStructure *
match_structure (const gchar * name, const CvTemplateMatch * m,
    const GstCvMatchScales * sc, gboolean subpixel)
{
  GstStructure *s = gst_structure_new (name,
      "x", G_TYPE_UINT, (guint) m->x, "y", G_TYPE_UINT, (guint) m->y,
      "width", G_TYPE_UINT, (guint) m->w, "height", G_TYPE_UINT,
      (guint) m->h, "result", G_TYPE_DOUBLE, m->score, "scale", G_TYPE_DOUBLE,
      sc->scale[m->scale], "masked", G_TYPE_BOOLEAN, sc->masked, NULL);

  if (subpixel)
    set_subpixel (s, m);
  return s;
}

GstStructure *
gst_cv_match_results_structure (const CvTemplateMatchResult * r,
    const GstCvMatchScales * sc, const gchar * method, gboolean subpixel)
{
  GstStructure *st;
  GValue list = G_VALUE_INIT;
  gint i;

  if (r->count > 0)
    st = match_structure ("template_match", &r->match[0], sc, subpixel);
  else
    st = gst_structure_new ("template_match", "masked", G_TYPE_BOOLEAN,
        sc->masked, NULL);
  gst_value_list_init (&list, r->count);
  for (i = 0; i < r->count; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, match_structure ("match", &r->match[i], sc,
            subpixel));
    gst_value_list_append_and_take_value (&list, &v);
  }
  gst_structure_set (st, "count", G_TYPE_UINT, (guint) r->count,
      "method", G_TYPE_STRING, method, NULL);
  gst_structure_take_value (st, "matches", &list);
  return st;
}

void
gst_cv_match_results_add_metas (GstBuffer * buf,
    const CvTemplateMatchResult * r, const GstCvMatchScales * sc,
    gboolean subpixel)
{
  gint i;

  for (i = 0; i < r->count; i++) {
    const CvTemplateMatch *m = &r->match[i];
    GstVideoRegionOfInterestMeta *meta =
        gst_buffer_add_video_region_of_interest_meta (buf,
        "template-match", m->x, m->y, m->w, m->h);
    GstStructure *s = gst_structure_new ("template-match", "score",
        G_TYPE_DOUBLE, m->score, "rank", G_TYPE_UINT, (guint) i,
        "scale", G_TYPE_DOUBLE, sc->scale[m->scale], "masked",
        G_TYPE_BOOLEAN, sc->masked, NULL);

    /* one meta per match, its id the rank: each is reachable with
     * gst_buffer_get_video_region_of_interest_meta_id () */
    meta->id = i;
    if (subpixel)
      set_subpixel (s, m);
    gst_video_region_of_interest_meta_add_param (meta, s);
  }
}

gboolean
gst_cv_match_results_draw (GstBuffer * buf, const GstVideoInfo * info,
    const CvTemplateMatchResult * r)
{
  GstVideoFrame f;
  CvRect rects[CV_TEMPLATE_MATCH_MAX_MATCHES];
  CvPlane planes[GST_VIDEO_MAX_PLANES];
  CvLumaLayout layout;
  gint i;

  for (i = 0; i < r->count; i++) {
    rects[i].x = r->match[i].x;
    rects[i].y = r->match[i].y;
    rects[i].width = r->match[i].w;
    rects[i].height = r->match[i].h;
  }
  if (!gst_video_frame_map (&f, info, buf, GST_MAP_READWRITE))
    return FALSE;
  gst_cuda_vision_frame_planes (&f, planes);
  gst_cuda_vision_luma_layout (info, &layout);
  cv_draw_rectangles (&planes[0], layout, rects, r->count, 2);
  gst_video_frame_unmap (&f);
  return TRUE;
}
