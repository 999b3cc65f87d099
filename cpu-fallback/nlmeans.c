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
#include "nlmeans_ycrcb.h"
#include "cvop-internal.h"
#include "cvcpu.h"
#include "cvworkspace.h"

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
  int nt, tc;                   /* frames of the window, the centre's index */
  const float *pad[CV_NLMEANS_MAX_TEMPORAL][3]; /* pixel (x, y) of channel k
                                                 * of frame t at pad[t][k][y * pw + x]: padded
                                                 * planes, see MARGIN_X and MARGIN_Y */
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
    int t, int dx, int dy, const int R, const int CH, const int UNI)
{
  const float *const *pc = c->pad[c->tc], *const *pt = c->pad[t];
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
      const float *restrict p0 = pc[0] + o0, *restrict p1 = pt[0] + o1;
      for (j = 0; j < DW; j++) {
        const float e = p0[j] - p1[j];
        d[j] = e * e;
      }
    }
    for (ch_i = 1; ch_i < CH; ch_i++) {
      const float *restrict p0 = pc[ch_i] + o0;
      const float *restrict p1 = pt[ch_i] + o1;
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
      const float *restrict f0 = pt[0] + po;
      const float *restrict f1 = pt[CH > 1 ? 1 : 0] + po;
      const float *restrict f2 = pt[CH > 2 ? 2 : 0] + po;
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
        if (CH > 1)
          sf1[x] += w * f1[x];
        if (CH > 2)
          sf2[x] += w * f2[x];
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

/* all offsets of one tile, frame by frame of the window (oldest first),
 * for compile-time R, CH and UNI */
#define TILE_OFFSETS(R, CH, UNI) \
  for (t = 0; t < c->nt; t++) \
    for (dy = -c->ry; dy <= c->ry; dy++) { \
      if (ty0 + th + dy <= 0 || ty0 + dy >= c->h) \
        continue; \
      if (cv_exec_cancelled (c->exec)) \
        break; \
      for (dx = -c->rx; dx <= c->rx; dx++) \
        tile_offset (c, b, tx0, ty0, th, t, dx, dy, R, CH, UNI); \
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
tile_run (const Ctx * c, Bufs * b, const CvNlMeansPass * ps, int tx0, int ty0)
{
  const int tw = c->w - tx0 < TILE_W ? c->w - tx0 : TILE_W;
  const int th = c->h - ty0 < TILE_H ? c->h - ty0 : TILE_H;
  int t, dx, dy, x, y, ch_i;

  memset (b->acc, 0, sizeof (float) * (1 + c->ch) * TILE_H * TILE_W);
  if (c->ch == 1 && c->uniform)
    TILE_RADII (1, 1);
  else if (c->ch == 1)
    TILE_RADII (1, 0);
  else if (c->ch == 2 && c->uniform)
    TILE_RADII (2, 1);
  else if (c->ch == 2)
    TILE_RADII (2, 0);
  else if (c->uniform)
    TILE_RADII (3, 1);
  else
    TILE_RADII (3, 0);

  for (y = 0; y < th; y++) {
    const float *sw = b->acc + (size_t) y * TILE_W;

    for (ch_i = 0; ch_i < c->ch; ch_i++) {
      const float *swf = sw + (size_t) (ch_i + 1) * TILE_H * TILE_W;
      uint8_t *out = ps->out[ch_i] + (size_t) (ty0 + y) * ps->out_stride[ch_i]
          + (size_t) tx0 * ps->step;
      for (x = 0; x < tw; x++) {
        float v = swf[x] / sw[x] + 0.5f;
        int q = (int) v;
        out[(size_t) x * ps->step] = (uint8_t) (q > 255 ? 255 : q);
      }
    }
  }
}

static CvStatus
cv_nlmeans_cpu_pass (const CvNlMeansPass * ps, const CvNlMeansParams * params,
    double h, const CvExec * exec)
{
  Ctx c;
  CvNlMeansParams p1;
  float *pad;
  int ntx, nty, ph, status = CV_OK, ch_i, t;
  size_t plane, row0;

  if (!ps || !params || ps->width < 1 || ps->height < 1 || ps->channels < 1
      || ps->channels > 3 || ps->step < 1 || ps->n_frames < 1
      || ps->n_frames > CV_NLMEANS_MAX_TEMPORAL || ps->centre < 0
      || ps->centre >= ps->n_frames || !cv_nlmeans_params_valid (params)
      || !(h > 0))
    return CV_ERROR_INVALID_ARGUMENT;
  p1 = *params;
  p1.h = h;

  c.w = ps->width;
  c.h = ps->height;
  c.exec = exec;
  c.r = params->patch_size / 2;
  c.ch = ps->channels;
  c.nt = ps->n_frames;
  c.tc = ps->centre;
  cv_nlmeans_constants (&p1, c.ch, &c.k);
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

  /* the frames as planar floats, symmetric padding in the margins */
  ntx = cv_div_up (c.w, TILE_W);
  nty = cv_div_up (c.h, TILE_H);
  c.pw = ntx * TILE_W + 2 * MARGIN_X;
  ph = c.h + 2 * MARGIN_Y;
  plane = (size_t) c.pw * ph;
  row0 = (size_t) c.pw * MARGIN_Y + MARGIN_X;
  /* frame-sized (up to 2.8 GB: 8K RGB, temporal-window 7): mapped, no
   * fill inside the allocator (cvworkspace.h) */
  pad = cv_workspace_alloc ((size_t) c.ch * c.nt * plane, sizeof (float));
  if (!pad)
    return CV_ERROR_NO_MEMORY;
  for (t = 0; t < c.nt; t++)
    for (ch_i = 0; ch_i < c.ch; ch_i++)
      c.pad[t][ch_i] = pad + plane * (t * c.ch + ch_i) + row0;
#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int py = -MARGIN_Y; py < c.h + MARGIN_Y; py++) {
    const int sy = cv_border_symmetric (py, c.h);
    for (int tt = 0; tt < c.nt; tt++)
      for (int k = 0; k < c.ch; k++) {
        const uint8_t *row = ps->in[tt][k] + (size_t) sy * ps->in_stride[tt][k];
        float *o = (float *) c.pad[tt][k] + (ptrdiff_t) py * c.pw;
        for (int px = -MARGIN_X; px < c.pw - MARGIN_X; px++)
          o[px] = row[(size_t) cv_border_symmetric (px, c.w) * ps->step];
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
      for (int i = 0; i < ntx * nty; i++)
        if (!cv_exec_cancelled (exec))
          tile_run (&c, &b, ps, (i % ntx) * TILE_W, (i / ntx) * TILE_H);
    }
    free (mem);
  }
  cv_workspace_free (pad);
  return status == CV_OK && cv_exec_cancelled (exec) ? CV_ERROR_CANCELLED :
      status;
}

/* the pass of a packed (grey or colour) plane 0 */
static int
layout_ok (CvLumaLayout layout)
{
  return (layout.bpp == 1 && layout.r < 0) || ((layout.bpp == 3
          || layout.bpp == 4) && layout.r >= 0 && layout.g >= 0
      && layout.b >= 0 && layout.r < layout.bpp && layout.g < layout.bpp
      && layout.b < layout.bpp);
}

CvStatus
cv_nlmeans_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvNlMeansParams * params, const CvExec * exec)
{
  CvNlMeansPass ps;
  int status;

  if (!src || !dst || !params || !src->data || !dst->data || src->width < 1
      || src->height < 1 || src->width != dst->width
      || src->height != dst->height || !cv_nlmeans_params_valid (params)
      || !layout_ok (layout))
    return CV_ERROR_INVALID_ARGUMENT;
  cv_nlmeans_pass_packed (&ps, layout, &src, 1, 0, dst);
  if (layout.bpp == 4)          /* alpha / padding byte */
    cv_copy_plane_cpu (src, dst, (size_t) src->width * 4);
  status = cv_nlmeans_cpu_pass (&ps, params, params->h, exec);
  return status;
}

