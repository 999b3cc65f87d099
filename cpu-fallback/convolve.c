/* gst-cuda-vision: convolution filters and filter chains, CPU fallback
 * (C99 + OpenMP), and its operator (cv_convolve_cpu_ops). Same arithmetic
 * as kernels/convolve*.cu, see cvconvolve.h.
 *
 * Stage by stage over whole frames, each thread of the OpenMP team on its
 * own band of rows:
 * - named 3x3 filters: exact integer arithmetic on 16-bit lanes over the
 *   interleaved bytes of a row (all bytes of a pixel; the unfiltered ones
 *   are copied from the source afterwards), border columns filled in a
 *   small padded row buffer, border rows mapped once per row;
 * - custom kernels: float. Each input row is converted (2-D) or summed
 *   along x (separable) once into a sliding ring of k rows per channel;
 *   the taps run across a block of output pixels held in vector registers
 *   (SSE2, or AVX2 where the CPU has it: same IEEE multiplies and adds,
 *   same bits). Every pixel adds its products one by one in the
 *   documented order (this file is built with -ffp-contract=off: no fused
 *   multiply-add), as on the GPU.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve_common.h"
#include "cpu-internal.h"
#include "cvop-internal.h"
#include "cvcpu.h"
#include "cvworkspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

CvStatus
cv_convolve_params_prepare (CvConvolveParams * p)
{
  int k, i, j, pi = 0, pj = 0;
  float maxv = 0.0f, piv;

  if (!p || p->ksize < 1 || p->ksize > CV_CONVOLVE_MAX_KSIZE
      || p->ksize % 2 == 0)
    return CV_ERROR_INVALID_ARGUMENT;
  k = p->ksize;
  p->separable = 0;
  for (i = 0; i < k; i++)
    for (j = 0; j < k; j++)
      if (fabsf (p->kernel[i * k + j]) > maxv) {
        maxv = fabsf (p->kernel[i * k + j]);
        pi = i;
        pj = j;
      }
  if (k == 1 || !(maxv > 0.0f) || !isfinite (maxv))
    return CV_OK;               /* 1x1, all zero or not finite: 2-D */
  /* rank 1: kernel[i][j] = kcol[i] * krow[j] with krow = the pivot's row
   * and kcol = the pivot's column / pivot */
  piv = p->kernel[pi * k + pj];
  for (j = 0; j < k; j++)
    p->krow[j] = p->kernel[pi * k + j];
  for (i = 0; i < k; i++)
    p->kcol[i] = p->kernel[i * k + pj] / piv;
  for (i = 0; i < k; i++)
    for (j = 0; j < k; j++)
      if (fabsf (p->kcol[i] * p->krow[j] - p->kernel[i * k + j]) > 1e-6f * maxv)
        return CV_OK;
  p->separable = 1;
  return CV_OK;
}

int
cv_convolve_chain_radius (const CvConvolveParams * p)
{
  int i, r = 0;

  for (i = 0; i < p->n_filters; i++)
    r += cv_conv_stage_radius (p->filters[i], p->ksize);
  return r;
}

/* Rows of the float path are allocated in whole blocks of ROW_ALIGN
 * pixels; the extra columns are computed and never stored. */
#define ROW_ALIGN 64

static int
round_up_block (int n)
{
  return cv_div_up (n, ROW_ALIGN) * ROW_ALIGN;
}

/* out[x] = sum_{t = 0 .. T-1} wt[t] * p[t][x] for x in 0 .. n - 1 (n a
 * multiple of ROW_ALIGN): each sum starts at 0.0f and adds the rounded
 * products one by one in the order of t, as cvconvolve.h defines. The loops
 * run across x only (every pixel keeps its own order of operations); a block
 * of NB pixels, unrolled, stays in vector registers over all the taps (8
 * registers: NB = 32 with SSE2, 64 with AVX2). Plain IEEE multiplies and
 * adds (no FMA: -ffp-contract=off), so every instruction set gives the
 * same bits. */
