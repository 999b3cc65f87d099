/* gst-cuda-vision: the shared base element.
 *
 * A GstBaseTransform that owns everything the elements have in common:
 * backend choice (CUDA or CPU), the frames in flight (pipeline-depth slots,
 * each with its own CUDA stream, device planes and pinned staging), pinned
 * host buffer pools, latency, draining, flushing, statistics and error
 * reporting. Subclasses only validate caps, snapshot their properties and
 * call the math in kernels/ and cpu-fallback/. docs/base-class.md explains
 * the design.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudavisionbase.h"
#include "gstcvpinned.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

#define DEFAULT_BACKEND GST_CUDA_VISION_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_PIPELINE_DEPTH 2
#define DEFAULT_POST_STATS FALSE
#define DEFAULT_N_THREADS 0
/* per-frame cost estimates above this get one warning on the bus */
#define COST_WARN_SECONDS 1.0

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_PIPELINE_DEPTH,
  PROP_ACTIVE_BACKEND,
  PROP_POST_STATS,
  PROP_HOST_TRANSFERS,
  PROP_N_THREADS,
};

typedef struct
{
  gboolean busy;
  GstBuffer *inbuf;
  GstBuffer *outbuf;
  GstVideoFrame in_frame;
  GstVideoFrame out_frame;
  gboolean in_mapped;
  gboolean out_mapped;
  gpointer params;
  gpointer scratch;
  gint64 submit_time;           /* monotonic, us */
  gdouble cpu_ms;               /* CPU path: processing time */
  gboolean in_device;           /* in_frame / out_frame mapped as CUDA memory */
  gboolean out_device;
#ifdef HAVE_CUDA
  gboolean allocated;
  gboolean out_staged;
  cudaStream_t stream;
  cudaEvent_t ev[4];            /* before upload, after upload, after kernel, done */
  CvPlane d_in[GST_VIDEO_MAX_PLANES];
  CvPlane d_out[GST_VIDEO_MAX_PLANES];
  guint8 *h_in[GST_VIDEO_MAX_PLANES];   /* pinned staging, lazily */
  guint8 *h_out[GST_VIDEO_MAX_PLANES];
#endif
} Slot;

typedef struct
{
  /* properties, GST_OBJECT_LOCK */
  GstCudaVisionBackend backend;
  gint device_id;
  guint pipeline_depth;
  gboolean post_stats;
  guint n_threads;

  /* state */
  gint cancel;                  /* atomic: flushing or stopping, CPU work
                                 * in progress stops (CvCpuExec.cancel) */
  CvCpuExec cpu_exec;           /* of the frame being processed */
  gchar *cost_warned;           /* setting of the last cost warning */
  GstCaps *refused_caps;        /* last caps refused with an error */
  GstCudaVisionBackend active_backend;
  gint device;                  /* CUDA device in use */
#ifdef HAVE_GST_CUDA
  GstCudaContext *ctx;          /* shared "gst.cuda.context", CUDA backend */
#endif
  gboolean in_cuda_mem;         /* negotiated memory:CUDAMemory in / out */
  gboolean out_cuda_mem;
  guint64 host_transfers;       /* planes copied host <-> device (OBJECT_LOCK) */
  gboolean negotiated;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  guint upload_planes;
  gboolean output_is_input;     /* in force: latched at set_caps */
  gint want_output_is_input;    /* as the subclass last asked (atomic) */
  guint depth;                  /* depth in use (latched per frame) */
  Slot slots[GST_CUDA_VISION_MAX_DEPTH];
  GQueue pending;               /* Slot *, oldest first */

  /* statistics */
  gint64 stats_start;           /* monotonic us: the window's start */
  gint64 stats_last;            /* its last frame finished */
  GstClockTime stats_pts, stats_duration;       /* of that frame */
  guint stats_frames;
  gdouble stats_upload, stats_kernel, stats_download, stats_latency;
} GstCudaVisionBasePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaVisionBase, gst_cuda_vision_base,
    GST_TYPE_BASE_TRANSFORM);

#define PRIV(self) ((GstCudaVisionBasePrivate *) \
    gst_cuda_vision_base_get_instance_private (GST_CUDA_VISION_BASE (self)))

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
#ifdef HAVE_CUDA
      if (status > 0)
        return cudaGetErrorString ((cudaError_t) status);
#endif
      return "unknown error";
  }
}

void
gst_cuda_vision_base_set_upload_planes (GstCudaVisionBase * self, guint mask)
{
  PRIV (self)->upload_planes = mask;
}

void
gst_cuda_vision_base_set_output_is_input (GstCudaVisionBase * self,
    gboolean output_is_input)
{
  /* atomic: callers may hold the object lock (set_property) */
  g_atomic_int_set (&PRIV (self)->want_output_is_input, output_is_input);
}

gboolean
gst_cuda_vision_luma_layout (const GstVideoInfo * info, CvLumaLayout * layout)
{
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_GRAY8:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_I420:
      layout->bpp = 1;
      layout->r = layout->g = layout->b = -1;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      layout->bpp = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
      layout->r = GST_VIDEO_INFO_COMP_OFFSET (info, GST_VIDEO_COMP_R);
      layout->g = GST_VIDEO_INFO_COMP_OFFSET (info, GST_VIDEO_COMP_G);
      layout->b = GST_VIDEO_INFO_COMP_OFFSET (info, GST_VIDEO_COMP_B);
      return TRUE;
    default:
      return FALSE;
  }
}

GstCudaVisionBackend
gst_cuda_vision_base_get_active_backend (GstCudaVisionBase * self)
{
  GstCudaVisionBackend b;

  GST_OBJECT_LOCK (self);
  b = PRIV (self)->active_backend;
  GST_OBJECT_UNLOCK (self);
  return b;
}

/* the timing fields of a frame message */
static void
set_frame_times (GstCudaVisionBase * self, GstStructure * s,
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
  set_frame_times (self, s, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf));
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

guint
gst_cuda_vision_base_cpu_threads (GstCudaVisionBase * self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = PRIV (self)->n_threads;
  GST_OBJECT_UNLOCK (self);
  return n ? n : (guint) g_get_num_processors ();
}

void
gst_cuda_vision_base_check_cost (GstCudaVisionBase * self, gdouble seconds,
    const gchar * setting)
{
  GstCudaVisionBasePrivate *priv = PRIV (self);
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

/* ------------------------------------------------------------------------ */
/* plane geometry */

static guint
plane_first_comp (const GstVideoInfo * info, guint plane)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comp);
  return comp[0] >= 0 ? (guint) comp[0] : 0;
}

/* bytes of pixel data in one row of plane p */
static gsize
plane_row_bytes (const GstVideoInfo * info, guint p)
{
  guint c = plane_first_comp (info, p);

  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
}

G_GNUC_UNUSED static guint
plane_rows (const GstVideoInfo * info, guint p)
{
  return GST_VIDEO_INFO_COMP_HEIGHT (info, plane_first_comp (info, p));
}

gsize
gst_cuda_vision_plane_row_bytes (const GstVideoInfo * info, guint plane)
{
  return plane_row_bytes (info, plane);
}

guint
gst_cuda_vision_plane_pixel_stride (const GstVideoInfo * info, guint plane)
{
  return GST_VIDEO_INFO_COMP_PSTRIDE (info, plane_first_comp (info, plane));
}

static void
planes_from_frame (GstVideoFrame * frame, CvPlane * planes)
{
  guint p;

  memset (planes, 0, sizeof (CvPlane) * GST_VIDEO_MAX_PLANES);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    guint c = plane_first_comp (&frame->info, p);
    planes[p].data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    planes[p].stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    planes[p].width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    planes[p].height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
  }
}

/* A mapped frame is one of the negotiated caps (a GstVideoMeta may say
 * otherwise), and every plane's rows lie within the memory mapped for it:
 * GStreamer 1.22's gst_video_frame_map() does not check a meta's strides
 * and offsets against the memory. FALSE with *why set otherwise. */
