/* gst-cuda-vision: convolution filters and filter chains, CPU fallback
 * (C99 + OpenMP). Same arithmetic as kernels/convolve.cu, see cvconvolve.h.
 *
 * Each stage is computed row by row: for an output row, the 2r + 1 input
 * rows it needs are copied (per channel) into a float row padded by r
 * pixels on each side with the border rule, and the taps run over that row
 * in straight loops the compiler vectorizes. Products are added one by
 * one in the documented order (this file is built with -ffp-contract=off:
 * no fused multiply-add), as on the GPU.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
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
      if (fabsf (p->kcol[i] * p->krow[j] - p->kernel[i * k + j]) >
          1e-6f * maxv)
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

/* The float weights of a stage: w2 (k x k) or wr/wc (k each). */
static void
stage_weights (const CvConvolveParams * p, int kind, int *k, int *sep,
    float *w2, float *wr, float *wc)
{
  int i, j;

  *sep = cv_conv_stage_separable (kind, p->separable);
  if (kind == CV_FILTER_CUSTOM) {
    *k = p->ksize;
    memcpy (w2, p->kernel, sizeof (float) * *k * *k);
    memcpy (wr, p->krow, sizeof (float) * *k);
    memcpy (wc, p->kcol, sizeof (float) * *k);
    return;
  }
  *k = 3;
  for (i = 0; i < 3; i++) {
    wr[i] = wc[i] = (float) cv_conv_named_weight_1d (kind, i);
    for (j = 0; j < 3; j++)
      w2[i * 3 + j] = (float) cv_conv_named_weight (kind, i, j);
  }
}

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