#define DOT_TAPS_BODY(NB)                                          \
  int x0, t, b;                                                    \
                                                                   \
  for (x0 = 0; x0 < n; x0 += NB) {                                 \
    float a[NB];                                                   \
                                                                   \
    _Pragma ("GCC unroll 64")                                      \
    for (b = 0; b < NB; b++)                                       \
      a[b] = 0.0f;                                                 \
    for (t = 0; t < T; t++) {                                      \
      const float wv = wt[t];                                      \
      const float *q = p[t] + x0;                                  \
                                                                   \
      _Pragma ("GCC unroll 64")                                    \
      for (b = 0; b < NB; b++)                                     \
        a[b] = a[b] + wv * q[b];                                   \
    }                                                              \
    _Pragma ("GCC unroll 64")                                      \
    for (b = 0; b < NB; b++)                                       \
      out[x0 + b] = a[b];                                          \
  }

static void
dot_taps_generic (float *restrict out, const float *const *p,
    const float *wt, int T, int n)
{
  DOT_TAPS_BODY (32);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && !defined(CV_CONVOLVE_NO_AVX2)
#define HAVE_AVX2_VARIANT 1
__attribute__((target ("avx2")))
     static void
         dot_taps_avx2 (float *restrict out, const float *const *p,
    const float *wt, int T, int n)
{
  DOT_TAPS_BODY (64);
}
#endif

static void
dot_taps (float *restrict out, const float *const *p, const float *wt, int T,
    int n)
{
#ifdef HAVE_AVX2_VARIANT
  if (__builtin_cpu_supports ("avx2")) {
    dot_taps_avx2 (out, p, wt, T, n);
    return;
  }
#endif
  dot_taps_generic (out, p, wt, T, n);
}

/* cv_conv_round_sat() written with selects so that the loop over a row
 * vectorizes; same result for every float (NaN and v <= 0 -> 0, v >= 255
 * -> 255, else integer part + (fraction >= 1/2)). */
static void
finish_custom_row (uint8_t * restrict drow, const float *restrict acc, int w,
    int bpp)
{
  int x;

  for (x = 0; x < w; x++) {
    float v = acc[x] > 0.0f ? acc[x] : 0.0f;
    int i;

    v = v < 255.0f ? v : 255.0f;
    i = (int) v;
    drow[(size_t) x * bpp] = (uint8_t) (i + (v - (float) i >= 0.5f));
  }
}

/* Copy the bytes of a row that are not filtered (channels .. bpp - 1). */
static void
copy_unfiltered (uint8_t * drow, const uint8_t * srow, int w, int bpp,
    int channels)
{
  int x, c;

  for (x = 0; x < w; x++)
    for (c = channels; c < bpp; c++)
      drow[(size_t) x * bpp + c] = srow[(size_t) x * bpp + c];
}

/* The rows [*y0, *y1) of the calling thread (contiguous bands). */
static void
thread_band (int h, int *y0, int *y1)
{
  int tid = 0, nt = 1;

#ifdef _OPENMP
  tid = omp_get_thread_num ();
  nt = omp_get_num_threads ();
#endif
  *y0 = (int) ((long long) h * tid / nt);
  *y1 = (int) ((long long) h * (tid + 1) / nt);
}

/* ---- named 3x3 filters: exact integer arithmetic on 16-bit lanes ----
 *
 * A row is handled as n = w * bpp bytes: every byte of a pixel is filtered
 * (neighbours are bpp bytes apart), the unfiltered ones (alpha, x) are
 * overwritten from the source afterwards. The row sums and results are the
 * integers of cvconvolve.h, so any order of the additions gives them. */

/* Fill the bpp pad elements on each side of a padded 16-bit row whose
 * pixel x sits at buf[(x + 1) * bpp]: border columns -1 and w. */
static void
pad_row_u16 (uint16_t * buf, int w, int bpp, int mode)
{
  int xl = cv_conv_border (-1, w, mode), xr = cv_conv_border (w, w, mode);
  int c;

  for (c = 0; c < bpp; c++) {
    buf[c] = xl < 0 ? 0 : buf[(size_t) (xl + 1) * bpp + c];
    buf[(size_t) (w + 1) * bpp + c] =
        xr < 0 ? 0 : buf[(size_t) (xr + 1) * bpp + c];
  }
}

/* One output row of a named filter from the input rows above (r0), at
 * (r1) and below (r2) (border rows already mapped; a zero row for the
 * constant border). buf: (w + 2) * bpp 16-bit elements. */
static void
named_row (int kind, const uint8_t * restrict r0, const uint8_t * restrict r1,
    const uint8_t * restrict r2, uint8_t * restrict out,
    uint16_t * restrict buf, int w, int bpp, int mode)
{
  const int n = w * bpp;
  uint16_t *restrict v = buf + bpp;
  int i;

  if (kind == CV_FILTER_BLUR || kind == CV_FILTER_GAUSSIAN) {
    /* column sums, then row sums of the column sums */
    if (kind == CV_FILTER_BLUR)
      for (i = 0; i < n; i++)
        v[i] = (uint16_t) (r0[i] + r1[i] + r2[i]);
    else
      for (i = 0; i < n; i++)
        v[i] = (uint16_t) (r0[i] + 2 * r1[i] + r2[i]);
    pad_row_u16 (buf, w, bpp, mode);
    if (kind == CV_FILTER_BLUR)
      for (i = 0; i < n; i++) {
        uint16_t s = (uint16_t) (buf[i] + v[i] + v[i + bpp]);
        out[i] = (uint8_t) ((uint16_t) (s + 4) / 9);    /* S <= 2295 */
    } else
      for (i = 0; i < n; i++) {
        uint16_t s = (uint16_t) (buf[i] + 2 * v[i] + v[i + bpp]);
        out[i] = (uint8_t) ((uint16_t) (s + 8) >> 4);   /* S <= 4080 */
      }
  } else {
    /* sharpen (centre 5) and edge-detect (centre 4): the centre minus its
     * four neighbours, -1020 .. 1275 */
    const int16_t centre = kind == CV_FILTER_SHARPEN ? 5 : 4;

    for (i = 0; i < n; i++)
      v[i] = r1[i];
    pad_row_u16 (buf, w, bpp, mode);
    for (i = 0; i < n; i++) {
      int16_t s = (int16_t) (centre * (int16_t) v[i] - (int16_t) r0[i]
          - (int16_t) r2[i] - (int16_t) buf[i] - (int16_t) v[i + bpp]);
      s = s < 0 ? 0 : s;
      s = s > 255 ? 255 : s;
      out[i] = (uint8_t) s;
    }
  }
}

static CvStatus
run_named (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int w, int h, int bpp, int mode, int kind,
    const uint8_t * keep, size_t kstride, int channels, const CvExec * exec)
{
  const size_t n = (size_t) w * bpp;
  uint8_t *zero = calloc (n, 1);
  int failed = 0;

  if (!zero)
    return CV_ERROR_NO_MEMORY;
#pragma omp parallel reduction(|:failed) num_threads (CV_OMP_THREADS (exec))
  {
    uint16_t *buf = malloc (sizeof (uint16_t) * (n + 2 * bpp));
    int y;

    if (!buf)
      failed = 1;
#pragma omp for schedule(static)
    for (y = 0; y < h; y++) {
      int ya = cv_conv_border (y - 1, h, mode);
      int yb = cv_conv_border (y + 1, h, mode);
      uint8_t *drow = dst + (size_t) y * dstride;

      if (!buf || cv_exec_cancelled (exec))
        continue;
      named_row (kind, ya < 0 ? zero : src + (size_t) ya * sstride,
          src + (size_t) y * sstride, yb < 0 ? zero : src + (size_t) yb *
          sstride, drow, buf, w, bpp, mode);
      if (keep)
        copy_unfiltered (drow, keep + (size_t) y * kstride, w, bpp, channels);
    }
    free (buf);
  }
  free (zero);
  return failed ? CV_ERROR_NO_MEMORY : CV_OK;
}

/* ---- custom kernels: float, each thread slides over a band of rows ----
 *
 * Every input row the band needs is converted (2-D) or summed along x
 * (separable) once per channel into a ring of k rows indexed by the
 * border-extended row number e (slot e mod k); output row y reads the slots
 * of e = y - r .. y + r. Rows outside the frame with the constant border
 * are a row of zeros (the products with 0.0f are still added, as
 * defined). */

/* One input row (channel at srow[0], pixels bpp bytes apart) as floats,
 * padded by r pixels on each side with the border rule (xmap). */
static void
fill_pad (float *pad, const uint8_t * srow, int w, int r, int bpp,
    const int *xmap)
{
  int x;

  for (x = 0; x < r; x++) {
    pad[x] = xmap[x] < 0 ? 0.0f : (float) srow[(size_t) xmap[x] * bpp];
    pad[w + r + x] = xmap[w + r + x] < 0 ? 0.0f :
        (float) srow[(size_t) xmap[w + r + x] * bpp];
  }
  if (bpp == 1)
    for (x = 0; x < w; x++)
      pad[r + x] = (float) srow[x];
  else
    for (x = 0; x < w; x++)
      pad[r + x] = (float) srow[(size_t) x * bpp];
}

static int
slot_of (int e, int k)
{
  int s = e % k;

  return s < 0 ? s + k : s;
}

static CvStatus
run_custom (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int w, int h, int bpp, int nc,
    const CvConvolveParams * p, const uint8_t * keep, size_t kstride,
    int channels, const CvExec * exec)
{
  const int k = p->ksize, r = k / 2, mode = p->border_mode;
  const int sep = p->separable, nb = round_up_block (w);
  /* 2-D rings hold padded input rows, separable rings row sums */
  const size_t rowlen = (size_t) nb + 2 * r;
  int *xmap = malloc (sizeof (int) * (w + 2 * r));
  int failed = 0, i;

  if (!xmap)
    return CV_ERROR_NO_MEMORY;
  for (i = 0; i < w + 2 * r; i++)
    xmap[i] = cv_conv_border (i - r, w, mode);

#pragma omp parallel reduction(|:failed) num_threads (CV_OMP_THREADS (exec))
  {
    /* nc rings of k rows, a padded row (separable), the accumulator row
     * and the tap pointers */
    float *mem = calloc (rowlen * ((size_t) nc * k + 1) + nb, sizeof (float));
    const float **taps = malloc (sizeof (float *) * k * k);
    float *pad, *acc;
    int y0, y1, y, c, e, next_e;

    thread_band (h, &y0, &y1);
    if (!mem || !taps) {
      failed = 1;
      y1 = y0;
    }
    pad = mem + rowlen * nc * k;
    acc = pad + rowlen;
    next_e = y0 - r;
    for (y = y0; y < y1 && !cv_exec_cancelled (exec); y++) {
      uint8_t *drow = dst + (size_t) y * dstride;
      int ii, j;

      /* bring the input rows up to e = y + r into the rings */
      for (e = next_e; e <= y + r; e++) {
        int ys = cv_conv_border (e, h, mode);

        for (c = 0; c < nc; c++) {
          float *slot = mem + rowlen * ((size_t) c * k + slot_of (e, k));

          if (ys < 0) {
            memset (slot, 0, sizeof (float) * rowlen);
          } else if (!sep) {
            fill_pad (slot, src + (size_t) ys * sstride + c, w, r, bpp, xmap);
          } else {
            fill_pad (pad, src + (size_t) ys * sstride + c, w, r, bpp, xmap);
            for (j = 0; j < k; j++)
              taps[j] = pad + j;
            dot_taps (slot, taps, p->krow, k, nb);
          }
        }
      }
      next_e = e;

      for (c = 0; c < nc; c++) {
        const float *ring = mem + rowlen * (size_t) c * k;

        if (sep) {
          for (ii = 0; ii < k; ii++)
            taps[ii] = ring + rowlen * slot_of (y + ii - r, k);
          dot_taps (acc, taps, p->kcol, k, nb);
        } else {
          for (ii = 0; ii < k; ii++) {
            const float *row = ring + rowlen * slot_of (y + ii - r, k);

            for (j = 0; j < k; j++)
              taps[ii * k + j] = row + j;
          }
          dot_taps (acc, taps, p->kernel, k * k, nb);
        }
        finish_custom_row (drow + c, acc, w, bpp);
      }
      if (keep)
        copy_unfiltered (drow, keep + (size_t) y * kstride, w, bpp, channels);
    }
    free (mem);
    free (taps);
  }
  free (xmap);
  return failed ? CV_ERROR_NO_MEMORY : CV_OK;
}

CvStatus
cv_convolve_cpu (const CvPlane * src, CvPlane * dst, int bpp, int channels,
    const CvConvolveParams * p, const CvExec * exec)
{
  int w, h, n, i, ret = CV_OK;
  uint8_t *tmp[2] = { NULL, NULL };
  size_t tstride;

  if (!src || !dst || !p || !src->data || !dst->data)
    return CV_ERROR_INVALID_ARGUMENT;
  w = src->width;
  h = src->height;
  n = p->n_filters;
  if (w < 1 || h < 1 || dst->width != w || dst->height != h || bpp < 1
      || bpp > 4 || channels < 1 || channels > 3 || channels > bpp
      || n < 1 || n > CV_CONVOLVE_MAX_CHAIN || p->ksize < 1
      || p->ksize > CV_CONVOLVE_MAX_KSIZE || p->ksize % 2 == 0
      || !cv_border_mode_valid (p->border_mode))
    return CV_ERROR_INVALID_ARGUMENT;
  for (i = 0; i < n; i++)
    if (p->filters[i] < CV_FILTER_BLUR || p->filters[i] > CV_FILTER_CUSTOM)
      return CV_ERROR_INVALID_ARGUMENT;

  tstride = (size_t) w *bpp;
  for (i = 0; i < 2 && i < n - 1; i++) {
    /* frame-sized: mapped, no fill inside the allocator (cvworkspace.h) */
    tmp[i] = cv_workspace_alloc ((size_t) h, tstride);
    if (!tmp[i]) {
      ret = CV_ERROR_NO_MEMORY;
      goto done;
    }
  }
  for (i = 0; i < n && ret == CV_OK; i++) {
    const uint8_t *s = i == 0 ? src->data : tmp[(i - 1) % 2];
    size_t ss = i == 0 ? src->stride : tstride;
    uint8_t *d = i == n - 1 ? dst->data : tmp[i % 2];
    size_t ds = i == n - 1 ? dst->stride : tstride;

    /* the last stage copies the bytes that are not filtered (alpha, x)
     * from the source */
    const uint8_t *keep = i == n - 1 && channels < bpp ? src->data : NULL;

    if (p->filters[i] == CV_FILTER_CUSTOM)
      ret = run_custom (s, ss, d, ds, w, h, bpp, channels, p, keep,
          src->stride, channels, exec);
    else
      ret = run_named (s, ss, d, ds, w, h, bpp, p->border_mode,
          p->filters[i], keep, src->stride, channels, exec);
    if (ret == CV_OK && cv_exec_cancelled (exec))
      ret = CV_ERROR_CANCELLED;
  }
done:
  cv_workspace_free (tmp[0]);
  cv_workspace_free (tmp[1]);
  return ret;
}

/* ---- the operator (cvconvolve.h) ---- */

typedef struct
{
  CvConvolveInfo info;
} ConvolveSlot;

static CvStatus
convolve_slot_create (const CvConvolveInfo * info, ConvolveSlot ** slot)
{
  ConvolveSlot *o;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_convolve_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  o = calloc (1, sizeof (ConvolveSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  *slot = o;
  return CV_OK;
}

static CvStatus
convolve_slot_submit (ConvolveSlot * o, const CvFrame * frame,
    const CvConvolveParams * params, const CvExec * exec)
{
  CvFrame f;
  int p, status = CV_OK;

  if (!params || !cv_convolve_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  /* the chain on every plane, each at its own size */
  for (p = 0; status == CV_OK && p < o->info.n_planes; p++)
    status = cv_convolve_cpu (&f.in[p], &f.out[p], o->info.bpp[p],
        o->info.channels[p], params, exec);
  return status;
}

static void
convolve_slot_destroy (ConvolveSlot * o)
{
  free (o);
}

CV_SLOT_OP_FUNCTIONS (cv_convolve_cpu, convolve_slot, ConvolveSlot,
    CvConvolveOp, CvConvolveInfo, CvConvolveParams);
CV_OPS_TABLE (cv_convolve_cpu_ops, "convolve-cpu", cv_convolve_cpu,
    CvConvolveOp, CvConvolveInfo, CvConvolveParams, cv_op_no_results);
