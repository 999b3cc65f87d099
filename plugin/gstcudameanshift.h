/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_CUDA_MEAN_SHIFT_H__
#define __GST_CUDA_MEAN_SHIFT_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_MEAN_SHIFT (gst_cuda_mean_shift_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaMeanShift, gst_cuda_mean_shift, GST,
    CUDA_MEAN_SHIFT, GstCudaVisionBase);

GST_ELEMENT_REGISTER_DECLARE (cudameanshift);

G_END_DECLS
#endif