static gboolean
frame_is_sane (GstVideoFrame * f, const GstVideoInfo * caps, gchar ** why)
{
  guint p;

  if (GST_VIDEO_FRAME_FORMAT (f) != GST_VIDEO_INFO_FORMAT (caps)
      || GST_VIDEO_FRAME_WIDTH (f) != GST_VIDEO_INFO_WIDTH (caps)
      || GST_VIDEO_FRAME_HEIGHT (f) != GST_VIDEO_INFO_HEIGHT (caps)) {
    *why = g_strdup_printf ("its video meta describes a %s %dx%d frame, the "
        "caps a %s %dx%d one", GST_VIDEO_FRAME_FORMAT (f) ==
        GST_VIDEO_FORMAT_UNKNOWN ? "unknown" : gst_video_format_to_string
        (GST_VIDEO_FRAME_FORMAT (f)), GST_VIDEO_FRAME_WIDTH (f),
        GST_VIDEO_FRAME_HEIGHT (f), GST_VIDEO_INFO_NAME (caps),
        GST_VIDEO_INFO_WIDTH (caps), GST_VIDEO_INFO_HEIGHT (caps));
    return FALSE;
  }
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (f); p++) {
    const GstMapInfo *map = f->meta ? &f->map[p] : &f->map[0];
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (f, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
    gsize row = plane_row_bytes (&f->info, p), rows = plane_rows (&f->info, p);
    gsize start, end;

    if (stride < 0 || (gsize) stride < row) {
      *why = g_strdup_printf ("plane %u has a stride of %d bytes, less than "
          "its %" G_GSIZE_FORMAT "-byte rows", p, stride, row);
      return FALSE;
    }
    start = data >= map->data ? (gsize) (data - map->data) : G_MAXSIZE;
    end = start == G_MAXSIZE ? G_MAXSIZE : start + (rows - 1) * (gsize) stride
        + row;
    if (end > map->size) {
      *why = g_strdup_printf ("plane %u (offset %" G_GSSIZE_FORMAT ", stride "
          "%d, %" G_GSIZE_FORMAT " rows) ends beyond the %" G_GSIZE_FORMAT
          " bytes of its memory", p, data - map->data, stride, rows,
          map->size);
      return FALSE;
    }
  }
  return TRUE;
}

/* A subclass's process_* did not return CV_OK: CV_ERROR_CANCELLED (the
 * element is flushing or stopping) is not an error; an error the subclass
 * posted itself is not posted again; any other status becomes an element
 * error naming it. */
static GstFlowReturn
process_failed (GstCudaVisionBase * self, int status, const gchar * where)
{
  if (status == CV_ERROR_CANCELLED) {
    GST_DEBUG_OBJECT (self, "frame cancelled (flushing or stopping)");
    return GST_FLOW_FLUSHING;
  }
  if (status != GST_CUDA_VISION_ERROR_POSTED)
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Processing the frame on the %s failed: %s", where,
            gst_cuda_vision_status_string (status)),
        ("process_%s returned %d", g_str_equal (where, "GPU") ? "cuda" :
            "cpu", status));
  return GST_FLOW_ERROR;
}

/* ------------------------------------------------------------------------ */
/* CUDA plumbing */

#ifdef HAVE_CUDA
#define CUDA_CHECK(self, call) \
  gst_cuda_vision_check ((self), (call), #call, __FILE__, GST_FUNCTION, __LINE__)

static gboolean
gst_cuda_vision_check (GstCudaVisionBase * self, cudaError_t err,
    const gchar * what, const gchar * file, const gchar * func, gint line)
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

static gboolean
host_ptr_is_pinned (const void *ptr)
{
  struct cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess) {
    (void) cudaGetLastError ();
    return FALSE;
  }
  return attr.type == cudaMemoryTypeHost;
}

static gboolean
frame_is_pinned (GstVideoFrame * frame)
{
  guint p;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++)
    if (!host_ptr_is_pinned (GST_VIDEO_FRAME_PLANE_DATA (frame, p)))
      return FALSE;
  return TRUE;
}

/* Make the element's CUDA context current in this thread: the shared
 * GstCudaContext (the one nvcodec's elements use) when there is one, else
 * the runtime's primary context of the device. Pair with cuda_leave(). */
static gboolean
cuda_enter_full (GstCudaVisionBase * self, gboolean post_error)
{
  GstCudaVisionBasePrivate *priv = PRIV (self);

#ifdef HAVE_GST_CUDA
  if (priv->ctx) {
    if (gst_cuda_context_push (priv->ctx))
      return TRUE;
    if (post_error)
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("CUDA error: could not make "
              "the CUDA context current"), ("gst_cuda_context_push failed"));
    return FALSE;
  }
#endif
  if (!post_error)
    return cudaSetDevice (priv->device) == cudaSuccess;
  return CUDA_CHECK (self, cudaSetDevice (priv->device));
}

#define cuda_enter(self) cuda_enter_full ((self), TRUE)

static void
cuda_leave (GstCudaVisionBase * self)
{
#ifdef HAVE_GST_CUDA
  if (PRIV (self)->ctx)
    gst_cuda_context_pop (NULL);
#endif
}

static void
count_transfer (GstCudaVisionBase * self)
{
  GST_OBJECT_LOCK (self);
  PRIV (self)->host_transfers++;
  GST_OBJECT_UNLOCK (self);
}

/* with the context current */
static void
slot_free_cuda (GstCudaVisionBase * self, Slot * s)
{
  guint p, i;

  if (!s->allocated)
    return;
  if (s->stream)
    cudaStreamSynchronize (s->stream);
  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    if (s->d_in[p].data)
      cudaFree (s->d_in[p].data);
    if (s->d_out[p].data)
      cudaFree (s->d_out[p].data);
    if (s->h_in[p])
      cudaFreeHost (s->h_in[p]);
    if (s->h_out[p])
      cudaFreeHost (s->h_out[p]);
  }
  memset (s->d_in, 0, sizeof (s->d_in));
  memset (s->d_out, 0, sizeof (s->d_out));
  memset (s->h_in, 0, sizeof (s->h_in));
  memset (s->h_out, 0, sizeof (s->h_out));
  for (i = 0; i < 4; i++)
    if (s->ev[i])
      cudaEventDestroy (s->ev[i]);
  memset (s->ev, 0, sizeof (s->ev));
  if (s->stream)
    cudaStreamDestroy (s->stream);
  s->stream = NULL;
  (void) cudaGetLastError ();
  s->allocated = FALSE;
}

/* device planes of the slot for frames that are not in CUDA memory,
 * allocated at first use */
static gboolean
alloc_planes (GstCudaVisionBase * self, const GstVideoInfo * info, guint mask,
    CvPlane * planes)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize pitch = 0, row = plane_row_bytes (info, p);
    guint c = plane_first_comp (info, p);

    if (!(mask & (1u << p)) || planes[p].data)
      continue;
    if (!CUDA_CHECK (self, cudaMallocPitch ((void **) &planes[p].data, &pitch,
                row, plane_rows (info, p))))
      return FALSE;
    planes[p].stride = pitch;
    planes[p].width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    planes[p].height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  }
  return TRUE;
}

static gboolean
slot_alloc_cuda (GstCudaVisionBase * self, Slot * s)
{
  guint i;

  if (s->allocated)
    return TRUE;
  s->allocated = TRUE;          /* so that a partial allocation is freed */
  if (!CUDA_CHECK (self, cudaStreamCreateWithFlags (&s->stream,
              cudaStreamNonBlocking)))
    return FALSE;
  for (i = 0; i < 4; i++)
    if (!CUDA_CHECK (self, cudaEventCreateWithFlags (&s->ev[i],
                i == 3 ? cudaEventBlockingSync : cudaEventDefault)))
      return FALSE;
  return TRUE;
}

/* copy plane p of frame to or from a tightly packed pinned staging area */
static gboolean
stage_plane (GstCudaVisionBase * self, GstVideoFrame * frame, guint p,
    guint8 ** staging, gboolean to_staging)
{
  gsize row = plane_row_bytes (&frame->info, p);
  guint rows = plane_rows (&frame->info, p), y;
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);

  if (!*staging && !CUDA_CHECK (self, cudaHostAlloc ((void **) staging,
              row * rows, cudaHostAllocPortable)))
    return FALSE;
  if (stride == row) {
    if (to_staging)
      memcpy (*staging, data, row * rows);
    else
      memcpy (data, *staging, row * rows);
  } else {
    for (y = 0; y < rows; y++) {
      if (to_staging)
        memcpy (*staging + y * row, data + y * stride, row);
      else
        memcpy (data + y * stride, *staging + y * row, row);
    }
  }
  return TRUE;
}

/* Queue upload, kernel and download of slot s (context current). Planes
 * mapped as CUDA memory (s->in_device / s->out_device) are used in place. */
