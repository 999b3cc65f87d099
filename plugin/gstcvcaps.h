/* gst-cuda-vision: caps of the base element: the memory features (system
 * memory, GStreamer's CUDA memory), the pad templates, transform_caps and
 * fixate_caps.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_CAPS_H__
#define __GST_CV_CAPS_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS

/* The caps' first structure has the CUDA memory feature. */
gboolean gst_cv_caps_is_cuda_memory (GstCaps * caps);

/* GstBaseTransform::transform_caps of the base: the subclass's
 * transform_format_caps on plain caps, then each result in CUDA memory
 * (where the element may run on the GPU, and only for the formats
 * GStreamer's CUDA allocator holds) and in system memory, the input's
 * memory first; for elements that push their input on, the caps
 * themselves. Intersected with the other pad's template and the filter. */
GstCaps *gst_cv_caps_transform (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

/* Among othercaps (taken), those in the memory of caps when there are any
 * (returned): a peer listing system memory first (cudadownload) would
 * otherwise take CUDA frames off the GPU. */
GstCaps *gst_cv_caps_same_memory (GstCaps * caps, GstCaps * othercaps);

/* GstBaseTransform::get_unit_size of the base: a video frame of the caps. */
gboolean gst_cv_caps_unit_size (GstBaseTransform * trans, GstCaps * caps,
    gsize * size);

G_END_DECLS
#endif
