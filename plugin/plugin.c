/* gst-cuda-vision: plugin registration.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstcvpinned.h"
#include "gstcudasobel.h"
#include "gstcudaconvolve.h"
#include "gstcudatemplatematch.h"
#include "gstcudanlmeans.h"
#include "gstcudameanshift.h"
#include "gstcudacanny.h"
#include "gstmeanshiftmeta.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  gst_cv_pinned_allocator_register ();
  gst_cuda_mean_shift_labels_meta_register ();
  ret |= GST_ELEMENT_REGISTER (cudasobel, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaconvolve, plugin);
  ret |= GST_ELEMENT_REGISTER (cudatemplatematch, plugin);
  ret |= GST_ELEMENT_REGISTER (cudanlmeans, plugin);
  ret |= GST_ELEMENT_REGISTER (cudameanshift, plugin);
  ret |= GST_ELEMENT_REGISTER (cudacanny, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudavision,
    "Classic image processing on NVIDIA GPUs with CUDA, with a CPU fallback",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
