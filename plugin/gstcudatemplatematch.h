/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_CUDA_TEMPLATE_MATCH_H__
#define __GST_CUDA_TEMPLATE_MATCH_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_TEMPLATE_MATCH (gst_cuda_template_match_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaTemplateMatch, gst_cuda_template_match, GST,
    CUDA_TEMPLATE_MATCH, GstCudaVisionBase);

#define GST_TYPE_CUDA_TEMPLATE_MATCH_METHOD \
  (gst_cuda_template_match_method_get_type ())
GType gst_cuda_template_match_method_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (cudatemplatematch);

G_END_DECLS
#endif
