/* gst-cuda-vision: template matching on the CPU, correlation by FFT
 * (FFTW3, double precision), tiled overlap-save as OpenCV's crossCorr.
 *
 * The correlation C(x, y) = sum T(i, j) I(x + i, y + j) of 8-bit images is
 * an integer below 2^53. Each tile of dw x dh frame pixels (zero outside
 * the frame) is transformed (real to complex), multiplied by the conjugate
 * spectrum of the template (zero-padded to dw x dh, scaled by 1 / (dw dh),
 * computed once per template and tile size), and transformed back: the
 * cyclic correlation, whose values at x <= dw - tw, y <= dh - th are the
 * windows fully inside the tile (no wrap-around), i.e. blocks of
 * (dw - tw + 1) x (dh - th + 1) windows; consecutive tiles overlap by
 * tw - 1 columns / th - 1 rows. Every value is rounded to the nearest
 * integer: that is the exact C as long as the absolute error of the
 * computed value is below 0.5.
 *
 * Error bound. For a cyclic convolution of x and y of length N = 2^n by a
 * radix-2 FFT in floating point with unit roundoff u (2^-53 here) and
 * twiddle factors accurate to beta, Percival (Math. Comp. 72, 2003, "Rapid
 * multiplication modulo the sum and difference of highly composite
 * numbers", Theorem 5.1; also Brent, Percival, Zimmermann 2007) gives
 *   max |z' - z| <= ||x||_2 ||y||_2
 *                   ((1+u)^(3n) (1+u sqrt 5)^(3n+1) (1+beta)^(3n) - 1).
 * A 2-D DFT of dw x dh is the same butterfly network with
 * n = log2 (dw dh) stages. Here ||y||_2 <= 255 sqrt (tw th) (template),
 * ||x||_2 <= 255 sqrt (dw dh) (the tile), beta <= 2u (FFTW computes its
 * twiddles in extended precision), and one more (1+u) for the scaled
 * template spectrum. For 1080p with a 64x64 template on 256x256 tiles this
 * is ~2.4e-5; for a 1920x1080 template on a 1920x1080 frame ~4e-3. FFTW
 * also uses radix-3/5 steps and real-data (r2c/c2r) codelets, which the
 * radix-2 theorem does not cover literally; they have the same O(u log N)
 * behaviour, so n is taken as ceil (log2 (dw dh)) and the FFT path is only
 * used where the bound is at most CVTM_FFT_MAX_ERROR = 1/8 (a factor 4
 * below the 0.5 that rounding needs); larger products (a template and
 * tile of ~2^26 pixels each, e.g. an 8140x9925 template) use the direct
 * path. Measured (random and half-saturated 8-bit data, tiles from 256x256
 * to 2000x1125, templates from 64x64 to 1920x1080): the largest error was
 * 1.1 % of the bound (6.1e-5 for a 1920x1080 template on a 2000x1125
 * tile).
 *
 * Threads: FFTW's planner is not thread-safe, its new-array execute
 * functions are: plans are made and destroyed under a process-wide mutex
 * (two elements in two streaming threads), tiles are transformed in
 * parallel (OpenMP) with per-thread arrays. Plans, tile size and the
 * template spectrum live in the caller's workspace (CvTmFft).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "templatematch-paths.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_FFTW
#include <fftw3.h>
#include <pthread.h>

/* ---- tunables (measured, docs/cudatemplatematch.md) ---- */

/* Largest bound on the absolute error of a computed C (see above). */
#define CVTM_FFT_MAX_ERROR 0.125
/* Cost of one tile, in seconds on one core:
 *   dw dh (KF log2 (dw dh) + KP)
 * (the two transforms, loading the tile, the spectrum product, rounding
 * and the window sums; the scores cost the same on both paths and are left
 * out of both models). Fitted to single-thread runs on 1080p with a 64x64
 * template and tiles from 128x128 to 1024x512: 17-25 ns per tile pixel. */
