/* gst-cuda-vision: non-local-means denoising on the CPU (C99 + OpenMP).
 *
 * The offset-major algorithm of kernels/nlmeans.cu (see cvnlmeans.h for the
 * definition): the frame is cut into tiles (OpenMP over tiles); for every
 * tile and every offset off = y - x of the search window, the squared
 * difference image D(q) = sum_c (f_c(q) - f_c(q + off))² is computed over
 * the tile plus its patch halo, its Gaussian-weighted patch sums come from a
 * row pass and a column pass (g ⊗ g is separable), and the weights
 * w = 2^(-max (S a - b, 0) c) are accumulated into the tile's own sums
 * (no sharing between threads). Cost per pixel and offset: O(patch size),
 * not O(patch size²); all inner loops run over contiguous floats and are
 * vectorized by the compiler.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvnlmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TILE_W 64
#define TILE_H 32

/* symmetric padding (padarray 'symmetric'), any distance outside [0, n) */
static inline int
mirror (int k, int n)
{
  int p = 2 * n;

  k %= p;
  if (k < 0)
    k += p;
  return k < n ? k : p - 1 - k;
}

/* 2^x for x <= 0 (x < -125 gives 2^-125): round-to-nearest split
 * x = n + f, |f| <= 1/2, e^(f ln 2) by its degree-6 Taylor polynomial
 * (relative error < 2e-7), exponent added in the bits. Branch-free so that
 * the loops calling it vectorize. */
#pragma omp declare simd
static inline float
exp2_nonpos (float x)
{
  float t, fn, z, p;
  int32_t ti, pi;

  x = x > -125.0f ? x : -125.0f;
  t = x + 12582912.0f;          /* 1.5 * 2^23: rounds x to an integer n */
  fn = t - 12582912.0f;
  z = (x - fn) * 0.69314718f;
  p = 1.0f + z * (1.0f + z * (0.5f + z * (1.0f / 6 + z * (1.0f / 24 +
                  z * (1.0f / 120 + z * (1.0f / 720))))));
  memcpy (&ti, &t, 4);
  memcpy (&pi, &p, 4);
  pi += (ti - 0x4B400000) * (1 << 23);
  memcpy (&p, &pi, 4);
  return p;
}

typedef struct
{
  int w, h, r, ch, pw;          /* frame, patch radius, channels, padded width */
  const float *pad[3];          /* padded planes, (h + 2r) x pw */
  CvNlMeansConstants k;
  int rx, ry;                   /* search half-widths */
} Ctx;

/* Per-thread buffers. */
typedef struct
{
  float *d;                     /* TILE_W + 2r */
  float *rw;                    /* (TILE_H + 2r) x TILE_W */
  float *s;                     /* TILE_W */
  float *acc;                   /* (1 + ch) x TILE_H x TILE_W */
} Bufs;

/* One offset (dx, dy) for one tile. R is a compile-time constant in every
 * inlined copy (see tile_run): the patch loops unroll and the loops over x
 * vectorize with the running sums in registers. */
