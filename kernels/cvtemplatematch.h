/* gst-cuda-vision: template matching (SSD, correlations),
 * the operator (cvop.h) on the CPU (cpu-fallback/templatematch.c) and on
 * the GPU (kernels/templatematch.cu).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_TEMPLATE_MATCH_H
#define CV_TEMPLATE_MATCH_H

#include "cvimage.h"
#include "cvop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The matching methods, with OpenCV's matchTemplate definitions (the
 * cv::TemplateMatchModes of the same names; the values of this enum are
 * the C interface's own, appended as methods were added: the element's
 * method property uses OpenCV's numbers 0..5). For the window of the frame's
 * luma I whose top-left corner is (x, y) and the template T (tw x th pixels,
 * N = tw * th), with sums over x' < tw, y' < th:
 *
 *   C  = sum T(x',y') I(x+x',y+y')          (cross-correlation)
 *   S  = sum I(x+x',y+y'),  Q = sum I(x+x',y+y')^2   (window statistics)
 *   St = sum T(x',y'),      Qt = sum T(x',y')^2
 *
 * CV_TM_CCORR (cv2.TM_CCORR, unnormalised cross-correlation):
 *   R = C                                    (higher is better,
 *                                             0 .. 65025 N)
 * CV_TM_CCOEFF (cv2.TM_CCOEFF, unnormalised zero-mean correlation):
 *   R = sum (T - mean T) (I - mean I) = C - S St / N
 *                                            (higher is better,
 *                                             -16256.25 N .. 16256.25 N)
 *   computed as the CCOEFF_NORMED numerator: C - S (St / N) in double
 *   (OpenCV: num - wndSum * templMean). A flat template gives R = 0 for
 *   every window (no special case, as OpenCV).
 * The unnormalised scores are large: 65025 N is 2.7e8 for a 64x64 template
 * and 1.3e11 for a 1920x1080 one. They are exact in the 64-bit integer
 * sums and in double, but stored as float (24-bit significand, as OpenCV's
 * CV_32F result), so values above 2^24 are rounded to about 6e-8 of their
 * size: the ranking of windows closer than that is the float's (OpenCV's
 * own float DFT rounds more).
 * CV_TM_SQDIFF (the seed's SSD):
 *   R = sum (T - I)^2 = Q - 2 C + Qt                 (0 = perfect, >= 0)
 * CV_TM_SQDIFF_NORMED:
 *   R = (Q - 2 C + Qt) / sqrt (Q Qt)                 (0 = perfect, >= 0)
 * CV_TM_CCORR_NORMED:
 *   R = C / sqrt (Q Qt)                              (1 = perfect, 0..1)
 * CV_TM_CCOEFF_NORMED (the seed's PCC, Pearson correlation coefficient):
 *   R = (C - S St / N) / sqrt ((Q - S^2 / N) (Qt - St^2 / N))
 *                                                    (1 = perfect, -1..1)
 *
 * Edge cases, exactly as OpenCV's templmatch.cpp (common_matchTemplate):
 * - CCOEFF_NORMED with a flat template (all pixels equal, variance 0):
 *   R = 1 for every window.
 * - Normed methods: with the denominator's window part
 *   d2 = Q - S^2 / N (CCOEFF_NORMED) or d2 = Q (the others), the
 *   denominator is taken as 0 when d2 <= min (0.5, 10 FLT_EPSILON Q)
 *   (a flat window for CCOEFF_NORMED, an all-black window for the others).
 *   Then, with t the denominator and n the numerator: R = n / t when
 *   |n| < t or for SQDIFF_NORMED; R = sign (n) when t <= |n| < 1.125 t
 *   (rounding); R = 0 otherwise. So a flat window gives 0 for
 *   CCOEFF_NORMED / CCORR_NORMED, and SQDIFF_NORMED gives +inf (all-black
 *   window or template, n > 0) or NaN (both all black).
 * - SQDIFF numerator clamped at 0 (never negative).
 * Scores are computed in double from exact 64-bit integer C, S, Q, St, Qt
 * and stored as float (as OpenCV's CV_32F result): the CUDA and the CPU
 * version give bit-identical scores and therefore the same matches.
 * NaN scores are never reported. */
typedef enum
{
  CV_TM_SQDIFF = 0,
  CV_TM_SQDIFF_NORMED = 1,
  CV_TM_CCORR = 2,
  CV_TM_CCORR_NORMED = 3,
  CV_TM_CCOEFF = 4,
  CV_TM_CCOEFF_NORMED = 5,
} CvTemplateMatchMethod;        /* OpenCV's values (cv::TemplateMatchModes) */

/* Number of methods (valid methods are 0 .. CV_TM_N_METHODS - 1). */
#define CV_TM_N_METHODS 6

/* Largest max_matches. */
#define CV_TEMPLATE_MATCH_MAX_MATCHES 64

