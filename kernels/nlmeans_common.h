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

/* TRUE when the parameters of a pass (h .. h_color) are in the ranges
 * documented in cvnlmeans.h. */
static inline int
cv_nlmeans_params_valid (const CvNlMeansParams * p)
{
  return p && isfinite (p->h) && p->h > 0 && p->patch_size >= 1
      && p->patch_size <= CV_NLMEANS_MAX_PATCH && (p->patch_size & 1)
      && (p->search_window == 0 || (p->search_window >= 1
          && p->search_window <= CV_NLMEANS_MAX_SEARCH
          && (p->search_window & 1)))
      && isfinite (p->patch_sigma) && p->patch_sigma >= 0
      && isfinite (p->sigma) && p->sigma >= 0
      && isfinite (p->h_color) && p->h_color >= 0;
}

/* TRUE when a frame's store, centre and radius fit an operator of
 * temporal window temporal_window (>= 3), cvnlmeans.h */
static inline int
cv_nlmeans_window_params_valid (const CvNlMeansParams * p, int temporal_window)
{
  return p->store >= -1 && p->centre >= -1 && p->radius >= 0
      && p->radius <= temporal_window / 2 && (p->centre < 0
      || (p->centre >= p->radius && (p->centre + p->radius <= p->store
              || p->store < 0)));
}

/* frames of the operator's temporal ring (see cvnlmeans.h) */
static inline int
cv_nlmeans_ring_size (int temporal_window)
{
  return temporal_window + 5;
}

/* One denoising pass: `channels` components (1 .. 3) of n_frames frames of
 * one size read through byte pointers (in[t][k]: component k of frame t at
 * its first pixel, rows in_stride[t][k] bytes apart, pixels step bytes
 * apart), frame `centre` denoised into out[k] (same step). */
typedef struct
{
  int width, height, channels, step;
  int n_frames, centre;
  const uint8_t *in[CV_NLMEANS_MAX_TEMPORAL][3];
  size_t in_stride[CV_NLMEANS_MAX_TEMPORAL][3];
  uint8_t *out[3];
  size_t out_stride[3];
} CvNlMeansPass;

/* The pass of plane 0 read through layout (grey: one component; packed
 * RGB: R, G, B); frames[t] is frame t's plane array. */
static inline void
cv_nlmeans_pass_packed (CvNlMeansPass * ps, CvLumaLayout l,
    const CvPlane * const *frames, int n_frames, int centre, CvPlane * out)
{
  const int off[3] = { l.r < 0 ? 0 : l.r, l.g, l.b };
  int t, k;

  ps->width = out->width;
  ps->height = out->height;
  ps->channels = l.bpp == 1 ? 1 : 3;
  ps->step = l.bpp;
  ps->n_frames = n_frames;
  ps->centre = centre;
  for (t = 0; t < n_frames; t++)
    for (k = 0; k < ps->channels; k++) {
      ps->in[t][k] = frames[t][0].data + off[k];
      ps->in_stride[t][k] = frames[t][0].stride;
    }
  for (k = 0; k < ps->channels; k++) {
    ps->out[k] = out->data + off[k];
    ps->out_stride[k] = out->stride;
  }
}

/* The pass of the chroma of I420 (n_planes 3: planes 1 and 2) or NV12
 * (n_planes 2: plane 1, U and V interleaved; its width counts UV pairs):
 * U and V together. */
static inline void
cv_nlmeans_pass_chroma (CvNlMeansPass * ps, int n_planes,
    const CvPlane * const *frames, int n_frames, int centre,
    const CvPlane * out)
{
  int t, k;

  ps->width = frames[0][1].width;
  ps->height = frames[0][1].height;
  ps->channels = 2;
  ps->step = n_planes == 2 ? 2 : 1;
  ps->n_frames = n_frames;
  ps->centre = centre;
  for (t = 0; t < n_frames; t++)
    for (k = 0; k < 2; k++) {
      const CvPlane *pl = &frames[t][n_planes == 2 ? 1 : 1 + k];
      ps->in[t][k] = pl->data + (n_planes == 2 ? k : 0);
      ps->in_stride[t][k] = pl->stride;
    }
  for (k = 0; k < 2; k++) {
    const CvPlane *pl = &out[n_planes == 2 ? 1 : 1 + k];
    ps->out[k] = pl->data + (n_planes == 2 ? k : 0);
    ps->out_stride[k] = pl->stride;
  }
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
