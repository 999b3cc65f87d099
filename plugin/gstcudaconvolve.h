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

/**
 * GstCudaConvolveBorderMode:
 * @GST_CUDA_CONVOLVE_BORDER_CONSTANT: pixels outside the frame are 0
 *   (OpenCV's BORDER_CONSTANT with value 0)
 * @GST_CUDA_CONVOLVE_BORDER_REPLICATE: the edge pixel repeated,
 *   aaa|abcd|ddd (OpenCV's BORDER_REPLICATE)
 * @GST_CUDA_CONVOLVE_BORDER_REFLECT_101: mirrored without repeating the
 *   edge pixel, dcb|abcd|cba (OpenCV's BORDER_REFLECT_101 =
 *   BORDER_DEFAULT)
 *
 * The values of the border-mode property (this element's own numbering,
 * not OpenCV's).
 */
typedef enum
{
  GST_CUDA_CONVOLVE_BORDER_CONSTANT = 0,
  GST_CUDA_CONVOLVE_BORDER_REPLICATE = 1,
  GST_CUDA_CONVOLVE_BORDER_REFLECT_101 = 2,
} GstCudaConvolveBorderMode;

#define GST_TYPE_CUDA_CONVOLVE_BORDER_MODE \
  (gst_cuda_convolve_border_mode_get_type ())
GType gst_cuda_convolve_border_mode_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (cudaconvolve);

G_END_DECLS
#endif
