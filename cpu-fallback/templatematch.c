/* gst-cuda-vision: template matching on the CPU (C99 + OpenMP), and its
 * operator (cv_template_match_cpu_ops).
 * Same definitions and the same exact integer sums as
 * kernels/templatematch.cu, the score formula shared through
 * kernels/cvtemplatematch-score.h: bit-identical scores. See
 * cvtemplatematch.h.
 *
 * Two ways to the exact correlation C, chosen per frame by a cost model
 * (choose_path ()), or forced by CUDAVISION_TM_PATH=direct|fft:
 * - direct: for every output row, blocks of 32 windows with accumulators in
 *   registers (AVX2 vpmaddwd when the CPU has it), the rest one template
 *   pixel at a time along the row (acc[x] += t * I[x + i], a loop the
 *   compiler vectorizes), in 32-bit accumulators flushed to 64 bits before
 *   they can overflow;
 * - fft (built with FFTW3): double-precision FFTs over tiles, each value
 *   rounded to the exact integer (templatematch-fft.c, with its error
 *   bound).
 * Window sums S, Q: column sums over the template's height slid down the
 * rows, then slid along the row.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cpu-internal.h"
#include "cvop-internal.h"
#include "cvtemplatematch-score.h"
#include "templatematch-paths.h"
#include "cvworkspace.h"

#include <stdlib.h>
#include <string.h>

/* The workspace of cv_template_match_cpu () and of each operator slot. */
typedef struct
{
  int path_env;                 /* CUDAVISION_TM_PATH: 0 auto, else forced */
  size_t map_budget;            /* CVTM_MAP_BUDGET or the environment's */
  int last_path;                /* CvTemplateMatchCpuPath of the last call */
  /* path choice for these sizes (cached: the tile search is not free) */
  int w, h, tw, th, avx2;
  int path, dw, dh;
  CvTmFft *fft;
  /* kept between frames, grown as needed */
  float *map;                   /* scores of a band of rows */
  size_t map_cap;               /* floats */
  uint8_t *lum;                 /* luma of the band's rows */
  size_t lum_cap;               /* bytes */
  /* several templates: every template's score image */
  float *mmap[CV_TEMPLATE_MATCH_MAX_SCALES];
  size_t mmap_cap[CV_TEMPLATE_MATCH_MAX_SCALES];
} CvTmCpuWorkspace;

/* Most scores held at once (floats, 256 MB): larger score images are
 * computed in bands of rows, once per match searched (see
 * cv_template_match_cpu ()). CUDAVISION_TM_MAP_BUDGET (windows), read when
 * the workspace is made, lowers it (tests). */
#define CVTM_MAP_BUDGET ((size_t) 64 << 20)

/* Cost model of the direct correlation, seconds per multiply-add on one
 * core (the FFT side is in templatematch-fft.c). AVX2: measured
 * single-thread at 1080p, 0.09-0.13 ns for templates 16x16 .. 64x64
 * (more per multiply-add below, where the FFT path never wins). Without
 * AVX2: not measured, assumed 4x (the generic 32-bit lane loop); the
 * choice then leans to the FFT path. */
#define DIRECT_S_PER_MAC_AVX2 1.0e-10
#define DIRECT_S_PER_MAC 4.0e-10

/* uint32 accumulators hold this many products of 8-bit values */
#define ACC_BUDGET (UINT32_MAX / 65025u)

