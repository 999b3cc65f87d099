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
gst_cuda_vision_status_string (CvStatus status)
{
  /* CV_ERROR_CUDA: the CUDA error this thread kept beside it */
  if (status == CV_ERROR_CUDA && cv_status_cuda_error () != 0
      && gst_cv_backend_cuda)
    return gst_cv_backend_cuda->error_string (cv_status_cuda_error ());
  return cv_status_string (status);
}

/* ---- a frame's error: recorded where it is met, posted by the base ----
 * The backends and the subclasses' prepare_frame () record what they know
 * of a failure (the failing call, a template that does not fit) in the
 * thread that meets it and return a CvStatus; the base posts it in one
 * place, gst_cv_post_frame_error (), in the same thread. */

typedef struct
{
  gpointer element;             /* who met it (compared, not referenced) */
  CvStatus status;
  GQuark domain;
  gint code;
  gchar *text, *debug;
  const gchar *file, *func;
  gint line;
} FrameError;

static void
frame_error_free (gpointer data)
{
  FrameError *e = data;

  g_free (e->text);
  g_free (e->debug);
  g_free (e);
}

static GPrivate pending_error = G_PRIVATE_INIT (frame_error_free);

CvStatus
gst_cuda_vision_base_record_error (GstCudaVisionBase * self, CvStatus status,
    GQuark domain, gint code, gchar * text, gchar * debug,
    const gchar * file, const gchar * func, gint line)
{
  FrameError *e = g_new0 (FrameError, 1);

  e->element = self;
  e->status = status;
  e->domain = domain;
  e->code = code;
  e->text = text;
  e->debug = debug;
  e->file = file;
  e->func = func;
  e->line = line;
  GST_DEBUG_OBJECT (self, "%s (%s)", text ? text : "error",
      debug ? debug : cv_status_string (status));
  /* a second error of the same frame replaces the first (both would be
   * the same failure seen twice) */
  g_private_replace (&pending_error, e);
  return status;
}

CvStatus
gst_cv_pending_status (GstCudaVisionBase * self, CvStatus fallback)
{
  FrameError *e = g_private_get (&pending_error);

  return e && e->element == self ? e->status : fallback;
}

void
gst_cv_clear_frame_error (void)
{
  g_private_replace (&pending_error, NULL);
}

/* the error self recorded, posted: FALSE when none (one another element
 * of this thread left unposted is not self's) */
static gboolean
post_recorded (GstCudaVisionBase * self)
{
  FrameError *e = g_private_get (&pending_error);

  if (!e || e->element != self || (!e->text && !e->debug))
    return FALSE;
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
      e->domain, e->code, e->text, e->debug, e->file, e->func, e->line);
  e->text = e->debug = NULL;    /* taken */
  return TRUE;
}

void
gst_cv_post_setup_error (GstCudaVisionBase * self, CvStatus status,
    const gchar * where)
{
  if (!post_recorded (self))
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("Could not set up the %s operator for the negotiated caps: %s",
            where, gst_cuda_vision_status_string (status)),
        ("status %d (%s), cudaError_t %d", status, cv_status_string (status),
            status == CV_ERROR_CUDA ? cv_status_cuda_error () : 0));
  gst_cv_clear_frame_error ();
}

void
gst_cv_post_frame_error (GstCudaVisionBase * self, CvStatus status,
    const gchar * where)
{
  if (!post_recorded (self)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Processing the frame on the %s failed: %s", where,
            gst_cuda_vision_status_string (status)), ("status %d (%s), "
            "cudaError_t %d", status, cv_status_string (status),
            status == CV_ERROR_CUDA ? cv_status_cuda_error () : 0));
  }
  gst_cv_clear_frame_error ();
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