/* ---- rgb-mode ycrcb (cvnlmeans.h) ----
 * A frame converted once (kernels/nlmeans_ycrcb.h) is a 4-byte plane of the
 * frame's size: Y, Cr, Cb, and the alpha / padding byte of a 4-byte pixel
 * (0 for 3-byte pixels). */

/* packed RGB src (layout l) -> the converted 4-byte plane dst */
static void
ycrcb_convert (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvExec * exec)
{
  const int a = cv_layout_fourth_byte (l);

#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int y = 0; y < src->height; y++) {
    const uint8_t *s = src->data + (size_t) y * src->stride;
    uint8_t *d = dst->data + (size_t) y * dst->stride;
    for (int x = 0; x < src->width; x++, s += l.bpp, d += 4) {
      cv_rgb_to_ycrcb (s[l.r], s[l.g], s[l.b], &d[0], &d[1], &d[2]);
      d[3] = a >= 0 ? s[a] : 0;
    }
  }
}

/* back to packed RGB (layout l) into out: Y from den, Cr and Cb from den
 * (chroma denoised) or from orig (kept), the alpha / padding byte from
 * orig (the converted centre frame) */
static void
ycrcb_back (const CvPlane * den, const CvPlane * orig, int keep_chroma,
    CvLumaLayout l, CvPlane * out, const CvExec * exec)
{
  const int a = cv_layout_fourth_byte (l);

#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int y = 0; y < out->height; y++) {
    const uint8_t *dn = den->data + (size_t) y * den->stride;
    const uint8_t *o = orig->data + (size_t) y * orig->stride;
    const uint8_t *c = keep_chroma ? o : dn;
    uint8_t *d = out->data + (size_t) y * out->stride;
    for (int x = 0; x < out->width; x++, d += l.bpp) {
      const size_t i = (size_t) x * 4;
      cv_ycrcb_to_rgb (dn[i], c[i + 1], c[i + 2], &d[l.r], &d[l.g], &d[l.b]);
      if (a >= 0)
        d[a] = o[i + 3];
    }
  }
}

