/* gst-cuda-vision: the shared base element.
 *
 * A GstBaseTransform that owns what the elements have in common; the
 * element sets properties, checks caps, snapshots its properties per frame
 * and names its operators (kernels/cvop.h). This file is the element
 * itself: the backend chosen at start, caps negotiation,
 * events, queries and state changes. The work is done by its units:
 * gstcvproperties.c (the properties: specs, defaults, set and get),
 * gstcvscheduler.c (the frames in flight, the lookahead, the output
 * thread and the statistics: an object of its own), gstcvbackend-cpu.c and
 * gstcvbackend-cuda.c (where a frame is computed), gstcvcudacontext.c (the
 * shared CUDA context), gstcvallocation.c (pools and allocators next to
 * gstcvpinned.c and the shared pinned staging, gstcvpinnedcache.c),
 * gstcvcaps.c (caps and pad templates) and gstcvformat.c
 * (plane geometry). docs/base-class.md draws them and one frame's path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudavisionbase-private.h"
#include "gstcvallocation.h"
#include "gstcvcaps.h"
#include "gstcvcudacontext.h"
#include "gstcvpinned.h"

GST_DEBUG_CATEGORY (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug


G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaVisionBase, gst_cuda_vision_base,
    GST_TYPE_BASE_TRANSFORM);

GstCudaVisionBasePrivate *
gst_cuda_vision_base_get_priv (GstCudaVisionBase * self)
{
  return gst_cuda_vision_base_get_instance_private (self);
}

void
gst_cuda_vision_base_set_upload_planes (GstCudaVisionBase * self, guint mask)
{
  GST_CV_PRIV (self)->upload_planes = mask;
}

void
gst_cuda_vision_base_set_output_is_input (GstCudaVisionBase * self,
    gboolean output_is_input)
{
  /* atomic: callers may hold the object lock (set_property) */
  g_atomic_int_set (&GST_CV_PRIV (self)->want_output_is_input, output_is_input);
}

GstCudaVisionBackend
gst_cuda_vision_base_get_active_backend (GstCudaVisionBase * self)
{
  GstCudaVisionBackend b;

  GST_OBJECT_LOCK (self);
  b = GST_CV_PRIV (self)->active_backend;
  GST_OBJECT_UNLOCK (self);
  return b;
}

guint
gst_cuda_vision_base_cpu_threads (GstCudaVisionBase * self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = GST_CV_PRIV (self)->n_threads;
  GST_OBJECT_UNLOCK (self);
  return n ? n : (guint) g_get_num_processors ();
}

static GstCaps *
gst_cuda_vision_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->fixate_caps (trans, direction, caps,
      gst_cv_caps_same_memory (caps, othercaps));
}

/* The backend: the GPU when asked and usable (auto: else the CPU, with a
 * warning on the bus saying why; cuda: else an element error). */
static gboolean
gst_cuda_vision_base_start (GstBaseTransform * trans)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  const GstCvBackend *be = &gst_cv_backend_cpu;
  GstCudaVisionBackend want;
  gchar *reason = NULL;
  gint device_id;
  guint depth;

  GST_OBJECT_LOCK (self);
  want = priv->backend;
  device_id = priv->device_id;
  depth = priv->pipeline_depth;
  GST_OBJECT_UNLOCK (self);

  if (want != GST_CUDA_VISION_BACKEND_CPU) {
    if (!gst_cv_backend_cuda)
      reason = g_strdup ("the plugin was built without CUDA support");
    else if (!cv_op_available (klass->cuda_ops))
      reason = g_strdup ("this element has no GPU implementation");
    else if (gst_cv_backend_cuda->open (self, device_id, &reason))
      be = gst_cv_backend_cuda;
  }
  if (be == &gst_cv_backend_cpu && want == GST_CUDA_VISION_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("backend=cuda was requested but no CUDA GPU is usable: %s", reason),
        ("set backend=auto or backend=cpu to run on the CPU"));
    g_free (reason);
    return FALSE;
  }
  if (be == &gst_cv_backend_cpu && want == GST_CUDA_VISION_BACKEND_AUTO)
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND, ("No usable CUDA GPU, "
            "running on the CPU: %s", reason), ("backend=auto; set "
            "backend=cpu to run on the CPU without this warning"));
  g_free (reason);
  /* the tests' asynchronous stand-in for a GPU (gstcvbackend-cpu.c) */
  if (be == &gst_cv_backend_cpu
      && g_getenv ("CUDAVISION_TEST_COMPLETION_DELAY_US")) {
    be = &gst_cv_backend_cpu_delayed;
    (void) be->open (self, device_id, NULL);    /* cannot fail */
  }

  g_atomic_int_set (&priv->cancel, 0);
  if (!gst_cv_scheduler_start (priv->sched, be, depth)) {
    if (be->close)
      be->close (self);
    return FALSE;
  }
  priv->ops = be->kind == GST_CUDA_VISION_BACKEND_CPU ? klass->cpu_ops :
      klass->cuda_ops;
  GST_OBJECT_LOCK (self);
  priv->be = be;
  priv->active_backend = be->kind;
  priv->host_transfers = 0;
  GST_OBJECT_UNLOCK (self);
  g_object_notify (G_OBJECT (self), "active-backend");
  GST_INFO_OBJECT (self, "backend %s (%s), pipeline depth %u",
      be->name, be->async ? "asynchronous: output thread" : "synchronous",
      gst_cv_scheduler_get_depth (priv->sched));
  return TRUE;
}

