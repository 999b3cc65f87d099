/* gst-cuda-vision: the state the base element's units share (not for the
 * elements). See docs/base-class.md for the units and one frame's path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_VISION_BASE_PRIVATE_H__
#define __GST_CUDA_VISION_BASE_PRIVATE_H__

#include "gstcudavisionbase.h"

G_BEGIN_DECLS

typedef struct _GstCvBackend GstCvBackend;

/* One frame in flight. */
typedef struct
{
  gboolean busy;
  guint index;
  GstBuffer *inbuf;
  GstBuffer *outbuf;
  GstVideoFrame in_frame;
  GstVideoFrame out_frame;
  gboolean in_mapped, out_mapped;
  gboolean in_device, out_device;       /* mapped as CUDA memory */
  gpointer params;              /* the subclass's snapshot (params_size) */
  gboolean params_set;          /* get_params filled it: clear_params owed */
  void *op;                     /* the slot's operator (priv->ops) */
  gpointer backend_state;       /* the backend's (CUDA: stream, planes) */
  gint64 submit_time;           /* monotonic, us */
  gint64 submit_us;             /* host time in gst_cv_scheduler_submit (),
                                 * output buffer included */
  gboolean stats;               /* post-stats, latched at submit */
  gboolean timed;               /* stage timings wanted (post-stats, debug) */
  GstCudaVisionWaitMode wait_mode;      /* latched at submit */
  gdouble cpu_ms;               /* the CPU backend's processing time */
  /* lookahead (gstcvhistory.c): see GstCudaVisionFrame */
  gint64 store, centre;
  guint radius;
  gboolean no_upload;           /* inbuf is not read (store -1) */
  gboolean no_download;         /* no output (centre -1) */
} GstCvSlot;

typedef struct
{
  /* properties, GST_OBJECT_LOCK */
  GstCudaVisionBackend backend;
  gint device_id;
  guint pipeline_depth;
  gboolean post_stats;
  guint n_threads;
  GstCudaVisionWaitMode wait_mode;
  gint stream_priority;         /* 0 = CUDA's default, larger = more urgent */

  /* chosen at start */
  GstCudaVisionBackend active_backend;  /* OBJECT_LOCK for readers */
  const GstCvBackend *be;       /* its table */
  const CvOps *ops;             /* the subclass's operators on it */
  gint device;                  /* CUDA device in use */
  gpointer ctx;                 /* the shared GstCudaContext, if any */
  guint64 host_transfers;       /* OBJECT_LOCK */
  gint cancel;                  /* atomic: flushing or stopping */
  gint prio_least, prio_greatest;       /* the device's stream priorities
                                         * (CUDA's numbers), at start */
  gint stream_priority_used;    /* the level of the streams last created
                                 * (stream-priority clamped), -1: none */

  /* negotiated (set_caps) */
  gboolean negotiated;
  gboolean in_cuda_mem, out_cuda_mem;
  GstVideoInfo in_info, out_info;
  guint upload_planes;
  gboolean output_is_input;     /* latched at set_caps */
  gint want_output_is_input;    /* as the subclass last asked (atomic) */
  gpointer op_info;             /* the operator's info (op_info_size) */
  GstCaps *refused_caps;        /* last caps refused with an error */

  /* frames in flight (the scheduler) */
  guint depth;                  /* latched per frame */
  GstCvSlot slots[GST_CUDA_VISION_MAX_DEPTH];
  GQueue pending;               /* GstCvSlot *, oldest first */

  /* lookahead (gstcvhistory.c) */
  guint lookahead;              /* set_info */
  GQueue history;               /* GstBuffer *: inputs whose output is owed */
  gint64 next_store;            /* index of the next input */
  gint64 next_centre;           /* index of history's head */

  /* statistics (the scheduler) */
  gint64 stats_start, stats_last;
  GstClockTime stats_pts, stats_duration;
  guint stats_frames;
  gdouble stats_upload, stats_kernel, stats_download, stats_latency;
  gdouble stats_submit, stats_wait, stats_finish;       /* host, us */
  gdouble last_finish_us;       /* the previous frame's completion after
                                 * its wait (counted with the next one) */
  gchar *cost_warned;           /* setting of the last cost warning */
} GstCudaVisionBasePrivate;

GstCudaVisionBasePrivate *gst_cuda_vision_base_get_priv (GstCudaVisionBase *
    self);
#define GST_CV_PRIV(self) \
    gst_cuda_vision_base_get_priv (GST_CUDA_VISION_BASE (self))

