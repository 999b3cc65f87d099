/* gst-cuda-vision: a scheduler slot's frame (gstcvscheduler-private.h):
 * its buffers mapped (CUDA memory of the element's context as device
 * pointers, anything else on the host) and checked against the caps, the
 * frame as the subclass sees it, and what the slot holds of it released.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvscheduler-private.h"
#include "gstcvcudacontext.h"

/* the frame as the subclass sees it */
void
gst_cv_slot_view (GstCudaVisionBase * self, GstCvSlot * s,
    GstCudaVisionFrame * f)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  f->in_info = &priv->in_info;
  f->out_info = &priv->out_info;
  f->params = s->params;
  f->backend = priv->active_backend;
  f->slot = s->index;
  f->results = NULL;
  f->store = s->store;
  f->centre = s->centre;
  f->radius = s->radius;
}

/* the subclass's clear_params () on the slot's parameter snapshot */
void
gst_cv_slot_clear_params (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);

  if (s->params_set && klass->clear_params)
    klass->clear_params (self, s->params);
  s->params_set = FALSE;
}

/* what the slot holds of its frame (not its busy flag: the scheduler's
 * slot_free ()) */
void
gst_cv_slot_clear (GstCudaVisionBase * self, GstCvSlot * s)
{
  if (s->in_mapped)
    gst_video_frame_unmap (&s->in_frame);
  if (s->out_mapped)
    gst_video_frame_unmap (&s->out_frame);
  s->in_mapped = s->out_mapped = FALSE;
  gst_clear_buffer (&s->inbuf);
  gst_clear_buffer (&s->outbuf);
  gst_cv_slot_clear_params (self, s);
}

/* map the slot's buffers (CUDA memory of our context as device pointers,
 * anything else on the host) and check them against the caps */
GstFlowReturn
gst_cv_slot_map (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstMapFlags cuda = gst_cv_cuda_context_map_flag ();
  gchar *why = NULL;
  gboolean in_ok;

  s->in_device = priv->in_cuda_mem &&
      gst_cv_cuda_context_owns_buffer (priv->ctx, s->inbuf);
  s->out_device = priv->out_cuda_mem && !priv->output_is_input &&
      gst_cv_cuda_context_owns_buffer (priv->ctx, s->outbuf);
  /* video metas gst_video_frame_map () would assert on (a CRITICAL):
   * refused, as the frames below, before mapping */
  in_ok = gst_cuda_vision_meta_mappable (s->inbuf, &priv->in_info, &why);
  if (!in_ok || (!priv->output_is_input
          && !gst_cuda_vision_meta_mappable (s->outbuf, &priv->out_info, &why)))
    goto not_caps;
  s->in_mapped = gst_video_frame_map (&s->in_frame, &priv->in_info,
      s->inbuf, GST_MAP_READ | (s->in_device ? cuda : 0));
  s->out_mapped = s->in_mapped && !priv->output_is_input &&
      gst_video_frame_map (&s->out_frame, &priv->out_info, s->outbuf,
      GST_MAP_WRITE | (s->out_device ? cuda : 0));
  if (!s->in_mapped || (!s->out_mapped && !priv->output_is_input)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The %s buffer does not hold "
            "a video frame of the negotiated caps", s->in_mapped ? "output" :
            "input"), ("could not map the %s video frame (buffer too small "
            "for the caps?)", s->in_mapped ? "output" : "input"));
    return GST_FLOW_ERROR;
  }
  in_ok = gst_cuda_vision_frame_is_sane (&s->in_frame, &priv->in_info, &why);
  if (!in_ok || (s->out_mapped && !gst_cuda_vision_frame_is_sane
          (&s->out_frame, &priv->out_info, &why)))
    goto not_caps;
  return GST_FLOW_OK;

not_caps:
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The %s buffer does not "
          "match the negotiated caps: %s", in_ok ? "output" : "input", why),
      ("buffer %" GST_PTR_FORMAT, in_ok ? s->outbuf : s->inbuf));
  g_free (why);
  return GST_FLOW_ERROR;
}
