/* gst-cuda-vision: the label map of cudameanshift's segment mode, attached
 * to each output buffer as a GstMeta.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_MEAN_SHIFT_META_H__
#define __GST_MEAN_SHIFT_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/**
 * GstMeanShiftLabelsMeta:
 * @meta: the parent GstMeta.
 * @width: frame width in pixels.
 * @height: frame height in pixels.
 * @n_segments: the number of segments (distinct labels other than
 *   G_MAXUINT32).
 * @labels: @width * @height labels, row-major, row stride @width (owned by
 *   the meta): for each pixel the frame index (y * width + x) of the first
 *   pixel, in raster order, of its segment; G_MAXUINT32 for pixels outside
 *   the ROI or left out by the colour range.
 *
 * Registered API type name "GstMeanShiftLabelsMetaAPI" (tags "video",
 * "size", "orientation": dropped by elements that change the geometry),
 * implementation "GstMeanShiftLabelsMeta". Applications that do not link
 * the plugin find it with g_type_from_name ("GstMeanShiftLabelsMetaAPI")
 * and gst_buffer_get_meta(); the struct layout above is stable. Copied
 * with the buffer (gst_buffer_copy), not with a region of it.
 */
    typedef struct
{
  GstMeta meta;
  guint width;
  guint height;
  guint n_segments;
  guint32 *labels;
} GstMeanShiftLabelsMeta;

GType gst_mean_shift_labels_meta_api_get_type (void);
#define GST_MEAN_SHIFT_LABELS_META_API_TYPE \
  (gst_mean_shift_labels_meta_api_get_type ())

const GstMetaInfo *gst_mean_shift_labels_meta_get_info (void);
#define GST_MEAN_SHIFT_LABELS_META_INFO \
  (gst_mean_shift_labels_meta_get_info ())

#define gst_buffer_get_mean_shift_labels_meta(b) ((GstMeanShiftLabelsMeta *) \
    gst_buffer_get_meta ((b), GST_MEAN_SHIFT_LABELS_META_API_TYPE))

/* Adds a meta whose labels array (width * height, uninitialised) the
 * caller fills. */
GstMeanShiftLabelsMeta *gst_buffer_add_mean_shift_labels_meta (GstBuffer *
    buffer, guint width, guint height);

G_END_DECLS
#endif
