/* gst-cuda-vision: cudatemplatematch's results as GStreamer sees them: the
 * template_match message and the region-of-interest metas.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_MATCH_RESULTS_H__
#define __GST_CV_MATCH_RESULTS_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cvtemplatematch.h"

G_BEGIN_DECLS

/* The template_match structure of a frame's matches (tw x th template):
 * the best match's x, y, width, height, result at the top level (absent
 * without matches), count, method (the nick), and matches, a list of
 * "match" structures; with subpixel, every match (and the top level) also
 * has x-subpixel and y-subpixel (gdouble, cv_template_match_subpixel ()).
 * The element adds the timing fields when it posts it. */
GstStructure *gst_cv_match_results_structure (const CvTemplateMatchResult * r,
    gint tw, gint th, const gchar * method, gboolean subpixel);

/* One GstVideoRegionOfInterestMeta of roi_type "template-match" per match
 * on buf (writable), its id the rank, with a "template-match" parameter
 * structure of score (gdouble), rank (guint) and, with subpixel,
 * x-subpixel and y-subpixel (gdouble). */
void gst_cv_match_results_add_metas (GstBuffer * buf,
    const CvTemplateMatchResult * r, gint tw, gint th, gboolean subpixel);

/* Draws a 2-pixel rectangle around each match on the frame buf (writable)
 * of info (cv_draw_rectangles ()); FALSE if it could not be mapped. */
gboolean gst_cv_match_results_draw (GstBuffer * buf,
    const GstVideoInfo * info, const CvTemplateMatchResult * r, gint tw,
    gint th);

G_END_DECLS
#endif /* __GST_CV_MATCH_RESULTS_H__ */
