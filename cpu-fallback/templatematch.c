/* gst-cuda-vision: template matching on the CPU (C99 + OpenMP).
 * Same definitions and the same exact integer sums as
 * kernels/templatematch.cu, the score formula shared through
 * kernels/cvtemplatematch-score.h: bit-identical scores. See
 * cvtemplatematch.h.
 *
 * Direct correlation: for every output row, the template is applied one
 * template pixel at a time to the whole row (acc[x] += t * I[x + i], a
 * loop the compiler vectorizes), in unsigned 32-bit accumulators flushed
 * to 64 bits before they can overflow. Window sums S, Q: column sums over
 * the template's height slid down the rows, then slid along the row.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtemplatematch.h"
#include "cvtemplatematch-score.h"

#include <stdlib.h>
#include <string.h>

/* uint32 accumulators hold this many products of 8-bit values */
#define ACC_BUDGET (UINT32_MAX / 65025u)

int
cv_template_stats (CvTemplate * t)
{
  int64_t s = 0, q = 0;
  int mn = 255, mx = 0;

  if (!t || !t->plane.data || t->plane.width < 1 || t->plane.height < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  for (int y = 0; y < t->plane.height; y++) {
    const uint8_t *row = t->plane.data + (size_t) y * t->plane.stride;
    for (int x = 0; x < t->plane.width; x++) {
      int v = row[x];
      s += v;
      q += v * v;
      if (v < mn)
        mn = v;
      if (v > mx)
        mx = v;
    }
  }
  t->sum = s;
  t->sumsq = q;
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
axpy_u8 (uint32_t * restrict acc, const uint8_t * restrict p, uint32_t t,
    int n)
{
  const uint16_t t16 = (uint16_t) t;
  for (int x = 0; x < n; x++)
    acc[x] += (uint16_t) (t16 * (uint16_t) p[x]);
}

static void
flush (int64_t * restrict c, uint32_t * restrict acc, int n)
{
  for (int x = 0; x < n; x++) {
    c[x] += acc[x];
    acc[x] = 0;
  }
}

/* luma of src as a tight GRAY8 image, or src itself */
static int
get_luma (const CvPlane * src, CvLumaLayout l, CvPlane * out, uint8_t ** buf)
{
  *buf = NULL;
  if (l.r < 0 && l.bpp == 1) {
    *out = *src;
    return CV_OK;
  }
  *buf = malloc ((size_t) src->width * src->height);
  if (!*buf)
    return CV_ERROR_NO_MEMORY;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < src->height; y++) {
    const uint8_t *row = src->data + (size_t) y * src->stride;
    uint8_t *o = *buf + (size_t) y * src->width;
    if (l.r < 0) {
      for (int x = 0; x < src->width; x++)
        o[x] = row[(size_t) x * l.bpp];
    } else {
      for (int x = 0; x < src->width; x++) {
        const uint8_t *p = row + (size_t) x * l.bpp;
        o[x] = (uint8_t) ((CV_LUMA_R * p[l.r] + CV_LUMA_G * p[l.g] +
                CV_LUMA_B * p[l.b] + 128) >> 8);
      }
    }
  }
  out->data = *buf;
  out->stride = src->width;
  out->width = src->width;
  out->height = src->height;
  return CV_OK;
}

static int
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
  if (p->method < CV_TM_SQDIFF || p->method > CV_TM_CCOEFF_NORMED
      || p->max_matches < 1 || p->max_matches > CV_TEMPLATE_MATCH_MAX_MATCHES)
    return CV_ERROR_INVALID_ARGUMENT;
  if (score_map && (!score_map->data || score_map->width != src->width
          || score_map->height != src->height
          || (p->score_map != 8 && p->score_map != 16)))
    return CV_ERROR_INVALID_ARGUMENT;
  return CV_OK;
}

