/* gst-cuda-vision: the CUDA backend (built with CUDA only): its instance
 * (the device, the stream priorities, the transfer counter), the backend
 * table, and a frame's submission: upload, operator and download queued
 * on the slot's stream (gstcvcudaslot.c), planes in GstCudaMemory of the
 * element's context used in place, host planes copied
 * (gstcvcudatransfer.c). All CUDA work runs in the shared CUDA context
 * (gstcvcudacontext.c), or the device's primary context in a build
 * without gstreamer-cuda.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvbackend-cuda.h"
#include "gstcvcudacontext.h"
#include "gstcvtrace.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

/* a failing CUDA call: CV_ERROR_CUDA with the error kept and an error
 * naming the call recorded (posted by the base) */
gboolean
gst_cv_cuda_check (GstCudaVisionBase * self, cudaError_t err,
    const gchar * what, const gchar * file, const gchar * func, gint line)
{
  if (G_LIKELY (err == cudaSuccess))
    return TRUE;
  (void) cudaGetLastError ();   /* clear a non-sticky error */
  gst_cuda_vision_base_record_error (self, cv_status_set_cuda_error ((int) err),
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED,
      g_strdup_printf ("CUDA error: %s", cudaGetErrorString (err)),
      g_strdup_printf ("%s failed: %s (%s)", what, cudaGetErrorName (err),
          cudaGetErrorString (err)), file, func, line);
  return FALSE;
}

static const gchar *
cuda_error_string (int cuda_error)
{
  return cudaGetErrorString ((cudaError_t) cuda_error);
}

/* Make the element's CUDA context current in this thread (pair with
 * gst_cv_cuda_leave ()); record_error: record what failed (a frame's error). */
gboolean
gst_cv_cuda_enter (GstCudaVisionBase * self, gboolean record_error)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  if (priv->ctx) {
    if (gst_cv_cuda_context_push (priv->ctx))
      return TRUE;
    if (record_error)
      GST_CV_RECORD_ERROR (self, CV_ERROR_CUDA, LIBRARY, FAILED,
          g_strdup ("CUDA error: could not make the CUDA context current"),
          g_strdup ("gst_cuda_context_push failed"));
    return FALSE;
  }
  if (!record_error)
    return cudaSetDevice (cuda_backend (self)->device) == cudaSuccess;
  return CUDA_CHECK (self, cudaSetDevice (cuda_backend (self)->device));
}

void
gst_cv_cuda_leave (GstCudaVisionBase * self)
{
  if (GST_CV_PRIV (self)->ctx)
    gst_cv_cuda_context_pop ();
}

static void
cuda_ready (GstCudaVisionBase * self, gint device_id)
{
  int n = 0;

  /* no GPU: nothing to look for; start () decides and says why */
  if (cudaGetDeviceCount (&n) == cudaSuccess && n > device_id)
    gst_cv_cuda_context_ensure (GST_ELEMENT (self), device_id,
        &GST_CV_PRIV (self)->ctx);
  (void) cudaGetLastError ();
}

/* the device's stream priorities (device current); none: 0 and 0 */
static void
priority_range (CudaBackend * be)
{
  if (cudaDeviceGetStreamPriorityRange (&be->prio_least,
          &be->prio_greatest) != cudaSuccess) {
    (void) cudaGetLastError ();
    be->prio_least = be->prio_greatest = 0;
  }
  be->level_used = -1;
}

