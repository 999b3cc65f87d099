/* gst-cuda-vision: the per-pixel mean-shift math shared, line for line, by
 * the CUDA kernels (kernels/meanshift.cu, compiled as __host__ __device__)
 * and the CPU fallback (cpu-fallback/meanshift.c). Internal header: the
 * public C ABI is cvmeanshift.h.
 *
 * Floating-point operations that could be contracted into fused
 * multiply-adds are written with CV_FMUL / CV_FADD (cvcommon.h: on the
 * device the round-to-nearest intrinsics, which nvcc never fuses; the CPU
 * library is built with -ffp-contract=off), and divisions / square roots
 * are IEEE correctly rounded on both sides, so GPU and CPU compute the
 * same bits.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_MEANSHIFT_CORE_H
#define CV_MEANSHIFT_CORE_H

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stddef.h>

#include "cvmeanshift.h"
#include "cvcommon.h"

/* A pixel of the packed ROI image: R | G << 8 | B << 16 | in << 24, where
 * in = 1 when the pixel takes part (inside the colour range). GRAY8: the
 * grey value in R, G = B = 0 (distances are then those of one channel). */
#define CV_MS_R(v) ((int) ((v) & 255u))
#define CV_MS_G(v) ((int) (((v) >> 8) & 255u))
#define CV_MS_B(v) ((int) (((v) >> 16) & 255u))
#define CV_MS_IN(v) ((v) >> 24)
#define CV_MS_PACK(r, g, b, in) ((uint32_t) (r) | ((uint32_t) (g) << 8) | \
    ((uint32_t) (b) << 16) | ((uint32_t) (in) << 24))

/* added to the squared colour distance of pixels left out (> any isr2) */
#define CV_MS_OUT (1 << 24)

/* attractor position */
typedef struct
{
  float x, y;
} CvMsPos;

/* Derived constants of one frame. */
typedef struct
{
  int kernel;
  int hs;                       /* spatial radius, pixels */
  int isr2;                     /* FLAT: round_half_even (hc^2) */
  int max_iterations;
  double eps;                   /* FLAT stopping threshold */
  float hsf;                    /* hs as float */
  float ihs2, ihc2;             /* 1 / hs^2, 1 / hc^2 (float) */
  float eps2;                   /* epsilon^2 (float), non-flat stop */
  float merge_hs2, merge_hc2;   /* segment joining: hs^2, hc^2 (FLAT isr2) */
  int rw, rh;                   /* ROI size */
} CvMsCore;

/* Where a window reads the packed image: pixel (x, y) of the ROI is
 * p[(y - oy) * stride + (x - ox)]. The CUDA kernel has a shared-memory tile
 * covering [tx0, tx1] x [ty0, ty1] and the whole image in global memory;
 * the CPU has only the whole image (has_tile 0). */
typedef struct
{
  const uint32_t *p;
  size_t stride;
  int ox, oy;
} CvMsView;

typedef struct
{
  CvMsView tile;
  int has_tile;
  int tx0, ty0, tx1, ty1;
  CvMsView img;
} CvMsSrc;

CV_HD void
cv_ms_core_init (CvMsCore * k, const CvMeanShiftParams * p)
{
  double hc2 = p->color_radius * p->color_radius;

  k->kernel = p->kernel;
  k->hs = p->spatial_radius;
  /* cvRound: half to even; any value >= 3 * 255^2 accepts every colour,
   * the clamp keeps it (and CV_MS_OUT below) in int range */
  k->isr2 = hc2 >= 1048576.0 ? 1048576 : (int) rint (hc2);
  k->max_iterations = p->max_iterations;
  k->eps = p->epsilon;
  k->hsf = (float) p->spatial_radius;
  k->ihs2 = (float) (1.0 / ((double) p->spatial_radius * p->spatial_radius));
  k->ihc2 = (float) (1.0 / hc2);
  k->eps2 = (float) (p->epsilon * p->epsilon);
  k->merge_hs2 = (float) ((double) p->spatial_radius * p->spatial_radius);
  k->merge_hc2 = p->kernel == CV_MEANSHIFT_FLAT ? (float) k->isr2 :
      (float) hc2;
  k->rw = p->roi_width;
  k->rh = p->roi_height;
}

