/* gst-cuda-vision: the base element's properties: their specs (and
 * documentation), defaults, set and get. Every property lives in the
 * private struct under GST_OBJECT_LOCK; the units read them there (the
 * scheduler per frame, the backends at start or when they make their
 * streams). See docs/base-class.md.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavisionbase-private.h"

#define DEFAULT_BACKEND GST_CUDA_VISION_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_PIPELINE_DEPTH 3
#define DEFAULT_POST_STATS FALSE
#define DEFAULT_N_THREADS 0
#define DEFAULT_WAIT_MODE GST_CUDA_VISION_WAIT_BLOCK
#define DEFAULT_STREAM_PRIORITY 0

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
  PROP_WAIT_MODE,
  PROP_STREAM_PRIORITY,
};

static void
gst_cv_properties_set (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (object);

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
    case PROP_WAIT_MODE:
      priv->wait_mode = g_value_get_enum (value);
      break;
    case PROP_STREAM_PRIORITY:
      priv->stream_priority = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cv_properties_get (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (object);

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
      /* the backend's count while it runs, the last run's after */
      g_value_set_uint64 (value, priv->be && priv->be->host_transfers ?
          priv->be->host_transfers (GST_CUDA_VISION_BASE (object)) :
          priv->host_transfers);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, priv->n_threads);
      break;
    case PROP_WAIT_MODE:
      g_value_set_enum (value, priv->wait_mode);
      break;
    case PROP_STREAM_PRIORITY:
      g_value_set_int (value, priv->stream_priority);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

void
gst_cv_properties_init (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  priv->backend = DEFAULT_BACKEND;
  priv->device_id = DEFAULT_DEVICE_ID;
  priv->pipeline_depth = DEFAULT_PIPELINE_DEPTH;
  priv->post_stats = DEFAULT_POST_STATS;
  priv->n_threads = DEFAULT_N_THREADS;
  priv->wait_mode = DEFAULT_WAIT_MODE;
  priv->stream_priority = DEFAULT_STREAM_PRIORITY;
}

void
gst_cv_properties_install (GObjectClass * gobject_class)
{
  gobject_class->set_property = gst_cv_properties_set;
  gobject_class->get_property = gst_cv_properties_get;

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
   * The most frames in flight on the GPU, 1..4: with depth N, frame k
   * uploads while frame k-1 computes and frame k-2 downloads, when frames
   * come faster than the GPU finishes them; the streaming thread waits
   * only while N frames are in flight (back-pressure). Every frame leaves
   * as soon as its GPU work is done (the element's output thread pushes
   * it), so the depth adds no latency. The CPU backend is synchronous.
   * Default 3: a frame's copies and kernel run one after the other, and a
   * slot is free again only once its frame is done and completed on the
   * host, so 2 slots leave the copy engines idle while the host turns a
   * frame around; 3 keeps both directions busier (1080p GRAY8 in pinned
   * memory on an H200: 18-42 % more frames/s than 2 in two runs; frames
   * in CUDA memory gained nothing, docs/benchmarks.md).
   * Each slot holds device planes and pinned staging for a frame in
   * system memory (none for frames in CUDA memory).
   * The element's operator is made at negotiation for this many frames
   * in flight (their workspaces included). Changed while playing: a
   * smaller depth applies at the next frame; a larger one once the
   * frames in flight have left (the operator is made again for it),
   * except with a temporal window (cudanlmeans temporal-window > 1,
   * whose frames live in the operator): there at the next caps or start.
   */
  g_object_class_install_property (gobject_class, PROP_PIPELINE_DEPTH,
      g_param_spec_uint ("pipeline-depth", "Pipeline depth",
          "Most frames in flight on the GPU (frames leave as soon as they "
          "are done: the depth adds no latency). A larger depth while "
          "playing applies once the frames in flight have left (with a "
          "temporal window: at the next caps)", 1, GST_CUDA_VISION_MAX_DEPTH,
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
   * fps, backend, host-transfers (see that property), stream-priority (the
   * level of the CUDA streams, see that property; CUDA only), and the host
   * side of a frame in the streaming thread, wall clock: host-submit-us (map,
   * check, snapshot, queueing the GPU work), host-wait-us (waiting for the
   * GPU, see wait-mode) and host-finish-us (the rest of its completion);
   * the rest is posted at the end of the stream.
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
   * cudadownload): the proof of a GPU-resident pipeline. Once the element
   * has stopped, the count of its last run.
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

  /**
   * GstCudaVisionBase:wait-mode:
   * How the output thread waits for a frame on the GPU: block (default:
   * it sleeps between queries of the frame's event, first for about 3/4 of
   * the recent frames' GPU time, then in short steps; once those times are
   * representative a frame is seen done at most about 1/8 of its time
   * late, 250 us at most), spin (it queries
   * without sleeping: lowest latency, one core busy) or spin-then-block
   * (queries for up to 100 us, then as block). No effect on the CPU
   * backend. Takes effect at the next frame.
   */
  g_object_class_install_property (gobject_class, PROP_WAIT_MODE,
      g_param_spec_enum ("wait-mode", "Wait mode",
          "How to wait for the GPU: block (sleep between queries), spin "
          "(lowest latency, a core busy) or spin-then-block",
          GST_TYPE_CUDA_VISION_WAIT_MODE,
          DEFAULT_WAIT_MODE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstCudaVisionBase:stream-priority:
   * Priority of the element's CUDA streams: 0 (default) is CUDA's default,
   * lowest priority; larger is more urgent. The GPU's scheduler prefers
   * pending work of higher-priority streams when it picks the next thread
   * blocks (it does not pre-empt blocks already running): a stream of a
   * latency-critical pipeline keeps its latency while other pipelines load
   * the same GPU. Values above the device's highest level are clamped to
   * it (cudaDeviceGetStreamPriorityRange: 0..5 on an H100, CUDA's 0..-5;
   * 0 on devices without priorities); the level used is logged
   * (GST_INFO, category cudavisionbase) and posted as stream-priority in
   * the cudavision-stats messages. Read when the element's CUDA streams
   * are created: when caps are negotiated, after start and at each caps
   * change, and for the new slots of a larger pipeline-depth while
   * playing; a value set after the caps does not reach the streams
   * already made (set it in NULL or READY). It orders the element's own work
   * only (uploads, kernels, downloads): in CUDA memory, elements upstream
   * and downstream (nvcodec's decoders and converters) run their work on
   * their own streams at their own priorities and finish it before they
   * push a buffer (GStreamer 1.22 has no GstCudaStream to share). No
   * effect on the CPU backend.
   */
  g_object_class_install_property (gobject_class, PROP_STREAM_PRIORITY,
      g_param_spec_int ("stream-priority", "Stream priority",
          "Priority of the element's CUDA streams, 0 = CUDA's default "
          "(lowest), larger = more urgent, clamped to the device's range",
          0, G_MAXINT, DEFAULT_STREAM_PRIORITY, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
}