int
cv_template_match_cpu (const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, const CvTemplateMatchParams * params,
    CvPlane * score_map, CvTemplateMatchResult * result)
{
  int status = check_args (src, layout, templ, params, score_map, result);
  CvPlane lum;
  uint8_t *lbuf;
  float *map;

  if (status != CV_OK)
    return status;
  result->count = 0;
  status = get_luma (src, layout, &lum, &lbuf);
  if (status != CV_OK)
    return status;

  const int w = lum.width, h = lum.height;
  const int tw = templ->plane.width, th = templ->plane.height;
  const int rw = w - tw + 1, rh = h - th + 1;
  const int method = params->method;
  const CvTmScoreConst k = cvtm_score_const (method, tw, th, templ->sum,
      templ->sumsq, templ->flat);

  map = malloc ((size_t) rw * rh * sizeof (float));
  if (!map) {
    free (lbuf);
    return CV_ERROR_NO_MEMORY;
  }

  /* ---- scores ---- */
#pragma omp parallel
  {
    uint32_t *acc = malloc ((size_t) rw * sizeof (uint32_t));
    int64_t *c = malloc ((size_t) rw * sizeof (int64_t));
    int64_t *cs = malloc ((size_t) w * sizeof (int64_t));
    int64_t *cq = malloc ((size_t) w * sizeof (int64_t));
    int last = -2;

    if (!acc || !c || !cs || !cq) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    }
#pragma omp for schedule(static)
    for (int y = 0; y < rh; y++) {
      if (!acc || !c || !cs || !cq)
        continue;
      /* column sums of rows y .. y + th - 1 */
      if (y == last + 1) {
        const uint8_t *out = lum.data + (size_t) (y - 1) * lum.stride;
        const uint8_t *in = lum.data + (size_t) (y + th - 1) * lum.stride;
        for (int x = 0; x < w; x++) {
          cs[x] += in[x] - out[x];
          cq[x] += in[x] * in[x] - out[x] * out[x];
        }
      } else {
        memset (cs, 0, (size_t) w * sizeof (int64_t));
        memset (cq, 0, (size_t) w * sizeof (int64_t));
        for (int j = 0; j < th; j++) {
          const uint8_t *in = lum.data + (size_t) (y + j) * lum.stride;
          for (int x = 0; x < w; x++) {
            cs[x] += in[x];
            cq[x] += in[x] * in[x];
          }
        }
      }
      last = y;

      /* cross-correlation of the row */
      memset (acc, 0, (size_t) rw * sizeof (uint32_t));
      memset (c, 0, (size_t) rw * sizeof (int64_t));
      {
        unsigned used = 0;
        for (int j = 0; j < th; j++) {
          const uint8_t *irow = lum.data + (size_t) (y + j) * lum.stride;
          const uint8_t *trow = templ->plane.data +
              (size_t) j * templ->plane.stride;
          for (int i = 0; i < tw; i++) {
            if (trow[i] == 0)
              continue;
            if (used == ACC_BUDGET) {
              flush (c, acc, rw);
              used = 0;
            }
            axpy_u8 (acc, irow + i, trow[i], rw);
            used++;
          }
        }
        flush (c, acc, rw);
      }

      /* window sums slid along the row, scores */
      {
        int64_t s = 0, q = 0;
        float *mrow = map + (size_t) y * rw;
        for (int i = 0; i < tw; i++) {
          s += cs[i];
          q += cq[i];
        }
        for (int x = 0; x < rw; x++) {
          if (x > 0) {
            s += cs[x + tw - 1] - cs[x - 1];
            q += cq[x + tw - 1] - cq[x - 1];
          }
          mrow[x] = cvtm_score (&k, c[x], s, q);
        }
      }
    }
    free (acc);
    free (c);
    free (cs);
    free (cq);
  }
  free (lbuf);
  if (status != CV_OK) {
    free (map);
    return status;
  }

  /* ---- best matches with non-maximum suppression ---- */
  for (int m = 0; m < params->max_matches; m++) {
    float bk = 0;
    int64_t bi = -1;

#pragma omp parallel
    {
      float lk = 0;
      int64_t li = -1;
#pragma omp for schedule(static)
      for (int y = 0; y < rh; y++) {
        const float *mrow = map + (size_t) y * rw;
        for (int x = 0; x < rw; x++) {
          float r = mrow[x], key;
          int64_t idx = (int64_t) y * rw + x;
          if (r != r)
            continue;
          key = cvtm_key (method, r);
          if (!cvtm_better (key, idx, lk, li))
            continue;
          if (m > 0 && cvtm_suppressed (result->match, m, x, y, tw, th))
            continue;
          lk = key;
          li = idx;
        }
      }
#pragma omp critical
      {
        if (cvtm_better (lk, li, bk, bi)) {
          bk = lk;
          bi = li;
        }
      }
    }
    if (bi < 0)
      break;
    {
      float r = map[bi];
      if (!cvtm_passes (method, params->threshold, r))
        break;
      result->match[m].x = (int32_t) (bi % rw);
      result->match[m].y = (int32_t) (bi / rw);
      result->match[m].score = r;
      result->count = m + 1;
    }
  }

  /* ---- score map ---- */
  if (score_map) {
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++) {
      uint8_t *orow = score_map->data + (size_t) y * score_map->stride;
      for (int x = 0; x < w; x++) {
        float u = 0.0f;
        if (x < rw && y < rh)
          u = cvtm_map_unit (method, k.n, map[(size_t) y * rw + x]);
        if (params->score_map == 8)
          orow[x] = cvtm_map8 (u);
        else
          ((uint16_t *) orow)[x] = cvtm_map16 (u);
      }
    }
  }
  free (map);
  return CV_OK;
}
