/* gst-cuda-vision: what the base element and its elements tell
 * applications on the bus: frame messages with GStreamer's timing fields,
 * refused property values, costly settings, and the text of a status.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavisionbase-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

/* per-frame cost estimates above this get one warning on the bus */
#define COST_WARN_SECONDS 1.0

const gchar *
gst_cuda_vision_status_string (int status)
{
  switch (status) {
    case CV_OK:
      return "success";
    case CV_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case CV_ERROR_NO_MEMORY:
      return "out of memory";
    case CV_ERROR_CANCELLED:
      return "cancelled";
    default:
      if (status > 0 && gst_cv_backend_cuda)
        return gst_cv_backend_cuda->error_string (status);
      return "unknown error";
  }
}

void
gst_cv_set_frame_times (GstCudaVisionBase * self, GstStructure * s,
    GstClockTime pts, GstClockTime duration)
{
  GstSegment *seg = &GST_BASE_TRANSFORM (self)->segment;
  GstClockTime stream_time = GST_CLOCK_TIME_NONE, running_time =
      GST_CLOCK_TIME_NONE;

  if (seg->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (pts)) {
    stream_time = gst_segment_to_stream_time (seg, GST_FORMAT_TIME, pts);
    running_time = gst_segment_to_running_time (seg, GST_FORMAT_TIME, pts);
  }
  gst_structure_set (s, "timestamp", G_TYPE_UINT64, pts,
      "stream-time", G_TYPE_UINT64, stream_time,
      "running-time", G_TYPE_UINT64, running_time,
      "duration", G_TYPE_UINT64, duration, NULL);
}

void
gst_cuda_vision_base_post_frame_message (GstCudaVisionBase * self,
    GstStructure * s, GstBuffer * buf)
{
  gst_cv_set_frame_times (self, s, GST_BUFFER_PTS (buf),
      GST_BUFFER_DURATION (buf));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

void
gst_cuda_vision_base_post_rejection (GstCudaVisionBase * self, gchar * text)
{
  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", text),
      ("property value rejected, the previous value kept"));
  g_free (text);
}

void
gst_cuda_vision_base_check_cost (GstCudaVisionBase * self, gdouble seconds,
    const gchar * setting)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean cuda = priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA;

  if (seconds < COST_WARN_SECONDS)
    return;
  if (priv->cost_warned && g_str_equal (priv->cost_warned, setting))
    return;
  g_free (priv->cost_warned);
  priv->cost_warned = g_strdup (setting);
  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
      ("%s: about %.3g s per frame on the %s (estimate)", setting, seconds,
          cuda ? "GPU" : "CPU"), ("%s; the element cannot be interrupted "
          "while the GPU computes a frame", cuda ? "a cheaper setting is "
          "advised" : "CPU frames stop early when flushing or stopping"));
}
