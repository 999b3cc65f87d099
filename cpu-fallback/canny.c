/* gst-cuda-vision: Canny edge detection on the CPU (C99 + OpenMP), and
 * its operator (cv_canny_cpu_ops). The per-pixel rules are canny_core.h,
 * shared with kernels/canny.cu; see cvcanny.h for the definition. The
 * classes (none, weak, strong) are computed row-parallel, then the
 * classic hysteresis: a stack seeded with the strong pixels grows through
 * 8-connected weak pixels (the GPU's connected components give the same
 * set by construction).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cpu-internal.h"
#include "cvop-internal.h"
#include "cvcpu.h"
#include "canny_core.h"

#include <stdlib.h>
#include <string.h>

/* the class of an edge pixel reached by the hysteresis */
#define CANNY_EDGE 3

typedef struct
{
  CvCannyInfo info;
  int16_t *dx, *dy;             /* w x h */
  int32_t *mag;                 /* (w + 2) x (h + 2), 0 on the border */
  uint8_t *cls;                 /* w x h */
  int32_t *stack;               /* w x h */
} CannySlot;

/* the luma of row y into lum[r .. r + w - 1], r replicated pixels each
 * side */
static void
canny_luma_row (const CvPlane * src, CvLumaLayout l, int y, int r,
    int16_t * restrict lum)
{
  const uint8_t *restrict row = src->data + (size_t) y * src->stride;
  const int w = src->width;

  if (l.r < 0) {
    for (int x = 0; x < w; x++)
      lum[r + x] = row[(size_t) x * l.bpp];
  } else {
    for (int x = 0; x < w; x++) {
      const uint8_t *p = row + (size_t) x * l.bpp;
      lum[r + x] = (int16_t) cv_luma (p[l.r], p[l.g], p[l.b]);
    }
  }
  for (int i = 0; i < r; i++) {
    lum[i] = lum[r];
    lum[r + w + i] = lum[r + w - 1];
  }
}

/* dx, dy and the magnitude of every pixel */
static CvStatus
canny_gradients (CannySlot * o, const CvPlane * src, int k, int l2,
    const CvExec * exec)
{
  const int w = o->info.width, h = o->info.height, r = k / 2;
  const size_t mstride = (size_t) w + 2;
  int status = CV_OK;

#pragma omp parallel num_threads (CV_OMP_THREADS (exec))
  {
    const size_t rw = (size_t) w + 2 * r;
    int16_t *buf = malloc ((size_t) k * rw * sizeof (int16_t));
    int32_t *vs = malloc (2 * rw * sizeof (int32_t));
    if (!buf || !vs) {
#pragma omp atomic write
      status = CV_ERROR_NO_MEMORY;
    } else {
      int32_t *vd = vs + rw;
      int16_t *rows[CV_SOBEL_MAX_KSIZE];
      for (int j = 0; j < k; j++)
        rows[j] = buf + j * rw;
#pragma omp for schedule(static)
      for (int y = 0; y < h; y++) {
        if (cv_exec_cancelled (exec))
          continue;
        for (int j = 0; j < k; j++)
          canny_luma_row (src, o->info.layout, cv_border_replicate (y + j -
                  r, h), r, rows[j]);
        cv_sobel_vertical_sums (rows, k, (int) rw, vs, vd);
        int16_t *dxr = o->dx + (size_t) y * w, *dyr = o->dy + (size_t) y *w;
        int32_t *mr = o->mag + (size_t) (y + 1) * mstride + 1;
        for (int x = 0; x < w; x++) {
          int gx, gy;
          cv_sobel_gradient_at (vs, vd, k, x, &gx, &gy);
          gx = cv_canny_scale_deriv (gx, k);
          gy = cv_canny_scale_deriv (gy, k);
          dxr[x] = (int16_t) gx;
          dyr[x] = (int16_t) gy;
          mr[x] = cv_canny_magnitude (gx, gy, l2);
        }
      }
    }
    free (buf);
    free (vs);
  }
  return status;
}

static void
canny_classes (CannySlot * o, int low, int high, const CvExec * exec)
{
  const int w = o->info.width, h = o->info.height;
  const size_t ms = (size_t) w + 2;

#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int y = 0; y < h; y++) {
    if (cv_exec_cancelled (exec))
      continue;
    const int32_t *p = o->mag + (size_t) y * ms + 1;    /* row y - 1 */
    const int32_t *a = p + ms, *n = a + ms;
    const int16_t *dxr = o->dx + (size_t) y * w, *dyr = o->dy + (size_t) y *w;
    uint8_t *c = o->cls + (size_t) y * w;
    for (int x = 0; x < w; x++)
      c[x] = (uint8_t) cv_canny_class (a[x], dxr[x], dyr[x], p[x - 1], p[x],
          p[x + 1], a[x - 1], a[x + 1], n[x - 1], n[x], n[x + 1], low, high);
  }
}

