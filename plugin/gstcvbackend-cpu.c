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

static int
cpu_submit (GstCudaVisionBase * self, GstCvSlot * s)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gint64 t0 = g_get_monotonic_time ();
  CvFrame frame;
  CvExec exec;
  int status;

  if (!s->op) {
    status = priv->ops->create (priv->op_info, &s->op);
    if (status != CV_OK) {
      s->op = NULL;
      return status;
    }
  }
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

static gboolean
cpu_wait (GstCudaVisionBase * self, GstCvSlot * s, gdouble ms[3])
{
  ms[0] = ms[2] = 0;
  ms[1] = s->cpu_ms;
  return TRUE;
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
  NULL, cpu_submit, cpu_wait, cpu_sync, cpu_slot_free
};

/* The tests' stand-in for an asynchronous backend (a GPU) on machines
 * without one: the CPU operator computes the frame at submit, and the
 * frame is complete CUDAVISION_TEST_COMPLETION_DELAY_US microseconds
 * later (wait () sleeps until then; sync () too: a frame dropped on flush
 * is waited for, as the device's are). It runs the scheduler's output
 * thread, back-pressure, drains and flushes exactly as the CUDA backend
 * does; its outputs are the CPU backend's. */
static gint64
completion_delay_us (void)
{
  const gchar *v = g_getenv ("CUDAVISION_TEST_COMPLETION_DELAY_US");
  gint64 d = v ? g_ascii_strtoll (v, NULL, 10) : 0;

  return CLAMP (d, 0, 10 * G_USEC_PER_SEC);
}

static int
delayed_submit (GstCudaVisionBase * self, GstCvSlot * s)
{
  int status = cpu_submit (self, s);

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
delayed_wait (GstCudaVisionBase * self, GstCvSlot * s, gdouble ms[3])
{
  delayed_sync (self, s);
  return cpu_wait (self, s, ms);
}

const GstCvBackend gst_cv_backend_cpu_delayed = {
  "cpu", GST_CUDA_VISION_BACKEND_CPU, TRUE, NULL, NULL, cpu_open, NULL, NULL,
  NULL, delayed_submit, delayed_wait, delayed_sync, cpu_slot_free
};