CvStatus
cv_template_stats (CvTemplate * t)
{
  int64_t s = 0, q = 0, n = 0;
  int mn = 255, mx = 0;

  if (!t || !t->plane.data || t->plane.width < 1 || t->plane.height < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  if (t->mask.data && (t->mask.width != t->plane.width
          || t->mask.height != t->plane.height))
    return CV_ERROR_INVALID_ARGUMENT;
  for (int y = 0; y < t->plane.height; y++) {
    uint8_t *row = t->plane.data + (size_t) y * t->plane.stride;
    uint8_t *mrow = t->mask.data ? t->mask.data +
        (size_t) y * t->mask.stride : NULL;
    for (int x = 0; x < t->plane.width; x++) {
      int v;
      if (mrow) {
        /* OpenCV: a CV_8U mask is binary (threshold at 0) */
        mrow[x] = mrow[x] != 0;
        if (!mrow[x]) {
          row[x] = 0;
          continue;
        }
      }
      v = row[x];
      n++;
      s += v;
      q += v * v;
      if (v < mn)
        mn = v;
      if (v > mx)
        mx = v;
    }
  }
  if (n == 0)
    return CV_ERROR_INVALID_ARGUMENT;
  t->sum = s;
  t->sumsq = q;
  t->count = n;
  t->flat = mn == mx;
  return CV_OK;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__linux__)
#define CVTM_CLONES __attribute__((target_clones ("avx2", "default")))
#else
#define CVTM_CLONES
#endif

/* acc[x] += t * p[x], x < n */
CVTM_CLONES static void
axpy_u8 (uint32_t * restrict acc, const uint8_t * restrict p, uint32_t t, int n)
{
  const uint16_t t16 = (uint16_t) t;
  for (int x = 0; x < n; x++)
    acc[x] += (uint16_t) (t16 * (uint16_t) p[x]);
}

/* Cross-correlation of 32 adjacent windows x0 .. x0 + 31 of output row y,
 * accumulators in registers: c[k] += sum T(i, j) L(x0 + k + i, y + j).
 * Needs x0 + 31 + tw - 1 < width. */
#define BLOCK 32
CVTM_CLONES static void
corr_block (const uint8_t * lum, size_t ls, const uint8_t * tmpl, size_t ts,
    int tw, int th, int x0, int y, int64_t * restrict c)
{
  uint32_t acc[BLOCK];
  unsigned used = 0;

  for (int k = 0; k < BLOCK; k++)
    acc[k] = 0;
  for (int j = 0; j < th; j++) {
    const uint8_t *irow = lum + (size_t) (y + j) * ls + x0;
    const uint8_t *trow = tmpl + (size_t) j * ts;
    for (int i = 0; i < tw; i++) {
      const uint16_t t = trow[i];
      const uint8_t *p = irow + i;
      if (used == ACC_BUDGET) {
        for (int k = 0; k < BLOCK; k++) {
          c[k] += acc[k];
          acc[k] = 0;
        }
        used = 0;
      }
      for (int k = 0; k < BLOCK; k++)
        acc[k] += (uint16_t) (t * (uint16_t) p[k]);
      used++;
    }
  }
  for (int k = 0; k < BLOCK; k++)
    c[k] += acc[k];
}

#if defined(__GNUC__) && defined(__x86_64__)
#define HAVE_AVX2_PATH 1
#include <immintrin.h>

/* corr_block with AVX2: pairs of template columns (i, i + 1) with
 * vpmaddwd: int16 (L(x + i), L(x + i + 1)) . (T(i), T(i + 1)) summed
 * into int32 lanes, exact (<= 16512 pairs per lane between flushes).
 * Lanes of acc[0..3] hold windows {0-3, 8-11}, {4-7, 12-15},
 * {16-19, 24-27}, {20-23, 28-31} (the in-lane order of the unpacks). */
__attribute__((target ("avx2")))
     static void
         corr_block_avx2 (const uint8_t * lum, size_t ls, const uint8_t * tmpl,
    size_t ts, int tw, int th, int x0, int y, int64_t * restrict c)
{
  static const int order[4][8] = {
    {0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15},
    {16, 17, 18, 19, 24, 25, 26, 27}, {20, 21, 22, 23, 28, 29, 30, 31}
  };
  const unsigned budget = INT32_MAX / (2u * 65025u);
  __m256i acc[4];
  unsigned used = 0;
  int32_t tmp[8];

  for (int a = 0; a < 4; a++)
    acc[a] = _mm256_setzero_si256 ();
  for (int j = 0; j <= th; j++) {
    if (j == th || used >= budget) {
      for (int a = 0; a < 4; a++) {
        _mm256_storeu_si256 ((__m256i *) tmp, acc[a]);
        for (int l = 0; l < 8; l++)
          c[order[a][l]] += tmp[l];
        acc[a] = _mm256_setzero_si256 ();
      }
      used = 0;
      if (j == th)
        break;
    }
    const uint8_t *irow = lum + (size_t) (y + j) * ls + x0;
    const uint8_t *trow = tmpl + (size_t) j * ts;
    for (int i = 0; i < tw; i += 2) {
      const int t0 = trow[i], t1 = i + 1 < tw ? trow[i + 1] : 0;
      const uint8_t *p = irow + i;
      if (!t0 && !t1)
        continue;
      /* p[1 .. 32] is inside the row only when i + 1 < tw */
      const __m256i v0 = _mm256_loadu_si256 ((const __m256i *) p);
      const __m256i v1 = i + 1 < tw ?
          _mm256_loadu_si256 ((const __m256i *) (p + 1)) : v0;
      const __m256i tp = _mm256_set1_epi32 (t0 | (t1 << 16));
      const __m256i alo = _mm256_cvtepu8_epi16 (_mm256_castsi256_si128 (v0));
      const __m256i blo = _mm256_cvtepu8_epi16 (_mm256_castsi256_si128 (v1));
      const __m256i ahi =
          _mm256_cvtepu8_epi16 (_mm256_extracti128_si256 (v0, 1));
      const __m256i bhi =
          _mm256_cvtepu8_epi16 (_mm256_extracti128_si256 (v1, 1));
      acc[0] = _mm256_add_epi32 (acc[0],
          _mm256_madd_epi16 (_mm256_unpacklo_epi16 (alo, blo), tp));
      acc[1] = _mm256_add_epi32 (acc[1],
          _mm256_madd_epi16 (_mm256_unpackhi_epi16 (alo, blo), tp));
      acc[2] = _mm256_add_epi32 (acc[2],
          _mm256_madd_epi16 (_mm256_unpacklo_epi16 (ahi, bhi), tp));
      acc[3] = _mm256_add_epi32 (acc[3],
          _mm256_madd_epi16 (_mm256_unpackhi_epi16 (ahi, bhi), tp));
      used++;
    }
  }
}
#endif

/* s[x] += p[x], q[x] += p[x]^2, x < n (a mask pixel's image row) */
CVTM_CLONES static void
mask_acc (uint32_t * restrict s, uint32_t * restrict q,
    const uint8_t * restrict p, int n)
{
  for (int x = 0; x < n; x++) {
    const uint32_t v = p[x];
    s[x] += v;
    q[x] += v * v;
  }
}

/* The masked window sums of the n windows of output row y: ms[x] =
 * sum M I, mq[x] = sum M I^2 over the template's mask M (0/1), exact
 * (32-bit accumulators s32, q32 flushed before they can overflow). */
static void
mask_sums (const CvPlane * lum, const CvTemplate * templ, int y, int n,
    uint32_t * restrict s32, uint32_t * restrict q32, int64_t * restrict ms,
    int64_t * restrict mq)
{
  unsigned used = 0;

  memset (s32, 0, (size_t) n * sizeof (uint32_t));
  memset (q32, 0, (size_t) n * sizeof (uint32_t));
  memset (ms, 0, (size_t) n * sizeof (int64_t));
  memset (mq, 0, (size_t) n * sizeof (int64_t));
  for (int j = 0; j <= templ->plane.height; j++) {
    if (j == templ->plane.height || used == ACC_BUDGET) {
      for (int x = 0; x < n; x++) {
        ms[x] += s32[x];
        mq[x] += q32[x];
        s32[x] = q32[x] = 0;
      }
      used = 0;
      if (j == templ->plane.height)
        break;
    }
    const uint8_t *irow = lum->data + (size_t) (y + j) * lum->stride;
    const uint8_t *mrow = templ->mask.data + (size_t) j * templ->mask.stride;
    for (int i = 0; i < templ->plane.width; i++) {
      if (!mrow[i])
        continue;
      if (used == ACC_BUDGET) {
        for (int x = 0; x < n; x++) {
          ms[x] += s32[x];
          mq[x] += q32[x];
          s32[x] = q32[x] = 0;
        }
        used = 0;
      }
      mask_acc (s32, q32, irow + i, n);
      used++;
    }
  }
}

static void
flush (int64_t * restrict c, uint32_t * restrict acc, int n)
{
  for (int x = 0; x < n; x++) {
    c[x] += acc[x];
    acc[x] = 0;
  }
}

/* Rows y0 .. y0 + rows - 1 of the luma of src as a tight GRAY8 image in
 * buf (w * rows bytes), or a view of src itself when it is GRAY8. */
static void
get_luma (const CvPlane * src, CvLumaLayout l, int y0, int rows,
    uint8_t * buf, CvPlane * out, const CvExec * exec)
{
  out->width = src->width;
  out->height = rows;
  if (l.r < 0 && l.bpp == 1) {
    out->data = src->data + (size_t) y0 *src->stride;
    out->stride = src->stride;
    return;
  }
#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int y = 0; y < rows; y++) {
    const uint8_t *row = src->data + (size_t) (y0 + y) * src->stride;
    uint8_t *o = buf + (size_t) y * src->width;
    if (l.r < 0) {
      for (int x = 0; x < src->width; x++)
        o[x] = row[(size_t) x * l.bpp];
    } else {
      for (int x = 0; x < src->width; x++) {
        const uint8_t *p = row + (size_t) x * l.bpp;
        o[x] = (uint8_t) cv_luma (p[l.r], p[l.g], p[l.b]);
      }
    }
  }
  out->data = buf;
  out->stride = src->width;
}

