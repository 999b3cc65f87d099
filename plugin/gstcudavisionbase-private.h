/* gst-cuda-vision: the state the base element's units share (not for the
 * elements). See docs/base-class.md for the units and one frame's path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_VISION_BASE_PRIVATE_H__
#define __GST_CUDA_VISION_BASE_PRIVATE_H__

#include "gstcudavisionbase.h"
#include "gstcvscheduler.h"

G_BEGIN_DECLS

/* One frame in flight: the scheduler's slot as a backend sees it (the
 * scheduler fills it, the backend computes it). */
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
  gpointer backend_state;       /* the backend's (CUDA: stream, planes) */
  gboolean discont;             /* its output is marked DISCONT */
  gint64 enter_time;            /* monotonic, us: entered the scheduler
                                 * (before waiting for a free slot) */
  gint64 submit_time;           /* monotonic, us */
  gint64 submit_us;             /* host time in gst_cv_scheduler_submit (),
                                 * output buffer included */
  gint64 take_at;               /* monotonic, us: the output thread takes
                                 * it from then on (0: at once) */
  gboolean stats;               /* post-stats, latched at submit */
  gboolean timed;               /* stage timings wanted (post-stats, debug) */
  GstCudaVisionWaitMode wait_mode;      /* latched at submit */
  gdouble cpu_ms;               /* the CPU backend's processing time */
  gboolean fail;                /* gst_cv_backend_cpu_delayed: fails */
  gint64 complete_at;           /* gst_cv_backend_cpu_delayed: monotonic
                                 * us at which the frame is complete */
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
  const GstCvBackend *be;       /* its table (OBJECT_LOCK for readers
                                 * outside the streaming thread) */
  gpointer be_state;            /* its instance (open .. close) */
  const CvOps *ops;             /* the subclass's operators on it */
  gpointer ctx;                 /* the shared GstCudaContext, if any */
  guint64 host_transfers;       /* the last run's (OBJECT_LOCK) */
  gint cancel;                  /* atomic: flushing or stopping */
  gboolean qos_dropped;         /* the last input was dropped for QoS: the
                                 * next output is marked DISCONT */

  /* negotiated (set_caps) */
  gboolean negotiated;
  gboolean in_cuda_mem, out_cuda_mem;
  GstVideoInfo in_info, out_info;
  guint upload_planes;
  gboolean output_is_input;     /* latched at set_caps */
  gint want_output_is_input;    /* as the subclass last asked (atomic) */
  gpointer op_info;             /* the operator's info (op_info_size) */
  void *op;                     /* the operator (priv->ops), made for
                                 * op_info and op_slots frames in flight
                                 * (slot index: GstCvSlot.index) */
  guint op_slots;
  GstCaps *refused_caps;        /* last caps refused with an error */

  /* the frames in flight, the lookahead, the output thread and the
   * statistics (gstcvscheduler.c: its own state) */
  GstCvScheduler *sched;

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
  /* TRUE: submit () only queues the frame and wait () completes it later
   * (the scheduler's output thread waits and pushes, or the streaming
   * thread once done ()); FALSE: submit () computes it (the scheduler runs
   * synchronously, depth 1) */
  gboolean async;
  /* NULL -> READY: look for the device's shared context early, so that
   * neighbours find one context whatever the order they start in
   * (optional). */
  void (*ready) (GstCudaVisionBase * self, gint device_id);
  /* Text of a cudaError_t (cv_status_cuda_error ()). */
  const gchar *(*error_string) (int cuda_error);
  /* Make the backend usable at start (device_id -1: the default): its
   * instance in priv->be_state (the device, its stream priorities, the
   * transfer counter); FALSE with *reason (a sentence) otherwise. */
    gboolean (*open) (GstCudaVisionBase * self, gint device_id,
      gchar ** reason);
  /* At stop: free the instance (optional). */
  void (*close) (GstCudaVisionBase * self);
  /* Host planes copied since open, with the element's OBJECT_LOCK held
   * (optional: none). */
    guint64 (*host_transfers) (GstCudaVisionBase * self);
  /* The level of the element's streams (stream-priority clamped), -1
   * when none were made (optional: -1). */
    gint (*priority_level) (GstCudaVisionBase * self);
  /* Queue (CUDA) or compute (CPU) slot s's frame: uploads, the operator,
   * downloads. Returns CV_OK or the status to report (what it knows of
   * the failure recorded: GST_CV_RECORD_ERROR). */
  CvStatus (*submit) (GstCudaVisionBase * self, GstCvSlot * s);
  /* Wait for slot s's frame to be complete (as s->wait_mode says); ms:
   * upload, kernel, download times when s->timed. CV_OK, or the status
   * to report (its error recorded, as submit's). */
    CvStatus (*wait) (GstCudaVisionBase * self, GstCvSlot * s,
      gdouble ms[3]);
  /* Wait without reporting (frames dropped on flush). */
  void (*sync) (GstCudaVisionBase * self, GstCvSlot * s);
  /* Free the slot's backend state (its frame complete or dropped). */
  void (*slot_free) (GstCudaVisionBase * self, GstCvSlot * s);
  /* Make the element's operator (priv->op) for the negotiated info
   * (priv->op_info) with max_slots slots (the frames in flight: slot
   * indexes 0 .. max_slots - 1), at negotiation. CV_OK or the status (what
   * failed recorded). */
  CvStatus (*create_op) (GstCudaVisionBase * self, guint max_slots);
  /* Free the operator (nothing in flight: every slot synced). */
  void (*destroy_op) (GstCudaVisionBase * self);
  /* Make what slot s needs for the negotiated caps before its first frame
   * (CUDA: its stream and events, its device planes for frames not in
   * CUDA memory), right after the operator is made for it (optional).
   * FALSE when it cannot (what failed recorded: GST_CV_RECORD_ERROR); the
   * caps are then refused. */
    gboolean (*prepare_slot) (GstCudaVisionBase * self, GstCvSlot * s);
  /* Asynchronous backends: whether slot s's frame is done (its wait ()
   * would not block; a failure counts as done: wait () reports it),
   * without blocking or recording an error; called with the scheduler's
   * lock held. Optional: without it only the output thread completes
   * frames. */
    gboolean (*done) (GstCudaVisionBase * self, GstCvSlot * s);
};

