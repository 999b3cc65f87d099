/* gst-cuda-vision: the CUDA backend (built with CUDA only). Every slot has
 * its own non-blocking stream (at the element's stream-priority), 4 timing
 * events (before upload, after upload, after the operator, done: recorded
 * when the stage timings are wanted) and an untimed one (done, otherwise),
 * device planes (tightly packed where rows allow, else pitched) and pinned
 * staging taken at first use from the process-wide cache
 * (gstcvpinnedcache.c) and given back when the slot is freed (stop, caps
 * change). A frame's upload, operator and download are queued on the
 * slot's stream; planes in GstCudaMemory of the element's context are
 * used in place, planes in pinned memory (the plugin's by their memory
 * type, others checked with cudaPointerGetAttributes) are copied by DMA
 * straight from/to the buffer,
 * pageable ones go through the staging (one CPU copy). All CUDA work runs
 * in the shared CUDA context (gstcvcudacontext.c), or the device's primary
 * context in a build without gstreamer-cuda.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "gstcudavisionbase-private.h"
#include "gstcvcudacontext.h"
#include "gstcvpinned.h"
#include "gstcvtrace.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

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
} CudaBackend;

static inline CudaBackend *
cuda_backend (GstCudaVisionBase * self)
{
  return GST_CV_PRIV (self)->be_state;
}

#define CUDA_CHECK(self, call) \
  cuda_check ((self), (call), #call, __FILE__, GST_FUNCTION, __LINE__)

/* a failing CUDA call: an element error naming it */
static gboolean
cuda_check (GstCudaVisionBase * self, cudaError_t err, const gchar * what,
    const gchar * file, const gchar * func, gint line)
{
  if (G_LIKELY (err == cudaSuccess))
    return TRUE;
  (void) cudaGetLastError ();   /* clear a non-sticky error */
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_FAILED,
      g_strdup_printf ("CUDA error: %s", cudaGetErrorString (err)),
      g_strdup_printf ("%s failed: %s (%s)", what, cudaGetErrorName (err),
          cudaGetErrorString (err)), file, func, line);
  return FALSE;
}

static const gchar *
cuda_error_string (int status)
{
  return cudaGetErrorString ((cudaError_t) status);
}

/* Make the element's CUDA context current in this thread (pair with
 * cuda_leave ()). */
static gboolean
cuda_enter (GstCudaVisionBase * self, gboolean post_error)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  if (priv->ctx) {
    if (gst_cv_cuda_context_push (priv->ctx))
      return TRUE;
    if (post_error)
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("CUDA error: could not make "
              "the CUDA context current"), ("gst_cuda_context_push failed"));
    return FALSE;
  }
  if (!post_error)
    return cudaSetDevice (cuda_backend (self)->device) == cudaSuccess;
  return CUDA_CHECK (self, cudaSetDevice (cuda_backend (self)->device));
}

static void
cuda_leave (GstCudaVisionBase * self)
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
  CudaBackend be = { 0, 0, 0, -1, 0 };
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

/* planes copied for one frame: one lock per frame */
static void
count_transfers (GstCudaVisionBase * self, guint n)
{
  if (!n)
    return;
  GST_OBJECT_LOCK (self);
  cuda_backend (self)->host_transfers += n;
  GST_OBJECT_UNLOCK (self);
}

/* with the context current */
static void
slot_free_in_ctx (GstCudaVisionBase * self, GstCvSlot * s)
{
  CudaSlot *c = s->backend_state;
  guint p, i;

  if (c && c->stream)
    cudaStreamSynchronize (c->stream);
  if (s->op)
    GST_CV_PRIV (self)->ops->destroy (s->op);
  s->op = NULL;
  if (!c)
    return;
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

static void
cuda_slot_free (GstCudaVisionBase * self, GstCvSlot * s)
{
  gboolean entered;

  if (!s->backend_state && !s->op)
    return;
  /* device memory belongs to the element's context */
  entered = cuda_enter (self, FALSE);
  slot_free_in_ctx (self, s);
  if (entered)
    cuda_leave (self);
}

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

static gboolean
slot_state (GstCudaVisionBase * self, GstCvSlot * s)
{
  CudaSlot *c;
  guint i;

  if (s->backend_state)
    return TRUE;
  c = s->backend_state = g_new0 (CudaSlot, 1);
  if (!CUDA_CHECK (self, cudaStreamCreateWithPriority (&c->stream,
              cudaStreamNonBlocking, stream_priority (self))))
    return FALSE;
  /* an event without timing is the cheaper one to record and wait for */
  if (!CUDA_CHECK (self, cudaEventCreateWithFlags (&c->done,
              cudaEventBlockingSync | cudaEventDisableTiming)))
    return FALSE;
  for (i = 0; i < 4; i++)
    if (!CUDA_CHECK (self, cudaEventCreateWithFlags (&c->ev[i],
                i == 3 ? cudaEventBlockingSync : cudaEventDefault)))
      return FALSE;
  return TRUE;
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
 * allocated at first use */
static gboolean
alloc_planes (GstCudaVisionBase * self, const GstVideoInfo * info, guint mask,
    CvPlane * planes)
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

static gboolean
ptr_is_pinned (const void *ptr)
{
  struct cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess) {
    (void) cudaGetLastError ();
    return FALSE;
  }
  return attr.type == cudaMemoryTypeHost;
}

/* memory of our pinned allocator (portable: pinned for every device) is
 * known without asking the driver (cudaPointerGetAttributes per plane per
 * frame) */
static gboolean
frame_is_pinned (GstVideoFrame * frame)
{
  guint p, i, n = gst_buffer_n_memory (frame->buffer);

  for (i = 0; i < n; i++)
    if (!gst_memory_is_type (gst_buffer_peek_memory (frame->buffer, i),
            GST_CV_PINNED_MEMORY_TYPE))
      break;
  if (n > 0 && i == n)
    return TRUE;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++)
    if (!ptr_is_pinned (GST_VIDEO_FRAME_PLANE_DATA (frame, p)))
      return FALSE;
  return TRUE;
}

