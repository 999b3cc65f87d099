/* gst-cuda-vision: the score formula of cudatemplatematch, shared verbatim
 * by the CPU fallback (C99) and the CUDA kernels, so that both give
 * bit-identical float scores from the same exact integer sums.
 *
 * On the GPU every double operation is an explicit round-to-nearest
 * intrinsic (no fused multiply-add contraction: CV_DMUL etc., cvcommon.h);
 * the CPU library is built with -ffp-contract=off. Division and square
 * root are correctly rounded (IEEE 754) on both. See cvtemplatematch.h for
 * the definitions. Internal header (the CPU and CUDA implementations and
 * the tests).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_TEMPLATE_MATCH_SCORE_H
#define CV_TEMPLATE_MATCH_SCORE_H

#include "cvtemplatematch.h"
#include "cvcommon.h"

/* A quiet NaN float (the same bits on the host and the device). */
#ifdef __CUDA_ARCH__
#define CV_TM_NAN_F __int_as_float (0x7fc00000)
#else
#define CV_TM_NAN_F ((float) NAN)
#endif

/* FLT_EPSILON, spelled out so that the device code needs no <float.h>. */
#define CVTM_FLT_EPSILON 1.1920928955078125e-07

/* Per-template constants of the score, computed once per frame. */
typedef struct
{
  int method;
  double n;                     /* N = tw * th */
  double inv_n;                 /* 1 / N */
  double tmean;                 /* St / N for CCOEFF(_NORMED), else 0 */
  double tsq;                   /* Qt */
  double tnorm;                 /* sqrt (Qt - St^2 / N) or sqrt (Qt) */
  int flat;                     /* CCOEFF_NORMED and flat template */
} CvTmScoreConst;

CV_HD CvTmScoreConst
cvtm_score_const (int method, int tw, int th, int64_t st, int64_t qt,
    int flat)
{
  CvTmScoreConst k;
  double n = (double) tw * (double) th;

  k.method = method;
  k.n = n;
  k.inv_n = CV_DDIV (1.0, n);
  k.tsq = (double) qt;
  k.flat = method == CV_TM_CCOEFF_NORMED && flat;
  if (method == CV_TM_CCOEFF) {
    k.tmean = CV_DDIV ((double) st, n);
    k.tnorm = 0;
  } else if (method == CV_TM_CCOEFF_NORMED) {
    double sd = (double) st;
    double var = CV_DSUB ((double) qt, CV_DDIV (CV_DMUL (sd, sd), n));
    k.tmean = CV_DDIV (sd, n);
    k.tnorm = CV_DSQRT (var > 0 ? var : 0.0);
  } else {
    k.tmean = 0;
    k.tnorm = CV_DSQRT ((double) qt);
  }
  return k;
}

/* The constants of template t (its count N: the mask's pixels, or
 * tw * th). */
CV_HD CvTmScoreConst
cvtm_template_const (int method, const CvTemplate * t)
{
  CvTmScoreConst k = cvtm_score_const (method, t->plane.width,
      t->plane.height, t->sum, t->sumsq, t->flat);

  if (t->mask.data && t->count > 0) {
    double n = (double) t->count, sd = (double) t->sum;
    k.n = n;
    k.inv_n = CV_DDIV (1.0, n);
    if (method == CV_TM_CCOEFF) {
      k.tmean = CV_DDIV (sd, n);
    } else if (method == CV_TM_CCOEFF_NORMED) {
      double var = CV_DSUB ((double) t->sumsq, CV_DDIV (CV_DMUL (sd, sd), n));
      k.tmean = CV_DDIV (sd, n);
      k.tnorm = CV_DSQRT (var > 0 ? var : 0.0);
    }
  }
  return k;
}

/* The score R of one window from its exact sums C, S, Q. */
CV_HD float
cvtm_score (const CvTmScoreConst * k, int64_t c, int64_t s, int64_t q)
{
  double num, d2, t, dq = (double) q;

  /* the unnormalised correlations: the numerators of the normed ones */
  if (k->method == CV_TM_CCORR)
    return (float) (double) c;
  if (k->method == CV_TM_CCOEFF)
    return (float) CV_DSUB ((double) c, CV_DMUL ((double) s, k->tmean));
  if (k->method == CV_TM_SQDIFF || k->method == CV_TM_SQDIFF_NORMED) {
    /* exact in 64-bit integers */
    int64_t e = q - 2 * c + (int64_t) k->tsq;
    num = e > 0 ? (double) e : 0.0;
    if (k->method == CV_TM_SQDIFF)
      return (float) num;
  } else if (k->method == CV_TM_CCORR_NORMED) {
    num = (double) c;
  } else {
    double ds = (double) s;
    if (k->flat)
      return 1.0f;
    num = CV_DSUB ((double) c, CV_DMUL (ds, k->tmean));
  }

  if (k->method == CV_TM_CCOEFF_NORMED) {
    double ds = (double) s;
    d2 = CV_DSUB (dq, CV_DMUL (CV_DMUL (ds, ds), k->inv_n));
    if (d2 < 0)
      d2 = 0;
  } else {
    d2 = dq;
  }
  {
    double lim = CV_DMUL (10.0 * CVTM_FLT_EPSILON, dq);
    if (lim > 0.5)
      lim = 0.5;
    if (d2 <= lim)
      t = 0;
    else
      t = CV_DMUL (CV_DSQRT (d2), k->tnorm);
  }
  {
    double an = num < 0 ? -num : num;
    if (an < t || k->method == CV_TM_SQDIFF_NORMED)
      num = CV_DDIV (num, t);
    else if (an < CV_DMUL (t, 1.125))
      num = num > 0 ? 1.0 : -1.0;
    else
      num = 0;
  }
  return (float) num;
}