CV_HD CvMsView
cv_ms_pick (const CvMsSrc * s, int minx, int maxx, int miny, int maxy)
{
  if (s->has_tile && minx >= s->tx0 && maxx <= s->tx1 && miny >= s->ty0
      && maxy <= s->ty1)
    return s->tile;
  return s->img;
}

/* FLAT (OpenCV pyrMeanShiftFiltering, maxLevel 0) for the pixel at (x, y)
 * of colour v. Returns the packed final colour (in = 1), *pos the final
 * (integer) position. */
CV_HD uint32_t
cv_ms_flat (const CvMsSrc * s, const CvMsCore * k, int x, int y, uint32_t v,
    CvMsPos * pos)
{
  int x0 = x, y0 = y, c0 = CV_MS_R (v), c1 = CV_MS_G (v), c2 = CV_MS_B (v);
  int iter;

  for (iter = 0; iter < k->max_iterations; iter++) {
    int minx = x0 - k->hs, maxx = x0 + k->hs, miny = y0 - k->hs,
        maxy = y0 + k->hs;
    int count = 0, s0 = 0, s1 = 0, s2 = 0, xx, yy, x1, y1, stop;
    long long sx = 0, sy = 0;
    CvMsView w;
    double ic;

    minx = minx < 0 ? 0 : minx;
    miny = miny < 0 ? 0 : miny;
    maxx = maxx > k->rw - 1 ? k->rw - 1 : maxx;
    maxy = maxy > k->rh - 1 ? k->rh - 1 : maxy;
    w = cv_ms_pick (s, minx, maxx, miny, maxy);
    for (yy = miny; yy <= maxy; yy++) {
      const uint32_t *row = w.p + (size_t) (yy - w.oy) * w.stride;
      int rc = 0, rsx = 0;

      for (xx = minx; xx <= maxx; xx++) {
        uint32_t t = row[xx - w.ox];
        int d0 = CV_MS_R (t) - c0, d1 = CV_MS_G (t) - c1, d2 = CV_MS_B (t) - c2;
        /* branch-free: pixels left out get a distance beyond any isr2 */
        int ok = d0 * d0 + d1 * d1 + d2 * d2 +
            (int) ((~t >> 24) & 1u) * CV_MS_OUT <= k->isr2;
        int m = -ok;

        s0 += CV_MS_R (t) & m;
        s1 += CV_MS_G (t) & m;
        s2 += CV_MS_B (t) & m;
        rsx += xx & m;
        rc += ok;
      }
      count += rc;
      sx += rsx;
      sy += (long long) yy *rc;
    }
    if (count == 0)
      break;
    ic = 1.0 / count;
    x1 = (int) rint ((double) sx * ic);
    y1 = (int) rint ((double) sy * ic);
    s0 = (int) rint (s0 * ic);
    s1 = (int) rint (s1 * ic);
    s2 = (int) rint (s2 * ic);
    stop = (x0 == x1 && y0 == y1) || abs (x1 - x0) + abs (y1 - y0) +
        (s0 - c0) * (s0 - c0) + (s1 - c1) * (s1 - c1) +
        (s2 - c2) * (s2 - c2) <= k->eps;
    x0 = x1;
    y0 = y1;
    c0 = s0;
    c1 = s1;
    c2 = s2;
    if (stop)
      break;
  }
  pos->x = (float) x0;
  pos->y = (float) y0;
  return CV_MS_PACK (c0, c1, c2, 1);
}

CV_HD int
cv_ms_round8 (float c)
{
  float r = floorf (CV_FADD (c, 0.5f));
  return r < 0.f ? 0 : (r > 255.f ? 255 : (int) r);
}

/* UNIFORM / TRIANGULAR / EPANECHNIKOV for the pixel at (x, y) of colour v
 * (kernel: a compile-time constant on the GPU). */