/* The driver's primary-context calls, through the runtime's entry points
 * (the plugin links the runtime, not libcuda). */
typedef CUresult (CUDAAPI * PrimaryRetainFn) (CUcontext *, CUdevice);
typedef CUresult (CUDAAPI * CtxPushFn) (CUcontext);
typedef CUresult (CUDAAPI * CtxPopFn) (CUcontext *);
static PrimaryRetainFn drv_retain;
static CtxPushFn drv_push;
static CtxPopFn drv_pop;
#define MAX_PRIMARY 64
static CUcontext primary[MAX_PRIMARY];
static GMutex primary_lock;

static gpointer
load_driver_entries (gpointer unused)
{
  void *f[3] = { NULL, NULL, NULL };
  static const char *const names[3] = { "cuDevicePrimaryCtxRetain",
    "cuCtxPushCurrent", "cuCtxPopCurrent"
  };
  int i;

  for (i = 0; i < 3; i++) {
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion (names[i], &f[i], 12000,
            cudaEnableDefault, &q) != cudaSuccess
        || q != cudaDriverEntryPointSuccess)
      f[i] = NULL;
  }
  (void) cudaGetLastError ();
  if (!f[0] || !f[1] || !f[2])
    return GINT_TO_POINTER (FALSE);
  drv_retain = (PrimaryRetainFn) f[0];
  drv_push = (CtxPushFn) f[1];
  drv_pop = (CtxPopFn) f[2];
  return GINT_TO_POINTER (TRUE);
}

/* device's primary context, retained once for the life of the process
 * (the shared pinned staging lives in it), or NULL */
static CUcontext
primary_context (gint device)
{
  static GOnce once = G_ONCE_INIT;
  CUcontext c = NULL;

  if (!GPOINTER_TO_INT (g_once (&once, load_driver_entries, NULL))
      || device < 0 || device >= MAX_PRIMARY)
    return NULL;
  g_mutex_lock (&primary_lock);
  if (!primary[device] && drv_retain (&c, (CUdevice) device) == CUDA_SUCCESS)
    primary[device] = c;
  c = primary[device];
  g_mutex_unlock (&primary_lock);
  return c;
}

/* the slot's staging of n bytes for a plane: from the shared cache at
 * first use (kept by the slot until it is freed) */
static guint8 *
staging (GstCudaVisionBase * self, GstCvStagingBlock * b, gsize n)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean ok, pushed = FALSE;

  if (b->buffer && b->map.size >= n)
    return b->map.data;
  gst_cv_pinned_cache_release (b);
  /* cached blocks outlive the element and its context (which may be one
   * of nvcodec's, destroyed with its pipeline, and its page-locked memory
   * with it): they are allocated in the device's primary context, pushed
   * on top of the element's and popped again (the thread's context stack
   * is left as it was). Without a context of its own the element already
   * runs in the primary one (cuda_enter). */
  if (priv->ctx) {
    CUcontext pc = primary_context (cuda_backend (self)->device);
    CUcontext popped;

    pushed = pc && drv_push (pc) == CUDA_SUCCESS;
    if (!pushed)
      GST_WARNING_OBJECT (self, "the primary context of device %d cannot be "
          "made current: pinned staging allocated in the element's context",
          cuda_backend (self)->device);
    ok = gst_cv_pinned_cache_acquire (n, b);
    if (pushed)
      (void) drv_pop (&popped);
  } else {
    ok = gst_cv_pinned_cache_acquire (n, b);
  }
  (void) cudaGetLastError ();
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate "
            "%" G_GSIZE_FORMAT " bytes of pinned host memory", n),
        ("gst_cv_pinned_cache_acquire failed"));
    return NULL;
  }
  return b->map.data;
}