static gboolean
submit_cuda_in_ctx (GstCudaVisionBase * self, Slot * s, guint index)
{
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstCudaVisionFrame frame;
  gboolean in_pinned = FALSE, out_pinned = FALSE;
  guint p;
  int status;

  if (!slot_alloc_cuda (self, s))
    return FALSE;
  memset (&frame, 0, sizeof (frame));

  if (s->in_device) {
    planes_from_frame (&s->in_frame, frame.in);
  } else {
    if (!alloc_planes (self, &priv->in_info, priv->upload_planes, s->d_in))
      return FALSE;
    memcpy (frame.in, s->d_in, sizeof (frame.in));
    in_pinned = frame_is_pinned (&s->in_frame);
  }
  if (s->out_device) {
    planes_from_frame (&s->out_frame, frame.out);
  } else if (!priv->output_is_input) {
    if (!alloc_planes (self, &priv->out_info, ~0u, s->d_out))
      return FALSE;
    memcpy (frame.out, s->d_out, sizeof (frame.out));
    out_pinned = frame_is_pinned (&s->out_frame);
  }
  s->out_staged = s->out_mapped && !s->out_device && !out_pinned;

  if (!CUDA_CHECK (self, cudaEventRecord (s->ev[0], s->stream)))
    return FALSE;
  for (p = 0; !s->in_device && p < GST_VIDEO_FRAME_N_PLANES (&s->in_frame); p++) {
    const guint8 *src;
    gsize spitch;

    if (!(priv->upload_planes & (1u << p)))
      continue;
    if (in_pinned) {
      src = GST_VIDEO_FRAME_PLANE_DATA (&s->in_frame, p);
      spitch = GST_VIDEO_FRAME_PLANE_STRIDE (&s->in_frame, p);
    } else {
      if (!stage_plane (self, &s->in_frame, p, &s->h_in[p], TRUE))
        return FALSE;
      src = s->h_in[p];
      spitch = plane_row_bytes (&priv->in_info, p);
    }
    if (!CUDA_CHECK (self, cudaMemcpy2DAsync (s->d_in[p].data,
                s->d_in[p].stride, src, spitch,
                plane_row_bytes (&priv->in_info, p),
                plane_rows (&priv->in_info, p), cudaMemcpyHostToDevice,
                s->stream)))
      return FALSE;
    count_transfer (self);
  }
  if (!CUDA_CHECK (self, cudaEventRecord (s->ev[1], s->stream)))
    return FALSE;

  frame.in_info = &priv->in_info;
  frame.out_info = &priv->out_info;
  frame.params = s->params;
  frame.stream = s->stream;
  frame.slot = index;
  frame.scratch = &s->scratch;
  status = klass->process_cuda (self, &frame);
  if (status != CV_OK) {
    if (status > 0)
      (void) cudaGetLastError ();
    process_failed (self, status, "GPU");
    return FALSE;
  }
  if (!CUDA_CHECK (self, cudaEventRecord (s->ev[2], s->stream)))
    return FALSE;

  for (p = 0; s->out_mapped && !s->out_device
      && p < GST_VIDEO_FRAME_N_PLANES (&s->out_frame); p++) {
    guint8 *dst;
    gsize dpitch, row = plane_row_bytes (&priv->out_info, p);
    guint rows = plane_rows (&priv->out_info, p);

    if (out_pinned) {
      dst = GST_VIDEO_FRAME_PLANE_DATA (&s->out_frame, p);
      dpitch = GST_VIDEO_FRAME_PLANE_STRIDE (&s->out_frame, p);
    } else {
      if (!s->h_out[p] && !CUDA_CHECK (self,
              cudaHostAlloc ((void **) &s->h_out[p], row * rows,
                  cudaHostAllocPortable)))
        return FALSE;
      dst = s->h_out[p];
      dpitch = row;
    }
    if (!CUDA_CHECK (self, cudaMemcpy2DAsync (dst, dpitch, s->d_out[p].data,
                s->d_out[p].stride, row, rows, cudaMemcpyDeviceToHost,
                s->stream)))
      return FALSE;
    count_transfer (self);
  }
  return CUDA_CHECK (self, cudaEventRecord (s->ev[3], s->stream));
}

static gboolean
submit_cuda (GstCudaVisionBase * self, Slot * s, guint index)
{
  gboolean ok;

  if (!cuda_enter (self))
    return FALSE;
  ok = submit_cuda_in_ctx (self, s, index);
  if (!ok && s->stream) {
    cudaStreamSynchronize (s->stream);
    (void) cudaGetLastError ();
  }
  cuda_leave (self);
  return ok;
}

static gboolean
wait_cuda (GstCudaVisionBase * self, Slot * s, gdouble ms[3])
{
  guint p, i;
  float t;
  gboolean ok = TRUE;

  if (!cuda_enter (self))
    return FALSE;
  if (!CUDA_CHECK (self, cudaEventSynchronize (s->ev[3])))
    ok = FALSE;
  for (i = 0; ok && i < 3; i++) {
    if (!CUDA_CHECK (self, cudaEventElapsedTime (&t, s->ev[i], s->ev[i + 1])))
      ok = FALSE;
    ms[i] = t;
  }
  cuda_leave (self);
  if (ok && s->out_staged)
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&s->out_frame); p++)
      stage_plane (self, &s->out_frame, p, &s->h_out[p], FALSE);
  return ok;
}
#endif /* HAVE_CUDA */

/* ------------------------------------------------------------------------ */
/* slots */

static void
slot_release (GstCudaVisionBase * self, Slot * s)
{
  if (s->in_mapped)
    gst_video_frame_unmap (&s->in_frame);
  if (s->out_mapped)
    gst_video_frame_unmap (&s->out_frame);
  s->in_mapped = s->out_mapped = FALSE;
  gst_clear_buffer (&s->inbuf);
  gst_clear_buffer (&s->outbuf);
  s->busy = FALSE;
}

/* Drop every frame in flight: wait for the GPU to be done with the buffers,
 * then release them. */
static void
drop_pending (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = PRIV (self);
  Slot *s;

  while ((s = g_queue_pop_head (&priv->pending))) {
#ifdef HAVE_CUDA
    if (s->allocated && cuda_enter_full (self, FALSE)) {
      cudaStreamSynchronize (s->stream);
      (void) cudaGetLastError ();
      cuda_leave (self);
    }
#endif
    slot_release (self, s);
  }
}

/* Free every slot's resources (after drop_pending or a drain). */
static void
free_slots (GstCudaVisionBase * self)
{
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  guint i;

  drop_pending (self);
  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH; i++) {
    Slot *s = &priv->slots[i];
#ifdef HAVE_CUDA
    gboolean entered = FALSE;

    /* device scratch and slot memory belong to the element's context */
    if (priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA
        && (s->allocated || s->scratch))
      entered = cuda_enter_full (self, FALSE);
    slot_free_cuda (self, s);
#endif
    if (s->scratch && klass->free_scratch)
      klass->free_scratch (self, s->scratch);
    s->scratch = NULL;
    g_clear_pointer (&s->params, g_free);
#ifdef HAVE_CUDA
    if (entered)
      cuda_leave (self);
#endif
  }
}

/* Add one frame's timings; post the means once a second, and at the end of
 * the stream (final = TRUE, no frame added) for what is left. fps counts
 * the frames finished since the previous message (or since the first
 * frame was submitted) over that time, up to the last frame finished; the
 * message carries that frame's timing fields. */
static void
post_stats (GstCudaVisionBase * self, gint64 submit_time, GstBuffer * buf,
    gdouble upload, gdouble kernel, gdouble download, gdouble latency,
    gboolean final)
{
  GstCudaVisionBasePrivate *priv = PRIV (self);
  gint64 now = g_get_monotonic_time ();
  gboolean enabled;

  GST_OBJECT_LOCK (self);
  enabled = priv->post_stats;
  GST_OBJECT_UNLOCK (self);
  if (!enabled)
    return;
  if (!final) {
    if (priv->stats_frames == 0 && priv->stats_start == 0)
      priv->stats_start = submit_time;
    priv->stats_frames++;
    priv->stats_last = now;
    priv->stats_pts = GST_BUFFER_PTS (buf);
    priv->stats_duration = GST_BUFFER_DURATION (buf);
    priv->stats_upload += upload;
    priv->stats_kernel += kernel;
    priv->stats_download += download;
    priv->stats_latency += latency;
  }
  if (priv->stats_frames > 0 && (final
          || now - priv->stats_start >= G_USEC_PER_SEC)) {
    gdouble n = priv->stats_frames;
    GstStructure *st = gst_structure_new ("cudavision-stats",
        "backend", G_TYPE_STRING,
        priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA ? "cuda" : "cpu",
        "frames", G_TYPE_UINT, priv->stats_frames,
        "fps", G_TYPE_DOUBLE, n * G_USEC_PER_SEC / MAX (priv->stats_last -
            priv->stats_start, 1),
        "upload-ms", G_TYPE_DOUBLE, priv->stats_upload / n,
        "kernel-ms", G_TYPE_DOUBLE, priv->stats_kernel / n,
        "download-ms", G_TYPE_DOUBLE, priv->stats_download / n,
        "latency-ms", G_TYPE_DOUBLE, priv->stats_latency / n,
        "host-transfers", G_TYPE_UINT64, priv->host_transfers, NULL);
    set_frame_times (self, st, priv->stats_pts, priv->stats_duration);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), st));
    priv->stats_start = priv->stats_last;
    priv->stats_frames = 0;
    priv->stats_upload = priv->stats_kernel = priv->stats_download =
        priv->stats_latency = 0;
  }
}