static CvStatus
check_args (const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, const CvTemplateMatchParams * p,
    const CvPlane * score_map, const CvTemplateMatchResult * result)
{
  if (!src || !templ || !p || !result || !src->data || !templ->plane.data
      || src->width < 1 || src->height < 1 || layout.bpp < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  if (templ->plane.width < 1 || templ->plane.height < 1
      || templ->plane.width > src->width || templ->plane.height > src->height)
    return CV_ERROR_INVALID_ARGUMENT;
  if (!cvtm_method_valid (p->method)
      || p->max_matches < 1 || p->max_matches > CV_TEMPLATE_MATCH_MAX_MATCHES)
    return CV_ERROR_INVALID_ARGUMENT;
  if (score_map && (!score_map->data || score_map->width != src->width
          || score_map->height != src->height
          || (p->score_map != 8 && p->score_map != 16)))
    return CV_ERROR_INVALID_ARGUMENT;
  return CV_OK;
}

static int
cpu_has_avx2 (void)
{
#ifdef HAVE_AVX2_PATH
  return __builtin_cpu_supports ("avx2");
#else
  return 0;
#endif
}

CvStatus
cvtm_direct_scores (const CvPlane * lum_, const CvTemplate * templ,
    const CvTmScoreConst * kp, float *map, const CvExec * exec)
{
  const CvPlane lum = *lum_;
  const CvTmScoreConst k = *kp;
  const int w = lum.width;
  const int tw = templ->plane.width, th = templ->plane.height;
  const int rw = w - tw + 1, rh = lum.height - th + 1;
  int status = CV_OK;
#ifdef HAVE_AVX2_PATH
  const int avx2 = cpu_has_avx2 ();
#endif

#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    uint32_t *acc = malloc ((size_t) rw * sizeof (uint32_t));
    int64_t *c = malloc ((size_t) rw * sizeof (int64_t));
    int64_t *cs = malloc ((size_t) w * sizeof (int64_t));
    int64_t *cq = malloc ((size_t) w * sizeof (int64_t));
    const int masked = templ->mask.data != NULL;
    uint32_t *q32 = masked ? malloc ((size_t) rw * sizeof (uint32_t)) : NULL;
    int64_t *mq = masked ? malloc ((size_t) rw * sizeof (int64_t)) : NULL;
    int last = -2;

    if (!acc || !c || !cs || !cq || (masked && (!q32 || !mq))) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    }
#pragma omp for schedule(static)
    for (int y = 0; y < rh; y++) {
      if (!acc || !c || !cs || !cq || (masked && (!q32 || !mq))
          || cv_exec_cancelled (exec))
        continue;
      /* column sums of rows y .. y + th - 1 (unmasked) */
      if (masked);
      else if (y == last + 1)
        cvtm_column_sums_next (lum.data + (size_t) (y - 1) * lum.stride,
            lum.data + (size_t) (y + th - 1) * lum.stride, w, cs, cq);
      else
        cvtm_column_sums (lum.data + (size_t) y * lum.stride, lum.stride, w,
            th, cs, cq);
      last = y;

      /* cross-correlation of the row: blocks of 32 windows with the
       * accumulators in registers, then the rest template pixel by
       * template pixel along the row */
      memset (acc, 0, (size_t) rw * sizeof (uint32_t));
      memset (c, 0, (size_t) rw * sizeof (int64_t));
      int xb = 0;
      if (tw * th > 16)
        for (; xb + BLOCK <= rw; xb += BLOCK) {
#ifdef HAVE_AVX2_PATH
          if (avx2)
            corr_block_avx2 (lum.data, lum.stride, templ->plane.data,
                templ->plane.stride, tw, th, xb, y, c + xb);
          else
#endif
            corr_block (lum.data, lum.stride, templ->plane.data,
                templ->plane.stride, tw, th, xb, y, c + xb);
        }
      if (xb < rw) {
        unsigned used = 0;
        for (int j = 0; j < th; j++) {
          const uint8_t *irow = lum.data + (size_t) (y + j) * lum.stride;
          const uint8_t *trow = templ->plane.data +
              (size_t) j * templ->plane.stride;
          for (int i = 0; i < tw; i++) {
            if (trow[i] == 0)
              continue;
            if (used == ACC_BUDGET) {
              flush (c + xb, acc + xb, rw - xb);
              used = 0;
            }
            axpy_u8 (acc + xb, irow + i + xb, trow[i], rw - xb);
            used++;
          }
        }
        flush (c + xb, acc + xb, rw - xb);
      }

      if (masked) {
        /* the mask's correlations with the luma and its square (acc and
         * cs, free now, hold the 32-bit sums and the masked S) */
        float *out = map + (size_t) y * rw;
        mask_sums (&lum, templ, y, rw, acc, q32, cs, mq);
        for (int x = 0; x < rw; x++)
          out[x] = cvtm_score (&k, c[x], cs[x], mq[x]);
        continue;
      }
      /* window sums slid along the row, scores */
      cvtm_row_scores (&k, c, cs, cq, tw, rw, map + (size_t) y * rw);
    }
    free (q32);
    free (mq);
    free (acc);
    free (c);
    free (cs);
    free (cq);
  }
  return status == CV_OK && cv_exec_cancelled (exec) ? CV_ERROR_CANCELLED :
      status;
}