CV_HD uint32_t
cv_ms_profile (const CvMsSrc * s, const CvMsCore * k, int kernel, int x,
    int y, uint32_t v, CvMsPos * pos)
{
  float px = (float) x, py = (float) y;
  float c0 = (float) CV_MS_R (v), c1 = (float) CV_MS_G (v),
      c2 = (float) CV_MS_B (v);
  int iter;

  for (iter = 0; iter < k->max_iterations; iter++) {
    int minx = (int) ceilf (CV_FADD (px, -k->hsf));
    int maxx = (int) floorf (CV_FADD (px, k->hsf));
    int miny = (int) ceilf (CV_FADD (py, -k->hsf));
    int maxy = (int) floorf (CV_FADD (py, k->hsf));
    float sw = 0.f, sdx = 0.f, sdy = 0.f, sd0 = 0.f, sd1 = 0.f, sd2 = 0.f;
    float mx, my, m0, m1, m2, shift2;
    CvMsView w;
    int xx, yy;

    minx = minx < 0 ? 0 : minx;
    miny = miny < 0 ? 0 : miny;
    maxx = maxx > k->rw - 1 ? k->rw - 1 : maxx;
    maxy = maxy > k->rh - 1 ? k->rh - 1 : maxy;
    w = cv_ms_pick (s, minx, maxx, miny, maxy);
    for (yy = miny; yy <= maxy; yy++) {
      const uint32_t *row = w.p + (size_t) (yy - w.oy) * w.stride;
      float dy = CV_FADD ((float) yy, -py);
      float dy2 = CV_FMUL (dy, dy);

      for (xx = minx; xx <= maxx; xx++) {
        uint32_t t = row[xx - w.ox];
        float dx, d0, d1, d2, g, wt;

        if (!CV_MS_IN (t))
          continue;
        dx = CV_FADD ((float) xx, -px);
        d0 = CV_FADD ((float) CV_MS_R (t), -c0);
        d1 = CV_FADD ((float) CV_MS_G (t), -c1);
        d2 = CV_FADD ((float) CV_MS_B (t), -c2);
        g = CV_FADD (CV_FMUL (CV_FADD (CV_FMUL (dx, dx), dy2), k->ihs2),
            CV_FMUL (CV_FADD (CV_FADD (CV_FMUL (d0, d0), CV_FMUL (d1, d1)),
                    CV_FMUL (d2, d2)), k->ihc2));
        if (!(g <= 1.f))
          continue;
        if (kernel == CV_MEANSHIFT_TRIANGULAR)
          wt = CV_FADD (1.f, -CV_FSQRT (g));
        else if (kernel == CV_MEANSHIFT_EPANECHNIKOV)
          wt = CV_FADD (1.f, -g);
        else
          wt = 1.f;
        sw = CV_FADD (sw, wt);
        sdx = CV_FADD (sdx, CV_FMUL (wt, dx));
        sdy = CV_FADD (sdy, CV_FMUL (wt, dy));
        sd0 = CV_FADD (sd0, CV_FMUL (wt, d0));
        sd1 = CV_FADD (sd1, CV_FMUL (wt, d1));
        sd2 = CV_FADD (sd2, CV_FMUL (wt, d2));
      }
    }
    if (!(sw > 0.f))
      break;
    mx = CV_FDIV (sdx, sw);
    my = CV_FDIV (sdy, sw);
    m0 = CV_FDIV (sd0, sw);
    m1 = CV_FDIV (sd1, sw);
    m2 = CV_FDIV (sd2, sw);
    px = CV_FADD (px, mx);
    py = CV_FADD (py, my);
    c0 = CV_FADD (c0, m0);
    c1 = CV_FADD (c1, m1);
    c2 = CV_FADD (c2, m2);
    shift2 = CV_FADD (CV_FADD (CV_FMUL (mx, mx), CV_FMUL (my, my)),
        CV_FADD (CV_FADD (CV_FMUL (m0, m0), CV_FMUL (m1, m1)),
            CV_FMUL (m2, m2)));
    if (shift2 < k->eps2)
      break;
  }
  pos->x = px;
  pos->y = py;
  return CV_MS_PACK (cv_ms_round8 (c0), cv_ms_round8 (c1), cv_ms_round8 (c2),
      1);
}

/* Segment mode: are 4-neighbours with attractors (pa, ca) and (pb, cb)
 * joined? |pa - pb|^2 <= hs^2 and |ca - cb|^2 <= hc^2 (filtered colours). */