/* Complete the oldest frame in flight. */
static GstFlowReturn
finish_oldest (GstCudaVisionBase * self, GstBuffer ** outbuf)
{
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  Slot *s = g_queue_pop_head (&priv->pending);
  GstFlowReturn ret = GST_FLOW_OK;
  gdouble ms[3] = { 0, s->cpu_ms, 0 };
  gdouble latency;

#ifdef HAVE_CUDA
  if (priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA
      && !wait_cuda (self, s, ms)) {
    slot_release (self, s);
    return GST_FLOW_ERROR;
  }
#endif
  latency = (g_get_monotonic_time () - s->submit_time) / 1000.0;
  GST_DEBUG_OBJECT (self, "frame %" GST_TIME_FORMAT " slot %d: upload %.3f ms,"
      " kernel %.3f ms, download %.3f ms, in element %.3f ms",
      GST_TIME_ARGS (GST_BUFFER_PTS (s->outbuf)), (int) (s - priv->slots),
      ms[0], ms[1], ms[2], latency);
  post_stats (self, s->submit_time, s->outbuf, ms[0], ms[1], ms[2], latency,
      FALSE);

  /* unmap before handing the buffers on; with output_is_input, drop our
   * reference to the input so that finish_frame() can make it writable
   * without a copy */
  if (s->out_mapped)
    gst_video_frame_unmap (&s->out_frame);
  if (s->in_mapped)
    gst_video_frame_unmap (&s->in_frame);
  s->out_mapped = s->in_mapped = FALSE;
  gst_clear_buffer (&s->inbuf);

  if (klass->finish_frame) {
    GstCudaVisionFrame frame;

    memset (&frame, 0, sizeof (frame));
    frame.in_info = &priv->in_info;
    frame.out_info = &priv->out_info;
    frame.params = s->params;
    frame.slot = s - priv->slots;
    frame.scratch = &s->scratch;
    ret = klass->finish_frame (self, &frame, &s->outbuf);
  }
  if (ret == GST_FLOW_OK) {
    *outbuf = s->outbuf;
    s->outbuf = NULL;
  }
  slot_release (self, s);
  return ret;
}

/* Push every frame in flight downstream, in order (EOS, serialized events,
 * caps changes). */
static GstFlowReturn
drain (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;

  if (!g_queue_is_empty (&priv->pending))
    GST_DEBUG_OBJECT (self, "draining %u frames",
        g_queue_get_length (&priv->pending));
  while (!g_queue_is_empty (&priv->pending)) {
    GstBuffer *buf = NULL;

    if (ret != GST_FLOW_OK) {
      drop_pending (self);
      break;
    }
    ret = finish_oldest (self, &buf);
    if (ret == GST_FLOW_OK && buf)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  }
  return ret;
}

/* ------------------------------------------------------------------------ */
/* the CUDA context */

#ifdef HAVE_GST_CUDA
typedef int (*CuCtxGetCurrentFunc) (void **ctx);

/* A GstCudaContext around the device's primary context: the one the CUDA
 * runtime (and every library on it) uses in this process, so no context of
 * our own is created. */
static GstCudaContext *
wrap_primary_context (GstCudaVisionBase * self, gint device)
{
  CuCtxGetCurrentFunc get_current = NULL;
  enum cudaDriverEntryPointQueryResult q;
  void *cuctx = NULL;

  if (cudaSetDevice (device) != cudaSuccess || cudaFree (NULL) != cudaSuccess
      || cudaGetDriverEntryPointByVersion ("cuCtxGetCurrent",
          (void **) &get_current, 4000, cudaEnableDefault, &q) != cudaSuccess
      || !get_current || get_current (&cuctx) != 0 || !cuctx) {
    (void) cudaGetLastError ();
    GST_WARNING_OBJECT (self, "no primary context on device %d", device);
    return NULL;
  }
  return gst_cuda_context_new_wrapped (cuctx, device);
}

static gboolean
same_cuda_context (GstCudaContext * a, GstCudaContext * b)
{
  return a && b && (a == b
      || gst_cuda_context_get_handle (a) == gst_cuda_context_get_handle (b));
}

/* The "gst.cuda.context" all our CUDA work runs in: a neighbour's (context
 * query on both pads), the application's (need-context message), else the
 * device's primary context, announced with a have-context message so that
 * nvcodec's elements share it. */
static gboolean
ensure_cuda_context (GstCudaVisionBase * self, gint device_id)
{
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstElement *element = GST_ELEMENT (self);
  GstPad *pads[2] = { GST_BASE_TRANSFORM_SRC_PAD (self),
    GST_BASE_TRANSFORM_SINK_PAD (self)
  };
  guint i;

  if (priv->ctx && device_id >= 0) {
    guint dev = 0;
    g_object_get (priv->ctx, "cuda-device-id", &dev, NULL);
    if ((gint) dev != device_id)
      gst_clear_object (&priv->ctx);
  }
  if (priv->ctx)
    return TRUE;
  if (!gst_cuda_load_library ())
    return FALSE;

  for (i = 0; i < 2 && !priv->ctx; i++) {
    GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    if (gst_pad_peer_query (pads[i], q)) {
      GstContext *c = NULL;
      gst_query_parse_context (q, &c);
      if (c)
        gst_cuda_handle_set_context (element, c, device_id, &priv->ctx);
    }
    gst_query_unref (q);
  }
  if (!priv->ctx)
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (self),
            GST_CUDA_CONTEXT_TYPE));
  if (!priv->ctx) {
    GstContext *c;

    priv->ctx = wrap_primary_context (self, device_id < 0 ? 0 : device_id);
    if (!priv->ctx)
      return FALSE;
    c = gst_context_new_cuda_context (priv->ctx);
    gst_element_post_message (element,
        gst_message_new_have_context (GST_OBJECT (self), c));
  }
  GST_INFO_OBJECT (self, "CUDA context %" GST_PTR_FORMAT, priv->ctx);
  return TRUE;
}
#endif

/* gst_buffer_pool_set_config(), accepting the adjustments a pool makes
 * (a CUDA pool raises the size to its pitched layout and returns FALSE with
 * the adjusted config, to be checked and set again) */
G_GNUC_UNUSED static gboolean
set_pool_config (GstBufferPool * pool, GstStructure * config)
{
  GstCaps *caps = NULL;
  guint size, min, max;

  gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max);
  if (caps)
    gst_caps_ref (caps);
  if (gst_buffer_pool_set_config (pool, config)) {
    gst_clear_caps (&caps);
    return TRUE;
  }
  config = gst_buffer_pool_get_config (pool);
  if (!gst_buffer_pool_config_validate_params (config, caps, size, min, max)) {
    gst_structure_free (config);
    gst_clear_caps (&caps);
    return FALSE;
  }
  gst_clear_caps (&caps);
  return gst_buffer_pool_set_config (pool, config);
}

/* ------------------------------------------------------------------------ */
/* caps and memory features */

static gboolean
caps_is_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *f;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f,
      GST_CUDA_VISION_CUDA_MEMORY_FEATURE);
}

/* Whether memory:CUDAMemory caps can be offered: the plugin was built with
 * gstreamer-cuda and the element runs (or, not started yet, may run) on
 * the GPU. */
static gboolean
cuda_memory_possible (GstCudaVisionBase * self)
{
#if defined (HAVE_CUDA) && defined (HAVE_GST_CUDA)
  GstCudaVisionBasePrivate *priv = PRIV (self);
  gboolean ok;

  if (!GST_CUDA_VISION_BASE_GET_CLASS (self)->process_cuda)
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (priv->active_backend == GST_CUDA_VISION_BACKEND_AUTO)
    ok = priv->backend != GST_CUDA_VISION_BACKEND_CPU;
  else
    ok = priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA;
  GST_OBJECT_UNLOCK (self);
  return ok;
#else
  return FALSE;
#endif
}

