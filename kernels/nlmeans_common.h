/* gst-cuda-vision: the parameter check and the derived constants of
 * non-local means, identical on both backends (kernels/nlmeans.cu and
 * cpu-fallback/nlmeans.c). Internal header; the definitions are in
 * cvnlmeans.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_NLMEANS_COMMON_H
#define CV_NLMEANS_COMMON_H

#include "cvnlmeans.h"

#include <math.h>

/* TRUE when the parameters are in the ranges documented in cvnlmeans.h. */
static inline int
cv_nlmeans_params_valid (const CvNlMeansParams * p)
{
  return p && isfinite (p->h) && p->h > 0 && p->patch_size >= 1
      && p->patch_size <= CV_NLMEANS_MAX_PATCH && (p->patch_size & 1)
      && (p->search_window == 0 || (p->search_window >= 1
              && p->search_window <= CV_NLMEANS_MAX_SEARCH
              && (p->search_window & 1)))
      && isfinite (p->patch_sigma) && p->patch_sigma >= 0
      && isfinite (p->sigma) && p->sigma >= 0;
}

/* Derived single-precision constants: g[0 .. patch_size-1] the 1-D patch
 * weights g(i - r), and a, b, c of w = 2^(-max (S a - b, 0) c) where S is
 * the g⊗g-weighted sum of the channel-summed squared differences.
 * channels: 1 or 3. Computed in double on the host, rounded once. */
typedef struct
{
  float g[CV_NLMEANS_MAX_PATCH];
  float a, b, c;
} CvNlMeansConstants;

static inline void
cv_nlmeans_constants (const CvNlMeansParams * p, int channels,
    CvNlMeansConstants * k)
{
  int r = p->patch_size / 2, i;
  double sum = 0, c;

  for (i = 0; i < CV_NLMEANS_MAX_PATCH; i++)
    k->g[i] = 0.0f;
  for (i = -r; i <= r; i++) {
    double gi = p->patch_sigma > 0 ?
        exp (-(double) (i * i) / (2.0 * p->patch_sigma * p->patch_sigma)) : 1.0;
    k->g[i + r] = (float) gi;
    sum += (float) gi;
  }
  k->a = (float) (1.0 / (channels * sum * sum));
  k->b = (float) (2.0 * p->sigma * p->sigma);
  c = 1.4426950408889634 / (p->h * p->h);
  /* a tiny h: keep c finite (every weight but x's own underflows to 0) */
  k->c = (float) (c > 1e30 ? 1e30 : c);
}

#endif /* CV_NLMEANS_COMMON_H */
