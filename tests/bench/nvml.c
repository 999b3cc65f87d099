/* cudavision-bench: GPU utilisation from NVML, loaded at run time
 * (dlopen of libnvidia-ml.so.1, as nvidia-smi does): no build dependency,
 * and a bench that runs without it (the utilisation is then reported as
 * unknown, -1).
 *
 * nvmlDeviceGetUtilizationRates () gives the percentage of the driver's
 * last sample period (1/6 s to 1 s) during which one or more kernels ran
 * on the GPU: a busy GPU, not a full one. The sampler reads it every
 * 50 ms on its own thread and averages the readings.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dlfcn.h>
#include <glib.h>

#include "nvml.h"

typedef struct
{
  unsigned int gpu, memory;
} NvmlUtil;

typedef int (*InitFunc) (void);
typedef int (*ByBusFunc) (const char *bus, void **dev);
typedef int (*ByIndexFunc) (unsigned int i, void **dev);
typedef int (*UtilFunc) (void *dev, NvmlUtil * u);

static struct
{
  gboolean tried, ok;
  ByBusFunc by_bus;
  ByIndexFunc by_index;
  UtilFunc util;
} nvml;

struct _CvNvmlSampler
{
  GThread *thread;
  gint stop;
  guint n_dev;
  void *dev[16];
  gdouble sum[16];
  guint count[16];
};

static gboolean
nvml_load (void)
{
  void *h;
  InitFunc init;

  if (nvml.tried)
    return nvml.ok;
  nvml.tried = TRUE;
  h = dlopen ("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return FALSE;
  init = (InitFunc) dlsym (h, "nvmlInit_v2");
  nvml.by_bus = (ByBusFunc) dlsym (h, "nvmlDeviceGetHandleByPciBusId_v2");
  nvml.by_index = (ByIndexFunc) dlsym (h, "nvmlDeviceGetHandleByIndex_v2");
  nvml.util = (UtilFunc) dlsym (h, "nvmlDeviceGetUtilizationRates");
  nvml.ok = init && nvml.util && (nvml.by_bus || nvml.by_index)
      && init () == 0;
  return nvml.ok;
}

static gpointer
sampler_thread (gpointer data)
{
  CvNvmlSampler *s = data;

  while (!g_atomic_int_get (&s->stop)) {
    guint i;

    for (i = 0; i < s->n_dev; i++) {
      NvmlUtil u;

      if (s->dev[i] && nvml.util (s->dev[i], &u) == 0) {
        s->sum[i] += u.gpu;
        s->count[i]++;
      }
    }
    g_usleep (50000);
  }
  return NULL;
}

CvNvmlSampler *
cv_nvml_sampler_start (guint n_dev, const gchar * const *bus_ids,
    const gint * cuda_ids)
{
  CvNvmlSampler *s;
  guint i, found = 0;

  if (!nvml_load ())
    return NULL;
  s = g_new0 (CvNvmlSampler, 1);
  s->n_dev = MIN (n_dev, G_N_ELEMENTS (s->dev));
  for (i = 0; i < s->n_dev; i++) {
    /* by PCI bus id: NVML numbers devices in PCI order, CUDA (by default)
     * fastest first */
    if (bus_ids && bus_ids[i] && nvml.by_bus
        && nvml.by_bus (bus_ids[i], &s->dev[i]) == 0)
      found++;
    else if (nvml.by_index && nvml.by_index (cuda_ids[i], &s->dev[i]) == 0)
      found++;
    else
      s->dev[i] = NULL;
  }
  if (!found) {
    g_free (s);
    return NULL;
  }
  s->thread = g_thread_new ("nvml", sampler_thread, s);
  return s;
}

void
cv_nvml_sampler_stop (CvNvmlSampler * s, gdouble * util)
{
  guint i;

  if (!s)
    return;
  g_atomic_int_set (&s->stop, 1);
  g_thread_join (s->thread);
  for (i = 0; i < s->n_dev; i++)
    util[i] = s->count[i] ? s->sum[i] / s->count[i] : -1;
  g_free (s);
}
