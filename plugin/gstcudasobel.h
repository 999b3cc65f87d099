/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_CUDA_SOBEL_H__
#define __GST_CUDA_SOBEL_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS

/**
 * GstCudaSobelNorm:
 * @GST_CUDA_SOBEL_NORM_L2: sqrt (Gx² + Gy²)
 * @GST_CUDA_SOBEL_NORM_L1: |Gx| + |Gy|
 *
 * The gradient magnitude of cudasobel.
 */
typedef enum
{
  GST_CUDA_SOBEL_NORM_L2 = 0,
  GST_CUDA_SOBEL_NORM_L1 = 1,
} GstCudaSobelNorm;

#define GST_TYPE_CUDA_SOBEL_NORM (gst_cuda_sobel_norm_get_type ())
GType gst_cuda_sobel_norm_get_type (void);

#define GST_TYPE_CUDA_SOBEL (gst_cuda_sobel_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSobel, gst_cuda_sobel, GST, CUDA_SOBEL,
    GstCudaVisionBase);

GST_ELEMENT_REGISTER_DECLARE (cudasobel);

G_END_DECLS
#endif