extern const GstCvBackend gst_cv_backend_cpu;
/* The CPU backend made asynchronous for the tests of the output thread on
 * machines without a GPU: the frame is computed at submit, its completion
 * is reported CUDAVISION_TEST_COMPLETION_DELAY_US microseconds after the
 * submission ends (wait () sleeps until then), as a GPU's would be.
 * Chosen instead of the CPU backend when that variable is set. */
extern const GstCvBackend gst_cv_backend_cpu_delayed;
/* NULL in a build without CUDA (gstcvbackend-none.c) */
extern const GstCvBackend *const gst_cv_backend_cuda;

/* gstcvproperties.c: the properties (specs, defaults, set, get) */
void gst_cv_properties_install (GObjectClass * gobject_class);
void gst_cv_properties_init (GstCudaVisionBase * self);

/* A frame's error (gstcvmessages.c): recorded in the thread that meets it
 * (text, debug taken; GST_CV_RECORD_ERROR adds the source location) and
 * returned as status; posted by the base in the same thread with
 * gst_cv_post_frame_error () (the recorded error, else one made from
 * status and where: "CPU", "GPU"), the one place frame errors are
 * posted. gst_cv_pending_status (): the status of the error self
 * recorded (in this thread, not posted yet), else fallback. */
#define GST_CV_RECORD_ERROR(self, status, domain, code, text, debug) \
  gst_cuda_vision_base_record_error ((self), (status), \
      GST_ ## domain ## _ERROR, GST_ ## domain ## _ERROR_ ## code, (text), \
      (debug), __FILE__, GST_FUNCTION, __LINE__)
CvStatus gst_cv_pending_status (GstCudaVisionBase * self,
    CvStatus fallback);
void gst_cv_clear_frame_error (void);
void gst_cv_post_frame_error (GstCudaVisionBase * self, CvStatus status,
    const gchar * where);
/* The same for a failure to set up the operators at negotiation. */
void gst_cv_post_setup_error (GstCudaVisionBase * self, CvStatus status,
    const gchar * where);

/* the timing fields of a frame message */
void gst_cv_set_frame_times (GstCudaVisionBase * self, GstStructure * s,
    GstClockTime pts, GstClockTime duration);

G_END_DECLS
#endif
