/* gst-cuda-vision: non-local-means denoising on the CPU (C99 + OpenMP),
 * and its operator (cv_nlmeans_cpu_ops).
 *
 * The offset-major algorithm of kernels/nlmeans.cu (see cvnlmeans.h for the
 * definition): the frame is cut into 64 x 32 tiles (OpenMP over tiles); for
 * every tile and every offset off = y - x of the search window, the squared
 * difference image D(q) = sum_c (f_c(q) - f_c(q + off))² is computed over
 * the tile plus its patch halo, its patch sums S = (g ⊗ g) * D come from a
 * row pass and a column pass (g ⊗ g is separable), and the weights
 * w = 2^(-max (S a - b, 0) c) are accumulated into the tile's own sums
 * (no sharing between threads).
 *
 * With uniform weights (patch-sigma = 0) S is a box sum of integers: it is
 * computed with running column sums (add the row entering the patch,
 * subtract the row leaving it) and a direct row sum, O(1) per pixel and
 * offset instead of O(patch size), exact in float as long as the largest
 * possible sum is below 2^24 (every case but colour with patch 11, which
 * takes the separable path). Exact integer sums do not depend on the order
 * of the terms, so the result is the same as the separable path's.
 *
 * Every loop over x runs over the whole tile width (a compile-time
 * constant, so the loops vectorize without run-time checks); the columns
 * whose y falls outside the frame get w = 0 from a per-offset mask. The
 * padded frame has margins wide enough for these reads.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cpu-internal.h"
#include "nlmeans_common.h"
#include "cvop-internal.h"
#include "cvcpu.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define TILE_W 64
#define TILE_H 32
/* widest D row: TILE_W + 2r (r <= 5) rounded up to a multiple of 8 */
#define D_MAX 80
/* margins of the padded planes. Left and right: for an offset that keeps
 * one x of a tile inside the frame, the reads of the tile's y side stay
 * within TILE_W + r on the left and D_MAX on the right of the frame.
 * Top and bottom: only valid rows are computed, so r suffices. */
#define MARGIN_X (TILE_W + 32)
#define MARGIN_Y (CV_NLMEANS_MAX_PATCH / 2)

/* The weight 2^-(min (max (m, 0) c, 125)) (2^-125 is the smallest weight:
 * below it the sums would lose x's own weight). The clamps work on the
 * float bits (the sign bit for max (., 0); for non-negative floats the
 * integer order is the float order) so that the loops calling this
 * vectorize (float compares are not if-converted under -ftrapping-math).
 * 2^-e: round-to-nearest split -e = n + f, |f| <= 1/2, e^(f ln 2) by its
 * degree-6 Taylor polynomial (relative error < 2e-7), n added to the
 * exponent bits. */
static inline float
nlm_weight (float m, float c)
{
  union
  {
    float f;
    int32_t i;
  } e, t, p;
  float x, fn, z;

  e.f = m;
  e.i &= ~(e.i >> 31);          /* max (m, 0), -0 -> +0 */
  e.f *= c;
  e.i = e.i < 0x42FA0000 ? e.i : 0x42FA0000;    /* min (., 125.0f) */
  x = -e.f;
  t.f = x + 12582912.0f;        /* 1.5 * 2^23: rounds x to an integer n */
  fn = t.f - 12582912.0f;
  z = (x - fn) * 0.69314718f;
  p.f = 1.0f + z * (1.0f + z * (0.5f + z * (1.0f / 6 + z * (1.0f / 24 +
                  z * (1.0f / 120 + z * (1.0f / 720))))));
  p.i += (t.i - 0x4B400000) * (1 << 23);
  return p.f;
}

typedef struct
{
  int w, h, r, ch, pw;          /* frame, patch radius, channels, padded width */
  int uniform;                  /* running box sums (see the top) */
  const float *pad[3];          /* frame pixel (x, y) of channel k at
                                 * pad[k][y * pw + x]: padded planes, see
                                 * MARGIN_X and MARGIN_Y */
  CvNlMeansConstants k;
  int rx, ry;                   /* search half-widths */
  const CvExec *exec;           /* polled once per row of offsets */
} Ctx;

