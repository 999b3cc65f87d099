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

static CvStatus
cpu_create_op (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  CvStatus status;

  if (s->op)
    return CV_OK;
  status = priv->ops->create (priv->op_info, &s->op);
  if (status != CV_OK)
    s->op = NULL;
  return status;
}

static CvStatus
cpu_submit (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gint64 t0 = g_get_monotonic_time ();
  CvFrame frame;
  CvExec exec;
  CvStatus status;

  status = cpu_create_op (self, s);
  if (status != CV_OK)
    return status;
  memset (&frame, 0, sizeof (frame));
  gst_cuda_vision_frame_planes (&s->in_frame, frame.in);
  if (s->out_mapped)
    gst_cuda_vision_frame_planes (&s->out_frame, frame.out);
  GST_OBJECT_LOCK (self);
  exec.n_threads = (int) MIN (priv->n_threads, G_MAXINT);
  GST_OBJECT_UNLOCK (self);
  exec.stream = NULL;
  exec.cancel = &priv->cancel;
  status = priv->ops->submit (s->op, &frame, s->params, &exec);
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
  if (s->op)
    GST_CV_PRIV (self)->ops->destroy (s->op);
  s->op = NULL;
}

const GstCvBackend gst_cv_backend_cpu = {
  "cpu", GST_CUDA_VISION_BACKEND_CPU, FALSE, NULL, NULL, cpu_open, NULL, NULL,
  NULL, cpu_submit, cpu_wait, cpu_sync, cpu_slot_free, cpu_create_op
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
 * "create" makes every operator's creation fail (an error recorded). */
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
} DelayedState;

static CvStatus delayed_create_op (GstCudaVisionBase * self, GstCvSlot * s);

static gboolean
delayed_open (GstCudaVisionBase * self, gint device_id, gchar ** reason)
{
  DelayedState *d = g_new0 (DelayedState, 1);
  const gchar *v = g_getenv ("CUDAVISION_TEST_FAIL_FRAME");

  d->fail_frame = -1;
  d->fail_create = g_strcmp0 (v, "create") == 0;
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

  s->fail = d->fail_frame >= 0 && d->frames++ == (guint64) d->fail_frame;
  if (s->fail && !d->fail_in_wait)
    return CV_ERROR_NO_MEMORY;
  status = delayed_create_op (self, s);
  if (status == CV_OK)
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
delayed_create_op (GstCudaVisionBase * self, GstCvSlot * s)
{
  DelayedState *d = GST_CV_PRIV (self)->be_state;

  if (!s->op && d->fail_create)
    return GST_CV_RECORD_ERROR (self, CV_ERROR_NO_MEMORY, LIBRARY, INIT,
        g_strdup ("Test double: the operator could not be created"),
        g_strdup ("CUDAVISION_TEST_FAIL_FRAME=create"));
  return cpu_create_op (self, s);
}

const GstCvBackend gst_cv_backend_cpu_delayed = {
  "cpu", GST_CUDA_VISION_BACKEND_CPU, TRUE, NULL, NULL, delayed_open,
  delayed_close, NULL, NULL, delayed_submit, delayed_wait, delayed_sync,
  cpu_slot_free, delayed_create_op
};
