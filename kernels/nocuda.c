/* gst-cuda-vision: the CUDA operator tables of a build without CUDA
 * (meson -Dcuda=disabled, or no nvcc): every member NULL, so that the
 * elements can name both tables of an algorithm unconditionally;
 * cv_op_available () is FALSE for them. The typed CUDA functions
 * (cv_xxx_cuda_create, ...) have no stubs here: they are not defined in
 * such a build, so code built without HAVE_CUDA that calls one fails to
 * link instead of meeting an error at run time (cvop.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvsobel.h"
#include "cvconvolve.h"
#include "cvnlmeans.h"
#include "cvtemplatematch.h"
#include "cvmeanshift.h"
#include "cvcanny.h"

const CvOps cv_sobel_cuda_ops = { NULL, NULL, NULL, NULL, NULL };
const CvOps cv_convolve_cuda_ops = { NULL, NULL, NULL, NULL, NULL };
const CvOps cv_nlmeans_cuda_ops = { NULL, NULL, NULL, NULL, NULL };
const CvOps cv_template_match_cuda_ops = { NULL, NULL, NULL, NULL, NULL };
const CvOps cv_meanshift_cuda_ops = { NULL, NULL, NULL, NULL, NULL };
const CvOps cv_canny_cuda_ops = { NULL, NULL, NULL, NULL, NULL };