static size_t
budget_from_env (void)
{
  const char *e = getenv ("CUDAVISION_TM_MAP_BUDGET");
  long long v = e ? atoll (e) : 0;

  return v > 0 && (size_t) v < CVTM_MAP_BUDGET ? (size_t) v : CVTM_MAP_BUDGET;
}

static int
path_from_env (void)
{
  const char *e = getenv ("CUDAVISION_TM_PATH");
  if (e && !strcmp (e, "direct"))
    return CV_TM_CPU_PATH_DIRECT;
  if (e && !strcmp (e, "fft"))
    return CV_TM_CPU_PATH_FFT;
  return 0;
}

/* Direct or FFT correlation for these sizes (and the FFT tile size): the
 * cheaper by the cost model, unless forced; direct where the FFT path
 * cannot be used. */
static void
choose_path (CvTmCpuWorkspace * ws, int w, int h, int tw, int th)
{
  const int avx2 = cpu_has_avx2 ();
  double fft, direct;

  if (ws->path && ws->w == w && ws->h == h && ws->tw == tw && ws->th == th
      && ws->avx2 == avx2)
    return;
  ws->w = w;
  ws->h = h;
  ws->tw = tw;
  ws->th = th;
  ws->avx2 = avx2;
  ws->path = CV_TM_CPU_PATH_DIRECT;
  if (ws->path_env == CV_TM_CPU_PATH_DIRECT)
    return;
  fft = cvtm_fft_cost (w, h, tw, th, &ws->dw, &ws->dh);
  if (fft < 0)
    return;
  direct = (double) (w - tw + 1) * (double) (h - th + 1) * tw * th *
      (avx2 ? DIRECT_S_PER_MAC_AVX2 : DIRECT_S_PER_MAC);
  if (ws->path_env == CV_TM_CPU_PATH_FFT || fft < direct)
    ws->path = CV_TM_CPU_PATH_FFT;
}