#define CVTM_FFT_KF 1.15e-9
#define CVTM_FFT_KP 0.5e-9
/* Largest tile area considered (beyond it the transforms leave the
 * caches: 640x640 and 1024x512 tiles were 10-25 % slower per pixel),
 * unless the template needs larger tiles. Tile memory: 16 dw dh bytes per
 * thread plus the template spectrum. */
#define CVTM_FFT_MAX_AREA (512 * 512)
/* FFTW planner flags. FFTW_MEASURE took ~0.5 s per new tile size (more
 * for frame-sized tiles: a stall on the first frame, and after every
 * template or caps change to a new size) for transforms 0-10 % faster at
 * the sizes chosen here, so the plans are estimated. */
#define CVTM_FFT_PLAN_FLAGS FFTW_ESTIMATE

struct CvTmFft
{
  int dw, dh;                   /* tile (DFT) size */
  fftw_plan fwd, inv;           /* r2c and c2r of dw x dh, out of place */
  fftw_complex *tspec;          /* conj (DFT (T)) / (dw dh), dh x (dw/2+1) */
  int tw, th;                   /* template of tspec */
  uint64_t tmpl_id;             /* its id (0: none kept) */
};

static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

/* 2^a 3^b 5^c */
static int
is_smooth (int n)
{
  while (n % 2 == 0)
    n /= 2;
  while (n % 3 == 0)
    n /= 3;
  while (n % 5 == 0)
    n /= 5;
  return n == 1;
}

static int
smooth_up (int n)
{
  while (!is_smooth (n))
    n++;
  return n;
}

/* Bound on the absolute error of one computed correlation value, see the
 * top of this file. */
static double
error_bound (int dw, int dh, int tw, int th)
{
  const double u = DBL_EPSILON / 2, beta = DBL_EPSILON;
  const double n = ceil (log2 ((double) dw * (double) dh));
  const double g = expm1 (3 * n * log1p (u) + (3 * n + 1) *
      log1p (u * sqrt (5.0)) + 3 * n * log1p (beta) + log1p (u));

  return 255.0 * sqrt ((double) tw * (double) th) * 255.0 *
      sqrt ((double) dw * (double) dh) * g;
}

double
cvtm_fft_cost (int w, int h, int tw, int th, int *pdw, int *pdh)
{
  const int rw = w - tw + 1, rh = h - th + 1;
  const int maxw = smooth_up (w), maxh = smooth_up (h);
  double max_area = CVTM_FFT_MAX_AREA, best = -1;

  if (4.0 * tw * th > max_area)
    max_area = 4.0 * tw * th;
  for (int dh = smooth_up (th); dh <= maxh; dh = smooth_up (dh + 1)) {
    const int nty = (rh + dh - th) / (dh - th + 1);
    for (int dw = smooth_up (tw); dw <= maxw; dw = smooth_up (dw + 1)) {
      const double area = (double) dw * dh;
      if (area > max_area)
        break;
      const int ntx = (rw + dw - tw) / (dw - tw + 1);
      const double cost = (double) ntx * nty * area *
          (CVTM_FFT_KF * log2 (area) + CVTM_FFT_KP);
      if (best >= 0 && cost >= best)
        continue;
      if (error_bound (dw, dh, tw, th) > CVTM_FFT_MAX_ERROR)
        continue;
      best = cost;
      *pdw = dw;
      *pdh = dh;
    }
  }
  return best;
}

void
cvtm_fft_free (CvTmFft * f)
{
  if (!f)
    return;
  pthread_mutex_lock (&planner_lock);
  if (f->fwd)
    fftw_destroy_plan (f->fwd);
  if (f->inv)
    fftw_destroy_plan (f->inv);
  pthread_mutex_unlock (&planner_lock);
  fftw_free (f->tspec);
  free (f);
}