/* Where frames are computed: the CPU (gstcvbackend-cpu.c) or the GPU
 * (gstcvbackend-cuda.c, built with CUDA only). A backend makes the
 * operators of the slots it runs, in its own memory. */
struct _GstCvBackend
{
  const gchar *name;
  GstCudaVisionBackend kind;
  /* NULL -> READY: look for the device's shared context early, so that
   * neighbours find one context whatever the order they start in
   * (optional). */
  void (*ready) (GstCudaVisionBase * self, gint device_id);
  /* Text of a status > 0 (a cudaError_t). */
  const gchar *(*error_string) (int status);
  /* Make the backend usable at start (device_id -1: the default), FALSE
   * with *reason (a sentence) otherwise. */
    gboolean (*open) (GstCudaVisionBase * self, gint device_id,
      gchar ** reason);
  /* Queue (CUDA) or compute (CPU) slot s's frame: uploads, the operator,
   * downloads. Returns CV_OK or the status to report. */
  int (*submit) (GstCudaVisionBase * self, GstCvSlot * s);
  /* Wait for slot s's frame to be complete (as s->wait_mode says); ms:
   * upload, kernel, download times when s->timed. FALSE after an error
   * (posted). */
    gboolean (*wait) (GstCudaVisionBase * self, GstCvSlot * s,
      gdouble ms[3]);
  /* Wait without reporting (frames dropped on flush). */
  void (*sync) (GstCudaVisionBase * self, GstCvSlot * s);
  /* Free the slot's operator and backend state. */
  void (*slot_free) (GstCudaVisionBase * self, GstCvSlot * s);
};

extern const GstCvBackend gst_cv_backend_cpu;
/* NULL in a build without CUDA (gstcvbackend-none.c) */
extern const GstCvBackend *const gst_cv_backend_cuda;

/* gstcvproperties.c: the properties (specs, defaults, set, get) */
void gst_cv_properties_install (GObjectClass * gobject_class);
void gst_cv_properties_init (GstCudaVisionBase * self);

/* gstcvscheduler.c: the frames in flight */
GstFlowReturn gst_cv_scheduler_submit (GstCudaVisionBase * self,
    GstBuffer * inbuf);
GstFlowReturn gst_cv_scheduler_generate (GstCudaVisionBase * self,
    GstBuffer ** outbuf);
GstFlowReturn gst_cv_scheduler_drain (GstCudaVisionBase * self);
/* submit inbuf (taken) as frame `store` producing the output of frame
 * `centre` (metabuf, taken: the buffer the output buffer is made from;
 * NULL: inbuf, and no output when centre < 0) */
GstFlowReturn gst_cv_scheduler_submit_frame (GstCudaVisionBase * self,
    GstBuffer * inbuf, GstBuffer * metabuf, gint64 store, gint64 centre,
    guint radius);
/* complete the oldest frames in flight until fewer than max are, pushing
 * their outputs */
GstFlowReturn gst_cv_scheduler_finish_until (GstCudaVisionBase * self,
    guint max);
/* the LATENCY query's additions (frames in flight, lookahead) */
void gst_cv_scheduler_latency (GstCudaVisionBase * self, GstQuery * query);

/* gstcvhistory.c: the lookahead (gst_cuda_vision_base_set_lookahead) */
GstFlowReturn gst_cv_history_submit (GstCudaVisionBase * self,
    GstBuffer * inbuf);
/* submit the frames still owed with the window shrunk at the end, then
 * reset (EOS, caps, stream start, segment) */
GstFlowReturn gst_cv_history_drain (GstCudaVisionBase * self);
/* discard the frames owed (flush, stop) */
void gst_cv_history_reset (GstCudaVisionBase * self);
void gst_cv_scheduler_drop (GstCudaVisionBase * self);
void gst_cv_scheduler_free_slots (GstCudaVisionBase * self);
void gst_cv_scheduler_final_stats (GstCudaVisionBase * self);
/* A status of a backend or subclass that is not CV_OK, as a flow return
 * (posting an element error unless the status says it is posted, or the
 * frame was cancelled). */
GstFlowReturn gst_cv_scheduler_failed (GstCudaVisionBase * self, int status,
    const gchar * where);
/* the timing fields of a frame message */
void gst_cv_set_frame_times (GstCudaVisionBase * self, GstStructure * s,
    GstClockTime pts, GstClockTime duration);

G_END_DECLS
#endif