static inline __attribute__((always_inline))
     void tile_offset (const Ctx * c, Bufs * b, int tx0, int ty0, int tw,
    int th, int dx, int dy, const int R)
{
  const int pw = c->pw, ch = c->ch, P = 2 * R + 1;
  const int ya = ty0 > -dy ? ty0 : -dy;
  const int yb = ty0 + th < c->h - dy ? ty0 + th : c->h - dy;
  const int xa = tx0 > -dx ? tx0 : -dx;
  const int xb = tx0 + tw < c->w - dx ? tx0 + tw : c->w - dx;
  const int n = xb - xa, nr = yb - ya + 2 * R;
  const float *g = c->k.g;
  const float ka = c->k.a, kb = c->k.b, kc = c->k.c;
  float *restrict d = b->d, *restrict s = b->s;
  int k, i, j, x, ch_i;

  if (n <= 0 || yb <= ya)
    return;

  /* row pass: rw[k][x'] = sum_i g[i] D(ya - R + k, xa + x' - R + i) */
  for (k = 0; k < nr; k++) {
    /* padded row of q = (ya - R + k) is ya + k; column of q = xa - R + j
     * is xa + j */
    float *restrict rw = b->rw + (size_t) k * TILE_W;
    {
      const float *restrict p0 = c->pad[0] + (size_t) (ya + k) * pw + xa;
      const float *restrict p1 = c->pad[0] + (size_t) (ya + k + dy) * pw +
          xa + dx;
      for (j = 0; j < n + 2 * R; j++) {
        float e = p0[j] - p1[j];
        d[j] = e * e;
      }
    }
    for (ch_i = 1; ch_i < ch; ch_i++) {
      const float *restrict p0 = c->pad[ch_i] + (size_t) (ya + k) * pw + xa;
      const float *restrict p1 = c->pad[ch_i] + (size_t) (ya + k + dy) * pw +
          xa + dx;
      for (j = 0; j < n + 2 * R; j++) {
        float e = p0[j] - p1[j];
        d[j] += e * e;
      }
    }
    for (x = 0; x < n; x++)
      rw[x] = g[0] * d[x];
    for (i = 1; i < P; i++)
      for (x = 0; x < n; x++)
        rw[x] += g[i] * d[x + i];
  }

  /* column pass, weights, accumulation */
  for (k = 0; k < yb - ya; k++) {
    const int y = ya + k;
    float *restrict sw = b->acc + (size_t) (y - ty0) * TILE_W + (xa - tx0);
    float *restrict sf0 = sw + (size_t) TILE_H * TILE_W;
    const float *restrict rw0 = b->rw + (size_t) k * TILE_W;
    const float *restrict f0 = c->pad[0] + (size_t) (y + dy + R) * pw +
        xa + dx + R;

    for (x = 0; x < n; x++)
      s[x] = g[0] * rw0[x];
    for (j = 1; j < P; j++) {
      const float *restrict rwj = rw0 + (size_t) j * TILE_W;
      for (x = 0; x < n; x++)
        s[x] += g[j] * rwj[x];
    }
    if (ch == 1) {
#pragma omp simd
      for (x = 0; x < n; x++) {
        const float m0 = s[x] * ka - kb, m = m0 > 0.0f ? m0 : 0.0f;
        const float w = exp2_nonpos (-(m * kc));
        sw[x] += w;
        sf0[x] += w * f0[x];
      }
    } else {
      float *restrict sf1 = sf0 + (size_t) TILE_H * TILE_W;
      float *restrict sf2 = sf1 + (size_t) TILE_H * TILE_W;
      const size_t po = (size_t) (y + dy + R) * pw + xa + dx + R;
      const float *restrict f1 = c->pad[1] + po, *restrict f2 = c->pad[2] + po;
#pragma omp simd
      for (x = 0; x < n; x++) {
        const float m0 = s[x] * ka - kb, m = m0 > 0.0f ? m0 : 0.0f;
        const float w = exp2_nonpos (-(m * kc));
        sw[x] += w;
        sf0[x] += w * f0[x];
        sf1[x] += w * f1[x];
        sf2[x] += w * f2[x];
      }
    }
  }
}

/* x86-64: a Haswell (AVX2 + FMA) clone chosen at load time where the CPU
 * has it (the loops above vectorize 8 wide); the generic SSE2 one else. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && defined(__has_attribute)
#if __has_attribute(target_clones)
#define NLM_CLONES __attribute__ ((target_clones ("arch=haswell", "default")))
#endif
#endif
#ifndef NLM_CLONES
#define NLM_CLONES
#endif

NLM_CLONES static void
tile_run (const Ctx * c, Bufs * b, const CvPlane * src, CvLumaLayout l,
    CvPlane * dst, int tx0, int ty0)
{
  const int tw = c->w - tx0 < TILE_W ? c->w - tx0 : TILE_W;
  const int th = c->h - ty0 < TILE_H ? c->h - ty0 : TILE_H;
  const int off[3] = { l.r, l.g, l.b };
  int dx, dy, x, y, ch_i;

  memset (b->acc, 0, sizeof (float) * (1 + c->ch) * TILE_H * TILE_W);
  for (dy = -c->ry; dy <= c->ry; dy++) {
    if (ty0 + th + dy <= 0 || ty0 + dy >= c->h)
      continue;
    for (dx = -c->rx; dx <= c->rx; dx++) {
      if (tx0 + tw + dx <= 0 || tx0 + dx >= c->w)
        continue;
      switch (c->r) {
        case 0:
          tile_offset (c, b, tx0, ty0, tw, th, dx, dy, 0);
          break;
        case 1:
          tile_offset (c, b, tx0, ty0, tw, th, dx, dy, 1);
          break;
        case 2:
          tile_offset (c, b, tx0, ty0, tw, th, dx, dy, 2);
          break;
        case 3:
          tile_offset (c, b, tx0, ty0, tw, th, dx, dy, 3);
          break;
        case 4:
          tile_offset (c, b, tx0, ty0, tw, th, dx, dy, 4);
          break;
        default:
          tile_offset (c, b, tx0, ty0, tw, th, dx, dy, 5);
          break;
      }
    }
  }

  for (y = 0; y < th; y++) {
    const float *sw = b->acc + (size_t) y * TILE_W;
    const uint8_t *in = src->data + (size_t) (ty0 + y) * src->stride +
        (size_t) tx0 * l.bpp;
    uint8_t *out = dst->data + (size_t) (ty0 + y) * dst->stride +
        (size_t) tx0 * l.bpp;

    if (l.bpp == 4)
      memcpy (out, in, (size_t) tw * 4);        /* alpha / padding byte */
    for (ch_i = 0; ch_i < c->ch; ch_i++) {
      const float *swf = sw + (size_t) (ch_i + 1) * TILE_H * TILE_W;
      const int o = c->ch == 1 ? 0 : off[ch_i];
      for (x = 0; x < tw; x++) {
        float v = swf[x] / sw[x] + 0.5f;
        int q = (int) v;
        out[(size_t) x * l.bpp + o] = (uint8_t) (q > 255 ? 255 : q);
      }
    }
  }
}