/* Plans and spectrum buffer for dw x dh. */
static CvTmFft *
fft_new (int dw, int dh)
{
  const size_t n = (size_t) dw * dh, nc = (size_t) (dw / 2 + 1) * dh;
  CvTmFft *f = calloc (1, sizeof (CvTmFft));
  double *in;

  if (!f)
    return NULL;
  f->dw = dw;
  f->dh = dh;
  f->tspec = fftw_alloc_complex (nc);
  in = fftw_alloc_real (n);
  if (f->tspec && in) {
    /* planning arrays: scratch (planners other than FFTW_ESTIMATE
     * overwrite them); the per-thread arrays of the tiles are allocated
     * by fftw_malloc too, so they have the alignment the plans assume */
    pthread_mutex_lock (&planner_lock);
    f->fwd = fftw_plan_dft_r2c_2d (dh, dw, in, f->tspec, CVTM_FFT_PLAN_FLAGS);
    f->inv = fftw_plan_dft_c2r_2d (dh, dw, f->tspec, in, CVTM_FFT_PLAN_FLAGS);
    pthread_mutex_unlock (&planner_lock);
  }
  fftw_free (in);
  if (!f->tspec || !f->fwd || !f->inv) {
    cvtm_fft_free (f);
    return NULL;
  }
  return f;
}

/* conj (DFT (T zero-padded to dw x dh)) / (dw dh) into f->tspec */
static CvStatus
template_spectrum (CvTmFft * f, const CvTemplate * templ)
{
  const int dw = f->dw, dh = f->dh, tw = templ->plane.width,
      th = templ->plane.height;
  const size_t nc = (size_t) dh * (dw / 2 + 1);
  const double scale = 1.0 / ((double) dw * (double) dh);
  double *in = fftw_alloc_real ((size_t) dw * dh);

  if (!in)
    return CV_ERROR_NO_MEMORY;
  for (int y = 0; y < dh; y++) {
    double *row = in + (size_t) y * dw;
    int x = 0;
    if (y < th) {
      const uint8_t *t = templ->plane.data + (size_t) y * templ->plane.stride;
      for (; x < tw; x++)
        row[x] = t[x];
    }
    for (; x < dw; x++)
      row[x] = 0;
  }
  fftw_execute_dft_r2c (f->fwd, in, f->tspec);
  fftw_free (in);
  for (size_t i = 0; i < nc; i++) {
    f->tspec[i][0] *= scale;
    f->tspec[i][1] *= -scale;
  }
  f->tw = tw;
  f->th = th;
  f->tmpl_id = templ->id;
  return CV_OK;
}

/* One tile: the windows x0 .. x0 + bw - 1, y0 .. y0 + bh - 1 (all valid,
 * bw <= dw - tw + 1, bh <= dh - th + 1). in, spec: dw x dh reals and their
 * spectrum; cs, cq: bw + tw - 1 column sums; cr: bw correlations. */
static void
fft_tile (const CvTmFft * f, const CvPlane * lum, int tw, int th,
    const CvTmScoreConst * k, float *map, int rw, int x0, int y0, int bw,
    int bh, double *restrict in, fftw_complex * restrict spec,
    int64_t * restrict cs, int64_t * restrict cq, int64_t * restrict cr)
{
  const int dw = f->dw, dh = f->dh;
  const int iw = bw + tw - 1, ih = bh + th - 1;
  const size_t nc = (size_t) dh * (dw / 2 + 1);
  fftw_complex *restrict ts = f->tspec;

  /* the frame pixels the windows read, zeros around */
  for (int y = 0; y < dh; y++) {
    double *row = in + (size_t) y * dw;
    int x = 0;
    if (y < ih) {
      const uint8_t *p = lum->data + (size_t) (y0 + y) * lum->stride + x0;
      for (; x < iw; x++)
        row[x] = p[x];
    }
    for (; x < dw; x++)
      row[x] = 0;
  }
  fftw_execute_dft_r2c (f->fwd, in, spec);
  for (size_t i = 0; i < nc; i++) {
    const double a = spec[i][0], b = spec[i][1];
    spec[i][0] = a * ts[i][0] - b * ts[i][1];
    spec[i][1] = a * ts[i][1] + b * ts[i][0];
  }
  fftw_execute_dft_c2r (f->inv, spec, in);

  /* window sums: column sums over th rows slid down, then along the row */
  cvtm_column_sums (lum->data + (size_t) y0 * lum->stride + x0, lum->stride,
      iw, th, cs, cq);
  for (int y = 0; y < bh; y++) {
    const double *crow = in + (size_t) y * dw;
    if (y > 0)
      cvtm_column_sums_next (lum->data + (size_t) (y0 + y - 1) * lum->stride +
          x0, lum->data + (size_t) (y0 + y + th - 1) * lum->stride + x0, iw,
          cs, cq);
    /* the exact integers: |error| < 1/8 (bound checked) */
    for (int x = 0; x < bw; x++)
      cr[x] = (int64_t) floor (crow[x] + 0.5);
    cvtm_row_scores (k, cr, cs, cq, tw, bw, map + (size_t) (y0 + y) * rw + x0);
  }
}

