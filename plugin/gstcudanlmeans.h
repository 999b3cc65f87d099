/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_CUDA_NL_MEANS_H__
#define __GST_CUDA_NL_MEANS_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_NL_MEANS (gst_cuda_nl_means_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaNlMeans, gst_cuda_nl_means, GST, CUDA_NL_MEANS,
    GstCudaVisionBase);

GST_ELEMENT_REGISTER_DECLARE (cudanlmeans);

/* rgb-mode: how packed RGB formats are denoised */
typedef enum
{
  GST_CUDA_NL_MEANS_RGB_YCRCB,
  GST_CUDA_NL_MEANS_RGB_JOINT
} GstCudaNlMeansRgbMode;

#define GST_TYPE_CUDA_NL_MEANS_RGB_MODE (gst_cuda_nl_means_rgb_mode_get_type ())
GType gst_cuda_nl_means_rgb_mode_get_type (void);

G_END_DECLS
#endif
