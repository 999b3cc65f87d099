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

/* Scores R of every window into map (rw x rh, rw = W - tw + 1, row-major,
 * tight) with the direct correlation; lum is the frame's luma (GRAY8).
 * Returns CV_OK or CV_ERROR_NO_MEMORY. */
int cvtm_direct_scores (const CvPlane * lum, const CvTemplate * templ,
    const CvTmScoreConst * k, float *map);

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
 * changes, templ->id 0 = every call). Returns CV_OK or
 * CV_ERROR_NO_MEMORY. */
int cvtm_fft_scores (CvTmFft ** fft, const CvPlane * lum,
    const CvTemplate * templ, const CvTmScoreConst * k, float *map,
    int dw, int dh);

void cvtm_fft_free (CvTmFft * fft);

#endif /* CV_TEMPLATE_MATCH_PATHS_H */
