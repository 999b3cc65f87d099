/* gst-cuda-vision: the CPU backend: the subclass's CPU operator runs on the
 * mapped frames, synchronously, with the element's thread count and its
 * cancel flag (a frame stops early when the element flushes or stops).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudavisionbase-private.h"

static gboolean
cpu_open (GstCudaVisionBase * self, gint device_id, gchar ** reason)
{
  return TRUE;
}

/* the element's operator: max_slots 1 for the (synchronous) CPU backend,
 * the pipeline depth for its asynchronous test double */
static CvStatus
cpu_create_op (GstCudaVisionBase * self, guint max_slots)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  CvStatus status;

  g_assert (priv->op == NULL);
  status = priv->ops->create (priv->op_info, (int) max_slots, &priv->op);
  if (status != CV_OK) {
    priv->op = NULL;
    return status;
  }
  priv->op_slots = max_slots;
  return CV_OK;
}

static void
cpu_destroy_op (GstCudaVisionBase * self)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);

  if (priv->op)
    priv->ops->destroy (priv->op);
  priv->op = NULL;
  priv->op_slots = 0;
}

static CvStatus
cpu_submit (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gint64 t0 = g_get_monotonic_time ();
  CvFrame frame;
  CvExec exec;
  CvStatus status;

  if (!priv->op || s->index >= priv->op_slots)
    return GST_CV_RECORD_ERROR (self, CV_ERROR_INVALID_ARGUMENT, CORE, FAILED,
        g_strdup ("No operator for this frame"), g_strdup_printf ("slot %u,"
            " operator of %u slots", s->index, priv->op_slots));
  memset (&frame, 0, sizeof (frame));
  gst_cuda_vision_frame_planes (&s->in_frame, frame.in);
  if (s->out_mapped)
    gst_cuda_vision_frame_planes (&s->out_frame, frame.out);
  GST_OBJECT_LOCK (self);
  exec.n_threads = (int) MIN (priv->n_threads, G_MAXINT);
  GST_OBJECT_UNLOCK (self);
  exec.stream = NULL;
  exec.cancel = &priv->cancel;
  status = priv->ops->submit (priv->op, (int) s->index, &frame, s->params,
      &exec);
  s->cpu_ms = (g_get_monotonic_time () - t0) / 1000.0;
  return status;
}

static CvStatus
cpu_wait (GstCudaVisionBase * self, GstCvSlot * s, gdouble ms[3])
{
  ms[0] = ms[2] = 0;
  ms[1] = s->cpu_ms;
  return CV_OK;
}

static void
cpu_sync (GstCudaVisionBase * self, GstCvSlot * s)
{
}

static void
cpu_slot_free (GstCudaVisionBase * self, GstCvSlot * s)
{
}

const GstCvBackend gst_cv_backend_cpu = {
  "cpu", GST_CUDA_VISION_BACKEND_CPU, FALSE, NULL, NULL, cpu_open, NULL, NULL,
  NULL, cpu_submit, cpu_wait, cpu_sync, cpu_slot_free, cpu_create_op,
  cpu_destroy_op, NULL
};

/* The tests' stand-in for an asynchronous backend (a GPU) on machines
 * without one: the CPU operator computes the frame at submit, and the
 * frame is complete CUDAVISION_TEST_COMPLETION_DELAY_US microseconds
 * later (wait () sleeps until then; sync () too: a frame dropped on flush
 * is waited for, as the device's are). It runs the scheduler's output
 * thread, back-pressure, drains and flushes exactly as the CUDA backend
 * does; its outputs are the CPU backend's.
 * CUDAVISION_TEST_FAIL_FRAME="submit:N" or "wait:N" makes the N-th frame
 * since start (0 = the first) fail there, as a device error would:
 * submit without recording an error (the base posts one made from the
 * status), wait with an error recorded (the base posts that one);
 * "create" makes the operator's creation fail (an error recorded),
 * "create:N" only the N-th creation since start (0 = the one at the
 * first caps).
 * "prepare" makes the preparation of the slots at negotiation fail (as
 * a cudaStreamCreate would: an error recorded, the caps refused).
 * CUDAVISION_TEST_COUNT_CREATES (any value): every operator created posts
 * an element message "cudavision-test-operator" (slots: its max_slots),
 * and every slot prepared "cudavision-test-slot" (slot: its index), for
 * the tests that count creations.
 * Like the CUDA backend's, a slot is prepared (prepare_slot) when the
 * operator is made, at negotiation: a frame submitted into a slot that
 * was not fails with an error saying so. */
static gint64
completion_delay_us (void)
{
  const gchar *v = g_getenv ("CUDAVISION_TEST_COMPLETION_DELAY_US");
  gint64 d = v ? g_ascii_strtoll (v, NULL, 10) : 0;

  return CLAMP (d, 0, 10 * G_USEC_PER_SEC);
}

typedef struct
{
  guint64 frames;               /* submitted since open */
  gint64 fail_frame;            /* CUDAVISION_TEST_FAIL_FRAME, -1: none */
  gboolean fail_in_wait;
  gboolean fail_create;
  gint64 fail_create_at;        /* "create:N", -1: none */
  gboolean fail_prepare;
  guint64 creates;              /* operators asked for since open */
} DelayedState;