CvStatus
cvtm_fft_scores (CvTmFft ** pf, const CvPlane * lum, const CvTemplate * templ,
    const CvTmScoreConst * k, float *map, int dw, int dh, const CvExec * exec)
{
  const int w = lum->width, h = lum->height;
  const int tw = templ->plane.width, th = templ->plane.height;
  const int rw = w - tw + 1, rh = h - th + 1;
  const int bw = dw - tw + 1, bh = dh - th + 1;
  const int ntx = cv_div_up (rw, bw), nty = cv_div_up (rh, bh);
  const int ntiles = ntx * nty;
  CvTmFft *f = *pf;
  int status = CV_OK;

  if (f && (f->dw != dw || f->dh != dh)) {
    cvtm_fft_free (f);
    f = *pf = NULL;
  }
  if (!f) {
    f = *pf = fft_new (dw, dh);
    if (!f)
      return CV_ERROR_NO_MEMORY;
  }
  if (templ->id == 0 || f->tmpl_id != templ->id || f->tw != tw || f->th != th) {
    f->tmpl_id = 0;
    status = template_spectrum (f, templ);
    if (status != CV_OK)
      return status;
  }
#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    double *in = fftw_alloc_real ((size_t) dw * dh);
    fftw_complex *spec = fftw_alloc_complex ((size_t) dh * (dw / 2 + 1));
    int64_t *cs = malloc ((size_t) dw * sizeof (int64_t));
    int64_t *cq = malloc ((size_t) dw * sizeof (int64_t));
    int64_t *cr = malloc ((size_t) dw * sizeof (int64_t));
    const int ok = in && spec && cs && cq && cr;

    if (!ok) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    }
#pragma omp for schedule(dynamic, 1)
    for (int t = 0; t < ntiles; t++) {
      const int x0 = (t % ntx) * bw, y0 = (t / ntx) * bh;
      if (!ok || cv_exec_cancelled (exec))
        continue;
      fft_tile (f, lum, tw, th, k, map, rw, x0, y0,
          x0 + bw <= rw ? bw : rw - x0, y0 + bh <= rh ? bh : rh - y0,
          in, spec, cs, cq, cr);
    }
    fftw_free (in);
    fftw_free (spec);
    free (cs);
    free (cq);
    free (cr);
  }
  return status == CV_OK && cv_exec_cancelled (exec) ? CV_ERROR_CANCELLED :
      status;
}

#else /* !HAVE_FFTW: the direct path only */

struct CvTmFft
{
  int unused;
};

double
cvtm_fft_cost (int w, int h, int tw, int th, int *dw, int *dh)
{
  (void) w;
  (void) h;
  (void) tw;
  (void) th;
  *dw = *dh = 0;
  return -1;
}

CvStatus
cvtm_fft_scores (CvTmFft ** fft, const CvPlane * lum,
    const CvTemplate * templ, const CvTmScoreConst * k, float *map,
    int dw, int dh, const CvExec * exec)
{
  (void) exec;
  (void) fft;
  (void) lum;
  (void) templ;
  (void) k;
  (void) map;
  (void) dw;
  (void) dh;
  return CV_ERROR_INVALID_ARGUMENT;
}

void
cvtm_fft_free (CvTmFft * fft)
{
  (void) fft;
}

#endif /* HAVE_FFTW */
