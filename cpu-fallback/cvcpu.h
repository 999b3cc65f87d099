/* gst-cuda-vision: what every CPU implementation (cpu-fallback/) shares:
 * the OpenMP thread count of a call and its cancellation, from the
 * operator's CvExec (kernels/cvop.h). Internal header.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CPU_H
#define CV_CPU_H

#include "cvcommon.h"

/* Whether exec's cancel flag is set (relaxed atomic read; NULL exec or
 * flag: no). Polled between blocks of rows (and, where one row is long,
 * within them): the call then stops and returns CV_ERROR_CANCELLED. */
static inline int
cv_exec_cancelled (const CvExec * exec)
{
  return exec && exec->cancel && __atomic_load_n (exec->cancel,
      __ATOMIC_RELAXED);
}

/* The OpenMP thread count of exec (0 = OpenMP's default: all cores, or
 * OMP_NUM_THREADS). */
static inline int
cv_exec_threads (const CvExec * exec)
{
  return exec ? exec->n_threads : 0;
}

#ifdef _OPENMP
#include <omp.h>
/* threads for "#pragma omp parallel num_threads (CV_OMP_THREADS (exec))" */
#define CV_OMP_THREADS(exec) (cv_exec_threads (exec) > 0 ? \
    cv_exec_threads (exec) : omp_get_max_threads ())
#else
#define CV_OMP_THREADS(exec) 1
#endif

#endif /* CV_CPU_H */