/* One stage: src -> dst, channels 0 .. nc - 1 of pixels of bpp bytes. */
static int
run_stage (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int w, int h, int bpp, int nc,
    const CvConvolveParams * p, int kind)
{
  float w2[CV_CONVOLVE_MAX_KSIZE * CV_CONVOLVE_MAX_KSIZE];
  float wr[CV_CONVOLVE_MAX_KSIZE], wc[CV_CONVOLVE_MAX_KSIZE];
  int k, sep, r, mode = p->border_mode, failed = 0;
  int *xmap;

  stage_weights (p, kind, &k, &sep, w2, wr, wc);
  r = k / 2;
  /* padded column i (0 .. w + 2r - 1) reads source column xmap[i] */
  xmap = malloc (sizeof (int) * (w + 2 * r));
  if (!xmap)
    return CV_ERROR_NO_MEMORY;
  {
    int i;
    for (i = 0; i < w + 2 * r; i++)
      xmap[i] = cv_conv_border (i - r, w, mode);
  }

  if (sep) {
    /* row sums of every input row, once (float, unrounded) */
    float *hs = malloc (sizeof (float) * (size_t) nc * w * h);

    if (!hs) {
      free (xmap);
      return CV_ERROR_NO_MEMORY;
    }
#pragma omp parallel reduction(|:failed)
    {
      float *pad = malloc (sizeof (float) * (w + 2 * r));
      int yy;

      if (!pad)
        failed = 1;
#pragma omp for schedule(static)
      for (yy = 0; yy < h; yy++) {
        int c, j, x;

        if (!pad)
          continue;
        for (c = 0; c < nc; c++) {
          float *hrow = hs + ((size_t) c * h + yy) * w;
          fill_pad (pad, src + (size_t) yy * sstride + c, w, r, bpp, xmap);
          for (x = 0; x < w; x++)
            hrow[x] = 0.0f;
          for (j = 0; j < k; j++) {
            const float wj = wr[j];
            for (x = 0; x < w; x++)
              hrow[x] = hrow[x] + wj * pad[x + j];
          }
        }
      }
      free (pad);
    }
    /* column sums (h = 0 for rows outside the frame with a constant
     * border) */
#pragma omp parallel reduction(|:failed)
    {
      float *acc = malloc (sizeof (float) * w);
      int y;

      if (!acc)
        failed = 1;
#pragma omp for schedule(static)
      for (y = 0; y < h; y++) {
        uint8_t *drow = dst + (size_t) y * dstride;
        int c, i, x;

        if (!acc)
          continue;
        for (c = 0; c < nc; c++) {
          for (x = 0; x < w; x++)
            acc[x] = 0.0f;
          for (i = 0; i < k; i++) {
            int yy = cv_conv_border (y + i - r, h, mode);
            const float wi = wc[i];
            if (yy < 0) {
              for (x = 0; x < w; x++)
                acc[x] = acc[x] + wi * 0.0f;
            } else {
              const float *hrow = hs + ((size_t) c * h + yy) * w;
              for (x = 0; x < w; x++)
                acc[x] = acc[x] + wi * hrow[x];
            }
          }
          for (x = 0; x < w; x++)
            drow[(size_t) x * bpp + c] =
                (uint8_t) cv_conv_finish (kind, acc[x]);
        }
      }
      free (acc);
    }
    free (hs);
    free (xmap);
    return failed ? CV_ERROR_NO_MEMORY : CV_OK;
  }

#pragma omp parallel reduction(|:failed)
  {
    float *pad = malloc (sizeof (float) * (w + 2 * r));
    float *acc = malloc (sizeof (float) * w);
    int y;

    if (!pad || !acc)
      failed = 1;
#pragma omp for schedule(static)
    for (y = 0; y < h; y++) {
      uint8_t *drow = dst + (size_t) y * dstride;
      int c, i, j, x;

      if (!pad || !acc)
        continue;
      for (c = 0; c < nc; c++) {
        for (x = 0; x < w; x++)
          acc[x] = 0.0f;
        for (i = 0; i < k; i++) {
          int yy = cv_conv_border (y + i - r, h, mode);

          if (yy < 0)
            for (x = 0; x < w + 2 * r; x++)
              pad[x] = 0.0f;
          else
            fill_pad (pad, src + (size_t) yy * sstride + c, w, r, bpp, xmap);
          for (j = 0; j < k; j++) {
            const float wij = w2[i * k + j];
            for (x = 0; x < w; x++)
              acc[x] = acc[x] + wij * pad[x + j];
          }
        }
        for (x = 0; x < w; x++)
          drow[(size_t) x * bpp + c] = (uint8_t) cv_conv_finish (kind, acc[x]);
      }
    }
    free (pad);
    free (acc);
  }
  free (xmap);
  return failed ? CV_ERROR_NO_MEMORY : CV_OK;
}

int
cv_convolve_cpu (const CvPlane * src, CvPlane * dst, int bpp, int channels,
    const CvConvolveParams * p)
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
      || p->border_mode < CV_BORDER_CONSTANT
      || p->border_mode > CV_BORDER_REFLECT_101)
    return CV_ERROR_INVALID_ARGUMENT;
  for (i = 0; i < n; i++)
    if (p->filters[i] < CV_FILTER_BLUR || p->filters[i] > CV_FILTER_CUSTOM)
      return CV_ERROR_INVALID_ARGUMENT;

  tstride = (size_t) w * bpp;
  for (i = 0; i < 2 && i < n - 1; i++) {
    tmp[i] = calloc ((size_t) h, tstride);
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

    ret = run_stage (s, ss, d, ds, w, h, bpp, channels, p, p->filters[i]);
  }
  /* bytes that are not filtered (alpha, x) are copied */
  if (ret == CV_OK && channels < bpp) {
    int y, x, c;
    for (y = 0; y < h; y++) {
      const uint8_t *srow = src->data + (size_t) y * src->stride;
      uint8_t *drow = dst->data + (size_t) y * dst->stride;
      for (x = 0; x < w; x++)
        for (c = channels; c < bpp; c++)
          drow[(size_t) x * bpp + c] = srow[(size_t) x * bpp + c];
    }
  }
done:
  free (tmp[0]);
  free (tmp[1]);
  return ret;
}