/* an empty workspace, the environment read */
static void
workspace_init (CvTmCpuWorkspace * ws)
{
  memset (ws, 0, sizeof (*ws));
  ws->path_env = path_from_env ();
  ws->map_budget = budget_from_env ();
}

/* frees what the workspace holds */
static void
workspace_clear (CvTmCpuWorkspace * ws)
{
  cvtm_fft_free (ws->fft);
  cv_workspace_free (ws->map);
  cv_workspace_free (ws->lum);
  for (int i = 0; i < CV_TEMPLATE_MATCH_MAX_SCALES; i++)
    cv_workspace_free (ws->mmap[i]);
  memset (ws, 0, sizeof (*ws));
}

void
cv_template_match_cpu_free (void *workspace)
{
  if (!workspace)
    return;
  workspace_clear (workspace);
  free (workspace);
}

int
cv_template_match_cpu_path (const void *workspace)
{
  const CvTmCpuWorkspace *ws = workspace;

  return ws ? ws->last_path : CV_TM_CPU_PATH_NONE;
}

/* *buf (a workspace: cv_workspace_alloc) holds at least n elements of
 * size sz (grown, never shrunk; the contents are not kept: every frame
 * writes them before reading). Score maps reach 256 MB: mapped, no fill
 * inside the allocator (cvworkspace.h). */
static CvStatus
ensure (void **buf, size_t *cap, size_t n, size_t sz)
{
  void *p;

  if (*cap >= n)
    return CV_OK;
  p = cv_workspace_alloc (n, sz);
  if (!p)
    return CV_ERROR_NO_MEMORY;
  cv_workspace_free (*buf);
  *buf = p;
  *cap = n;
  return CV_OK;
}

/* (k, i) into the best so far (*bk, *bi) when better (cvtm_better) */
static inline void
keep_better (float k, int64_t i, float *bk, int64_t * bi)
{
  if (cvtm_better (k, i, *bk, *bi)) {
    *bk = k;
    *bi = i;
  }
}

/* The best window of map rows y0 .. y0 + rows - 1 (scores of frame rows
 * y0 ..) not suppressed by the m matches found so far, into (*bk, *bi) if
 * better (frame index y * rw + x; ties: the first in raster order). */
static void
band_best (const float *map, int y0, int rows, int rw, int method,
    const CvTemplateMatch * found, int m, int tw, int th, float *bk,
    int64_t * bi, const CvExec * exec)
{
  float gk = *bk;
  int64_t gi = *bi;

#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    float lk = 0;
    int64_t li = -1;
#pragma omp for schedule(static)
    for (int y = 0; y < rows; y++) {
      const float *mrow = map + (size_t) y * rw;
      for (int x = 0; x < rw; x++) {
        float r = mrow[x], key;
        int64_t idx = (int64_t) (y0 + y) * rw + x;
        if (r != r)
          continue;
        key = cvtm_key (method, r);
        if (!cvtm_better (key, idx, lk, li))
          continue;
        if (m > 0 && cvtm_suppressed (found, m, x, y0 + y, tw, th))
          continue;
        lk = key;
        li = idx;
      }
    }
#pragma omp critical
    keep_better (lk, li, &gk, &gi);
  }
  *bk = gk;
  *bi = gi;
}

/* Score map rows y0 .. y0 + rows - 1 from the band's scores (rows of the
 * frame beyond the last window row: pass map NULL for zeros). */
static void
write_map_rows (CvPlane * score_map, const float *map, int y0, int rows,
    int rw, int method, int n, int bits, const CvExec * exec)
{
#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int y = 0; y < rows; y++) {
    uint8_t *orow = score_map->data + (size_t) (y0 + y) * score_map->stride;
    for (int x = 0; x < score_map->width; x++) {
      float u = 0.0f;
      if (map && x < rw)
        u = cvtm_map_unit (method, n, map[(size_t) y * rw + x]);
      if (bits == 8)
        orow[x] = cvtm_map8 (u);
      else
        ((uint16_t *) orow)[x] = cvtm_map16 (u);
    }
  }
}

/* The score of window (x, y) straight from its exact sums (the same
 * cvtm_score () of the same integers as the score image's: bit-identical),
 * or NaN outside the rw x rh windows. For the scores around the matches
 * when the score image is computed in bands (not all of it is kept). */
