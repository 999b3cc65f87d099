/* gst-cuda-vision: cudaconvolve, convolution filters and fused chains.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_CONVOLVE_H__
#define __GST_CUDA_CONVOLVE_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_CONVOLVE (gst_cuda_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaConvolve, gst_cuda_convolve, GST, CUDA_CONVOLVE,
    GstCudaVisionBase);

#define GST_TYPE_CUDA_CONVOLVE_BORDER_MODE \
  (gst_cuda_convolve_border_mode_get_type ())
GType gst_cuda_convolve_border_mode_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (cudaconvolve);

G_END_DECLS
#endif
