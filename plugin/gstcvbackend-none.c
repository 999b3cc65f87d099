/* gst-cuda-vision: builds without CUDA have no GPU backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavisionbase-private.h"

const GstCvBackend *const gst_cv_backend_cuda = NULL;
