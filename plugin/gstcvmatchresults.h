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

/* What the matches' template indices (CvTemplateMatch.scale) stand for:
 * the scale factor of each template searched, and whether the template
 * was masked by its alpha. */
typedef struct
{
  gdouble scale[CV_TEMPLATE_MATCH_MAX_SCALES];
  gboolean masked;
} GstCvMatchScales;

/* The template_match structure of a frame's matches (each of its
 * template's size w x h):
 * the best match's x, y, width, height, result at the top level (absent
 * without matches), count, method (the nick), and matches, a list of
 * "match" structures; with subpixel, every match (and the top level) also
 * has x-subpixel and y-subpixel (gdouble, cv_template_match_subpixel ()).
 * Every match also has scale (gdouble, sc->scale of its template) and
 * masked (gboolean); masked is also at the top level.
 * The element adds the timing fields when it posts it. */
GstStructure *gst_cv_match_results_structure (const CvTemplateMatchResult * r,
    const GstCvMatchScales * sc, const gchar * method, gboolean subpixel);

void gst_cv_match_results_add_metas (GstBuffer * buf,
    const CvTemplateMatchResult * r, const GstCvMatchScales * sc,
    gboolean subpixel);

/* A 2-pixel rectangle around each match, of its template's size. */
gboolean gst_cv_match_results_draw (GstBuffer * buf,
    const GstVideoInfo * info, const CvTemplateMatchResult * r);

G_END_DECLS
#endif /* __GST_CV_MATCH_RESULTS_H__ */