/* caps with every structure given the features (NULL: system memory) */
static GstCaps *
caps_with_features (GstCaps * caps, const gchar * feature)
{
  GstCaps *res = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (res); i++)
    gst_caps_set_features (res, i, feature ?
        gst_caps_features_new (feature, NULL) : NULL);
  return res;
}

/* The structures of plain (system memory) caps in CUDA memory, restricted
 * to the formats GStreamer's CUDA allocator can hold. */
static GstCaps *
cuda_memory_caps (GstCaps * plain)
{
  GstCaps *any_fmt = caps_with_features (plain,
      GST_CUDA_VISION_CUDA_MEMORY_FEATURE);
  GstCaps *fmts = gst_caps_from_string ("video/x-raw("
      GST_CUDA_VISION_CUDA_MEMORY_FEATURE "), format=(string) "
      GST_CUDA_VISION_CUDA_MEMORY_FORMATS);
  GstCaps *cuda = gst_caps_intersect_full (any_fmt, fmts,
      GST_CAPS_INTERSECT_FIRST);

  gst_caps_unref (any_fmt);
  gst_caps_unref (fmts);
  return cuda;
}

static GstPadTemplate *
pad_template (const gchar * name, GstPadDirection dir, const gchar * formats)
{
  gchar *str = g_strdup_printf ("video/x-raw, format=(string) %s, "
      "width=(int) [ 1, max ], height=(int) [ 1, max ], "
      "framerate=(fraction) [ 0, max ]", formats);
  GstCaps *caps = gst_caps_from_string (str);
  GstPadTemplate *t;

  g_free (str);
  g_return_val_if_fail (caps != NULL, NULL);
#if defined (HAVE_CUDA) && defined (HAVE_GST_CUDA)
  {
    GstCaps *cuda = cuda_memory_caps (caps);

    gst_caps_append (cuda, caps);
    caps = cuda;
  }
#endif
  t = gst_pad_template_new (name, dir, GST_PAD_ALWAYS, caps);
  gst_caps_unref (caps);
  return t;
}

void
gst_cuda_vision_base_class_add_pad_templates (GstElementClass * klass,
    const gchar * sink_formats, const gchar * src_formats)
{
  gst_element_class_add_pad_template (klass, pad_template ("sink",
          GST_PAD_SINK, sink_formats));
  gst_element_class_add_pad_template (klass, pad_template ("src",
          GST_PAD_SRC, src_formats));
}

/* The subclass's transform_format_caps sees and returns plain (system
 * memory) caps; the base offers each result in CUDA memory and in system
 * memory, the memory of the input first: CUDA memory stays on the GPU when
 * both neighbours allow it, system memory is not moved to the GPU for
 * nothing. */
static GstCaps *
gst_cuda_vision_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstCaps *plain = caps_with_features (caps, NULL), *res, *tmpl, *t;
  gboolean want_input;
  GstPad *other = direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans);

  plain = gst_caps_simplify (plain);
  want_input = g_atomic_int_get (&priv->want_output_is_input);
  if (want_input) {
    /* the input buffer is pushed on: same caps, same memory */
    gst_caps_unref (plain);
    res = gst_caps_copy (caps);
    if (!cuda_memory_possible (self)) {
      guint i = 0;
      while (i < gst_caps_get_size (res)) {
        GstCapsFeatures *f = gst_caps_get_features (res, i);
        if (f && gst_caps_features_contains (f,
                GST_CUDA_VISION_CUDA_MEMORY_FEATURE))
          gst_caps_remove_structure (res, i);
        else
          i++;
      }
    }
    goto intersect;
  }
  if (klass->transform_format_caps) {
    t = klass->transform_format_caps (self, direction, plain);
    gst_caps_unref (plain);
    plain = t;
  }
  if (cuda_memory_possible (self)) {
    GstCaps *cuda = cuda_memory_caps (plain);

    if (caps_is_cuda_memory (caps)) {
      res = cuda;
      gst_caps_append (res, plain);
    } else {
      res = plain;
      gst_caps_append (res, cuda);
    }
  } else {
    res = plain;
  }
intersect:
  tmpl = gst_pad_get_pad_template_caps (other);
  t = gst_caps_intersect_full (res, tmpl, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (res);
  gst_caps_unref (tmpl);
  res = t;
  if (filter) {
    t = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = t;
  }
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* Among the caps the peer accepts, keep those in the memory of the other
 * pad's caps when there are any: a peer that lists system memory first
 * (cudadownload) would otherwise take CUDA frames off the GPU here. */
static GstCaps *
gst_cuda_vision_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  gboolean cuda = caps_is_cuda_memory (caps);
  GstCaps *same = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (othercaps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (othercaps, i);
    gboolean is_cuda = f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, GST_CUDA_VISION_CUDA_MEMORY_FEATURE);
    if (is_cuda == cuda)
      gst_caps_append_structure_full (same,
          gst_structure_copy (gst_caps_get_structure (othercaps, i)),
          f ? gst_caps_features_copy (f) : NULL);
  }
  if (!gst_caps_is_empty (same)) {
    gst_caps_unref (othercaps);
    othercaps = same;
  } else {
    gst_caps_unref (same);
  }
  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->fixate_caps (trans, direction, caps,
      othercaps);
}

/* ------------------------------------------------------------------------ */
/* GstBaseTransform vfuncs */

static gboolean
gst_cuda_vision_base_start (GstBaseTransform * trans)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBackend want;
  G_GNUC_UNUSED gint device_id;
  gchar *reason = NULL;
  GstCudaVisionBackend active = GST_CUDA_VISION_BACKEND_CPU;

  GST_OBJECT_LOCK (self);
  want = priv->backend;
  device_id = priv->device_id;
  priv->depth = priv->pipeline_depth;
  GST_OBJECT_UNLOCK (self);

  if (want != GST_CUDA_VISION_BACKEND_CPU) {
    if (!klass->process_cuda) {
      reason = g_strdup ("this element has no GPU implementation");
    } else {
#ifdef HAVE_CUDA
      int n = 0;
      cudaError_t err = cudaGetDeviceCount (&n);

      if (err != cudaSuccess) {
        reason = g_strdup_printf ("no usable CUDA driver or device: %s",
            cudaGetErrorString (err));
        (void) cudaGetLastError ();
      } else if (n == 0) {
        reason = g_strdup ("no CUDA device found");
      } else if (device_id >= n) {
        reason = g_strdup_printf ("device-id %d does not exist (%d CUDA "
            "device%s)", device_id, n, n == 1 ? "" : "s");
      } else {
#ifdef HAVE_GST_CUDA
        /* the "gst.cuda.context" shared with nvcodec's elements (found in
         * the pipeline or created); all our CUDA work runs in it */
        if (!ensure_cuda_context (self, device_id)) {
          reason = g_strdup_printf ("no CUDA context for device %d", device_id);
        } else {
          guint dev = 0;

          g_object_get (priv->ctx, "cuda-device-id", &dev, NULL);
          priv->device = dev;
          if (!gst_cuda_context_push (priv->ctx)) {
            reason = g_strdup ("the CUDA context cannot be made current");
          } else {
            err = cudaFree (NULL);      /* the runtime works in it */
            gst_cuda_context_pop (NULL);
            if (err != cudaSuccess) {
              reason = g_strdup_printf ("CUDA device %u is not usable: %s",
                  dev, cudaGetErrorString (err));
              (void) cudaGetLastError ();
            } else {
              active = GST_CUDA_VISION_BACKEND_CUDA;
            }
          }
          if (active != GST_CUDA_VISION_BACKEND_CUDA)
            gst_clear_object (&priv->ctx);
        }
#else
        if (device_id < 0)
          device_id = 0;
        err = cudaSetDevice (device_id);
        if (err == cudaSuccess)
          err = cudaFree (NULL);        /* create the primary context now */
        if (err != cudaSuccess) {
          reason = g_strdup_printf ("CUDA device %d is not usable: %s",
              device_id, cudaGetErrorString (err));
          (void) cudaGetLastError ();
        } else {
          active = GST_CUDA_VISION_BACKEND_CUDA;
          priv->device = device_id;
        }
#endif
      }
#else
      reason = g_strdup ("the plugin was built without CUDA support");
#endif
    }
  }

  if (active == GST_CUDA_VISION_BACKEND_CPU
      && want != GST_CUDA_VISION_BACKEND_CPU) {
    if (want == GST_CUDA_VISION_BACKEND_CUDA) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("backend=cuda was requested but no CUDA GPU is usable: %s", reason),
          ("set backend=auto or backend=cpu to run on the CPU"));
      g_free (reason);
      return FALSE;
    }
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND, ("No usable CUDA GPU, "
            "running on the CPU: %s", reason), ("backend=auto; set "
            "backend=cpu to run on the CPU without this warning"));
  }
  g_free (reason);

  GST_OBJECT_LOCK (self);
  priv->active_backend = active;
  priv->host_transfers = 0;
  GST_OBJECT_UNLOCK (self);
  g_atomic_int_set (&priv->cancel, 0);
  g_object_notify (G_OBJECT (self), "active-backend");
  GST_INFO_OBJECT (self, "backend %s, device %d, pipeline depth %u",
      active == GST_CUDA_VISION_BACKEND_CUDA ? "cuda" : "cpu", priv->device,
      priv->depth);
  priv->stats_frames = 0;
  priv->stats_start = 0;
  return TRUE;
}