static float
window_score (const CvPlane * src, CvLumaLayout l, const CvTemplate * templ,
    const CvTmScoreConst * k, int rw, int rh, int x, int y)
{
  const int tw = templ->plane.width, th = templ->plane.height;
  int64_t c = 0, s = 0, q = 0;

  if (x < 0 || y < 0 || x >= rw || y >= rh)
    return CV_TM_NAN_F;
  for (int j = 0; j < th; j++) {
    const uint8_t *row = src->data + (size_t) (y + j) * src->stride;
    const uint8_t *trow = templ->plane.data + (size_t) j * templ->plane.stride;
    for (int i = 0; i < tw; i++) {
      const uint8_t *p = row + (size_t) (x + i) * l.bpp;
      const int v = l.r < 0 ? p[0] : cv_luma (p[l.r], p[l.g], p[l.b]);
      c += (int64_t) trow[i] * v;
      if (templ->mask.data && !templ->mask.data[(size_t) j *
              templ->mask.stride + i])
        continue;
      s += v;
      q += (int64_t) v *v;
    }
  }
  return cvtm_score (k, c, s, q);
}

/* One template (arguments checked) with the workspace ws: the matches
 * into result (count 0 on any error), the score map if any. */
static CvStatus
match_one (const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, const CvTemplateMatchParams * params,
    CvPlane * score_map, CvTemplateMatchResult * result,
    CvTmCpuWorkspace * ws, const CvExec * exec)
{
  const int plain = layout.r < 0 && layout.bpp == 1;
  int status;

  result->count = 0;
  const int w = src->width, h = src->height;
  const int tw = templ->plane.width, th = templ->plane.height;
  const int rw = w - tw + 1, rh = h - th + 1;
  const int method = params->method;
  const CvTmScoreConst k = cvtm_template_const (method, templ);
  /* rows of scores per band: all of them unless that is over budget */
  const int bh = (size_t) rw * rh <= ws->map_budget ? rh :
      (int) (ws->map_budget / rw > 0 ? ws->map_budget / rw : 1);
  const int nbands = cv_div_up (rh, bh);
  /* one band: the scores are computed once and searched max_matches
   * times; several: computed again for every match searched */
  const int passes = nbands == 1 ? 1 : params->max_matches;

  status = ensure ((void **) &ws->map, &ws->map_cap, (size_t) rw * bh,
      sizeof (float));
  if (status == CV_OK && !plain)
    status = ensure ((void **) &ws->lum, &ws->lum_cap,
        (size_t) w * (bh + th - 1), 1);
  if (status == CV_OK)
    choose_path (ws, w, bh + th - 1, tw, th);

  for (int pass = 0; status == CV_OK && pass < passes; pass++) {
    /* matches searched in this pass: all of them with one band */
    const int m_end = nbands == 1 ? params->max_matches : pass + 1;
    float bk[CV_TEMPLATE_MATCH_MAX_MATCHES];
    int64_t bi[CV_TEMPLATE_MATCH_MAX_MATCHES];
    int m = result->count;

    bk[m] = 0;
    bi[m] = -1;
    for (int b = 0; status == CV_OK && b < nbands; b++) {
      const int y0 = b * bh, rows = y0 + bh <= rh ? bh : rh - y0;
      CvPlane lum;

      get_luma (src, layout, y0, rows + th - 1, ws->lum, &lum, exec);
      /* masked templates: the direct path (the FFT one has no masked
       * window sums) */
      if (ws->path == CV_TM_CPU_PATH_FFT && !templ->mask.data)
        status = cvtm_fft_scores (&ws->fft, &lum, templ, &k, ws->map,
            ws->dw, ws->dh, exec);
      else
        status = cvtm_direct_scores (&lum, templ, &k, ws->map, exec);
      ws->last_path = templ->mask.data ? CV_TM_CPU_PATH_DIRECT : ws->path;
      if (status != CV_OK)
        break;
      if (pass == 0 && score_map)
        write_map_rows (score_map, ws->map, y0, rows, rw, method, k.n,
            params->score_map, exec);
      if (nbands > 1) {
        band_best (ws->map, y0, rows, rw, method, result->match, m, tw, th,
            &bk[m], &bi[m], exec);
        continue;
      }
      /* one band: the matches one after another, with non-maximum
       * suppression */
      for (; m < m_end; m++) {
        bk[m] = 0;
        bi[m] = -1;
        band_best (ws->map, 0, rh, rw, method, result->match, m, tw, th,
            &bk[m], &bi[m], exec);
        if (bi[m] < 0 || !cvtm_passes (method, params->threshold,
                ws->map[bi[m]]))
          break;
        result->match[m].x = (int32_t) (bi[m] % rw);
        result->match[m].y = (int32_t) (bi[m] / rw);
        result->match[m].score = ws->map[bi[m]];
        result->match[m].w = tw;
        result->match[m].h = th;
        result->count = m + 1;
      }
    }
    if (status != CV_OK || nbands == 1)
      break;
    /* several bands: the best window of the frame (its score is the key,
     * negated back for the SQDIFF methods) */
    if (bi[m] < 0)
      break;
    {
      const float r = cvtm_key (method, bk[m]);

      if (!cvtm_passes (method, params->threshold, r))
        break;
      result->match[m].x = (int32_t) (bi[m] % rw);
      result->match[m].y = (int32_t) (bi[m] / rw);
      result->match[m].score = r;
      result->match[m].w = tw;
      result->match[m].h = th;
      result->count = m + 1;
    }
  }
  /* the scores around the matches: from the score image when it is all
   * there, else from the windows' sums */
  for (int i = 0; status == CV_OK && i < result->count; i++) {
    CvTemplateMatch *mt = &result->match[i];
    mt->scale = 0;
    mt->w = tw;
    mt->h = th;
    if (nbands == 1) {
      cvtm_fill_around (mt, ws->map, rw, rh);
    } else {
      mt->around[0] = window_score (src, layout, templ, &k, rw, rh,
          mt->x - 1, mt->y);
      mt->around[1] = window_score (src, layout, templ, &k, rw, rh,
          mt->x + 1, mt->y);
      mt->around[2] = window_score (src, layout, templ, &k, rw, rh,
          mt->x, mt->y - 1);
      mt->around[3] = window_score (src, layout, templ, &k, rw, rh,
          mt->x, mt->y + 1);
    }
  }
  if (status == CV_OK && score_map && rh < h)
    write_map_rows (score_map, NULL, rh, h - rh, rw, method, k.n,
        params->score_map, exec);
  if (status == CV_OK && cv_exec_cancelled (exec))
    status = CV_ERROR_CANCELLED;
  if (status != CV_OK)
    result->count = 0;
  return status;
}

