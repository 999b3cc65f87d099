/* gst-cuda-vision: the edge-map output shared by the elements that read a
 * frame's luma and write an edge map (cudasobel, cudacanny).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_EDGE_MAP_H__
#define __GST_CV_EDGE_MAP_H__

#include "gstcudavisionbase.h"
#include "cvop.h"

G_BEGIN_DECLS

/* The formats of the sink and src pad templates of such elements */
#define GST_CV_EDGE_MAP_SINK_FORMATS \
  "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR }"
#define GST_CV_EDGE_MAP_SRC_FORMATS "{ GRAY8, NV12, I420 }"

GstCaps *gst_cv_edge_map_transform_format_caps (GstCudaVisionBase * base,
    GstPadDirection direction, GstCaps * caps);

gboolean gst_cv_edge_map_set_info (GstCudaVisionBase * base,
    GstCaps * incaps, const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info, gpointer op_info);

gchar *gst_cv_edge_map_set_kernel_size (guint * kernel_size, guint value);

G_END_DECLS
#endif /* __GST_CV_EDGE_MAP_H__ */