/* copy plane p of frame to or from a tightly packed pinned staging area */
static gboolean
stage_plane (GstCudaVisionBase * self, GstVideoFrame * frame, guint p,
    GstCvStagingBlock * b, gboolean to_staging)
{
  gsize row = gst_cuda_vision_plane_row_bytes (&frame->info, p);
  guint rows = gst_cuda_vision_plane_rows (&frame->info, p), y;
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
  guint8 *st = staging (self, b, row * rows);

  if (!st)
    return FALSE;
  if (stride == row) {
    if (to_staging)
      memcpy (st, data, row * rows);
    else
      memcpy (data, st, row * rows);
  } else {
    for (y = 0; y < rows; y++) {
      if (to_staging)
        memcpy (st + y * row, data + y * stride, row);
      else
        memcpy (data + y * stride, st + y * row, row);
    }
  }
  return TRUE;
}

/* plane p of a host frame to or from the slot's device plane: by DMA
 * from/to the buffer when it is pinned, else through the staging */
static gboolean
copy_plane (GstCudaVisionBase * self, CudaSlot * c, GstVideoFrame * f,
    guint p, gboolean pinned, gboolean up)
{
  gsize row = gst_cuda_vision_plane_row_bytes (&f->info, p);
  guint rows = gst_cuda_vision_plane_rows (&f->info, p);
  guint8 *host;
  gsize hpitch;

  if (pinned) {
    host = GST_VIDEO_FRAME_PLANE_DATA (f, p);
    hpitch = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
  } else if (up) {
    if (!stage_plane (self, f, p, &c->h_in[p], TRUE))
      return FALSE;
    host = c->h_in[p].map.data;
    hpitch = row;
  } else {
    if (!(host = staging (self, &c->h_out[p], row * rows)))
      return FALSE;
    hpitch = row;
  }
  if (up ? !CUDA_CHECK (self, cudaMemcpy2DAsync (c->d_in[p].data,
              c->d_in[p].stride, host, hpitch, row, rows,
              cudaMemcpyHostToDevice, c->stream)) :
      !CUDA_CHECK (self, cudaMemcpy2DAsync (host, hpitch, c->d_out[p].data,
              c->d_out[p].stride, row, rows, cudaMemcpyDeviceToHost,
              c->stream)))
    return FALSE;
  return TRUE;
}

/* Queue upload, operator and download of slot s (context current). */
static int
submit_in_ctx (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean in_pinned = FALSE, out_pinned = FALSE;
  CvFrame frame;
  CvExec exec = { NULL, 0, NULL };
  CudaSlot *c;
  guint p, copies = 0;
  int status;

  if (!slot_state (self, s))
    return GST_CUDA_VISION_ERROR_POSTED;
  c = s->backend_state;
  if (!s->op) {
    status = priv->ops->create (priv->op_info, &s->op);
    if (status != CV_OK) {
      s->op = NULL;
      return status;
    }
  }
  memset (&frame, 0, sizeof (frame));
  if (s->in_device) {
    gst_cuda_vision_frame_planes (&s->in_frame, frame.in);
  } else {
    if (!alloc_planes (self, &priv->in_info, priv->upload_planes, c->d_in))
      return GST_CUDA_VISION_ERROR_POSTED;
    memcpy (frame.in, c->d_in, sizeof (frame.in));
    in_pinned = frame_is_pinned (&s->in_frame);
  }
  if (s->out_device) {
    gst_cuda_vision_frame_planes (&s->out_frame, frame.out);
  } else if (!priv->output_is_input) {
    if (!alloc_planes (self, &priv->out_info, ~0u, c->d_out))
      return GST_CUDA_VISION_ERROR_POSTED;
    memcpy (frame.out, c->d_out, sizeof (frame.out));
    out_pinned = frame_is_pinned (&s->out_frame);
  }
  /* lookahead: the first frames of a stream have no output (nothing to
   * download) */
  c->out_staged = s->out_mapped && !s->out_device && !out_pinned
      && !s->no_download;

  /* the stage events only when the timings are wanted (s->timed); the
   * last one always: the frame is done when it is */
  if (s->timed && !CUDA_CHECK (self, cudaEventRecord (c->ev[0], c->stream)))
    return GST_CUDA_VISION_ERROR_POSTED;
  CV_TRACE_PUSH ("cv:upload");
  for (p = 0; !s->in_device && !s->no_upload
      && p < GST_VIDEO_FRAME_N_PLANES (&s->in_frame); p++)
    if ((priv->upload_planes & (1u << p))) {
      if (!copy_plane (self, c, &s->in_frame, p, in_pinned, TRUE)) {
        CV_TRACE_POP ();
        count_transfers (self, copies);
        return GST_CUDA_VISION_ERROR_POSTED;
      }
      copies++;
    }
  CV_TRACE_POP ();
  if (s->timed && !CUDA_CHECK (self, cudaEventRecord (c->ev[1], c->stream)))
    status = GST_CUDA_VISION_ERROR_POSTED;
  else {
    exec.stream = c->stream;
    CV_TRACE_PUSH ("cv:operator");
    status = priv->ops->submit (s->op, &frame, s->params, &exec);
    CV_TRACE_POP ();
    if (status > 0)
      (void) cudaGetLastError ();
  }
  if (status == CV_OK && s->timed
      && !CUDA_CHECK (self, cudaEventRecord (c->ev[2], c->stream)))
    status = GST_CUDA_VISION_ERROR_POSTED;
  CV_TRACE_PUSH ("cv:download");
  for (p = 0; status == CV_OK && s->out_mapped && !s->out_device
      && !s->no_download && p < GST_VIDEO_FRAME_N_PLANES (&s->out_frame); p++) {
    if (!copy_plane (self, c, &s->out_frame, p, out_pinned, FALSE))
      status = GST_CUDA_VISION_ERROR_POSTED;
    else
      copies++;
  }
  CV_TRACE_POP ();
  count_transfers (self, copies);
  if (status != CV_OK)
    return status;
  c->last = s->timed ? c->ev[3] : c->done;
  return CUDA_CHECK (self, cudaEventRecord (c->last, c->stream)) ? CV_OK :
      GST_CUDA_VISION_ERROR_POSTED;
}