static gboolean
gst_cuda_vision_base_stop (GstBaseTransform * trans)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = PRIV (self);

  free_slots (self);
  priv->negotiated = FALSE;
  gst_clear_caps (&priv->refused_caps);
  GST_OBJECT_LOCK (self);
  priv->active_backend = GST_CUDA_VISION_BACKEND_AUTO;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_cuda_vision_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstVideoInfo in_info, out_info;
  gboolean fps_changed;

  if (!gst_video_info_from_caps (&in_info, incaps)
      || !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }

  if (GST_VIDEO_INFO_IS_INTERLACED (&in_info)) {
    /* once per caps: a refused CAPS event is sent again with every buffer */
    if (!priv->refused_caps || !gst_caps_is_equal (priv->refused_caps,
            incaps))
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Interlaced video (%s) is "
              "not supported: deinterlace it first (e.g. with deinterlace)",
              gst_video_interlace_mode_to_string
              (GST_VIDEO_INFO_INTERLACE_MODE (&in_info))), ("caps %"
              GST_PTR_FORMAT, incaps));
    gst_caps_replace (&priv->refused_caps, incaps);
    return FALSE;
  }

  /* frames in flight belong to the old caps */
  drain (self);
  free_slots (self);

  priv->in_cuda_mem = caps_is_cuda_memory (incaps);
  priv->out_cuda_mem = caps_is_cuda_memory (outcaps);
  if ((priv->in_cuda_mem || priv->out_cuda_mem) && !cuda_memory_possible (self)) {
    GST_ERROR_OBJECT (self, "CUDA memory caps without a CUDA context");
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%s memory in, %s memory out",
      priv->in_cuda_mem ? "CUDA" : "system",
      priv->out_cuda_mem ? "CUDA" : "system");

  fps_changed = priv->negotiated &&
      (GST_VIDEO_INFO_FPS_N (&priv->in_info) != GST_VIDEO_INFO_FPS_N (&in_info)
      || GST_VIDEO_INFO_FPS_D (&priv->in_info) !=
      GST_VIDEO_INFO_FPS_D (&in_info));
  priv->upload_planes = (1u << GST_VIDEO_INFO_N_PLANES (&in_info)) - 1;
  priv->negotiated = FALSE;
  if (klass->set_info && !klass->set_info (self, incaps, &in_info, outcaps,
          &out_info))
    return FALSE;
  priv->in_info = in_info;
  priv->out_info = out_info;
  /* frames of these caps pass the input buffer on, or not, whatever the
   * subclass asks for the next negotiation */
  priv->output_is_input = g_atomic_int_get (&priv->want_output_is_input);
  priv->negotiated = TRUE;
  if (fps_changed && priv->depth > 1)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  return TRUE;
}

static gboolean
gst_cuda_vision_base_get_unit_size (GstBaseTransform * trans, GstCaps * caps,
    gsize * size)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

static gboolean
gst_cuda_vision_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstCaps *caps;
  GstVideoInfo info;
  gboolean need_pool;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;

#ifdef HAVE_GST_CUDA
  if (caps_is_cuda_memory (caps)) {
    /* device memory of our context: the kernels read it in place */
    if (priv->ctx && need_pool) {
      GstBufferPool *pool = gst_cuda_buffer_pool_new (priv->ctx);
      GstStructure *config = gst_buffer_pool_get_config (pool);

      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
      gst_buffer_pool_config_set_params (config, caps,
          GST_VIDEO_INFO_SIZE (&info), priv->depth + 1, 0);
      if (set_pool_config (pool, config))
        gst_query_add_allocation_pool (query, pool,
            GST_VIDEO_INFO_SIZE (&info), priv->depth + 1, 0);
      gst_object_unref (pool);
    }
    return TRUE;
  }
#endif

  /* pinned memory: the upload is a DMA straight out of the buffer */
  if (priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA)
    gst_cv_pinned_propose_allocation (query, priv->depth + 1);
  return TRUE;
}

static gboolean
gst_cuda_vision_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  guint need = priv->depth + 1;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

#ifdef HAVE_GST_CUDA
  if (caps_is_cuda_memory (caps)) {
    /* a CUDA pool of our context: downstream's if it is one, else ours */
    GstStructure *config;

    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool)
            || !same_cuda_context (GST_CUDA_BUFFER_POOL (pool)->context,
                priv->ctx)
            || (max != 0 && max < need)))
      gst_clear_object (&pool);
    if (!pool) {
      pool = gst_cuda_buffer_pool_new (priv->ctx);
      min = need;
      max = 0;
    }
    size = MAX (size, GST_VIDEO_INFO_SIZE (&info));
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, size, MAX (min, need),
        max);
    if (!set_pool_config (pool, config)) {
      GST_ERROR_OBJECT (self, "CUDA buffer pool refused its configuration");
      gst_object_unref (pool);
      return FALSE;
    }
    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_set_nth_allocation_pool (query, 0, pool, size,
          MAX (min, need), max);
    else
      gst_query_add_allocation_pool (query, pool, size, MAX (min, need), max);
    gst_object_unref (pool);
    return GST_BASE_TRANSFORM_CLASS
        (gst_cuda_vision_base_parent_class)->decide_allocation (trans, query);
  }
#endif

  if (priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA) {
    /* Download straight into pinned output buffers. A pool downstream
     * offers is plain system memory at best (this element negotiates
     * system memory), so our own pinned pool replaces it. */
    pool = gst_cv_pinned_pool_new (caps, &info, need);
    if (pool) {
      GstAllocator *pinned = gst_cv_pinned_allocator_get ();
      GstAllocationParams params;

      /* GstBaseTransform's decide_allocation configures the pool with the
       * query's first allocator (the system one when downstream names
       * none): make that the pinned one, or every frame would be
       * downloaded to staging memory and copied by the CPU */
      gst_cv_pinned_allocation_params (&params);
      if (gst_query_get_n_allocation_params (query) > 0) {
        /* downstream's prefix, padding and alignment, at least ours */
        GstAllocationParams theirs;

        gst_query_parse_nth_allocation_param (query, 0, NULL, &theirs);
        theirs.align |= params.align;
        gst_query_set_nth_allocation_param (query, 0, pinned, &theirs);
      } else {
        gst_query_add_allocation_param (query, pinned, &params);
      }
      if (pinned)
        gst_object_unref (pinned);
      if (gst_query_get_n_allocation_pools (query) > 0)
        gst_query_set_nth_allocation_pool (query, 0, pool,
            GST_VIDEO_INFO_SIZE (&info), need, 0);
      else
        gst_query_add_allocation_pool (query, pool,
            GST_VIDEO_INFO_SIZE (&info), need, 0);
      gst_object_unref (pool);
      return GST_BASE_TRANSFORM_CLASS
          (gst_cuda_vision_base_parent_class)->decide_allocation (trans, query);
    }
  }

  /* CPU: a video pool, from downstream when offered, big enough for the
   * frames this element holds */
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && max != 0 && max < need) {
    gst_object_unref (pool);
    pool = NULL;
  }
  if (!pool) {
    GstStructure *config;

    pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps,
        GST_VIDEO_INFO_SIZE (&info), need, 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_set_config (pool, config);
    min = need;
    max = 0;
  }
  size = MAX (size, GST_VIDEO_INFO_SIZE (&info));
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, MAX (min, need),
        max);
  else
    gst_query_add_allocation_pool (query, pool, size, MAX (min, need), max);
  gst_object_unref (pool);
  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->decide_allocation (trans, query);
}

#ifdef HAVE_GST_CUDA
#define MAP_CUDA GST_MAP_CUDA
#else
#define MAP_CUDA 0
#endif

/* every memory of buf is GstCudaMemory of the element's CUDA context (the
 * same CUcontext, whichever GstCudaContext object wraps it) */
