/* gst-cuda-vision: the CUDA backend's slots (gstcvbackend-cuda.h). Every
 * slot has its own non-blocking stream (at the element's stream-priority),
 * 4 timing events (before upload, after upload, after the operator, done:
 * recorded when the stage timings are wanted) and an untimed one (done,
 * otherwise), and device planes (tightly packed where rows allow, else
 * pitched), made at negotiation (gst_cv_cuda_slot_prepare ()); only the
 * pinned staging of pageable frames (from the process-wide cache) and the
 * planes of frames in another context's CUDA memory come at the first
 * frame. Its frame is waited for as wait-mode says (on the schedule of
 * gstcvwaitschedule.c).
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

/* stream-priority, read now, as a level the device has (0 .. least -
 * greatest) and as CUDA's number (least - level: more urgent is more
 * negative) */
static int
stream_priority (GstCudaVisionBase * self)
{
  CudaBackend *be = cuda_backend (self);
  gint want, level;

  GST_OBJECT_LOCK (self);
  want = GST_CV_PRIV (self)->stream_priority;
  GST_OBJECT_UNLOCK (self);
  level = MIN (want, be->prio_least - be->prio_greatest);
  if (level != g_atomic_int_get (&be->level_used))
    GST_INFO_OBJECT (self, "stream-priority %d: level %d of 0..%d (CUDA "
        "priority %d, device range %d..%d)", want, level,
        be->prio_least - be->prio_greatest, be->prio_least - level,
        be->prio_least, be->prio_greatest);
  g_atomic_int_set (&be->level_used, level);
  return be->prio_least - level;
}

static void slot_free_in_ctx (GstCudaVisionBase * self, GstCvSlot * s);

/* the slot's stream and events (context current); on failure nothing of
 * them is kept, so that a later call starts over */
gboolean
gst_cv_cuda_slot_ensure (GstCudaVisionBase * self, GstCvSlot * s)
{
  CudaSlot *c;
  guint i;

  if (s->backend_state)
    return TRUE;
  c = s->backend_state = g_new0 (CudaSlot, 1);
  if (!CUDA_CHECK (self, cudaStreamCreateWithPriority (&c->stream,
              cudaStreamNonBlocking, stream_priority (self))))
    goto failed;
  /* an event without timing is the cheaper one to record and wait for;
   * none is a blocking-sync event (cudaEventBlockingSync): the driver
   * wakes its own event-handler thread for each of those, which cost 12-20
   * us of CPU per frame, and the streaming thread then spun in the driver
   * (a 1080p NV12 frame in CUDA memory took 72 us of process CPU instead
   * of 25 on an H200, issue #24): wait_event () queries instead */
  if (!CUDA_CHECK (self, cudaEventCreateWithFlags (&c->done,
              cudaEventDisableTiming)))
    goto failed;
  for (i = 0; i < 4; i++)
    if (!CUDA_CHECK (self, cudaEventCreateWithFlags (&c->ev[i],
                cudaEventDefault)))
      goto failed;
  return TRUE;

failed:
  slot_free_in_ctx (self, s);
  return FALSE;
}

/* Device planes are tightly packed (pitch = the row's bytes) when rows
 * are a multiple of 16 bytes (the kernels' vector loads stay aligned): a
 * tightly packed host frame then moves in one contiguous DMA instead of
 * one 2D copy with a row per descriptor, which narrow rows (1920 bytes for
 * 1080p GRAY8) slow down. Other rows keep cudaMallocPitch's pitch.
 * CUDAVISION_DEVICE_PITCH=pitched always pitches (to compare). */
static gboolean
tight_planes_allowed (void)
{
  static gsize once = 0;
  static gboolean allowed;

  if (g_once_init_enter (&once)) {
    allowed = g_strcmp0 (g_getenv ("CUDAVISION_DEVICE_PITCH"), "pitched");
    g_once_init_leave (&once, 1);
  }
  return allowed;
}

/* device planes of the slot for frames that are not in CUDA memory,
 * allocated at negotiation (gst_cv_cuda_slot_prepare ()), else at first
 * use */
gboolean
gst_cv_cuda_alloc_planes (GstCudaVisionBase * self, const GstVideoInfo * info,
    guint mask, CvPlane * planes)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row = gst_cuda_vision_plane_row_bytes (info, p);
    guint rows = gst_cuda_vision_plane_rows (info, p);
    gsize pitch = row;

    if (!(mask & (1u << p)) || planes[p].data)
      continue;
    if (row % 16 == 0 && tight_planes_allowed ()) {
      if (!CUDA_CHECK (self, cudaMalloc ((void **) &planes[p].data,
                  row * rows)))
        return FALSE;
    } else if (!CUDA_CHECK (self, cudaMallocPitch ((void **) &planes[p].data,
                &pitch, row, rows))) {
      return FALSE;
    }
    planes[p].stride = pitch;
  }
  /* the sizes: those of the negotiated info (the frame matches it) */
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    planes[p].width = GST_VIDEO_INFO_COMP_WIDTH (info, MAX (comp[0], 0));
    planes[p].height = GST_VIDEO_INFO_COMP_HEIGHT (info, MAX (comp[0], 0));
  }
  return TRUE;
}

/* What the slot needs before its first frame, at negotiation (the
 * scheduler calls it for each slot once the operator is made): its stream
 * and events, and the device planes of frames that are not in CUDA
 * memory (system-memory caps: every frame is uploaded into them, or
 * downloaded from them). Made here and not at the first frames because
 * cudaStreamCreate and cudaMalloc beside other streams' work can wait for
 * it (issue #24: a stream joining 31 busy ones waited 0.5-2 s for its
 * first output). Buffers of CUDA memory caps from another context still
 * get their planes at their first frame (gst_cv_cuda_alloc_planes ()). */