/* Per-thread buffers. */
typedef struct
{
  float *d;                     /* D rows: (TILE_H + 2r) x D_MAX */
  float *rw;                    /* row-pass rows: (TILE_H + 2r) x TILE_W */
  float *v;                     /* running column sums of D: D_MAX */
  float *mask;                  /* TILE_W: 1 where y is in the frame, else 0 */
  float *acc;                   /* (1 + ch) x TILE_H x TILE_W */
} Bufs;

/* STMT for J = 1 .. P - 1 in order (P = 2R + 1 <= 11 a compile-time
 * constant): unrolled in the source, so that the loop over x around it is
 * the innermost loop and vectorizes. */
#define TAP(j, STMT) if (j < P) { const int J = j; STMT; }
#define SUM_TAPS(STMT) do { TAP (1, STMT) TAP (2, STMT) TAP (3, STMT) \
      TAP (4, STMT) TAP (5, STMT) TAP (6, STMT) TAP (7, STMT) TAP (8, STMT) \
      TAP (9, STMT) TAP (10, STMT) } while (0)

/* One offset (dx, dy) for one tile. R, CH and UNI are compile-time
 * constants in every inlined copy (see tile_run): the patch loops unroll and
 * the loops over x vectorize with no run-time trip counts. */
static inline __attribute__((always_inline))
     void tile_offset (const Ctx * c, Bufs * b, int tx0, int ty0, int th,
    int dx, int dy, const int R, const int CH, const int UNI)
{
  const int pw = c->pw, P = 2 * R + 1, DW = (TILE_W + 2 * R + 7) & ~7;
  const int ya = ty0 > -dy ? ty0 : -dy;
  const int yb = ty0 + th < c->h - dy ? ty0 + th : c->h - dy;
  /* valid columns, tile coordinates */
  const int xa = (tx0 > -dx ? tx0 : -dx) - tx0;
  const int xb = (tx0 + TILE_W < c->w - dx ? tx0 + TILE_W : c->w - dx) - tx0;
  const int nr = yb - ya + 2 * R;
  const float *g = c->k.g;
  const float ka = c->k.a, kb = c->k.b, kc = c->k.c;
  float *restrict mask = b->mask, *restrict v = b->v;
  int k, x, j, ch_i;

  if (xb <= xa || yb <= ya)
    return;
  for (x = 0; x < TILE_W; x++)
    mask[x] = x >= xa && x < xb ? 1.0f : 0.0f;

  for (k = 0; k < nr; k++) {
    /* frame row of q: ya - R + k; column of q: tx0 - R + j */
    const ptrdiff_t o0 = (ptrdiff_t) (ya - R + k) * pw + (tx0 - R);
    const ptrdiff_t o1 = o0 + (ptrdiff_t) dy * pw + dx;
    float *restrict d = b->d + (size_t) k * D_MAX;

    {
      const float *restrict p0 = c->pad[0] + o0, *restrict p1 = c->pad[0] + o1;
      for (j = 0; j < DW; j++) {
        const float e = p0[j] - p1[j];
        d[j] = e * e;
      }
    }
    for (ch_i = 1; ch_i < CH; ch_i++) {
      const float *restrict p0 = c->pad[ch_i] + o0;
      const float *restrict p1 = c->pad[ch_i] + o1;
      for (j = 0; j < DW; j++) {
        const float e = p0[j] - p1[j];
        d[j] += e * e;
      }
    }

    if (UNI) {
      /* v = sum of the D rows k - 2R .. k (integers: exact) */
      if (k == 0) {
        for (j = 0; j < DW; j++)
          v[j] = d[j];
      } else if (k < P) {
        for (j = 0; j < DW; j++)
          v[j] += d[j];
      } else {
        const float *restrict dold = b->d + (size_t) (k - P) * D_MAX;
        for (j = 0; j < DW; j++)
          v[j] = (v[j] + d[j]) - dold[j];
      }
    } else {
      /* row pass, terms in the order i = -R .. R */
      float *restrict rw = b->rw + (size_t) k * TILE_W;
#pragma omp simd
      for (x = 0; x < TILE_W; x++) {
        float s = g[0] * d[x];
        SUM_TAPS (s += g[J] * d[x + J]);
        rw[x] = s;
      }
    }

    if (k >= 2 * R) {
      /* output row y = ya + k - 2R: column pass, weights, sums */
      const int y = ya + k - 2 * R;
      float *restrict sw = b->acc + (size_t) (y - ty0) * TILE_W;
      float *restrict sf0 = sw + (size_t) TILE_H * TILE_W;
      float *restrict sf1 = sf0 + (size_t) TILE_H * TILE_W;
      float *restrict sf2 = sf1 + (size_t) TILE_H * TILE_W;
      const ptrdiff_t po = (ptrdiff_t) (y + dy) * pw + tx0 + dx;
      const float *restrict f0 = c->pad[0] + po;
      const float *restrict f1 = c->pad[CH > 1 ? 1 : 0] + po;
      const float *restrict f2 = c->pad[CH > 1 ? 2 : 0] + po;
      const float *restrict rw0 = b->rw + (size_t) (k - 2 * R) * TILE_W;

#pragma omp simd
      for (x = 0; x < TILE_W; x++) {
        float s, w;
        if (UNI) {
          s = v[x];
          SUM_TAPS (s += v[x + J]);
        } else {
          s = g[0] * rw0[x];
          SUM_TAPS (s += g[J] * rw0[J * TILE_W + x]);
        }
        w = nlm_weight (s * ka - kb, kc) * mask[x];
        sw[x] += w;
        sf0[x] += w * f0[x];
        if (CH > 1) {
          sf1[x] += w * f1[x];
          sf2[x] += w * f2[x];
        }
      }
    }
  }
}