CvStatus
cv_template_match_cpu (const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, const CvTemplateMatchParams * params,
    CvPlane * score_map, CvTemplateMatchResult * result, void **workspace,
    const CvExec * exec)
{
  int status = check_args (src, layout, templ, params, score_map, result);
  CvTmCpuWorkspace local;

  if (status != CV_OK)
    return status;
  result->count = 0;
  if (!workspace) {
    workspace_init (&local);
    status = match_one (src, layout, templ, params, score_map, result,
        &local, exec);
    workspace_clear (&local);
    return status;
  }
  if (!*workspace) {
    *workspace = malloc (sizeof (CvTmCpuWorkspace));
    if (!*workspace)
      return CV_ERROR_NO_MEMORY;
    workspace_init (*workspace);
  }
  return match_one (src, layout, templ, params, score_map, result,
      *workspace, exec);
}

/* The best window of template t's score image (rw x rh, global index
 * off + y * rw + x) not suppressed by the m matches found so far, by its
 * key among several templates, into (*bk, *bi) if better. */
static void
multi_best (const float *map, int rw, int rh, int64_t off, float n, int tw,
    int th, int method, const CvTemplateMatch * found, int m, float *bk,
    int64_t * bi, const CvExec * exec)
{
  float gk = *bk;
  int64_t gi = *bi;

#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    float lk = 0;
    int64_t li = -1;
#pragma omp for schedule(static)
    for (int y = 0; y < rh; y++) {
      const float *mrow = map + (size_t) y * rw;
      for (int x = 0; x < rw; x++) {
        float r = mrow[x], key;
        int64_t idx = off + (int64_t) y * rw + x;
        if (r != r)
          continue;
        key = cvtm_multi_key (method, 1, n, r);
        if (!cvtm_better (key, idx, lk, li))
          continue;
        if (m > 0 && cvtm_suppressed (found, m, x, y, tw, th))
          continue;
        lk = key;
        li = idx;
      }
    }
#pragma omp critical
    keep_better (lk, li, &gk, &gi);
  }
  *bk = gk;
  *bi = gi;
}

/* Several templates (n > 1, cvtemplatematch.h): every template's whole
 * score image by the direct path, then one search over all of them. */