int
cv_nlmeans_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvNlMeansParams * params)
{
  Ctx c;
  float *pad;
  int ntx, nty, status = CV_OK, ch_i;
  const int off[3] = { layout.r, layout.g, layout.b };

  if (!src || !dst || !params || !src->data || !dst->data || src->width < 1
      || src->height < 1 || src->width != dst->width
      || src->height != dst->height || !cv_nlmeans_params_valid (params))
    return CV_ERROR_INVALID_ARGUMENT;
  if (!((layout.bpp == 1 && layout.r < 0) || ((layout.bpp == 3
                  || layout.bpp == 4) && layout.r >= 0 && layout.g >= 0
              && layout.b >= 0 && layout.r < layout.bpp
              && layout.g < layout.bpp && layout.b < layout.bpp)))
    return CV_ERROR_INVALID_ARGUMENT;

  c.w = src->width;
  c.h = src->height;
  c.r = params->patch_size / 2;
  c.ch = layout.bpp == 1 ? 1 : 3;
  c.pw = c.w + 2 * c.r;
  cv_nlmeans_constants (params, c.ch, &c.k);
  if (params->search_window == 0) {
    c.rx = c.w - 1;
    c.ry = c.h - 1;
  } else {
    int R = params->search_window / 2;
    c.rx = R < c.w - 1 ? R : c.w - 1;
    c.ry = R < c.h - 1 ? R : c.h - 1;
  }

  /* the frame as planar floats with symmetric padding of r pixels */
  pad = malloc (sizeof (float) * c.ch * (size_t) c.pw * (c.h + 2 * c.r));
  if (!pad)
    return CV_ERROR_NO_MEMORY;
  for (ch_i = 0; ch_i < c.ch; ch_i++)
    c.pad[ch_i] = pad + (size_t) ch_i *c.pw * (c.h + 2 * c.r);
#pragma omp parallel for schedule(static)
  for (int py = 0; py < c.h + 2 * c.r; py++) {
    const uint8_t *row = src->data + (size_t) mirror (py - c.r, c.h) *
        src->stride;
    for (int k = 0; k < c.ch; k++) {
      float *o = (float *) c.pad[k] + (size_t) py * c.pw;
      int bo = c.ch == 1 ? 0 : off[k];
      for (int px = 0; px < c.pw; px++)
        o[px] = row[(size_t) mirror (px - c.r, c.w) * layout.bpp + bo];
    }
  }

  ntx = (c.w + TILE_W - 1) / TILE_W;
  nty = (c.h + TILE_H - 1) / TILE_H;
#pragma omp parallel
  {
    Bufs b;
    b.d = malloc (sizeof (float) * (TILE_W + 2 * c.r));
    b.rw = malloc (sizeof (float) * (TILE_H + 2 * c.r) * TILE_W);
    b.s = malloc (sizeof (float) * TILE_W);
    b.acc = malloc (sizeof (float) * (1 + c.ch) * TILE_H * TILE_W);
    if (!b.d || !b.rw || !b.s || !b.acc) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    } else {
#pragma omp for schedule(dynamic)
      for (int t = 0; t < ntx * nty; t++)
        tile_run (&c, &b, src, layout, dst, (t % ntx) * TILE_W,
            (t / ntx) * TILE_H);
    }
    free (b.d);
    free (b.rw);
    free (b.s);
    free (b.acc);
  }
  free (pad);
  return status;
}