static int
cuda_submit (GstCudaVisionBase * self, GstCvSlot * s)
{
  int status;

  if (!cuda_enter (self, TRUE))
    return GST_CUDA_VISION_ERROR_POSTED;
  status = submit_in_ctx (self, s);
  if (status != CV_OK && s->backend_state) {
    /* nothing of this frame may still run when its buffers are released */
    cudaStreamSynchronize (((CudaSlot *) s->backend_state)->stream);
    (void) cudaGetLastError ();
  }
  cuda_leave (self);
  return status;
}

/* Wait for the frame's last event as wait-mode says: sleep in
 * cudaEventSynchronize (a blocking-sync event), or poll cudaEventQuery
 * (for ever, or for SPIN_US and then sleep). */
#define SPIN_US 100

static cudaError_t
wait_event (cudaEvent_t ev, GstCudaVisionWaitMode mode)
{
  if (mode != GST_CUDA_VISION_WAIT_BLOCK) {
    gint64 until = mode == GST_CUDA_VISION_WAIT_SPIN ? G_MAXINT64 :
        g_get_monotonic_time () + SPIN_US;
    cudaError_t err;

    while ((err = cudaEventQuery (ev)) == cudaErrorNotReady) {
      if (g_get_monotonic_time () >= until)
        break;
    }
    if (err != cudaErrorNotReady)
      return err;
  }
  return cudaEventSynchronize (ev);
}

static gboolean
cuda_wait (GstCudaVisionBase * self, GstCvSlot * s, gdouble ms[3])
{
  CudaSlot *c = s->backend_state;
  gboolean ok = TRUE;
  guint p, i;
  float t;

  if (!cuda_enter (self, TRUE))
    return FALSE;
  if (!CUDA_CHECK (self, wait_event (c->last, s->wait_mode)))
    ok = FALSE;
  for (i = 0; ok && s->timed && i < 3; i++) {
    if (!CUDA_CHECK (self, cudaEventElapsedTime (&t, c->ev[i], c->ev[i + 1])))
      ok = FALSE;
    ms[i] = t;
  }
  cuda_leave (self);
  if (ok && c->out_staged)
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&s->out_frame); p++)
      stage_plane (self, &s->out_frame, p, &c->h_out[p], FALSE);
  return ok;
}

static void
cuda_sync (GstCudaVisionBase * self, GstCvSlot * s)
{
  CudaSlot *c = s->backend_state;

  if (c && c->stream && cuda_enter (self, FALSE)) {
    cudaStreamSynchronize (c->stream);
    (void) cudaGetLastError ();
    cuda_leave (self);
  }
}

static const GstCvBackend backend = {
  "cuda", GST_CUDA_VISION_BACKEND_CUDA, TRUE, cuda_ready, cuda_error_string,
  cuda_open, cuda_close, cuda_host_transfers, cuda_priority_level,
  cuda_submit, cuda_wait, cuda_sync, cuda_slot_free
};

const GstCvBackend *const gst_cv_backend_cuda = &backend;