static CvStatus
match_multi (const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, int n, const CvTemplateMatchParams * params,
    CvPlane * score_map, CvTemplateMatchResult * result,
    CvTmCpuWorkspace * ws, const CvExec * exec)
{
  const int w = src->width, h = src->height, method = params->method;
  const int plain = layout.r < 0 && layout.bpp == 1;
  int rw[CV_TEMPLATE_MATCH_MAX_SCALES], rh[CV_TEMPLATE_MATCH_MAX_SCALES];
  int64_t off[CV_TEMPLATE_MATCH_MAX_SCALES + 1];
  float nf[CV_TEMPLATE_MATCH_MAX_SCALES];
  CvTmScoreConst k0 = cvtm_template_const (method, &templ[0]);
  CvPlane lum;
  int status = CV_OK;

  result->count = 0;
  if (!plain)
    status = ensure ((void **) &ws->lum, &ws->lum_cap, (size_t) w * h, 1);
  if (status != CV_OK)
    return status;
  get_luma (src, layout, 0, h, ws->lum, &lum, exec);
  off[0] = 0;
  for (int t = 0; t < n; t++) {
    const CvTemplate *tp = &templ[t];
    const CvTmScoreConst k = cvtm_template_const (method, tp);

    rw[t] = w - tp->plane.width + 1;
    rh[t] = h - tp->plane.height + 1;
    off[t + 1] = off[t] + (int64_t) rw[t] * rh[t];
    nf[t] = (float) k.n;
    status = ensure ((void **) &ws->mmap[t], &ws->mmap_cap[t],
        (size_t) rw[t] * rh[t], sizeof (float));
    if (status == CV_OK)
      status = cvtm_direct_scores (&lum, tp, &k, ws->mmap[t], exec);
    if (status != CV_OK)
      return status;
  }
  ws->last_path = CV_TM_CPU_PATH_DIRECT;
  if (score_map) {
    write_map_rows (score_map, ws->mmap[0], 0, rh[0], rw[0], method, k0.n,
        params->score_map, exec);
    if (rh[0] < h)
      write_map_rows (score_map, NULL, rh[0], h - rh[0], rw[0], method, k0.n,
          params->score_map, exec);
  }
  for (int m = 0; m < params->max_matches; m++) {
    float bk = 0;
    int64_t bi = -1;
    int t = 0;

    for (int i = 0; i < n; i++)
      multi_best (ws->mmap[i], rw[i], rh[i], off[i], nf[i],
          templ[i].plane.width, templ[i].plane.height, method,
          result->match, m, &bk, &bi, exec);
    if (bi < 0)
      break;
    while (bi >= off[t + 1])
      t++;
    {
      const int64_t idx = bi - off[t];
      const float r = ws->mmap[t][idx];
      CvTemplateMatch *mt = &result->match[m];

      if (!cvtm_passes (method, params->threshold, r))
        break;
      mt->x = (int32_t) (idx % rw[t]);
      mt->y = (int32_t) (idx / rw[t]);
      mt->score = r;
      mt->scale = t;
      mt->w = templ[t].plane.width;
      mt->h = templ[t].plane.height;
      cvtm_fill_around (mt, ws->mmap[t], rw[t], rh[t]);
      result->count = m + 1;
    }
  }
  if (cv_exec_cancelled (exec))
    return CV_ERROR_CANCELLED;
  return CV_OK;
}

/* ---- the operator (cvtemplatematch.h) ---- */

typedef struct
{
  CvTemplateMatchInfo info;
  CvTmCpuWorkspace ws;          /* made at create, grown at a submit */
  CvTemplateMatchResult result;
} TemplateMatchSlot;

static CvStatus
template_match_slot_create (const CvTemplateMatchInfo * info,
    TemplateMatchSlot ** slot)
{
  TemplateMatchSlot *o;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_template_match_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  o = calloc (1, sizeof (TemplateMatchSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  workspace_init (&o->ws);
  *slot = o;
  return CV_OK;
}

static CvStatus
template_match_slot_submit (TemplateMatchSlot * o, const CvFrame * frame,
    const CvTemplateMatchFrameParams * fp, const CvExec * exec)
{
  const int n = fp && fp->n_templ > 1 ? fp->n_templ : 1;
  CvTemplateMatchParams p;
  CvFrame f;
  CvPlane *map;
  int status;

  o->result.count = 0;
  if (!fp || !cv_template_match_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  map = o->info.score_map ? &f.out[0] : NULL;
  if (!fp->templ) {
    /* no template: no matches, an empty score map */
    return map ? cv_fill_plane_cpu (map, o->info.score_map / 8, 0) : CV_OK;
  }
  p = fp->match;
  p.score_map = o->info.score_map;
  if (n > CV_TEMPLATE_MATCH_MAX_SCALES)
    return CV_ERROR_INVALID_ARGUMENT;
  for (int t = 0; t < n; t++) {
    status = check_args (&f.in[0], o->info.layout, &fp->templ[t], &p, map,
        &o->result);
    if (status != CV_OK)
      return status;
  }
  if (n == 1)
    return match_one (&f.in[0], o->info.layout, fp->templ, &p, map,
        &o->result, &o->ws, exec);
  status = match_multi (&f.in[0], o->info.layout, fp->templ, n, &p, map,
      &o->result, &o->ws, exec);
  if (status != CV_OK)
    o->result.count = 0;
  return status;
}

static const CvTemplateMatchResult *
template_match_slot_results (TemplateMatchSlot * o)
{
  return &o->result;
}

static void
template_match_slot_destroy (TemplateMatchSlot * o)
{
  if (!o)
    return;
  workspace_clear (&o->ws);
  free (o);
}

CV_SLOT_OP_FUNCTIONS (cv_template_match_cpu, template_match_slot,
    TemplateMatchSlot, CvTemplateMatchOp, CvTemplateMatchInfo,
    CvTemplateMatchFrameParams);
CV_SLOT_OP_RESULTS (cv_template_match_cpu, template_match_slot,
    TemplateMatchSlot, CvTemplateMatchOp, CvTemplateMatchResult);
CV_OPS_TABLE (cv_template_match_cpu_ops, "template-match-cpu",
    cv_template_match_cpu, CvTemplateMatchOp, CvTemplateMatchInfo,
    CvTemplateMatchFrameParams, cv_template_match_cpu_results);