gboolean
gst_cv_cuda_slot_prepare (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  CudaSlot *c;
  gboolean ok;

  if (!gst_cv_cuda_enter (self, TRUE))
    return FALSE;
  ok = gst_cv_cuda_slot_ensure (self, s);
  c = s->backend_state;
  if (ok && !priv->in_cuda_mem)
    ok = gst_cv_cuda_alloc_planes (self, &priv->in_info, priv->upload_planes,
        c->d_in);
  if (ok && !priv->out_cuda_mem && !priv->output_is_input)
    ok = gst_cv_cuda_alloc_planes (self, &priv->out_info, ~0u, c->d_out);
  /* a slot that cannot be prepared keeps nothing (a later, larger
   * pipeline-depth prepares it again from the start) */
  if (!ok)
    slot_free_in_ctx (self, s);
  gst_cv_cuda_leave (self);
  return ok;
}

/* with the context current */
static void
slot_free_in_ctx (GstCudaVisionBase * self, GstCvSlot * s)
{
  CudaSlot *c = s->backend_state;
  guint p, i;

  if (!c)
    return;
  if (c->stream)
    cudaStreamSynchronize (c->stream);
  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    if (c->d_in[p].data)
      cudaFree (c->d_in[p].data);
    if (c->d_out[p].data)
      cudaFree (c->d_out[p].data);
    gst_cv_pinned_cache_release (&c->h_in[p]);
    gst_cv_pinned_cache_release (&c->h_out[p]);
  }
  for (i = 0; i < 4; i++)
    if (c->ev[i])
      cudaEventDestroy (c->ev[i]);
  if (c->done)
    cudaEventDestroy (c->done);
  if (c->stream)
    cudaStreamDestroy (c->stream);
  (void) cudaGetLastError ();
  g_free (c);
  s->backend_state = NULL;
}

void
gst_cv_cuda_slot_free (GstCudaVisionBase * self, GstCvSlot * s)
{
  gboolean entered;

  if (!s->backend_state)
    return;
  /* device memory belongs to the element's context */
  entered = gst_cv_cuda_enter (self, FALSE);
  slot_free_in_ctx (self, s);
  if (entered)
    gst_cv_cuda_leave (self);
}

/* Wait for the frame's last event as wait-mode says, querying it
 * (cudaEventQuery: no system call, no driver thread) on the schedule of
 * gstcvwaitschedule.c: block sleeps between queries, first until 3/4 of
 * the recent frames' GPU time has passed since the frame's submission,
 * then in steps of 1/8 of the time waited; spin queries until done;
 * spin-then-block queries for 100 us, then as block. *took: the frame's
 * time from submission to done as far as this wait saw it, -1 where the
 * first query found it done already (the host's time, not the GPU's). */
typedef struct
{
  cudaEvent_t ev;
  cudaError_t err;              /* the last query's */
} EventQuery;

static gboolean
event_running (gpointer user_data)
{
  EventQuery *q = user_data;

  q->err = cudaEventQuery (q->ev);
  return q->err == cudaErrorNotReady;
}

static cudaError_t
wait_event (cudaEvent_t ev, GstCudaVisionWaitMode mode, gint64 submitted,
    gint expect_us, gint64 * took)
{
  EventQuery q = { ev, cudaSuccess };

  *took = gst_cv_wait_schedule_wait (mode, submitted, expect_us,
      event_running, &q, NULL);
  return q.err;
}

CvStatus
gst_cv_cuda_slot_wait (GstCudaVisionBase * self, GstCvSlot * s, gdouble ms[3])
{
  CudaBackend *be = cuda_backend (self);
  CudaSlot *c = s->backend_state;
  gint64 took;
  gboolean ok = TRUE;
  guint p, i;
  float t;

  if (!gst_cv_cuda_enter (self, TRUE))
    return gst_cv_pending_status (self, CV_ERROR_CUDA);
  if (!CUDA_CHECK (self, wait_event (c->last, s->wait_mode, s->submit_time,
              gst_cv_wait_schedule_expectation (&be->wait), &took)))
    ok = FALSE;
  else
    gst_cv_wait_schedule_record (&be->wait, took);
  for (i = 0; ok && s->timed && i < 3; i++) {
    if (!CUDA_CHECK (self, cudaEventElapsedTime (&t, c->ev[i], c->ev[i + 1])))
      ok = FALSE;
    ms[i] = t;
  }
  gst_cv_cuda_leave (self);
  if (ok && c->out_staged)
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&s->out_frame); p++)
      gst_cv_cuda_stage_plane (self, &s->out_frame, p, &c->h_out[p], FALSE);
  return ok ? CV_OK : gst_cv_pending_status (self, CV_ERROR_CUDA);
}

gboolean
gst_cv_cuda_slot_done (GstCudaVisionBase * self, GstCvSlot * s)
{
  CudaSlot *c = s->backend_state;
  cudaError_t err;

  if (!c || !gst_cv_cuda_enter (self, FALSE))
    return TRUE;
  err = cudaEventQuery (c->last);
  gst_cv_cuda_leave (self);
  return err != cudaErrorNotReady;
}

void
gst_cv_cuda_slot_sync (GstCudaVisionBase * self, GstCvSlot * s)
{
  CudaSlot *c = s->backend_state;

  if (c && c->stream && gst_cv_cuda_enter (self, FALSE)) {
    cudaStreamSynchronize (c->stream);
    (void) cudaGetLastError ();
    gst_cv_cuda_leave (self);
  }
}