static gboolean
is_own_cuda_memory (GstCudaVisionBase * self, GstBuffer * buf)
{
#ifdef HAVE_GST_CUDA
  GstCudaVisionBasePrivate *priv = PRIV (self);
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    if (!gst_is_cuda_memory (mem)
        || !same_cuda_context (GST_CUDA_MEMORY_CAST (mem)->context, priv->ctx)) {
      GST_LOG_OBJECT (self, "memory %u is not CUDA memory of our context: "
          "copied through the host", i);
      return FALSE;
    }
  }
  return n > 0;
#else
  return FALSE;
#endif
}

static GstFlowReturn
gst_cuda_vision_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  GstFlowReturn ret;
  GstBuffer *inbuf, *outbuf = NULL;
  Slot *s = NULL;
  guint i, depth;

  /* chain up: QoS, reconfiguration; the buffer lands in queued_buf */
  ret = GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->submit_input_buffer (trans,
      is_discont, input);
  if (ret != GST_FLOW_OK || trans->queued_buf == NULL)
    return ret;
  inbuf = trans->queued_buf;
  trans->queued_buf = NULL;

  if (!priv->negotiated) {
    gst_buffer_unref (inbuf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps were negotiated"));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  GST_OBJECT_LOCK (self);
  depth = priv->pipeline_depth;
  GST_OBJECT_UNLOCK (self);
  if (priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA
      && depth != priv->depth) {
    GST_INFO_OBJECT (self, "pipeline depth %u -> %u", priv->depth, depth);
    priv->depth = depth;
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }

  if (priv->output_is_input)
    outbuf = gst_buffer_ref (inbuf);
  else
    ret = GST_BASE_TRANSFORM_CLASS
        (gst_cuda_vision_base_parent_class)->prepare_output_buffer (trans,
        inbuf, &outbuf);
  if (ret != GST_FLOW_OK || !outbuf) {
    gst_buffer_unref (inbuf);
    return ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
  }

  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH; i++)
    if (!priv->slots[i].busy) {
      s = &priv->slots[i];
      break;
    }
  g_assert (s != NULL);         /* generate_output keeps < depth in flight */

  s->busy = TRUE;
  s->inbuf = inbuf;
  s->outbuf = outbuf;
  s->submit_time = g_get_monotonic_time ();
  s->cpu_ms = 0;
  if (!s->params)
    s->params = g_malloc0 (MAX (klass->params_size, 1));
  /* controlled properties (GstController) take their value at this frame */
  if (GST_BUFFER_PTS_IS_VALID (inbuf))
    gst_object_sync_values (GST_OBJECT (self),
        gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
            GST_BUFFER_PTS (inbuf)));
  if (klass->get_params)
    klass->get_params (self, s->params);
  GST_OBJECT_LOCK (self);
  priv->cpu_exec.n_threads = (int) MIN (priv->n_threads, G_MAXINT);
  GST_OBJECT_UNLOCK (self);
  priv->cpu_exec.cancel = &priv->cancel;

  /* CUDA memory of our context is used in place (device pointers); any
   * other memory is mapped on the host and copied */
  s->in_device = priv->in_cuda_mem && is_own_cuda_memory (self, inbuf);
  s->out_device = priv->out_cuda_mem && !priv->output_is_input &&
      is_own_cuda_memory (self, outbuf);
  s->in_mapped = gst_video_frame_map (&s->in_frame, &priv->in_info, inbuf,
      GST_MAP_READ | (s->in_device ? MAP_CUDA : 0));
  s->out_mapped = s->in_mapped && !priv->output_is_input &&
      gst_video_frame_map (&s->out_frame, &priv->out_info, outbuf,
      GST_MAP_WRITE | (s->out_device ? MAP_CUDA : 0));
  if (!s->in_mapped || (!s->out_mapped && !priv->output_is_input)) {
    slot_release (self, s);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The %s buffer does not hold "
            "a video frame of the negotiated caps", s->in_mapped ? "output" :
            "input"), ("could not map the %s video frame (buffer too small "
            "for the caps?)", s->in_mapped ? "output" : "input"));
    return GST_FLOW_ERROR;
  }
  {
    gchar *why = NULL;
    gboolean in_ok = frame_is_sane (&s->in_frame, &priv->in_info, &why);

    if (!in_ok || (s->out_mapped && !frame_is_sane (&s->out_frame,
                &priv->out_info, &why))) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The %s buffer does not "
              "match the negotiated caps: %s", in_ok ? "output" : "input",
              why), ("buffer %" GST_PTR_FORMAT, in_ok ? outbuf : inbuf));
      g_free (why);
      slot_release (self, s);
      return GST_FLOW_ERROR;
    }
  }

#ifdef HAVE_CUDA
  if (priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA) {
    if (!submit_cuda (self, s, i)) {
      cudaStreamSynchronize (s->stream);
      (void) cudaGetLastError ();
      slot_release (self, s);
      return GST_FLOW_ERROR;
    }
    g_queue_push_tail (&priv->pending, s);
    return GST_FLOW_OK;
  }
#endif
  {
    GstCudaVisionFrame frame;
    int status;
    gint64 t0 = g_get_monotonic_time ();

    memset (&frame, 0, sizeof (frame));
    planes_from_frame (&s->in_frame, frame.in);
    if (s->out_mapped)
      planes_from_frame (&s->out_frame, frame.out);
    frame.in_info = &priv->in_info;
    frame.out_info = &priv->out_info;
    frame.params = s->params;
    frame.slot = i;
    frame.scratch = &s->scratch;
    frame.cpu = &priv->cpu_exec;
    status = klass->process_cpu (self, &frame);
    s->cpu_ms = (g_get_monotonic_time () - t0) / 1000.0;
    if (status != CV_OK) {
      slot_release (self, s);
      return process_failed (self, status, "CPU");
    }
    g_queue_push_tail (&priv->pending, s);
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_vision_base_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  guint depth = priv->active_backend == GST_CUDA_VISION_BACKEND_CUDA ?
      priv->depth : 1;

  *outbuf = NULL;
  if (g_queue_get_length (&priv->pending) < depth)
    return GST_FLOW_OK;
  return finish_oldest (self, outbuf);
}

/* Never called: frames go through submit_input_buffer()/generate_output().
 * GstBaseTransform only looks at whether a transform vfunc exists to decide
 * that the element is not a passthrough one. */
static GstFlowReturn
gst_cuda_vision_base_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  g_return_val_if_reached (GST_FLOW_NOT_SUPPORTED);
}

static gboolean
gst_cuda_vision_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      /* a frame the CPU is computing stops early (CV_ERROR_CANCELLED) */
      g_atomic_int_set (&PRIV (self)->cancel, 1);
      break;
    case GST_EVENT_FLUSH_STOP:
      drop_pending (self);
      g_atomic_int_set (&PRIV (self)->cancel, 0);
      break;
    default:
      /* keep serialized events (EOS, segment, gap, caps, tags, ...) in
       * order with the frames in flight */
      if (GST_EVENT_IS_SERIALIZED (event)) {
        GstFlowReturn ret = drain (self);
        if (ret != GST_FLOW_OK)
          GST_DEBUG_OBJECT (self, "drain before %s: %s",
              GST_EVENT_TYPE_NAME (event), gst_flow_get_name (ret));
      }
      if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
        post_stats (self, 0, NULL, 0, 0, 0, 0, TRUE);
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_vision_base_parent_class)->
      sink_event (trans, event);
}

static gboolean
gst_cuda_vision_base_query (GstBaseTransform * trans, GstPadDirection dir,
    GstQuery * query)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = PRIV (self);
  gboolean ret;

#ifdef HAVE_GST_CUDA
  /* share our CUDA context with neighbours asking for one */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cuda_handle_context_query (GST_ELEMENT (self), query, priv->ctx))
    return TRUE;
#endif
  ret = GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->query (trans, dir, query);

  if (ret && dir == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max, frame = 0, extra;
    guint depth;

    gst_query_parse_latency (query, &live, &min, &max);
    GST_OBJECT_LOCK (self);
    depth = priv->active_backend == GST_CUDA_VISION_BACKEND_CPU ? 1 :
        priv->pipeline_depth;
    GST_OBJECT_UNLOCK (self);
    if (priv->negotiated && GST_VIDEO_INFO_FPS_N (&priv->in_info) > 0)
      frame = gst_util_uint64_scale_int (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&priv->in_info),
          GST_VIDEO_INFO_FPS_N (&priv->in_info));
    extra = (depth - 1) * frame;
    min += extra;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += extra;
    GST_DEBUG_OBJECT (self, "latency: adding %" GST_TIME_FORMAT " (%u frames "
        "in flight), min %" GST_TIME_FORMAT, GST_TIME_ARGS (extra), depth - 1,
        GST_TIME_ARGS (min));
    gst_query_set_latency (query, live, min, max);
  }
  return ret;
}