/* A template: a GRAY8 image (the template's luma), 1x1 up to the frame's
 * size, with its statistics (fill them with cv_template_stats ()).
 * plane.data is host memory for the CPU operator and for the CUDA one
 * (which uploads it to its workspace when id changes; id 0 = upload
 * every frame). The memory must stay valid until the frame's work on the
 * stream is done. */
typedef struct
{
  CvPlane plane;
  int64_t sum;                  /* St */
  int64_t sumsq;                /* Qt */
  int flat;                     /* all pixels equal */
  uint64_t id;                  /* unique per template content, or 0 */
  /* Optional mask (OpenCV's matchTemplate mask argument): mask.data NULL
   * for none, else a GRAY8 plane of the template's size. A CV_8U mask is
   * binary in OpenCV (4.6 thresholds it at 0, "CV_8U masks are binary
   * masks"): a pixel counts when its mask byte is not 0, with weight 1.
   * cv_template_stats () normalises the mask to 0/1 and sets the template's
   * pixels outside it to 0 (both planes are modified). With a mask, every
   * sum of the definitions above runs over the mask's pixels only, N is
   * their number (count), S = sum M I and Q = sum M I^2 are correlations of
   * the window with the mask instead of box sums (OpenCV's
   * matchTemplateMask with M in {0, 1}: e.g. CCOEFF_NORMED
   *   R = (C - S St / N) / sqrt ((Q - S^2 / N) (Qt - St^2 / N))), computed
   * from the same exact integers with the same edge cases as without a
   * mask (OpenCV's mask path divides by 0 there instead: NaN or inf). */
  CvPlane mask;
  int64_t count;                /* N: pixels counted (tw * th unmasked) */
} CvTemplate;

/* Most templates (scales) matched at once. */
#define CV_TEMPLATE_MATCH_MAX_SCALES 16

/* Parameters of one frame.
 * method:      a CvTemplateMatchMethod.
 * max_matches: 1 .. CV_TEMPLATE_MATCH_MAX_MATCHES, matches searched.
 * threshold:   scores worse than it are not reported: for SQDIFF and
 *              SQDIFF_NORMED (lower is better) only R <= threshold, and a
 *              negative threshold means no limit; for CCORR,
 *              CCORR_NORMED, CCOEFF and CCOEFF_NORMED (higher is better)
 *              only R >= threshold, and a threshold of -1 or less means
 *              no limit (also for CCOEFF, whose scores can be below -1).
 * score_map:   0: none; 8: write the score map as GRAY8, 16: as
 *              GRAY16 (native-endian uint16), see the operator (whose
 *              info decides it). */
typedef struct
{
  int method;
  int max_matches;
  double threshold;
  int score_map;
} CvTemplateMatchParams;

/* One match: top-left corner of the window and its score R (the float
 * score widened to double), and the scores of the four windows around it
 * in the score image (rw = W - tw + 1 by rh = H - th + 1 windows), for the
 * sub-pixel estimate (cv_template_match_subpixel ()): around[0] R(x - 1, y),
 * around[1] R(x + 1, y), around[2] R(x, y - 1), around[3] R(x, y + 1); NaN
 * where that window is outside the score image. The same float scores as
 * the score image's (bit-identical on the CPU and the GPU). */
typedef struct
{
  int32_t x, y;
  double score;
  float around[4];
  int32_t scale;                /* index of the template (scale) matched */
  int32_t w, h;                 /* its size: the window's */
} CvTemplateMatch;

/* The matches of one frame, best first: count = 0 .. max_matches. */
typedef struct
{
  int32_t count;
  int32_t reserved;
  CvTemplateMatch match[CV_TEMPLATE_MATCH_MAX_MATCHES];
} CvTemplateMatchResult;

/* The sub-pixel offset of a peak from the scores at -1, 0, +1 along one
 * axis: the vertex of the parabola through them,
 *   d = (R[-1] - R[+1]) / (2 (R[-1] - 2 R[0] + R[+1])),
 * clamped to [-0.5, 0.5]; 0 when a neighbour is outside the score image
 * (NaN), when a score is not finite, or when the denominator is 0. In
 * double from the float scores; the same formula for every method (the
 * vertex of a minimum for the SQDIFF methods, of a maximum for the
 * others). Host code, shared by both operators' results: identical by
 * construction. */
static inline double
cv_template_match_subpixel_offset (float rm, float r0, float rp)
{
  double a = rm, b = r0, c = rp, den, d;

  /* NaN and +-inf: (v - v) is not 0 */
  if (a - a != 0 || b - b != 0 || c - c != 0)
    return 0.0;
  den = 2.0 * ((a - 2.0 * b) + c);
  if (den == 0 || den - den != 0)
    return 0.0;
  d = (a - c) / den;
  if (d != d)
    return 0.0;
  return d < -0.5 ? -0.5 : (d > 0.5 ? 0.5 : d);
}