static gboolean
gst_cuda_vision_base_stop (GstBaseTransform * trans)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  const GstCvBackend *be = priv->be;

  gst_cv_scheduler_stop (priv->sched);
  priv->negotiated = FALSE;
  gst_clear_caps (&priv->refused_caps);
  /* host-transfers keeps the run's count once stopped */
  GST_OBJECT_LOCK (self);
  if (be && be->host_transfers)
    priv->host_transfers = be->host_transfers (self);
  priv->be = NULL;
  priv->active_backend = GST_CUDA_VISION_BACKEND_AUTO;
  GST_OBJECT_UNLOCK (self);
  if (be && be->close)
    be->close (self);
  priv->ops = NULL;
  return TRUE;
}

static gboolean
gst_cuda_vision_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBaseClass *klass = GST_CUDA_VISION_BASE_GET_CLASS (self);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstVideoInfo in_info, out_info;
  gboolean fps_changed;
  guint lookahead, depth;

  if (!gst_video_info_from_caps (&in_info, incaps)
      || !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED (&in_info)) {
    /* once per caps: a refused CAPS event is sent again with every buffer */
    if (!priv->refused_caps || !gst_caps_is_equal (priv->refused_caps, incaps))
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Interlaced video (%s) is "
              "not supported: deinterlace it first (e.g. with deinterlace)",
              gst_video_interlace_mode_to_string
              (GST_VIDEO_INFO_INTERLACE_MODE (&in_info))), ("caps %"
              GST_PTR_FORMAT, incaps));
    gst_caps_replace (&priv->refused_caps, incaps);
    return FALSE;
  }

  /* frames in flight (and owed) belong to the old caps, so do the
   * operators */
  gst_cv_scheduler_reset (priv->sched);

  priv->in_cuda_mem = gst_cv_caps_is_cuda_memory (incaps);
  priv->out_cuda_mem = gst_cv_caps_is_cuda_memory (outcaps);
  if ((priv->in_cuda_mem || priv->out_cuda_mem) && !priv->ctx) {
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
  if (!priv->op_info)
    priv->op_info = g_malloc0 (MAX (klass->op_info_size, 1));
  memset (priv->op_info, 0, MAX (klass->op_info_size, 1));
  lookahead = gst_cv_scheduler_get_lookahead (priv->sched);
  gst_cv_scheduler_set_lookahead (priv->sched, 0);
  if (!klass->set_info (self, incaps, &in_info, outcaps, &out_info,
          priv->op_info))
    return FALSE;
  priv->in_info = in_info;
  priv->out_info = out_info;
  /* frames of these caps pass the input buffer on, or not, whatever the
   * subclass asks for the next negotiation */
  priv->output_is_input = g_atomic_int_get (&priv->want_output_is_input);
  /* the operators are made now, for these caps: one that cannot be made
   * refuses them (posted once per caps: a refused CAPS event comes again
   * with every buffer) */
  GST_OBJECT_LOCK (self);
  depth = priv->pipeline_depth;
  GST_OBJECT_UNLOCK (self);
  if (!gst_cv_scheduler_create_operators (priv->sched, depth,
          !priv->refused_caps || !gst_caps_is_equal (priv->refused_caps,
              incaps))) {
    gst_caps_replace (&priv->refused_caps, incaps);
    return FALSE;
  }
  priv->negotiated = TRUE;
  /* the lookahead's latency is in frame durations */
  if ((fps_changed && lookahead > 0)
      || lookahead != gst_cv_scheduler_get_lookahead (priv->sched))
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  return TRUE;
}