/* x86-64: an AVX2 clone chosen at load time where the CPU has AVX2 (the
 * loops above vectorize 8 wide; no FMA: -ffp-contract=off), the generic
 * SSE2 one else. ("arch=haswell" would be dispatched on the CPU model, and
 * never chosen on AMD CPUs.) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && defined(__has_attribute)
#if __has_attribute(target_clones)
#define NLM_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#ifndef NLM_CLONES
#define NLM_CLONES
#endif

/* all offsets of one tile, for compile-time R, CH and UNI */
#define TILE_OFFSETS(R, CH, UNI) \
  for (dy = -c->ry; dy <= c->ry; dy++) { \
    if (ty0 + th + dy <= 0 || ty0 + dy >= c->h) \
      continue; \
    if (cv_exec_cancelled (c->exec)) \
      break; \
    for (dx = -c->rx; dx <= c->rx; dx++) \
      tile_offset (c, b, tx0, ty0, th, dx, dy, R, CH, UNI); \
  }

#define TILE_RADII(CH, UNI) do { \
    switch (c->r) { \
      case 0: TILE_OFFSETS (0, CH, UNI); break; \
      case 1: TILE_OFFSETS (1, CH, UNI); break; \
      case 2: TILE_OFFSETS (2, CH, UNI); break; \
      case 3: TILE_OFFSETS (3, CH, UNI); break; \
      case 4: TILE_OFFSETS (4, CH, UNI); break; \
      default: TILE_OFFSETS (5, CH, UNI); break; \
    } \
  } while (0)