CV_HD int
cv_ms_joined (const CvMsCore * k, CvMsPos pa, uint32_t ca, CvMsPos pb,
    uint32_t cb)
{
  float dx = CV_FADD (pa.x, -pb.x), dy = CV_FADD (pa.y, -pb.y);
  int d0 = CV_MS_R (ca) - CV_MS_R (cb), d1 = CV_MS_G (ca) - CV_MS_G (cb),
      d2 = CV_MS_B (ca) - CV_MS_B (cb);

  if (!(CV_FADD (CV_FMUL (dx, dx), CV_FMUL (dy, dy)) <= k->merge_hs2))
    return 0;
  return (float) (d0 * d0 + d1 * d1 + d2 * d2) <= k->merge_hc2;
}

/* Small-segment merging: the key of candidate segment b for segment a, from
 * the per-segment pixel counts n and colour sums s[3]: the squared distance
 * of the mean colours (double, then float bits, order-preserving for
 * non-negative floats) above, the label of b below: the smallest key is the
 * most similar neighbour, ties to the smaller label. */
CV_HD unsigned long long
cv_ms_merge_key (uint32_t na, const unsigned long long *sa, uint32_t nb,
    const unsigned long long *sb, uint32_t label_b)
{
  double d2 = 0.0;
  float f;
  uint32_t bits;
  int c;

  for (c = 0; c < 3; c++) {
    double d = (double) sa[c] / (double) na - (double) sb[c] / (double) nb;
    d2 = CV_DADD (d2, CV_DMUL (d, d));
  }
  f = (float) d2;
#ifdef __CUDA_ARCH__
  bits = __float_as_uint (f);
#else
  {
    union
    {
      float f;
      uint32_t u;
    } u;
    u.f = f;
    bits = u.u;
  }
#endif
  return ((unsigned long long) bits << 32) | label_b;
}

/* painted colour of a segment: per channel (sum + n / 2) / n */
CV_HD uint32_t
cv_ms_mean_color (uint32_t n, const unsigned long long *s)
{
  unsigned long long h = n / 2;

  return CV_MS_PACK ((s[0] + h) / n, (s[1] + h) / n, (s[2] + h) / n, 1);
}

/* Argument checks common to cv_meanshift_cpu() and cv_meanshift_cuda(). */
static inline CvStatus
cv_ms_validate (const CvPlane * src, CvLumaLayout l, const CvPlane * dst,
    const CvMeanShiftParams * p, int missing_seg)
{
  if (!src || !dst || !p || !src->data || !dst->data)
    return CV_ERROR_INVALID_ARGUMENT;
  if (src->width < 1 || src->height < 1 || src->width != dst->width
      || src->height != dst->height)
    return CV_ERROR_INVALID_ARGUMENT;
  if (l.r < 0) {
    if (l.bpp != 1)
      return CV_ERROR_INVALID_ARGUMENT;
  } else if (l.bpp < 3 || l.bpp > 4 || l.r >= l.bpp || l.g < 0
      || l.g >= l.bpp || l.b < 0 || l.b >= l.bpp) {
    return CV_ERROR_INVALID_ARGUMENT;
  }
  if (src->stride < (size_t) src->width * l.bpp
      || dst->stride < (size_t) dst->width * l.bpp)
    return CV_ERROR_INVALID_ARGUMENT;
  if (p->spatial_radius < 1
      || p->spatial_radius > CV_MEANSHIFT_MAX_SPATIAL_RADIUS
      || !(p->color_radius > 0.0) || !(p->color_radius < 1e6)
      || p->kernel < CV_MEANSHIFT_UNIFORM || p->kernel > CV_MEANSHIFT_FLAT
      || p->max_iterations < 1
      || p->max_iterations > CV_MEANSHIFT_MAX_ITERATIONS
      || !(p->epsilon >= 0.0) || p->mode < CV_MEANSHIFT_FILTER
      || p->mode > CV_MEANSHIFT_SEGMENT || p->min_segment_size < 0)
    return CV_ERROR_INVALID_ARGUMENT;
  if (p->roi_x < 0 || p->roi_y < 0 || p->roi_width < 0 || p->roi_height < 0
      || p->roi_x > src->width - p->roi_width
      || p->roi_y > src->height - p->roi_height)
    return CV_ERROR_INVALID_ARGUMENT;
  if (p->mode == CV_MEANSHIFT_SEGMENT
      && (missing_seg || (uint64_t) src->width * src->height >= 0xFFFFFFFFull))
    return CV_ERROR_INVALID_ARGUMENT;
  return CV_OK;
}

#endif /* CV_MEANSHIFT_CORE_H */
