/* gst-cuda-vision: the CPU implementations behind the CPU operators
 * (cv_*_cpu_ops), one call per plane. Internal header: the elements use
 * the operators (cvop.h and the cv<algorithm>.h headers, where the
 * definitions, formulas and ranges are documented); the operators, the
 * tests and the tools call these directly.
 *
 * Every function takes host planes and an exec (CvExec, cvop.h: its
 * n_threads and cancel flag; NULL: OpenMP's default thread count, no
 * cancellation) and returns CV_OK, CV_ERROR_INVALID_ARGUMENT (NULL planes,
 * sizes < 1 or different between src and dst, a bad layout, parameters
 * out of their documented ranges), CV_ERROR_NO_MEMORY, or
 * CV_ERROR_CANCELLED (the cancel flag was seen: the output is
 * incomplete).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CPU_INTERNAL_H
#define CV_CPU_INTERNAL_H

#include "cvsobel.h"
#include "cvconvolve.h"
#include "cvnlmeans.h"
#include "cvtemplatematch.h"
#include "cvmeanshift.h"
#include "sobel_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Sobel edge map of src (width x height, read through layout) into
 * dst (GRAY8, the same size): cvsobel.h. */
CvStatus cv_sobel_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, const CvExec * exec);

/* The filter chain on one plane: src and dst of the same width x height
 * (any strides); pixels of bpp bytes (1 .. 4) whose first channels bytes
 * (1 .. 3, <= bpp) are filtered independently, the others copied from src
 * (cvconvolve.h). */
CvStatus cv_convolve_cpu (const CvPlane * src, CvPlane * dst, int bpp,
    int channels, const CvConvolveParams * params, const CvExec * exec);

/* Sum of the radii of the chain's stages (the halo it needs). */
int cv_convolve_chain_radius (const CvConvolveParams * params);

/* Non-local means of src (read through layout: bpp 1 grey, or 3 / 4 with
 * the R, G, B offsets; a fourth byte is copied) into dst (same size and
 * layout, not aliasing src): cvnlmeans.h. */
CvStatus cv_nlmeans_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane *
    dst, const CvNlMeansParams * params, const CvExec * exec);

/* Template matching of templ in src (read through layout; the template
 * 1x1 up to the frame's size), cvtemplatematch.h.
 *   score_map: NULL, or a W x H plane (GRAY8, or GRAY16 when
 *           params->score_map == 16) for the score map.
 *   result: the matches, best first (count 0 on any error).
 *   workspace: NULL, or the address of the caller's workspace pointer
 *           (NULL at first): the FFT plans and the template's spectrum,
 *           the luma and the float scores are kept there from call to
 *           call; free it with cv_template_match_cpu_free (). One
 *           workspace must not be used by two calls at the same time.
 *           With workspace NULL nothing is kept between calls.
 * The correlation path is chosen by a cost model, or forced by the
 * environment variable CUDAVISION_TM_PATH=direct or =fft, read when the
 * workspace is made (every call without a workspace); score images above
 * 64 Mi windows (or CUDAVISION_TM_MAP_BUDGET windows, read at the same
 * time) are computed in bands of rows. Returns also
 * CV_ERROR_INVALID_ARGUMENT for a template empty or larger than the frame,
 * a bad method or max_matches, a score map of another size or params->
 * score_map not 8 or 16 with a score map. */
CvStatus cv_template_match_cpu (const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, const CvTemplateMatchParams * params,
    CvPlane * score_map, CvTemplateMatchResult * result, void **workspace,
    const CvExec * exec);

/* Free a workspace of cv_template_match_cpu () (NULL is fine). */
void cv_template_match_cpu_free (void *workspace);

/* The correlation used by the last cv_template_match_cpu () call with a
 * workspace (for tests and benchmarks). */
typedef enum
{
  CV_TM_CPU_PATH_NONE = 0,      /* no call yet */
  CV_TM_CPU_PATH_DIRECT = 1,
  CV_TM_CPU_PATH_FFT = 2,
} CvTemplateMatchCpuPath;

int cv_template_match_cpu_path (const void *workspace);

/* Mean-shift filtering / segmentation of src (read through layout) into
 * dst (same size and layout), cvmeanshift.h. seg: segment mode only (NULL
 * allowed in filter mode): seg->labels must hold width * height values;
 * n_segments is set. Returns also CV_ERROR_INVALID_ARGUMENT for a ROI not
 * inside the frame and segment mode without seg or with >= 2^32 - 1
 * pixels. */
CvStatus cv_meanshift_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane *
    dst, const CvMeanShiftParams * params, CvMeanShiftSegments * seg, const
    CvExec * exec);

/* OpenCV's Sobel kernels of aperture k (sobel_core.h) as separable sums
 * over k rows of luma, rows[j] holding n = w + 2 (k / 2) values (k / 2
 * replicated on each side): the vertical smoothing (vs, for Gx) and
 * derivative (vd, for Gy) sums of every one of the n columns ... */
static inline void
cv_sobel_vertical_sums (int16_t * const *rows, int k, int n,
    int32_t * restrict vs, int32_t * restrict vd)
{
  for (int x = 0; x < n; x++) {
    int s = 0, d = 0;
    for (int j = 0; j < k; j++) {
      s += cv_sobel_smooth_coeff (k, j) * rows[j][x];
      d += cv_sobel_deriv_coeff (k, j) * rows[j][x];
    }
    vs[x] = s;
    vd[x] = d;
  }
}

/* ... and from them Gx and Gy of output pixel x (exact integers) */
static inline void
cv_sobel_gradient_at (const int32_t * vs, const int32_t * vd, int k, int x,
    int *gx, int *gy)
{
  int sx = 0, sy = 0;
  for (int i = 0; i < k; i++) {
    sx += cv_sobel_deriv_coeff (k, i) * vs[x + i];
    sy += cv_sobel_smooth_coeff (k, i) * vd[x + i];
  }
  *gx = sx;
  *gy = sy;
}

/* Set the first width * bytes_per_pixel bytes of every row of plane to
 * value (row padding is left alone). CV_OK or CV_ERROR_INVALID_ARGUMENT. */
CvStatus cv_fill_plane_cpu (CvPlane * plane, int bytes_per_pixel, uint8_t
    value);

/* Copy the first row_bytes bytes of every row of src into dst (planes of
 * the same height). CV_OK or CV_ERROR_INVALID_ARGUMENT. */
CvStatus cv_copy_plane_cpu (const CvPlane * src, CvPlane * dst, size_t
    row_bytes);

#ifdef __cplusplus
}
#endif
#endif /* CV_CPU_INTERNAL_H */
