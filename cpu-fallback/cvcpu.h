/* gst-cuda-vision: what every CPU implementation (cpu-fallback/) shares:
 * the OpenMP thread count of a call and its cancellation (CvCpuExec,
 * kernels/cvimage.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CPU_H
#define CV_CPU_H

#include "cvimage.h"

#ifdef _OPENMP
#include <omp.h>
/* threads for "#pragma omp parallel num_threads (CV_OMP_THREADS (exec))" */
#define CV_OMP_THREADS(exec) (cv_cpu_threads (exec) > 0 ? \
    cv_cpu_threads (exec) : omp_get_max_threads ())
#else
#define CV_OMP_THREADS(exec) 1
#endif

#endif /* CV_CPU_H */