static gboolean
delayed_open (GstCudaVisionBase * self, gint device_id, gchar ** reason)
{
  DelayedState *d = g_new0 (DelayedState, 1);
  const gchar *v = g_getenv ("CUDAVISION_TEST_FAIL_FRAME");

  d->fail_frame = -1;
  d->fail_create = g_strcmp0 (v, "create") == 0;
  d->fail_prepare = g_strcmp0 (v, "prepare") == 0;
  d->fail_create_at = v && g_str_has_prefix (v, "create:") ?
      g_ascii_strtoll (v + strlen ("create:"), NULL, 10) : -1;
  if (v && (g_str_has_prefix (v, "submit:") || g_str_has_prefix (v, "wait:"))) {
    d->fail_in_wait = v[0] == 'w';
    d->fail_frame = g_ascii_strtoll (strchr (v, ':') + 1, NULL, 10);
  }
  GST_CV_PRIV (self)->be_state = d;
  return TRUE;
}

static void
delayed_close (GstCudaVisionBase * self)
{
  g_clear_pointer (&GST_CV_PRIV (self)->be_state, g_free);
}

static CvStatus
delayed_submit (GstCudaVisionBase * self, GstCvSlot * s)
{
  DelayedState *d = GST_CV_PRIV (self)->be_state;
  CvStatus status;

  if (!s->backend_state)
    return GST_CV_RECORD_ERROR (self, CV_ERROR_INVALID_ARGUMENT, CORE, FAILED,
        g_strdup ("Test double: a frame in a slot not prepared at "
            "negotiation"), g_strdup_printf ("slot %u", s->index));
  s->fail = d->fail_frame >= 0 && d->frames++ == (guint64) d->fail_frame;
  if (s->fail && !d->fail_in_wait)
    return CV_ERROR_NO_MEMORY;
  status = cpu_submit (self, s);
  s->complete_at = g_get_monotonic_time () + completion_delay_us ();
  return status;
}

static void
delayed_sync (GstCudaVisionBase * self, GstCvSlot * s)
{
  gint64 left = s->complete_at - g_get_monotonic_time ();

  if (left > 0)
    g_usleep (left);
}

static gboolean
delayed_done (GstCudaVisionBase * self, GstCvSlot * s)
{
  return g_get_monotonic_time () >= s->complete_at;
}

static CvStatus
delayed_wait (GstCudaVisionBase * self, GstCvSlot * s, gdouble ms[3])
{
  delayed_sync (self, s);
  if (s->fail)
    return GST_CV_RECORD_ERROR (self, CV_ERROR_NO_MEMORY, RESOURCE,
        NO_SPACE_LEFT, g_strdup ("Test double: the frame failed in wait"),
        g_strdup_printf ("CUDAVISION_TEST_FAIL_FRAME=%s",
            g_getenv ("CUDAVISION_TEST_FAIL_FRAME")));
  return cpu_wait (self, s, ms);
}

static CvStatus
delayed_create_op (GstCudaVisionBase * self, guint max_slots)
{
  DelayedState *d = GST_CV_PRIV (self)->be_state;
  CvStatus status;

  if (d->fail_create || (d->fail_create_at >= 0
          && d->creates++ == (guint64) d->fail_create_at))
    return GST_CV_RECORD_ERROR (self, CV_ERROR_NO_MEMORY, LIBRARY, INIT,
        g_strdup ("Test double: the operator could not be created"),
        g_strdup_printf ("CUDAVISION_TEST_FAIL_FRAME=%s",
            g_getenv ("CUDAVISION_TEST_FAIL_FRAME")));
  status = cpu_create_op (self, max_slots);
  if (status == CV_OK && g_getenv ("CUDAVISION_TEST_COUNT_CREATES"))
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("cudavision-test-operator", "slots",
                G_TYPE_UINT, max_slots, NULL)));
  return status;
}

/* the slot's state: a marker (the CPU operator needs nothing per slot) */
static gboolean
delayed_prepare_slot (GstCudaVisionBase * self, GstCvSlot * s)
{
  static gint prepared;
  DelayedState *d = GST_CV_PRIV (self)->be_state;

  if (d->fail_prepare) {
    GST_CV_RECORD_ERROR (self, CV_ERROR_CUDA, LIBRARY, INIT,
        g_strdup ("Test double: the slot's stream could not be created"),
        g_strdup_printf ("slot %u, CUDAVISION_TEST_FAIL_FRAME=%s", s->index,
            g_getenv ("CUDAVISION_TEST_FAIL_FRAME")));
    return FALSE;
  }
  if (s->backend_state)
    return TRUE;
  s->backend_state = &prepared;
  if (g_getenv ("CUDAVISION_TEST_COUNT_CREATES"))
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("cudavision-test-slot", "slot", G_TYPE_UINT,
                s->index, NULL)));
  return TRUE;
}

static void
delayed_slot_free (GstCudaVisionBase * self, GstCvSlot * s)
{
  s->backend_state = NULL;
}

const GstCvBackend gst_cv_backend_cpu_delayed = {
  "cpu", GST_CUDA_VISION_BACKEND_CPU, TRUE, NULL, NULL, delayed_open,
  delayed_close, NULL, NULL, delayed_submit, delayed_wait, delayed_sync,
  delayed_slot_free, delayed_create_op, cpu_destroy_op, delayed_prepare_slot,
  delayed_done
};
