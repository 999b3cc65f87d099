/* gst-cuda-vision: Sobel edge detection on the CPU (C99 + OpenMP), and
 * its operator (cv_sobel_cpu_ops). Same definition and the same integer
 * arithmetic as kernels/sobel.cu; see cvsobel.h for the formula.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cpu-internal.h"
#include "cvop-internal.h"
#include "cvcpu.h"
#include "sobel_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* BT.601 luma of packed RGB pixels, brightness added, clamped; inlined
 * with a constant bpp so that the strided loads vectorize. */
static inline void
rgb_luma (const uint8_t * restrict row, const int bpp, CvLumaLayout l, int w,
    int brightness, int16_t * restrict lum)
{
  for (int x = 0; x < w; x++) {
    const uint8_t *p = row + (size_t) x * bpp;
    int yv = cv_luma (p[l.r], p[l.g], p[l.b]);
    yv += brightness;
    yv = yv < 0 ? 0 : yv;
    lum[x] = (int16_t) (yv > 255 ? 255 : yv);
  }
}

/* Brightness-adjusted luma of row y into lum[1 .. width], with lum[0] and
 * lum[width + 1] replicating the first and last pixel. */
static void
luma_row (const CvPlane * src, CvLumaLayout l, int y, int brightness,
    int16_t * restrict lum)
{
  const uint8_t *restrict row = src->data + (size_t) y * src->stride;
  const int w = src->width;

  if (l.r < 0 && l.bpp == 1) {
    for (int x = 0; x < w; x++) {
      int v = row[x] + brightness;
      v = v < 0 ? 0 : v;
      lum[x + 1] = (int16_t) (v > 255 ? 255 : v);
    }
  } else if (l.r < 0) {
    for (int x = 0; x < w; x++)
      lum[x + 1] = (int16_t) cv_clamp (row[(size_t) x * l.bpp] + brightness,
          0, 255);
  } else if (l.bpp == 4) {
    rgb_luma (row, 4, l, w, brightness, lum + 1);
  } else if (l.bpp == 3) {
    rgb_luma (row, 3, l, w, brightness, lum + 1);
  } else {
    rgb_luma (row, l.bpp, l, w, brightness, lum + 1);
  }
  lum[0] = lum[1];
  lum[w + 1] = lum[w];
}

static void
sobel_row (const int16_t * restrict r0, const int16_t * restrict r1,
    const int16_t * restrict r2, uint8_t * restrict out, int w, int threshold)
{
  for (int x = 0; x < w; x++) {
    int gx =
        (r0[x + 2] - r0[x]) + 2 * (r1[x + 2] - r1[x]) + (r2[x + 2] - r2[x]);
    int gy =
        (r2[x] + 2 * r2[x + 1] + r2[x + 2]) - (r0[x] + 2 * r0[x + 1] + r0[x +
            2]);
    int s = gx * gx + gy * gy;
    /* For s < 65025 (= 255^2) the correctly rounded sqrtf never reaches the
     * next integer, so truncation gives floor(sqrt(s)) exactly; larger s
     * saturate. Branch-free so that the loop vectorizes (sqrtps). */
    float f = (float) s;
    int m = (int) sqrtf (f < 65025.0f ? f : 65025.0f);
    out[x] = (uint8_t) (m & -(m > threshold));
  }
}

/* 3x3, norm L1: min (255, |Gx| + |Gy|) */
static void
sobel_row_l1 (const int16_t * restrict r0, const int16_t * restrict r1,
    const int16_t * restrict r2, uint8_t * restrict out, int w, int threshold)
{
  for (int x = 0; x < w; x++) {
    int gx =
        (r0[x + 2] - r0[x]) + 2 * (r1[x + 2] - r1[x]) + (r2[x + 2] - r2[x]);
    int gy =
        (r2[x] + 2 * r2[x + 1] + r2[x + 2]) - (r0[x] + 2 * r0[x + 1] + r0[x +
            2]);
    int m = cv_sobel_mag_l1 (gx, gy);
    out[x] = (uint8_t) (m & -(m > threshold));
  }
}

/* Apertures 5 and 7 (any norm): k rows of luma with r = k / 2 replicated
 * pixels on each side; the separable sums column by column. */
static void
sobel_row_k (int16_t * const *rows, int k, int32_t * restrict vs,
    int32_t * restrict vd, uint8_t * restrict out, int w, int threshold,
    int norm)
{
  cv_sobel_vertical_sums (rows, k, w + 2 * (k / 2), vs, vd);
  for (int x = 0; x < w; x++) {
    int gx, gy;
    cv_sobel_gradient_at (vs, vd, k, x, &gx, &gy);
    int m = cv_sobel_magnitude (gx, gy, norm);
    out[x] = (uint8_t) (m > threshold ? m : 0);
  }
}

/* the brightness-adjusted luma of row y into lum[r .. r + w - 1], r
 * replicated pixels on each side */
static void
luma_row_r (const CvPlane * src, CvLumaLayout l, int y, int brightness,
    int r, int16_t * restrict lum)
{
  const int w = src->width;

  luma_row (src, l, y, brightness, lum + r - 1);
  for (int i = 0; i < r; i++) {
    lum[i] = lum[r];
    lum[r + w + i] = lum[r + w - 1];
  }
}