static gboolean
cuda_open (GstCudaVisionBase * self, gint device_id, gchar ** reason)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  CudaBackend be = { 0, 0, 0, -1, 0, {{0}, 0} };
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);

  if (err != cudaSuccess) {
    *reason = g_strdup_printf ("no usable CUDA driver or device: %s",
        cudaGetErrorString (err));
    (void) cudaGetLastError ();
    return FALSE;
  }
  if (n == 0) {
    *reason = g_strdup ("no CUDA device found");
    return FALSE;
  }
  if (device_id >= n) {
    *reason = g_strdup_printf ("device-id %d does not exist (%d CUDA "
        "device%s)", device_id, n, n == 1 ? "" : "s");
    return FALSE;
  }
  if (gst_cv_cuda_context_supported ()) {
    /* the "gst.cuda.context" shared with nvcodec's elements (found in the
     * pipeline or created); all our CUDA work runs in it */
    if (!gst_cv_cuda_context_ensure (GST_ELEMENT (self), device_id, &priv->ctx)) {
      *reason = g_strdup_printf ("no CUDA context for device %d", device_id);
      return FALSE;
    }
    be.device = gst_cv_cuda_context_device (priv->ctx);
    if (!gst_cv_cuda_context_push (priv->ctx)) {
      *reason = g_strdup ("the CUDA context cannot be made current");
      gst_cv_cuda_context_clear (&priv->ctx);
      return FALSE;
    }
    err = cudaFree (NULL);      /* the runtime works in it */
    if (err == cudaSuccess)
      priority_range (&be);
    gst_cv_cuda_context_pop ();
  } else {
    be.device = device_id < 0 ? 0 : device_id;
    err = cudaSetDevice (be.device);
    if (err == cudaSuccess)
      err = cudaFree (NULL);    /* create the primary context now */
    if (err == cudaSuccess)
      priority_range (&be);
  }
  if (err != cudaSuccess) {
    *reason = g_strdup_printf ("CUDA device %d is not usable: %s",
        be.device, cudaGetErrorString (err));
    (void) cudaGetLastError ();
    gst_cv_cuda_context_clear (&priv->ctx);
    return FALSE;
  }
  priv->be_state = g_memdup2 (&be, sizeof (be));
  GST_INFO_OBJECT (self, "CUDA device %d, stream priorities %d..%d",
      be.device, be.prio_least, be.prio_greatest);
  return TRUE;
}

static void
cuda_close (GstCudaVisionBase * self)
{
  g_clear_pointer (&GST_CV_PRIV (self)->be_state, g_free);
}

/* the element's OBJECT_LOCK held */
static guint64
cuda_host_transfers (GstCudaVisionBase * self)
{
  return cuda_backend (self)->host_transfers;
}

static gint
cuda_priority_level (GstCudaVisionBase * self)
{
  return g_atomic_int_get (&cuda_backend (self)->level_used);
}

/* The element's operator for max_slots frames in flight, each slot's
 * workspace its own: slot i runs only on slot i's stream (GstCvSlot
 * index i, gstcvcudaslot.c), so no two streams share one. */
static CvStatus
cuda_create_op (GstCudaVisionBase * self, guint max_slots)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  CvStatus status;

  g_assert (priv->op == NULL);
  if (!gst_cv_cuda_enter (self, TRUE))
    return gst_cv_pending_status (self, CV_ERROR_CUDA);
  /* new caps: the frames' GPU times start over (gstcvwaitschedule.c) */
  gst_cv_wait_schedule_reset (&cuda_backend (self)->wait);
  status = priv->ops->create (priv->op_info, (int) max_slots, &priv->op);
  if (status != CV_OK) {
    priv->op = NULL;
    if (status == CV_ERROR_CUDA)
      (void) cudaGetLastError ();
  } else {
    priv->op_slots = max_slots;
  }
  gst_cv_cuda_leave (self);
  return status;
}

/* every slot's stream synced by the caller (gst_cv_cuda_slot_sync ()) */
static void
cuda_destroy_op (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean entered;

  if (!priv->op)
    return;
  /* device memory belongs to the element's context */
  entered = gst_cv_cuda_enter (self, FALSE);
  priv->ops->destroy (priv->op);
  (void) cudaGetLastError ();
  if (entered)
    gst_cv_cuda_leave (self);
  priv->op = NULL;
  priv->op_slots = 0;
}

