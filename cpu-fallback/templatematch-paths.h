/* gst-cuda-vision: the two correlation paths of the template matching CPU
 * fallback (private to cpu-fallback/templatematch*.c; the tests call them
 * to compare whole score maps).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_TEMPLATE_MATCH_PATHS_H
#define CV_TEMPLATE_MATCH_PATHS_H

#include "cvtemplatematch.h"
#include "cvtemplatematch-score.h"
#include "cvcpu.h"

/* Scores R of every window into map (rw x rh, rw = W - tw + 1, row-major,
 * tight) with the direct correlation; lum is the frame's luma (GRAY8).
 * exec: threads and cancellation (NULL: defaults). Returns CV_OK,
 * CV_ERROR_NO_MEMORY or CV_ERROR_CANCELLED. */
CvStatus cvtm_direct_scores (const CvPlane * lum, const CvTemplate * templ,
    const CvTmScoreConst * k, float *map, const CvExec * exec);

/* Plans, tile size and template spectrum of one workspace. */
typedef struct CvTmFft CvTmFft;

/* Estimated cost (seconds on one core, the scale of the direct path's
 * estimate in templatematch.c) of the FFT path for a W x H frame and a
 * tw x th template with the best DFT tile size, stored in *dw x *dh; or a
 * negative value where the FFT path cannot be used (built without FFTW,
 * or no tile size whose error bound is below the rounding margin). */
double cvtm_fft_cost (int w, int h, int tw, int th, int *dw, int *dh);

/* The same with the correlation by FFT on tiles of dw x dh: the size from
 * cvtm_fft_cost (), or any dw >= tw, dh >= th whose error bound holds
 * (tests force small tiles). *fft holds the plans and the template
 * spectrum (NULL at first; rebuilt when the tile size or the template
 * changes, templ->id 0 = every call). Returns CV_OK, CV_ERROR_NO_MEMORY
 * or CV_ERROR_CANCELLED. */
CvStatus cvtm_fft_scores (CvTmFft ** fft, const CvPlane * lum,
    const CvTemplate * templ, const CvTmScoreConst * k, float *map,
    int dw, int dh, const CvExec * exec);

void cvtm_fft_free (CvTmFft * fft);

/* ---- window sums, shared by both paths (exact integers) ---- */

/* cs[x], cq[x] (x < n): sum and sum of squares of the th pixels of column
 * x going down from p (the strip's first pixel; rows stride bytes apart). */
static inline void
cvtm_column_sums (const uint8_t * p, size_t stride, int n, int th,
    int64_t * cs, int64_t * cq)
{
  for (int x = 0; x < n; x++)
    cs[x] = cq[x] = 0;
  for (int j = 0; j < th; j++) {
    const uint8_t *r = p + (size_t) j * stride;
    for (int x = 0; x < n; x++) {
      cs[x] += r[x];
      cq[x] += r[x] * r[x];
    }
  }
}

/* The same column sums one row further down: row out leaves, row in
 * enters. */
static inline void
cvtm_column_sums_next (const uint8_t * out, const uint8_t * in, int n,
    int64_t * cs, int64_t * cq)
{
  for (int x = 0; x < n; x++) {
    cs[x] += in[x] - out[x];
    cq[x] += in[x] * in[x] - out[x] * out[x];
  }
}

/* Scores of the n windows of a row into out: window x covers the column
 * sums x .. x + tw - 1 (slid along the row), c[x] is its correlation. */
static inline void
cvtm_row_scores (const CvTmScoreConst * k, const int64_t * c,
    const int64_t * cs, const int64_t * cq, int tw, int n, float *out)
{
  int64_t s = 0, q = 0;

  for (int i = 0; i < tw; i++) {
    s += cs[i];
    q += cq[i];
  }
  for (int x = 0; x < n; x++) {
    if (x > 0) {
      s += cs[x + tw - 1] - cs[x - 1];
      q += cq[x + tw - 1] - cq[x - 1];
    }
    out[x] = cvtm_score (k, c[x], s, q);
  }
}

#endif /* CV_TEMPLATE_MATCH_PATHS_H */