/* ------------------------------------------------------------------------ */
/* GObject */

static void
gst_cuda_vision_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaVisionBasePrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_PIPELINE_DEPTH:
      priv->pipeline_depth = g_value_get_uint (value);
      break;
    case PROP_POST_STATS:
      priv->post_stats = g_value_get_boolean (value);
      break;
    case PROP_N_THREADS:
      priv->n_threads = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_vision_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaVisionBasePrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, priv->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_PIPELINE_DEPTH:
      g_value_set_uint (value, priv->pipeline_depth);
      break;
    case PROP_ACTIVE_BACKEND:
      g_value_set_enum (value, priv->active_backend);
      break;
    case PROP_POST_STATS:
      g_value_set_boolean (value, priv->post_stats);
      break;
    case PROP_HOST_TRANSFERS:
      g_value_set_uint64 (value, priv->host_transfers);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, priv->n_threads);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

#ifdef HAVE_GST_CUDA
/* a "gst.cuda.context" from the application or a neighbour: taken when it
 * is for our device-id (any device when -1), refused otherwise */
static void
gst_cuda_vision_base_set_context (GstElement * element, GstContext * context)
{
  GstCudaVisionBasePrivate *priv = PRIV (element);
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (element);
  gst_cuda_handle_set_context (element, context, device_id, &priv->ctx);
  GST_ELEMENT_CLASS (gst_cuda_vision_base_parent_class)->set_context (element,
      context);
}
#endif

/* The CUDA context is looked for at NULL -> READY, as nvcodec's elements
 * do, so that neighbours find and share one context whatever the order in
 * which the elements start; it is released at READY -> NULL. */
static GstStateChangeReturn
gst_cuda_vision_base_change_state (GstElement * element,
    GstStateChange transition)
{
  GstStateChangeReturn ret;
#ifdef HAVE_GST_CUDA
  GstCudaVisionBasePrivate *priv = PRIV (element);

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    gint device_id;
    GstCudaVisionBackend backend;

    GST_OBJECT_LOCK (element);
    device_id = priv->device_id;
    backend = priv->backend;
    GST_OBJECT_UNLOCK (element);
    if (backend != GST_CUDA_VISION_BACKEND_CPU
        && GST_CUDA_VISION_BASE_GET_CLASS (element)->process_cuda) {
      int n = 0;
      /* no GPU: nothing to look for; start() decides and says why */
      if (cudaGetDeviceCount (&n) == cudaSuccess && n > device_id)
        ensure_cuda_context (GST_CUDA_VISION_BASE (element), device_id);
      (void) cudaGetLastError ();
    }
  }
#endif
  /* stopping: a frame the CPU is computing stops early, so that the
   * streaming thread lets go of the stream lock the deactivation takes */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    g_atomic_int_set (&PRIV (element)->cancel, 1);
  ret = GST_ELEMENT_CLASS (gst_cuda_vision_base_parent_class)->change_state
      (element, transition);
#ifdef HAVE_GST_CUDA
  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    gst_clear_object (&priv->ctx);
#endif
  return ret;
}

static void
gst_cuda_vision_base_finalize (GObject * object)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (object);

  free_slots (self);
#ifdef HAVE_GST_CUDA
  gst_clear_object (&PRIV (self)->ctx);
#endif
  g_free (PRIV (self)->cost_warned);
  gst_clear_caps (&PRIV (self)->refused_caps);
  G_OBJECT_CLASS (gst_cuda_vision_base_parent_class)->finalize (object);
}

static void
gst_cuda_vision_base_class_init (GstCudaVisionBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_vision_base_debug, "cudavisionbase", 0,
      "gst-cuda-vision base element");

  gobject_class->set_property = gst_cuda_vision_base_set_property;
  gobject_class->get_property = gst_cuda_vision_base_get_property;
  gobject_class->finalize = gst_cuda_vision_base_finalize;

  /**
   * GstCudaVisionBase:backend:
   * Where to compute: auto (GPU when usable, else CPU with one warning),
   * cuda (element error at start without a usable GPU) or cpu.
   * Read when the element starts (READY -> PAUSED).
   */
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto (GPU if usable, else CPU), cuda (error "
          "without a GPU) or cpu", GST_TYPE_CUDA_VISION_BACKEND,
          DEFAULT_BACKEND, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstCudaVisionBase:device-id:
   * CUDA device ordinal, -1 for the default device (0). A device that does
   * not exist: element error with backend=cuda, CPU with backend=auto.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device to use, -1 = default device", -1, G_MAXINT,
          DEFAULT_DEVICE_ID, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstCudaVisionBase:pipeline-depth:
   * Frames in flight on the GPU, 1..4. With depth N, frame k uploads while
   * frame k-1 computes and frame k-2 downloads; the element then adds N-1
   * frame durations of latency (reported in the LATENCY query; a latency
   * message is posted when it changes). 1 is synchronous. The CPU backend
   * is always synchronous.
   */
  g_object_class_install_property (gobject_class, PROP_PIPELINE_DEPTH,
      g_param_spec_uint ("pipeline-depth", "Pipeline depth",
          "Frames in flight on the GPU (1 = synchronous, adds no latency; N "
          "adds N-1 frames of latency)", 1, GST_CUDA_VISION_MAX_DEPTH,
          DEFAULT_PIPELINE_DEPTH, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaVisionBase:active-backend:
   * The backend in use: cuda or cpu once started, auto before.
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_enum ("active-backend", "Active backend",
          "Backend in use (auto until the element has started)",
          GST_TYPE_CUDA_VISION_BACKEND, GST_CUDA_VISION_BACKEND_AUTO,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaVisionBase:post-stats:
   * Post an element message "cudavision-stats" once a second with the mean
   * upload-ms, kernel-ms, download-ms (GPU timings; on the CPU kernel-ms is
   * the processing time), latency-ms (submit to finish, wall clock), frames,
   * fps, backend and host-transfers (see that property); the rest is posted
   * at the end of the stream.
   */
  g_object_class_install_property (gobject_class, PROP_POST_STATS,
      g_param_spec_boolean ("post-stats", "Post statistics",
          "Post a 'cudavision-stats' element message every second with "
          "per-stage timings", DEFAULT_POST_STATS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstCudaVisionBase:host-transfers:
   * Planes copied between host and GPU memory since the element started
   * (uploads + downloads). Stays 0 when frames arrive and leave in CUDA
   * memory (memory:CUDAMemory caps, e.g. after nvh264dec and before
   * cudadownload): the proof of a GPU-resident pipeline.
   */
  g_object_class_install_property (gobject_class, PROP_HOST_TRANSFERS,
      g_param_spec_uint64 ("host-transfers", "Host transfers",
          "Planes copied between host and GPU memory since start (0 when "
          "frames stay in CUDA memory)", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstCudaVisionBase:n-threads:
   * Threads of the CPU backend per frame (OpenMP), 0 = one per processor
   * (or OMP_NUM_THREADS), default 0; as videoconvert's n-threads. No effect
   * on the CUDA backend. Takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_N_THREADS,
      g_param_spec_uint ("n-threads", "Threads",
          "Threads of the CPU backend (0 = one per processor)", 0, G_MAXINT,
          DEFAULT_N_THREADS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

#ifdef HAVE_GST_CUDA
  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_set_context);
#endif
  GST_ELEMENT_CLASS (klass)->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_change_state);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_fixate_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_set_caps);
  trans_class->get_unit_size =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_get_unit_size);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_decide_allocation);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_generate_output);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_query);
  trans_class->passthrough_on_same_caps = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_VISION_BASE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_VISION_BACKEND, 0);
}

static void
gst_cuda_vision_base_init (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = PRIV (self);

  /* as GstVideoFilter: frames already late downstream are dropped (a QoS
   * message each) instead of computed; the qos property turns it off */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);

  priv->backend = DEFAULT_BACKEND;
  priv->device_id = DEFAULT_DEVICE_ID;
  priv->pipeline_depth = DEFAULT_PIPELINE_DEPTH;
  priv->post_stats = DEFAULT_POST_STATS;
  priv->n_threads = DEFAULT_N_THREADS;
  priv->active_backend = GST_CUDA_VISION_BACKEND_AUTO;
  priv->depth = DEFAULT_PIPELINE_DEPTH;
  g_queue_init (&priv->pending);
}