/* Score map value u in 0..1 of a score (see cv_template_match_cpu). */
CV_HD float
cvtm_map_unit (int method, double n, float r)
{
  float u;

  if (r != r)
    return 0.0f;
  if (method == CV_TM_SQDIFF || method == CV_TM_CCORR)
    u = (float) CV_DDIV ((double) r, CV_DMUL (65025.0, n));
  else if (method == CV_TM_CCOEFF)
    u = (float) CV_DADD (CV_DDIV ((double) r, CV_DMUL (32512.5, n)), 0.5);
  else if (method == CV_TM_CCOEFF_NORMED)
    u = CV_FMUL (CV_FADD (r, 1.0f), 0.5f);
  else
    u = r;
  return u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
}

CV_HD uint8_t
cvtm_map8 (float u)
{
  return (uint8_t) CV_FADD (CV_FMUL (u, 255.0f), 0.5f);
}

CV_HD uint16_t
cvtm_map16 (float u)
{
  return (uint16_t) CV_FADD (CV_FMUL (u, 65535.0f), 0.5f);
}

/* Is a better than b? Keys (higher is better) with raster-order ties;
 * idx < 0 means "no candidate". */
CV_HD int
cvtm_better (float ka, int64_t ia, float kb, int64_t ib)
{
  if (ia < 0)
    return 0;
  if (ib < 0)
    return 1;
  return ka > kb || (ka == kb && ia < ib);
}

/* Key of a score: higher is better. */
CV_HD float
cvtm_key (int method, float r)
{
  return (method == CV_TM_SQDIFF || method == CV_TM_SQDIFF_NORMED) ? -r : r;
}

/* Key of a score among several templates (see cvtemplatematch.h): the
 * score's key for the normed methods, that of R / N (float) for SQDIFF,
 * CCORR and CCOEFF; with one template (multi 0), cvtm_key (). */
CV_HD float
cvtm_multi_key (int method, int multi, float n, float r)
{
  if (multi && (method == CV_TM_SQDIFF || method == CV_TM_CCORR
          || method == CV_TM_CCOEFF))
    r = CV_FDIV (r, n);
  return cvtm_key (method, r);
}

/* Does the score pass the threshold (see CvTemplateMatchParams)? */
CV_HD int
cvtm_passes (int method, double threshold, float r)
{
  if (method == CV_TM_SQDIFF || method == CV_TM_SQDIFF_NORMED)
    return threshold < 0 || (double) r <= threshold;
  return threshold <= -1.0 || (double) r >= threshold;
}

/* Is m a CvTemplateMatchMethod? */
CV_HD int
cvtm_method_valid (int m)
{
  return m >= 0 && m < CV_TM_N_METHODS;
}

/* The score of window (x, y) of a score image of rw x rh windows, or NaN
 * outside it (CvTemplateMatch.around). */
CV_HD float
cvtm_around (const float *map, int rw, int rh, int x, int y)
{
  if (x < 0 || y < 0 || x >= rw || y >= rh)
    return CV_TM_NAN_F;
  return map[(size_t) y * rw + x];
}

/* Fill m->around from the score image (all of it, rw x rh windows). */
CV_HD void
cvtm_fill_around (CvTemplateMatch * m, const float *map, int rw, int rh)
{
  m->around[0] = cvtm_around (map, rw, rh, m->x - 1, m->y);
  m->around[1] = cvtm_around (map, rw, rh, m->x + 1, m->y);
  m->around[2] = cvtm_around (map, rw, rh, m->x, m->y - 1);
  m->around[3] = cvtm_around (map, rw, rh, m->x, m->y + 1);
}

/* Is window (x, y) of a tw x th template suppressed by one of the n
 * matches (rectangles overlap, each match of its own size w x h)? */
CV_HD int
cvtm_suppressed (const CvTemplateMatch * m, int n, int x, int y, int tw,
    int th)
{
  for (int i = 0; i < n; i++) {
    int dx = x - m[i].x, dy = y - m[i].y;
    if (dx < m[i].w && -dx < tw && dy < m[i].h && -dy < th)
      return 1;
  }
  return 0;
}

#endif /* CV_TEMPLATE_MATCH_SCORE_H */