static CvStatus
sobel_cpu_k (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, const CvExec * exec, int k)
{
  const int w = src->width, h = src->height, r = k / 2;
  const int brightness = params->brightness, threshold = params->threshold;
  const int norm = params->norm;
  int status = CV_OK;

#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    const size_t rw = (size_t) w + 2 * r;
    int16_t *buf = malloc ((size_t) k * rw * sizeof (int16_t));
    int32_t *vbuf = malloc (2 * rw * sizeof (int32_t));
    if (!buf || !vbuf) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    } else {
      int16_t *rows[CV_SOBEL_MAX_KSIZE];
      for (int j = 0; j < k; j++)
        rows[j] = buf + j * rw;
#pragma omp for schedule(static)
      for (int y = 0; y < h; y++) {
        if (cv_exec_cancelled (exec))
          continue;
        for (int j = 0; j < k; j++)
          luma_row_r (src, layout, cv_border_replicate (y + j - r, h),
              brightness, r, rows[j]);
        sobel_row_k (rows, k, vbuf, vbuf + rw, dst->data + (size_t) y *
            dst->stride, w, threshold, norm);
      }
    }
    free (buf);
    free (vbuf);
  }
  return status == CV_OK && cv_exec_cancelled (exec) ? CV_ERROR_CANCELLED :
      status;
}

CvStatus
cv_sobel_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, const CvExec * exec)
{
  if (!src || !dst || !params || !src->data || !dst->data || src->width < 1
      || src->height < 1 || src->width != dst->width
      || src->height != dst->height || layout.bpp < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  const int k = params->kernel_size == 0 ? 3 : params->kernel_size;
  if (!cv_sobel_ksize_valid (k) || (params->norm != CV_SOBEL_NORM_L2
          && params->norm != CV_SOBEL_NORM_L1))
    return CV_ERROR_INVALID_ARGUMENT;
  if (k != 3)
    return sobel_cpu_k (src, layout, dst, params, exec, k);

  const int w = src->width, h = src->height;
  const int brightness = params->brightness, threshold = params->threshold;
  const int l1 = params->norm == CV_SOBEL_NORM_L1;
  int status = CV_OK;

#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    int16_t *buf = malloc (3 * (size_t) (w + 2) * sizeof (int16_t));
    if (!buf) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    } else {
      int16_t *rows[3] = { buf, buf + (w + 2), buf + 2 * (w + 2) };
      int last = -10;           /* row held in rows[1] */
#pragma omp for schedule(static)
      for (int y = 0; y < h; y++) {
        if (cv_exec_cancelled (exec))
          continue;
        if (y == last + 1) {
          /* slide the window down one row */
          int16_t *t = rows[0];
          rows[0] = rows[1];
          rows[1] = rows[2];
          rows[2] = t;
          luma_row (src, layout, cv_border_replicate (y + 1, h), brightness,
              rows[2]);
        } else {
          luma_row (src, layout, cv_border_replicate (y - 1, h), brightness,
              rows[0]);
          luma_row (src, layout, y, brightness, rows[1]);
          luma_row (src, layout, cv_border_replicate (y + 1, h), brightness,
              rows[2]);
        }
        last = y;
        if (l1)
          sobel_row_l1 (rows[0], rows[1], rows[2], dst->data + (size_t) y *
              dst->stride, w, threshold);
        else
          sobel_row (rows[0], rows[1], rows[2], dst->data + (size_t) y *
              dst->stride, w, threshold);
      }
      free (buf);
    }
  }
  return status == CV_OK && cv_exec_cancelled (exec) ? CV_ERROR_CANCELLED :
      status;
}

/* ---- the operator (cvsobel.h) ---- */

typedef struct
{
  CvSobelInfo info;
} SobelSlot;

static CvStatus
sobel_slot_create (const CvSobelInfo * info, SobelSlot ** slot)
{
  SobelSlot *o;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_edge_map_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  o = calloc (1, sizeof (SobelSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  *slot = o;
  return CV_OK;
}

static CvStatus
sobel_slot_submit (SobelSlot * o, const CvFrame * frame,
    const CvSobelParams * params, const CvExec * exec)
{
  CvFrame f;
  int p, status;

  if (!params || !cv_edge_map_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  status = cv_sobel_cpu (&f.in[0], o->info.layout, &f.out[0], params, exec);
  /* neutral chroma of NV12 / I420 output */
  for (p = 1; status == CV_OK && p < o->info.n_out_planes; p++)
    status = cv_fill_plane_cpu (&f.out[p], o->info.out_pixel_stride[p], 128);
  return status;
}

static void
sobel_slot_destroy (SobelSlot * o)
{
  free (o);
}

CV_SLOT_OP_FUNCTIONS (cv_sobel_cpu, sobel_slot, SobelSlot, CvSobelOp,
    CvSobelInfo, CvSobelParams);
CV_OPS_TABLE (cv_sobel_cpu_ops, "sobel-cpu", cv_sobel_cpu, CvSobelOp,
    CvSobelInfo, CvSobelParams, cv_op_no_results);