/* the pass of components k0 .. k0 + nch - 1 of converted frames into tmp */
static void
ycrcb_pass (CvNlMeansPass * ps, const CvPlane * const *frames, int n,
    int c, int k0, int nch, CvPlane * tmp)
{
  int t, k;

  ps->width = tmp->width;
  ps->height = tmp->height;
  ps->channels = nch;
  ps->step = 4;
  ps->n_frames = n;
  ps->centre = c;
  for (t = 0; t < n; t++)
    for (k = 0; k < nch; k++) {
      ps->in[t][k] = frames[t][0].data + k0 + k;
      ps->in_stride[t][k] = frames[t][0].stride;
    }
  for (k = 0; k < nch; k++) {
    ps->out[k] = tmp->data + k0 + k;
    ps->out_stride[k] = tmp->stride;
  }
}

/* frame c of the converted frames[0 .. n-1] into out (packed RGB): Y with
 * h, Cr and Cb together with h_color (0: kept) into tmp (a converted
 * frame's plane), converted back */
static CvStatus
denoise_ycrcb (const CvNlMeansInfo * info, const CvPlane * const *frames,
    int n, int c, CvPlane * tmp, CvPlane * out, const CvNlMeansParams * p,
    const CvExec * exec)
{
  CvNlMeansPass ps;
  int status;

  ycrcb_pass (&ps, frames, n, c, 0, 1, tmp);
  status = cv_nlmeans_cpu_pass (&ps, p, p->h, exec);
  if (status == CV_OK && p->h_color > 0) {
    ycrcb_pass (&ps, frames, n, c, 1, 2, tmp);
    status = cv_nlmeans_cpu_pass (&ps, p, p->h_color, exec);
  }
  if (status == CV_OK)
    ycrcb_back (tmp, &frames[c][0], !(p->h_color > 0), info->layout, out, exec);
  return status;
}

/* Frames of the stream's plane sizes, tightly packed, in one block: the
 * temporal ring (n entries), or the converted frames of rgb-mode ycrcb. */
typedef struct
{
  int n;
  uint8_t *mem;
  long long *index;             /* frame stored at each entry, -1: none */
  CvPlane *planes;              /* n x CV_MAX_PLANES */
} CpuFrames;

static void
cpu_frames_free (CpuFrames * r)
{
  if (!r)
    return;
  cv_workspace_free (r->mem);
  free (r->index);
  free (r->planes);
  free (r);
}

/* plane p of a stored frame: its size and tightly packed rows (rgb-mode
 * ycrcb: plane 0 converted, 4 bytes per pixel) */