static gboolean
gst_cuda_vision_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  gst_cv_allocation_propose (GST_CUDA_VISION_BASE (trans), query);
  return TRUE;
}

static gboolean
gst_cuda_vision_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  if (!gst_cv_allocation_decide (GST_CUDA_VISION_BASE (trans), query))
    return FALSE;
  if (!GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->decide_allocation (trans, query))
    return FALSE;
  gst_cv_allocation_activate (GST_CUDA_VISION_BASE (trans), query);
  return TRUE;
}

static GstFlowReturn
gst_cuda_vision_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  GstFlowReturn ret;
  GstBuffer *inbuf;
  gboolean discont = GST_BUFFER_IS_DISCONT (input) || priv->qos_dropped;
  guint depth;

  /* a renegotiation (downstream asked for it) may change the output caps
   * and pool: the frames in flight leave first */
  if (gst_cv_scheduler_is_async (priv->sched)
      && gst_pad_needs_reconfigure (GST_BASE_TRANSFORM_SRC_PAD (trans)))
    gst_cv_scheduler_drain (priv->sched, FALSE);

  /* chain up: QoS (late frames dropped here), reconfiguration; the buffer
   * lands in queued_buf */
  ret = GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->submit_input_buffer (trans,
      is_discont, input);
  /* the next output after a frame dropped for QoS is marked DISCONT (as
   * GstBaseTransform does for the outputs it pushes itself) */
  if (ret == GST_BASE_TRANSFORM_FLOW_DROPPED)
    priv->qos_dropped = TRUE;
  if (ret != GST_FLOW_OK || trans->queued_buf == NULL)
    return ret;
  priv->qos_dropped = FALSE;
  inbuf = trans->queued_buf;
  trans->queued_buf = NULL;

  if (!priv->negotiated) {
    gst_buffer_unref (inbuf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps were negotiated"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* pipeline-depth: the back-pressure bound from this frame on (frames
   * leave as soon as they are done whatever the depth: the latency does
   * not change with it); more than the operator was made for makes it
   * again (gstcvscheduler.h) */
  GST_OBJECT_LOCK (self);
  depth = priv->pipeline_depth;
  GST_OBJECT_UNLOCK (self);
  ret = gst_cv_scheduler_apply_depth (priv->sched, depth);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  return gst_cv_scheduler_submit (priv->sched, inbuf, discont);
}

static GstFlowReturn
gst_cuda_vision_base_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  return gst_cv_scheduler_generate (GST_CV_PRIV (trans)->sched, outbuf);
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
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      /* a frame the CPU is computing stops early (CV_ERROR_CANCELLED); a
       * streaming thread waiting for a free slot or a drain returns */
      g_atomic_int_set (&priv->cancel, 1);
      gst_cv_scheduler_flush_start (priv->sched);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_cv_scheduler_flush_stop (priv->sched);
      priv->qos_dropped = FALSE;
      g_atomic_int_set (&priv->cancel, 0);
      break;
    default:
      /* serialized events (EOS, segment, gap, caps, tags, custom ...) pass
       * once every earlier frame is pushed: nothing is reordered */
      if (GST_EVENT_IS_SERIALIZED (event)) {
        GstEventType t = GST_EVENT_TYPE (event);
        /* frames owed by a lookahead: at the end of a stream or segment */
        GstFlowReturn ret = gst_cv_scheduler_drain (priv->sched,
            t == GST_EVENT_EOS || t == GST_EVENT_SEGMENT
            || t == GST_EVENT_STREAM_START);
        if (ret != GST_FLOW_OK)
          GST_DEBUG_OBJECT (self, "drain before %s: %s",
              GST_EVENT_TYPE_NAME (event), gst_flow_get_name (ret));
      }
      if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
        gst_cv_scheduler_final_stats (priv->sched);
      break;
  }
  return
      GST_BASE_TRANSFORM_CLASS (gst_cuda_vision_base_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_cuda_vision_base_query (GstBaseTransform * trans, GstPadDirection dir,
    GstQuery * query)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (trans);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean ret;

  /* share our CUDA context with neighbours asking for one */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cv_cuda_context_query (GST_ELEMENT (self), query, priv->ctx))
    return TRUE;
  /* serialized queries (allocation, drain, custom) pass once every
   * earlier frame is pushed */
  if (dir == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query))
    gst_cv_scheduler_drain (priv->sched, FALSE);
  /* the position of what the output thread pushed (GstBaseTransform
   * knows only what it pushed itself) */
  if (dir == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_POSITION
      && gst_cv_scheduler_is_async (priv->sched)) {
    GstFormat format;
    GstClockTime pos = gst_cv_scheduler_position (priv->sched);

    gst_query_parse_position (query, &format, NULL);
    if (format == GST_FORMAT_TIME && trans->segment.format == GST_FORMAT_TIME
        && GST_CLOCK_TIME_IS_VALID (pos)) {
      gst_query_set_position (query, format,
          gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, pos));
      return TRUE;
    }
  }
  ret = GST_BASE_TRANSFORM_CLASS
      (gst_cuda_vision_base_parent_class)->query (trans, dir, query);

  if (ret && dir == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    gst_cv_scheduler_latency (priv->sched, priv->negotiated ? &priv->in_info :
        NULL, query);
  return ret;
}