NLM_CLONES static void
tile_run (const Ctx * c, Bufs * b, const CvPlane * src, CvLumaLayout l,
    CvPlane * dst, int tx0, int ty0)
{
  const int tw = c->w - tx0 < TILE_W ? c->w - tx0 : TILE_W;
  const int th = c->h - ty0 < TILE_H ? c->h - ty0 : TILE_H;
  const int off[3] = { l.r, l.g, l.b };
  int dx, dy, x, y, ch_i;

  memset (b->acc, 0, sizeof (float) * (1 + c->ch) * TILE_H * TILE_W);
  if (c->ch == 1 && c->uniform)
    TILE_RADII (1, 1);
  else if (c->ch == 1)
    TILE_RADII (1, 0);
  else if (c->uniform)
    TILE_RADII (3, 1);
  else
    TILE_RADII (3, 0);

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
    const CvNlMeansParams * params, const CvExec * exec)
{
  Ctx c;
  float *pad;
  int ntx, nty, ph, status = CV_OK, ch_i;
  size_t plane, row0;
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
  c.exec = exec;
  c.r = params->patch_size / 2;
  c.ch = layout.bpp == 1 ? 1 : 3;
  cv_nlmeans_constants (params, c.ch, &c.k);
  /* box sums of D <= c.ch * 255² are exact below 2^24 */
  c.uniform = params->patch_sigma == 0 && (double) c.ch * 65025.0 *
      params->patch_size * params->patch_size < 16777216.0;
  if (params->search_window == 0) {
    c.rx = c.w - 1;
    c.ry = c.h - 1;
  } else {
    int R = params->search_window / 2;
    c.rx = R < c.w - 1 ? R : c.w - 1;
    c.ry = R < c.h - 1 ? R : c.h - 1;
  }

  /* the frame as planar floats, symmetric padding in the margins */
  ntx = cv_div_up (c.w, TILE_W);
  nty = cv_div_up (c.h, TILE_H);
  c.pw = ntx * TILE_W + 2 * MARGIN_X;
  ph = c.h + 2 * MARGIN_Y;
  plane = (size_t) c.pw * ph;
  row0 = (size_t) c.pw * MARGIN_Y + MARGIN_X;
  pad = malloc (sizeof (float) * c.ch * plane);
  if (!pad)
    return CV_ERROR_NO_MEMORY;
  for (ch_i = 0; ch_i < c.ch; ch_i++)
    c.pad[ch_i] = pad + plane * ch_i + row0;
#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int py = -MARGIN_Y; py < c.h + MARGIN_Y; py++) {
    const uint8_t *row = src->data + (size_t) cv_border_symmetric (py, c.h) *
        src->stride;
    for (int k = 0; k < c.ch; k++) {
      float *o = (float *) c.pad[k] + (ptrdiff_t) py * c.pw;
      int bo = c.ch == 1 ? 0 : off[k];
      for (int px = -MARGIN_X; px < c.pw - MARGIN_X; px++)
        o[px] = row[(size_t) cv_border_symmetric (px, c.w) * layout.bpp + bo];
    }
  }

#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    Bufs b;
    const size_t nd = (size_t) (TILE_H + 2 * c.r) * D_MAX;
    const size_t nrw = (size_t) (TILE_H + 2 * c.r) * TILE_W;
    const size_t nacc = (size_t) (1 + c.ch) * TILE_H * TILE_W;
    float *mem = malloc (sizeof (float) * (nd + nrw + D_MAX + TILE_W + nacc));

    if (!mem) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    } else {
      b.d = mem;
      b.rw = b.d + nd;
      b.v = b.rw + nrw;
      b.mask = b.v + D_MAX;
      b.acc = b.mask + TILE_W;
#pragma omp for schedule(dynamic)
      for (int t = 0; t < ntx * nty; t++)
        if (!cv_exec_cancelled (exec))
          tile_run (&c, &b, src, layout, dst, (t % ntx) * TILE_W,
              (t / ntx) * TILE_H);
    }
    free (mem);
  }
  free (pad);
  return status == CV_OK && cv_exec_cancelled (exec) ? CV_ERROR_CANCELLED :
      status;
}

/* ---- the operator (cvnlmeans.h) ---- */

typedef struct
{
  CvNlMeansInfo info;
} NlMeansOp;

static int
nlmeans_create (const void *info, void **op)
{
  NlMeansOp *o;

  if (!op)
    return CV_ERROR_INVALID_ARGUMENT;
  *op = NULL;
  if (!cv_nlmeans_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  o = calloc (1, sizeof (NlMeansOp));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *(const CvNlMeansInfo *) info;
  *op = o;
  return CV_OK;
}

static int
nlmeans_submit (void *op, const CvFrame * frame, const void *params,
    const CvExec * exec)
{
  NlMeansOp *o = op;
  CvFrame f;
  int p, status;

  if (!o || !cv_nlmeans_params_valid (params)
      || !cv_nlmeans_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  status = cv_nlmeans_cpu (&f.in[0], o->info.layout, &f.out[0], params, exec);
  /* the chroma of I420 / NV12 unchanged */
  for (p = 1; status == CV_OK && p < o->info.n_planes; p++)
    status = cv_copy_plane_cpu (&f.in[p], &f.out[p], o->info.row_bytes[p]);
  return status;
}

static const void *
nlmeans_results (void *op)
{
  (void) op;
  return NULL;
}

static void
nlmeans_destroy (void *op)
{
  free (op);
}

const CvOps cv_nlmeans_cpu_ops = {
  "nlmeans-cpu", nlmeans_create, nlmeans_submit, nlmeans_results,
  nlmeans_destroy
};