/* Queue upload, operator and download of slot s (context current). */
static CvStatus
submit_in_ctx (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean in_pinned = FALSE, out_pinned = FALSE;
  CvFrame frame;
  CvExec exec = { NULL, 0, NULL };
  CudaSlot *c;
  guint p, copies = 0;
  CvStatus status;

  if (!gst_cv_cuda_slot_ensure (self, s))
    return gst_cv_pending_status (self, CV_ERROR_CUDA);
  c = s->backend_state;
  if (!priv->op || s->index >= priv->op_slots)
    return GST_CV_RECORD_ERROR (self, CV_ERROR_INVALID_ARGUMENT, CORE, FAILED,
        g_strdup ("No operator for this frame"), g_strdup_printf ("slot %u,"
            " operator of %u slots", s->index, priv->op_slots));
  memset (&frame, 0, sizeof (frame));
  if (s->in_device) {
    gst_cuda_vision_frame_planes (&s->in_frame, frame.in);
  } else {
    if (!gst_cv_cuda_alloc_planes (self, &priv->in_info, priv->upload_planes,
            c->d_in))
      return gst_cv_pending_status (self, CV_ERROR_CUDA);
    memcpy (frame.in, c->d_in, sizeof (frame.in));
    in_pinned = gst_cv_cuda_frame_is_pinned (&s->in_frame);
  }
  if (s->out_device) {
    gst_cuda_vision_frame_planes (&s->out_frame, frame.out);
  } else if (!priv->output_is_input) {
    if (!gst_cv_cuda_alloc_planes (self, &priv->out_info, ~0u, c->d_out))
      return gst_cv_pending_status (self, CV_ERROR_CUDA);
    memcpy (frame.out, c->d_out, sizeof (frame.out));
    out_pinned = gst_cv_cuda_frame_is_pinned (&s->out_frame);
  }
  /* lookahead: the first frames of a stream have no output (nothing to
   * download) */
  c->out_staged = s->out_mapped && !s->out_device && !out_pinned
      && !s->no_download;

  /* the stage events only when the timings are wanted (s->timed); the
   * last one always: the frame is done when it is */
  if (s->timed && !CUDA_CHECK (self, cudaEventRecord (c->ev[0], c->stream)))
    return gst_cv_pending_status (self, CV_ERROR_CUDA);
  CV_TRACE_PUSH ("cv:upload");
  for (p = 0; !s->in_device && !s->no_upload
      && p < GST_VIDEO_FRAME_N_PLANES (&s->in_frame); p++)
    if ((priv->upload_planes & (1u << p))) {
      if (!gst_cv_cuda_copy_plane (self, c, &s->in_frame, p, in_pinned, TRUE)) {
        CV_TRACE_POP ();
        gst_cv_cuda_count_transfers (self, copies);
        return gst_cv_pending_status (self, CV_ERROR_CUDA);
      }
      copies++;
    }
  CV_TRACE_POP ();
  if (s->timed && !CUDA_CHECK (self, cudaEventRecord (c->ev[1], c->stream)))
    status = gst_cv_pending_status (self, CV_ERROR_CUDA);
  else {
    exec.stream = c->stream;
    CV_TRACE_PUSH ("cv:operator");
    status = priv->ops->submit (priv->op, (int) s->index, &frame, s->params,
        &exec);
    CV_TRACE_POP ();
    if (status == CV_ERROR_CUDA)
      (void) cudaGetLastError ();
  }
  if (status == CV_OK && s->timed
      && !CUDA_CHECK (self, cudaEventRecord (c->ev[2], c->stream)))
    status = gst_cv_pending_status (self, CV_ERROR_CUDA);
  CV_TRACE_PUSH ("cv:download");
  for (p = 0; status == CV_OK && s->out_mapped && !s->out_device
      && !s->no_download && p < GST_VIDEO_FRAME_N_PLANES (&s->out_frame); p++) {
    if (!gst_cv_cuda_copy_plane (self, c, &s->out_frame, p, out_pinned, FALSE))
      status = gst_cv_pending_status (self, CV_ERROR_CUDA);
    else
      copies++;
  }
  CV_TRACE_POP ();
  gst_cv_cuda_count_transfers (self, copies);
  if (status != CV_OK)
    return status;
  c->last = s->timed ? c->ev[3] : c->done;
  return CUDA_CHECK (self, cudaEventRecord (c->last, c->stream)) ? CV_OK :
      gst_cv_pending_status (self, CV_ERROR_CUDA);
}

static CvStatus
cuda_submit (GstCudaVisionBase * self, GstCvSlot * s)
{
  CvStatus status;

  if (!gst_cv_cuda_enter (self, TRUE))
    return gst_cv_pending_status (self, CV_ERROR_CUDA);
  status = submit_in_ctx (self, s);
  if (status != CV_OK && s->backend_state) {
    /* nothing of this frame may still run when its buffers are released */
    cudaStreamSynchronize (((CudaSlot *) s->backend_state)->stream);
    (void) cudaGetLastError ();
  }
  gst_cv_cuda_leave (self);
  return status;
}

static const GstCvBackend backend = {
  "cuda", GST_CUDA_VISION_BACKEND_CUDA, TRUE, cuda_ready, cuda_error_string,
  cuda_open, cuda_close, cuda_host_transfers, cuda_priority_level,
  cuda_submit, gst_cv_cuda_slot_wait, gst_cv_cuda_slot_sync,
  gst_cv_cuda_slot_free, cuda_create_op, cuda_destroy_op,
  gst_cv_cuda_slot_prepare, gst_cv_cuda_slot_done
};

const GstCvBackend *const gst_cv_backend_cuda = &backend;