/* a "gst.cuda.context" from the application or a neighbour: taken when it
 * is for our device-id (any device when -1), refused otherwise */
static void
gst_cuda_vision_base_set_context (GstElement * element, GstContext * context)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (element);
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (element);
  gst_cv_cuda_context_set (element, context, device_id, &priv->ctx);
  GST_ELEMENT_CLASS (gst_cuda_vision_base_parent_class)->set_context (element,
      context);
}

/* The CUDA context is looked for at NULL -> READY, as nvcodec's elements
 * do, so that neighbours find and share one context whatever the order in
 * which the elements start; it is released at READY -> NULL. */
static GstStateChangeReturn
gst_cuda_vision_base_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && gst_cv_backend_cuda
      && cv_op_available (GST_CUDA_VISION_BASE_GET_CLASS (element)->cuda_ops)) {
    gint device_id;
    GstCudaVisionBackend backend;

    GST_OBJECT_LOCK (element);
    device_id = priv->device_id;
    backend = priv->backend;
    GST_OBJECT_UNLOCK (element);
    if (backend != GST_CUDA_VISION_BACKEND_CPU)
      gst_cv_backend_cuda->ready (GST_CUDA_VISION_BASE (element), device_id);
  }
  /* stopping: a frame the CPU is computing stops early, so that the
   * streaming thread lets go of the stream lock the deactivation takes */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    g_atomic_int_set (&priv->cancel, 1);
    gst_cv_scheduler_flush_start (priv->sched);
  }
  ret = GST_ELEMENT_CLASS (gst_cuda_vision_base_parent_class)->change_state
      (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    gst_cv_cuda_context_clear (&priv->ctx);
  return ret;
}

static void
gst_cuda_vision_base_finalize (GObject * object)
{
  GstCudaVisionBase *self = GST_CUDA_VISION_BASE (object);
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  gst_cv_scheduler_free (priv->sched);
  priv->sched = NULL;
  gst_cv_cuda_context_clear (&priv->ctx);
  g_free (priv->cost_warned);
  g_free (priv->op_info);
  gst_clear_caps (&priv->refused_caps);
  gst_cv_pinned_cache_unuse ();
  G_OBJECT_CLASS (gst_cuda_vision_base_parent_class)->finalize (object);
}

static void
gst_cuda_vision_base_class_init (GstCudaVisionBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_vision_base_debug, "cudavisionbase", 0,
      "gst-cuda-vision base element");
  /* the private struct's offset, for the units (GST_CV_PRIV) */

  gobject_class->finalize = gst_cuda_vision_base_finalize;

  gst_cv_properties_install (gobject_class);

  GST_ELEMENT_CLASS (klass)->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_set_context);
  GST_ELEMENT_CLASS (klass)->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_change_state);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cv_caps_transform);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_vision_base_fixate_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_vision_base_set_caps);
  trans_class->get_unit_size = GST_DEBUG_FUNCPTR (gst_cv_caps_unit_size);
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
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_VISION_WAIT_MODE, 0);
}

static void
gst_cuda_vision_base_init (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  /* as GstVideoFilter: frames already late downstream are dropped (a QoS
   * message each) instead of computed; the qos property turns it off */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);

  gst_cv_properties_init (self);
  gst_cv_pinned_cache_use ();
  priv->active_backend = GST_CUDA_VISION_BACKEND_AUTO;
  priv->sched = gst_cv_scheduler_new (self);
}
