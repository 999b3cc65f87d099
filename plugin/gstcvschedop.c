/* gst-cuda-vision: the scheduler's operator (gstcvscheduler.h): the
 * element's one operator, made at negotiation for pipeline-depth frames in
 * flight (a frame runs in its slot's index), made again for a larger
 * depth while running, freed with the slots' backend state.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvscheduler-private.h"

/* every pipeline-depth can have its operator */
G_STATIC_ASSERT (GST_CUDA_VISION_MAX_DEPTH <= CV_OP_MAX_SLOTS);

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

/* the operator (nothing in flight: every slot's work complete first) */
static void
destroy_operator (GstCvScheduler * sc)
{
  guint i;

  if (!sc->be || !GST_CV_PRIV (sc->self)->op)
    return;
  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH; i++)
    sc->be->sync (sc->self, &sc->slots[i]);
  sc->be->destroy_op (sc->self);
  g_mutex_lock (&sc->lock);
  sc->op_slots = 0;
  g_mutex_unlock (&sc->lock);
}

/* the operator, then every slot's backend state (nothing in flight) */
void
gst_cv_sched_free_slots (GstCvScheduler * sc)
{
  guint i;

  destroy_operator (sc);
  for (i = 0; i < GST_CUDA_VISION_MAX_DEPTH; i++) {
    GstCvSlot *s = &sc->slots[i];

    g_assert (!s->busy);
    if (sc->be)
      sc->be->slot_free (sc->self, s);
    g_clear_pointer (&s->params, g_free);
  }
}

/* What slots 0 .. max_slots - 1 need before their first frame (the
 * backend's prepare_slot: CUDA streams, events, device planes), made now
 * rather than beside the frames of other streams: CV_OK, else the status
 * of what failed (recorded by the backend) */
static CvStatus
prepare_slots (GstCvScheduler * sc, guint max_slots)
{
  guint i;

  if (!sc->be->prepare_slot)
    return CV_OK;
  for (i = 0; i < max_slots; i++)
    if (!sc->be->prepare_slot (sc->self, &sc->slots[i]))
      return gst_cv_pending_status (sc->self, CV_ERROR_CUDA);
  return CV_OK;
}

/* The operator for max_slots frames in flight (nothing in flight, none
 * made), its kernels loaded, and its slots' resources: FALSE when they
 * cannot be made (with post, the error posted). */
static gboolean
create_operator (GstCvScheduler * sc, guint max_slots, gboolean post)
{
  gint64 t0 = g_get_monotonic_time (), t1;
  CvStatus status;

  status = sc->be->create_op (sc->self, max_slots);
  t1 = g_get_monotonic_time ();
  if (status == CV_OK) {
    status = prepare_slots (sc, max_slots);
    if (status != CV_OK)
      destroy_operator (sc);
  }
  if (status == CV_OK) {
    /* the start-up of a stream joining busy ones (issue #24): what its
     * negotiation costs */
    GST_DEBUG_OBJECT (sc->self, "operator made for %u frames in flight in "
        "%.3f ms, its slots prepared in %.3f ms", max_slots,
        (t1 - t0) / 1000.0, (g_get_monotonic_time () - t1) / 1000.0);
    g_mutex_lock (&sc->lock);
    sc->op_slots = max_slots;
    sc->depth = MIN (sc->depth, max_slots);
    g_mutex_unlock (&sc->lock);
    return TRUE;
  }
  GST_DEBUG_OBJECT (sc->self, "the operator (%u slots): %s", max_slots,
      cv_status_string (status));
  if (post)
    gst_cv_post_setup_error (sc->self, status, backend_where (sc));
  else
    gst_cv_clear_frame_error ();
  g_mutex_lock (&sc->lock);
  sc->op_slots = 0;
  g_mutex_unlock (&sc->lock);
  return FALSE;
}

gboolean
gst_cv_scheduler_create_operators (GstCvScheduler * sc, guint depth,
    gboolean post)
{
  if (!sc->be)
    return TRUE;
  g_mutex_lock (&sc->lock);
  if (sc->async)
    sc->depth = CLAMP (depth, 1, GST_CUDA_VISION_MAX_DEPTH);
  depth = sc->want_depth = sc->depth;
  g_mutex_unlock (&sc->lock);
  if (create_operator (sc, depth, post))
    return TRUE;
  gst_cv_sched_free_slots (sc);
  return FALSE;
}

GstFlowReturn
gst_cv_scheduler_apply_depth (GstCvScheduler * sc, guint depth)
{
  GstFlowReturn ret;
  guint slots;

  if (!sc->be || !sc->async)
    return GST_FLOW_OK;
  depth = CLAMP (depth, 1, GST_CUDA_VISION_MAX_DEPTH);
  g_mutex_lock (&sc->lock);
  slots = sc->op_slots;
  if (depth == sc->want_depth) {
    g_mutex_unlock (&sc->lock);
    return GST_FLOW_OK;
  }
  GST_INFO_OBJECT (sc->self, "pipeline depth %u -> %u", sc->want_depth, depth);
  sc->want_depth = depth;
  g_mutex_unlock (&sc->lock);
  if (slots > 0 && depth > slots && sc->lookahead == 0) {
    /* more frames in flight than the operator was made for: made again
     * once the frames in flight have left (nothing of the stream lives
     * in it without a lookahead) */
    GST_INFO_OBJECT (sc->self, "pipeline depth %u: the operator is made "
        "again for it", depth);
    ret = gst_cv_scheduler_drain (sc, FALSE);
    if (ret != GST_FLOW_OK) {
      /* tried again at the next frame */
      g_mutex_lock (&sc->lock);
      sc->want_depth = 0;
      g_mutex_unlock (&sc->lock);
      return ret;
    }
    /* the slots keep their streams and planes */
    destroy_operator (sc);
    if (create_operator (sc, depth, FALSE)) {
      slots = depth;
    } else {
      /* the operator the stream had (its size worked): the depth stays,
       * told on the bus; an error only if that one cannot be made again */
      if (!create_operator (sc, slots, TRUE))
        return GST_FLOW_ERROR;
      GST_ELEMENT_WARNING (sc->self, LIBRARY, INIT, ("Could not set up the "
              "operator for pipeline-depth %u: %u frames stay in flight",
              depth, slots), ("the operator for %u slots could not be made "
              "(debug log: its status)", depth));
    }
  } else if (slots == 0 && GST_CV_PRIV (sc->self)->negotiated) {
    /* none since a failure: made for this depth */
    if (!create_operator (sc, depth, TRUE))
      return GST_FLOW_ERROR;
    slots = depth;
  } else if (slots > 0 && depth > slots) {
    GST_INFO_OBJECT (sc->self, "pipeline depth %u: %u frames in flight "
        "until the next caps (the lookahead's frames live in the "
        "operator)", depth, slots);
  }
  g_mutex_lock (&sc->lock);
  sc->depth = slots > 0 ? MIN (depth, slots) : depth;
  gst_cv_sched_wake (sc);
  g_mutex_unlock (&sc->lock);
  return GST_FLOW_OK;
}