/* The sub-pixel position of a match: *sx = x + dx, *sy = y + dy with the
 * offsets of cv_template_match_subpixel_offset () along x (around[0],
 * score, around[1]) and y (around[2], score, around[3]). */
static inline void
cv_template_match_subpixel (const CvTemplateMatch * m, double *sx, double *sy)
{
  const float r0 = (float) m->score;

  *sx = m->x + cv_template_match_subpixel_offset (m->around[0], r0,
      m->around[1]);
  *sy = m->y + cv_template_match_subpixel_offset (m->around[2], r0,
      m->around[3]);
}

/* Fill sum, sumsq, count and flat of t from t->plane (host memory,
 * GRAY8) and, when t->mask.data is set, normalise the mask to 0/1 and zero
 * the template outside it (sums, count and flat over the mask's pixels;
 * an empty mask is CV_ERROR_INVALID_ARGUMENT).
 * Returns CV_OK or CV_ERROR_INVALID_ARGUMENT. */
CvStatus cv_template_stats (CvTemplate * t);

/* ---- the operator (cvop.h) ----
 * Matches a template in the frame's luma.
 *   The luma: frame->in[0] read through layout (the plane itself, or
 *           BT.601 luma Y = (77 R + 150 G + 29 B + 128) >> 8, see
 *           CV_LUMA_*), W x H pixels.
 *   The template: GRAY8, tw x th with 1 <= tw <= W, 1 <= th <= H.
 *   Score map (info score_map 8 or 16): frame->out[0], a W x H plane
 *           (GRAY8, or GRAY16 of 2 bytes per pixel, native-endian, for
 *           16) that receives the score of the window with top-left
 *           (x, y) at (x, y) for x <= W - tw, y <= H - th, mapped to u in
 *           0..1:
 *             SQDIFF, CCORR: u = R / (65025 N); SQDIFF_NORMED,
 *             CCORR_NORMED: u = clamp (R, 0, 1); CCOEFF_NORMED:
 *             u = (R + 1) / 2; CCOEFF: u = R / (32512.5 N) + 0.5
 *             (-16256.25 N .. 16256.25 N to 0..1);
 *           NaN -> 0; value = (int) (u * 255 + 0.5) (or 65535), and 0
 *           where the template does not fit.
 *   Results: the matches, best first. Search: the best valid window
 *           (highest R, or lowest for the SQDIFF methods; ties: the first
 *           in raster order, as cv::minMaxLoc), then repeatedly the best
 *           window not suppressed by the matches found so far.
 *           Non-maximum suppression: a match at (mx, my) suppresses every
 *           window whose rectangle overlaps its rectangle, i.e. with
 *           |x - mx| < tw and |y - my| < th: reported matches never
 *           overlap. The search stops at max_matches, when no window is
 *           left, or when the best remaining score is worse than
 *           threshold. Each match carries the scores of the windows
 *           around it (CvTemplateMatch.around) for the sub-pixel
 *           estimate.
 * Several templates (CvTemplateMatchFrameParams.n_templ > 1, e.g. one
 *         template resampled at several scales): each template's scores
 *         as above, then one search over all of them: windows are
 *         compared by their key, the score for CCORR_NORMED,
 *         CCOEFF_NORMED, SQDIFF_NORMED (comparable across sizes), and the
 *         score per counted pixel, (float) R / (float) N, for SQDIFF,
 *         CCORR and CCOEFF (their scores grow with N); ties: the earlier
 *         template, then raster order. A match suppresses every window of
 *         every template whose rectangle overlaps its own (each of its
 *         template's size). CvTemplateMatch.scale is the template's
 *         index, w x h its size. The threshold applies to R. With one
 *         template the key is R (as above). The score map is the first
 *         template's. Every template must fit the frame.
 *         Masked templates (CvTemplate.mask) cost three more correlations
 *         (with the mask, of the luma and of its square).
 * Complexity: the correlation C, exact integers, either directly,
 * O(W H tw th) multiply-adds (on the GPU with __dp4a or 8-bit tensor cores,
 * see docs/cudatemplatematch.md), or (CPU operator, built with FFTW3) by
 * double-precision real FFTs over overlapping tiles, O(W H log (tile
 * area)), each value rounded to the nearest integer, which is the exact
 * sum because the FFT's error bound, checked for the tile size, is below
 * 0.5 (see cpu-fallback/templatematch-fft.c; the direct path is used
 * where it is not). The CPU operator chooses by a cost model measured on
 * x86-64 (docs/cudatemplatematch.md); the environment variable
 * CUDAVISION_TM_PATH=direct or =fft, read when the operator is made,
 * forces one (fft: where FFTW is built in and the bound holds); on the GPU
 * CUDAVISION_TM_PATH=direct, =gemm or =gemm3 forces its kernel.
 * Window sums by sliding column sums (CPU) or integral images (GPU),
 * O(W H). Scores are the same on every path.
 * Memory: the operators keep a workspace per slot from frame to frame,
 * made at create for what the info fixes (GPU: the luma of RGB frames,
 * the reductions, the device and pinned results) and grown at a submit
 * for what the template needs (CPU: FFT plans and the template's
 * spectrum, the luma of RGB frames, the float scores; GPU: the template
 * uploaded into the slot when its id changes there, the score images,
 * the integral images). On the CPU, score images above 64 Mi windows
 * (256 MB of floats) are computed in bands of rows: the correlation then
 * runs once per match searched (max_matches times) instead of once, with
 * the same results.
 *
 * info:    CvTemplateMatchInfo.
 *          layout: how frame->in[0] is read: bpp 1 with r, g, b = -1
 *          (GRAY8, the Y plane of I420 / NV12), or bpp 3 or 4 with the
 *          byte offsets (< bpp) of R, G, B.
 *          width, height: the frame W x H (>= 1).
 *          score_map: 0 (none), 8 or 16: frame->out[0] is the score map.
 *          It decides the score map of every frame:
 *          CvTemplateMatchParams.score_map is not read.
 * frame:   in[0]: W x H pixels of layout.bpp bytes; with a score map,
 *          out[0]: W x H pixels of score_map / 8 bytes. Other planes are
 *          not read or written (NULL allowed).
 * params:  CvTemplateMatchFrameParams: the matching parameters and the
 *          template (cv_template_stats () filled), which must stay valid
 *          (and unchanged) until the frame's work is complete (CUDA: its
 *          pixels are host memory, uploaded on the stream). templ NULL:
 *          nothing is matched, the results hold 0 matches and the score
 *          map (if any) is all 0.
 * results: CvTemplateMatchResult of the slot, the operator's memory
 *          (pinned host memory on the GPU, written by an asynchronous copy
 *          at the end of the frame's work): 0 matches after a failed
 *          submit into that slot.
 * Returns: create: CV_OK, CV_ERROR_INVALID_ARGUMENT (a bad info),
 *          CV_ERROR_NO_MEMORY, or (CUDA) CV_ERROR_CUDA (the pinned
 *          allocation's error kept). submit: CV_OK,
 *          CV_ERROR_INVALID_ARGUMENT (NULL params, a plane missing or not
 *          of the info's sizes, a template empty or larger than the
 *          frame, a bad method or max_matches,
 *          CUDA: frames beyond the grid limits), CV_ERROR_NO_MEMORY,
 *          CV_ERROR_CANCELLED (CPU), or (CUDA) CV_ERROR_CUDA (the first
 *          failing call's error kept). */
