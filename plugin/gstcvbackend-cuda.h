/* gst-cuda-vision: the CUDA backend's units, built with CUDA only
 * (internal header):
 *   gstcvbackend-cuda.c  the instance (device, context, stream priorities,
 *                        transfer counter), the backend table, a frame's
 *                        submission;
 *   gstcvcudaslot.c      a slot's resources: its stream and events, its
 *                        device planes, the wait for its frame (on the
 *                        schedule of gstcvwaitschedule.c, which calls no
 *                        CUDA: unit-tested without a GPU);
 *   gstcvcudatransfer.c  host planes: pinned detection, the pinned
 *                        staging, the copies to and from the device.
 * The CUDA context work (the shared context, the primary context the
 * staging is allocated in) is gstcvcudacontext.c's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_BACKEND_CUDA_H__
#define __GST_CV_BACKEND_CUDA_H__

#include <cuda_runtime_api.h>

#include "gstcudavisionbase-private.h"
#include "gstcvpinned.h"
#include "gstcvwaitschedule.h"

G_BEGIN_DECLS

typedef struct
{
  cudaStream_t stream;
  cudaEvent_t ev[4];            /* timed: before upload, after upload,
                                 * after the operator, done */
  cudaEvent_t done;             /* done, untimed (no stage timings) */
  cudaEvent_t last;             /* the one recorded last: ev[3] or done */
  CvPlane d_in[GST_VIDEO_MAX_PLANES];
  CvPlane d_out[GST_VIDEO_MAX_PLANES];
  /* pinned staging, from the shared cache at first use */
  GstCvStagingBlock h_in[GST_VIDEO_MAX_PLANES];
  GstCvStagingBlock h_out[GST_VIDEO_MAX_PLANES];
  gboolean out_staged;          /* the download went to h_out */
} CudaSlot;

/* The backend's instance, made at open (start) and freed at close (stop):
 * the device, its stream priorities and the transfer counter. The CUDA
 * context is the element's (found at NULL -> READY, shared with its
 * neighbours: gstcvcudacontext.c). */
typedef struct
{
  gint device;                  /* CUDA device in use */
  gint prio_least, prio_greatest;       /* the device's stream priorities
                                         * (CUDA's numbers) */
  gint level_used;              /* the level of the streams last created
                                 * (stream-priority clamped), -1: none */
  guint64 host_transfers;       /* planes copied; the element's
                                 * OBJECT_LOCK */
  /* the last frames' GPU times (us, from submission to done, as the waits
   * saw them), for wait-mode=block's first sleep (gstcvcudaslot.c,
   * gstcvwaitschedule.c); the output thread's (the only one that waits),
   * emptied at each new operator (new caps) */
  GstCvWaitSchedule wait;
} CudaBackend;

static inline CudaBackend *
cuda_backend (GstCudaVisionBase * self)
{
  return GST_CV_PRIV (self)->be_state;
}

/* A CUDA runtime call: TRUE when it succeeded; otherwise CV_ERROR_CUDA
 * with its error kept and an error naming the call recorded for the base
 * to post (gst_cuda_vision_base_record_error), FALSE. */
#define CUDA_CHECK(self, call) \
  gst_cv_cuda_check ((self), (call), #call, __FILE__, GST_FUNCTION, __LINE__)
gboolean gst_cv_cuda_check (GstCudaVisionBase * self, cudaError_t err,
    const gchar * what, const gchar * file, const gchar * func, gint line);

/* Make the element's CUDA context current in this thread (pair with
 * gst_cv_cuda_leave ()); record_error: record what failed. */
gboolean gst_cv_cuda_enter (GstCudaVisionBase * self, gboolean record_error);
void gst_cv_cuda_leave (GstCudaVisionBase * self);

/* ---- gstcvcudaslot.c: a slot's resources ---- */
/* the slot's stream (at stream-priority) and events, made at
 * negotiation (gst_cv_cuda_slot_prepare ()), else at its first frame
 * (context current) */
gboolean gst_cv_cuda_slot_ensure (GstCudaVisionBase * self, GstCvSlot * s);
/* the backend table's prepare_slot: the slot's stream and events, and its
 * device planes for caps of system memory (enters the context) */
gboolean gst_cv_cuda_slot_prepare (GstCudaVisionBase * self, GstCvSlot * s);
/* device planes of info for the planes in mask not allocated yet */
gboolean gst_cv_cuda_alloc_planes (GstCudaVisionBase * self,
    const GstVideoInfo * info, guint mask, CvPlane * planes);
/* the backend table's slot_free, wait and sync */
void gst_cv_cuda_slot_free (GstCudaVisionBase * self, GstCvSlot * s);
CvStatus gst_cv_cuda_slot_wait (GstCudaVisionBase * self, GstCvSlot * s,
    gdouble ms[3]);
void gst_cv_cuda_slot_sync (GstCudaVisionBase * self, GstCvSlot * s);
/* Whether slot s's frame is done (its last event, one cudaEventQuery: no
 * sleep, no system call; an error counts as done, the wait reports it);
 * GstCvBackend.done. */
gboolean gst_cv_cuda_slot_done (GstCudaVisionBase * self, GstCvSlot * s);

/* ---- gstcvcudatransfer.c: host planes ---- */
gboolean gst_cv_cuda_frame_is_pinned (GstVideoFrame * frame);
/* plane p of frame to (to_staging) or from the staging block b */
gboolean gst_cv_cuda_stage_plane (GstCudaVisionBase * self,
    GstVideoFrame * frame, guint p, GstCvStagingBlock * b,
    gboolean to_staging);
/* plane p of a host frame to (up) or from the slot's device plane: by DMA
 * when pinned, else through the staging (queued on the slot's stream) */
gboolean gst_cv_cuda_copy_plane (GstCudaVisionBase * self, CudaSlot * c,
    GstVideoFrame * f, guint p, gboolean pinned, gboolean up);
/* n planes copied for one frame (host-transfers) */
void gst_cv_cuda_count_transfers (GstCudaVisionBase * self, guint n);

G_END_DECLS
#endif
