/* gst-cuda-vision: the base element's enum types (backend, wait-mode).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavisionbase.h"

GType
gst_cuda_vision_backend_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_VISION_BACKEND_AUTO,
        "GPU when usable, else CPU (as active-backend: not started)", "auto"},
    {GST_CUDA_VISION_BACKEND_CUDA, "CUDA GPU", "cuda"},
    {GST_CUDA_VISION_BACKEND_CPU, "CPU fallback", "cpu"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType t = g_enum_register_static ("GstCudaVisionBackend", values);
    g_once_init_leave (&id, t);
  }
  return (GType) id;
}

GType
gst_cuda_vision_wait_mode_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_VISION_WAIT_BLOCK,
          "Sleep between queries until the GPU is done (little CPU)",
        "block"},
    {GST_CUDA_VISION_WAIT_SPIN,
        "Poll until the GPU is done (lowest latency, one core busy)", "spin"},
    {GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK,
        "Poll for up to 100 us, then as block", "spin-then-block"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType t = g_enum_register_static ("GstCudaVisionWaitMode", values);
    g_once_init_leave (&id, t);
  }
  return (GType) id;
}
