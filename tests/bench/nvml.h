/* cudavision-bench: GPU utilisation sampled from NVML (see nvml.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_BENCH_NVML_H
#define CV_BENCH_NVML_H

#include <glib.h>

typedef struct _CvNvmlSampler CvNvmlSampler;

/* Start sampling the n_dev devices (by PCI bus id where given, else by
 * index); NULL when NVML or the devices are not there. */
CvNvmlSampler *cv_nvml_sampler_start (guint n_dev,
    const gchar * const *bus_ids, const gint * cuda_ids);
/* Stop; util[i]: the mean utilisation of device i in percent, -1 when it
 * gave no reading. Frees the sampler. */
void cv_nvml_sampler_stop (CvNvmlSampler * s, gdouble * util);

#endif
