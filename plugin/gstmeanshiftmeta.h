/* gst-cuda-vision: the label map of cudameanshift's segment mode, attached
 * to each output buffer as a custom meta readable from any language.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_MEAN_SHIFT_META_H__
#define __GST_MEAN_SHIFT_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GST_CUDA_MEAN_SHIFT_LABELS_META_NAME:
 *
 * The name of cudameanshift's label map meta, a custom meta
 * (gst_meta_register_custom(); tags "video", "size", "orientation": elements
 * that change the frame's geometry drop it; copied with gst_buffer_copy()).
 * Its structure (gst_custom_meta_get_structure()), named
 * "GstCudaMeanShiftLabelsMeta", holds:
 * - "width", "height" (guint): the frame's size in pixels;
 * - "segments" (guint): the number of segments (distinct labels other than
 *   0xFFFFFFFF);
 * - "labels" (GstBuffer): width * height 32-bit labels in host byte order,
 *   row-major, no padding: for each pixel the frame index y * width + x of
 *   the first pixel (in raster order) of its segment, 0xFFFFFFFF for pixels
 *   outside the ROI or left out by the colour range.
 * C: gst_buffer_get_custom_meta (buf, "GstCudaMeanShiftLabelsMeta");
 * Python: buf.get_custom_meta ("GstCudaMeanShiftLabelsMeta").
 */
#define GST_CUDA_MEAN_SHIFT_LABELS_META_NAME "GstCudaMeanShiftLabelsMeta"

/* Registers the meta (once; at plugin load). */
void gst_cuda_mean_shift_labels_meta_register (void);

/* Attaches a label map to buffer (writable): a copy of labels, width *
 * height values. */
void gst_buffer_add_cuda_mean_shift_labels_meta (GstBuffer * buffer,
    guint width, guint height, guint segments, const guint32 * labels);

G_END_DECLS
#endif