static CvPlane
stored_plane (const CvNlMeansInfo * info, int p)
{
  CvPlane pl;

  pl.data = NULL;
  pl.width = p == 0 ? info->width : cv_nlmeans_plane_width (info, p);
  pl.height = p == 0 ? info->height : info->rows[p];
  pl.stride = p == 0 ? (size_t) info->width *
      (cv_nlmeans_info_ycrcb (info) ? 4 : info->layout.bpp) :
      info->row_bytes[p];
  return pl;
}

/* n frames of planes 0 .. n_planes - 1, every index -1 (none stored) */
static CpuFrames *
cpu_frames_new (const CvNlMeansInfo * info, int n, int n_planes)
{
  CpuFrames *r = calloc (1, sizeof (CpuFrames));
  size_t per = 0, o;
  int i, p;

  if (!r)
    return NULL;
  r->n = n;
  for (p = 0; p < n_planes; p++) {
    const CvPlane pl = stored_plane (info, p);
    per += pl.stride * pl.height;
  }
  r->mem = cv_workspace_alloc (n, per);
  r->index = malloc (sizeof (long long) * n);
  r->planes = calloc ((size_t) n * CV_MAX_PLANES, sizeof (CvPlane));
  if (!r->mem || !r->index || !r->planes) {
    cpu_frames_free (r);
    return NULL;
  }
  for (i = 0; i < n; i++) {
    r->index[i] = -1;
    o = per * i;
    for (p = 0; p < n_planes; p++) {
      CvPlane *pl = &r->planes[i * CV_MAX_PLANES + p];
      *pl = stored_plane (info, p);
      pl->data = r->mem + o;
      o += pl->stride * pl->height;
    }
  }
  return r;
}

/* ---- the operator (cvnlmeans.h) ---- */

/* The CPU computes one frame at a time (the caller's frames in flight are
 * complete once submit returns): the slots need no memory of their own;
 * the stream's temporal ring and the YCrCb planes are the operator's. */
typedef struct
{
  CvNlMeansInfo info;
  int n_slots;
  CpuFrames *ring;              /* temporal_window >= 3 */
  CpuFrames *ycc;               /* rgb-mode ycrcb: the denoised YCrCb
                                 * frame (the last entry) and, without a
                                 * ring, this frame converted (the
                                 * first) */
} NlMeansCpuOp;

void
cv_nlmeans_cpu_destroy (CvNlMeansOp * op)
{
  NlMeansCpuOp *o = (NlMeansCpuOp *) op;

  if (!o)
    return;
  cpu_frames_free (o->ring);
  cpu_frames_free (o->ycc);
  free (o);
}

CvStatus
cv_nlmeans_cpu_create (const CvNlMeansInfo * info, int max_slots,
    CvNlMeansOp ** op)
{
  NlMeansCpuOp *o;

  if (!op)
    return CV_ERROR_INVALID_ARGUMENT;
  *op = NULL;
  if (!cv_nlmeans_info_valid (info) || max_slots < 1
      || max_slots > CV_OP_MAX_SLOTS)
    return CV_ERROR_INVALID_ARGUMENT;
  o = calloc (1, sizeof (NlMeansCpuOp));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  o->n_slots = max_slots;
  if (info->temporal_window > 1) {
    o->ring = cpu_frames_new (info,
        cv_nlmeans_ring_size (info->temporal_window), info->n_planes);
    if (!o->ring)
      goto no_memory;
  }
  if (cv_nlmeans_info_ycrcb (info)) {
    o->ycc = cpu_frames_new (info, o->ring ? 1 : 2, 1);
    if (!o->ycc)
      goto no_memory;
  }
  *op = (CvNlMeansOp *) o;
  return CV_OK;

no_memory:
  cv_nlmeans_cpu_destroy ((CvNlMeansOp *) o);
  return CV_ERROR_NO_MEMORY;
}

/* frame `centre` of the window frames[0 .. n-1] (centre index c) into out:
 * plane 0 with h, the chroma with h_color (or copied) */