typedef struct
{
  CvLumaLayout layout;
  int width, height;
  int score_map;
} CvTemplateMatchInfo;

typedef struct
{
  CvTemplateMatchParams match;
  const CvTemplate *templ;
  /* templ[0 .. n_templ - 1]: several templates (the scales of one) matched
   * in one search (0 is taken as 1); see "Several templates" above */
  int n_templ;
} CvTemplateMatchFrameParams;

/* The typed operator (cvop.h): an operator of either backend, made by
 * that backend's create and passed only to its functions. */
typedef struct CvTemplateMatchOp CvTemplateMatchOp;

CvStatus cv_template_match_cpu_create (const CvTemplateMatchInfo * info,
    int max_slots, CvTemplateMatchOp ** op);
CvStatus cv_template_match_cpu_submit (CvTemplateMatchOp * op, int slot,
    const CvFrame * frame, const CvTemplateMatchFrameParams * params,
    const CvExec * exec);
const CvTemplateMatchResult *cv_template_match_cpu_results (CvTemplateMatchOp
    * op, int slot);
void cv_template_match_cpu_destroy (CvTemplateMatchOp * op);

/* CUDA builds only (kernels/nocuda.c defines none of them). */
CvStatus cv_template_match_cuda_create (const CvTemplateMatchInfo * info,
    int max_slots, CvTemplateMatchOp ** op);
CvStatus cv_template_match_cuda_submit (CvTemplateMatchOp * op, int slot,
    const CvFrame * frame, const CvTemplateMatchFrameParams * params,
    const CvExec * exec);
const CvTemplateMatchResult *cv_template_match_cuda_results (CvTemplateMatchOp
    * op, int slot);
void cv_template_match_cuda_destroy (CvTemplateMatchOp * op);

/* The generic tables of the typed functions above (CV_OPS_TABLE), as
 * the elements drive them; in a build without CUDA the CUDA table's
 * members are all NULL (cv_op_available () is FALSE). */
extern const CvOps cv_template_match_cpu_ops;
extern const CvOps cv_template_match_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_TEMPLATE_MATCH_H */