/* strong pixels, and weak pixels 8-connected to them: CANNY_EDGE */
static void
canny_hysteresis (CannySlot * o)
{
  const int w = o->info.width, h = o->info.height;
  uint8_t *cls = o->cls;
  int32_t *stack = o->stack;
  size_t top = 0;

  for (int i = 0; i < w * h; i++)
    if (cls[i] == CV_CANNY_STRONG) {
      cls[i] = CANNY_EDGE;
      stack[top++] = i;
    }
  while (top > 0) {
    const int i = stack[--top];
    const int x = i % w, y = i / w;
    for (int dy = -1; dy <= 1; dy++) {
      const int yy = y + dy;
      if (yy < 0 || yy >= h)
        continue;
      for (int dx = -1; dx <= 1; dx++) {
        const int xx = x + dx;
        if (xx < 0 || xx >= w)
          continue;
        const int j = yy * w + xx;
        if (cls[j] == CV_CANNY_WEAK) {
          cls[j] = CANNY_EDGE;
          stack[top++] = j;
        }
      }
    }
  }
}

/* ---- the operator (cvcanny.h) ---- */

static void
canny_slot_destroy (CannySlot * o)
{
  if (!o)
    return;
  free (o->dx);
  free (o->dy);
  free (o->mag);
  free (o->cls);
  free (o->stack);
  free (o);
}

static CvStatus
canny_slot_create (const CvCannyInfo * info, CannySlot ** slot)
{
  CannySlot *o;
  size_t n;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_edge_map_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  o = calloc (1, sizeof (CannySlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  n = (size_t) o->info.width * o->info.height;
  o->dx = malloc (n * sizeof (int16_t));
  o->dy = malloc (n * sizeof (int16_t));
  /* the border rows and columns stay 0 (outside the frame) */
  o->mag = calloc (((size_t) o->info.width + 2) * (o->info.height + 2),
      sizeof (int32_t));
  o->cls = malloc (n);
  o->stack = malloc (n * sizeof (int32_t));
  if (!o->dx || !o->dy || !o->mag || !o->cls || !o->stack) {
    canny_slot_destroy (o);
    return CV_ERROR_NO_MEMORY;
  }
  *slot = o;
  return CV_OK;
}

static CvStatus
canny_slot_submit (CannySlot * o, const CvFrame * frame,
    const CvCannyParams * p, const CvExec * exec)
{
  const int w = o->info.width, h = o->info.height;
  int k, low, high, status, i;

  if (!p || !cv_edge_map_frame_valid (&o->info, frame)
      || !cv_canny_params_valid (p))
    return CV_ERROR_INVALID_ARGUMENT;
  k = p->kernel_size == 0 ? 3 : p->kernel_size;
  cv_canny_thresholds (p, &low, &high);
  status = canny_gradients (o, &frame->in[0], k, p->l2_gradient != 0, exec);
  if (status != CV_OK)
    return status;
  if (cv_exec_cancelled (exec))
    return CV_ERROR_CANCELLED;
  canny_classes (o, low, high, exec);
  if (cv_exec_cancelled (exec))
    return CV_ERROR_CANCELLED;
  canny_hysteresis (o);
#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (int y = 0; y < h; y++) {
    const uint8_t *c = o->cls + (size_t) y * w;
    uint8_t *out = frame->out[0].data + (size_t) y * frame->out[0].stride;
    for (int x = 0; x < w; x++)
      out[x] = (uint8_t) (c[x] >= CV_CANNY_STRONG ? 255 : 0);
  }
  /* neutral chroma of NV12 / I420 output */
  for (i = 1; i < o->info.n_out_planes; i++) {
    CvPlane pl = frame->out[i];
    status = cv_fill_plane_cpu (&pl, o->info.out_pixel_stride[i], 128);
    if (status != CV_OK)
      return status;
  }
  return CV_OK;
}

CV_SLOT_OP_FUNCTIONS (cv_canny_cpu, canny_slot, CannySlot, CvCannyOp,
    CvCannyInfo, CvCannyParams);
CV_OPS_TABLE (cv_canny_cpu_ops, "canny-cpu", cv_canny_cpu, CvCannyOp,
    CvCannyInfo, CvCannyParams, cv_op_no_results);