static CvStatus
denoise_window (NlMeansCpuOp * o, const CvPlane * const *frames, int n,
    int c, CvPlane * out, const CvNlMeansParams * p, const CvExec * exec)
{
  const CvNlMeansInfo *info = &o->info;
  CvNlMeansPass ps;
  int status, q;

  if (o->ycc)
    return denoise_ycrcb (info, frames, n, c,
        &o->ycc->planes[(o->ycc->n - 1) * CV_MAX_PLANES], out, p, exec);
  if (info->layout.bpp == 4)    /* alpha / padding byte */
    cv_copy_plane_cpu (&frames[c][0], &out[0], (size_t) info->width * 4);
  cv_nlmeans_pass_packed (&ps, info->layout, frames, n, c, &out[0]);
  status = cv_nlmeans_cpu_pass (&ps, p, p->h, exec);
  if (status != CV_OK || info->n_planes < 2)
    return status;
  if (p->h_color > 0 && (info->n_planes == 2 || info->n_planes == 3)) {
    cv_nlmeans_pass_chroma (&ps, info->n_planes, frames, n, c, out);
    return cv_nlmeans_cpu_pass (&ps, p, p->h_color, exec);
  }
  /* the chroma unchanged */
  for (q = 1; status == CV_OK && q < info->n_planes; q++)
    status = cv_copy_plane_cpu (&frames[c][q], &out[q], info->row_bytes[q]);
  return status;
}

/* frame->in into the ring as frame `store` (rgb-mode ycrcb: converted
 * once, here) */
static void
ring_store (NlMeansCpuOp * o, const CvFrame * f, long long store,
    const CvExec * exec)
{
  CpuFrames *ring = o->ring;
  const int e = (int) (store % ring->n);
  CvPlane *entry = &ring->planes[e * CV_MAX_PLANES];
  int q = 0;

  if (o->ycc) {
    ycrcb_convert (&f->in[0], o->info.layout, &entry[0], exec);
    q = 1;
  }
  for (; q < o->info.n_planes; q++)
    cv_copy_plane_cpu (&f->in[q], &entry[q], entry[q].stride);
  ring->index[e] = store;
}

CvStatus
cv_nlmeans_cpu_submit (CvNlMeansOp * op, int slot, const CvFrame * frame,
    const CvNlMeansParams * p, const CvExec * exec)
{
  NlMeansCpuOp *o = (NlMeansCpuOp *) op;
  const CvPlane *frames[CV_NLMEANS_MAX_TEMPORAL];
  CvFrame f;
  int i;

  if (!o || slot < 0 || slot >= o->n_slots || !cv_nlmeans_params_valid (p)
      || !frame)
    return CV_ERROR_INVALID_ARGUMENT;
  if (!o->ring) {
    /* every frame on its own */
    if (!cv_nlmeans_frame_valid (&o->info, frame))
      return CV_ERROR_INVALID_ARGUMENT;
    f = *frame;
    frames[0] = f.in;
    if (o->ycc) {
      ycrcb_convert (&f.in[0], o->info.layout, &o->ycc->planes[0], exec);
      frames[0] = &o->ycc->planes[0];
    }
    return denoise_window (o, frames, 1, 0, f.out, p, exec);
  }

  /* a temporal window: store frame->in, denoise frame centre */
  if (!cv_nlmeans_window_params_valid (p, o->info.temporal_window)
      || (p->store >= 0 && !cv_nlmeans_frame_valid (&o->info, frame))
      || (p->store < 0 && p->centre >= 0 && !cv_plane_is (&frame->out[0],
              o->info.width, o->info.height, o->info.layout.bpp)))
    return CV_ERROR_INVALID_ARGUMENT;
  if (p->store < 0 && p->centre < 0)
    return CV_OK;
  f = *frame;
  if (p->store >= 0)
    ring_store (o, &f, p->store, exec);
  if (p->centre < 0)
    return CV_OK;
  for (i = 0; i < 2 * p->radius + 1; i++) {
    const long long k = p->centre - p->radius + i;
    const int e = (int) (k % o->ring->n);
    if (o->ring->index[e] != k)
      return CV_ERROR_INVALID_ARGUMENT; /* not stored (or overwritten) */
    frames[i] = &o->ring->planes[e * CV_MAX_PLANES];
  }
  return denoise_window (o, frames, 2 * p->radius + 1, p->radius, f.out, p,
      exec);
}

CV_OPS_TABLE (cv_nlmeans_cpu_ops, "nlmeans-cpu", cv_nlmeans_cpu,
    CvNlMeansOp, CvNlMeansInfo, CvNlMeansParams, cv_op_no_results);
