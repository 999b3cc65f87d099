/* gst-cuda-vision: what the CPU operators (cpu-fallback/) and the CUDA
 * operators (kernels/) of an algorithm share: the one adapter from an
 * operator's typed functions to its generic table (CV_OPS_TABLE), and the
 * checks of their info at create and of every frame at submit, so that
 * both backends accept and refuse the same infos and frames. Internal
 * header; the rules are documented with each operator (cv<algorithm>.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_OP_INTERNAL_H
#define CV_OP_INTERNAL_H

#include "cvcommon.h"
#include "cvsobel.h"
#include "cvconvolve.h"
#include "cvnlmeans.h"
#include "cvtemplatematch.h"
#include "cvmeanshift.h"
#include "cvcanny.h"
#include "cvop-slots.h"

/* ---- the generic tables ----
 * CV_OPS_TABLE (table, name, prefix, Op, Info, Params, results) defines
 * the CvOps `table` (cvop.h) called `name` from an operator's typed
 * functions (cv<algorithm>.h):
 *   CvStatus prefix_create (const Info *, int max_slots, Op **);
 *   CvStatus prefix_submit (Op *, int slot, const CvFrame *,
 *       const Params *, const CvExec *);
 *   void prefix_destroy (Op *);
 * and `results`: prefix_results (const Results *prefix_results (Op *,
 * int slot)), or cv_op_no_results for an algorithm without results. The
 * one adapter between the typed functions and the table the elements
 * drive: every table of both backends is made by it, once per algorithm
 * and backend (kernels/nocuda.c's empty CUDA tables excepted). */

#ifdef __cplusplus
#define CV_OPS_EXTERN extern "C"
#else
#define CV_OPS_EXTERN
#endif

/* the results of an algorithm without results: none */
static inline const void *
cv_op_no_results (const void *op, int slot)
{
  (void) op;
  (void) slot;
  return NULL;
}

#define CV_OPS_TABLE(table, name, prefix, Op, Info, Params, results) \
static CvStatus \
prefix ## _any_create (const void *info, int max_slots, void **op) \
{ \
  Op *made = NULL; \
  CvStatus st = prefix ## _create ((const Info *) info, max_slots, \
      op ? &made : NULL); \
  if (op) \
    *op = made; \
  return st; \
} \
static CvStatus \
prefix ## _any_submit (void *op, int slot, const CvFrame * frame, \
    const void *params, const CvExec * exec) \
{ \
  return prefix ## _submit ((Op *) op, slot, frame, (const Params *) params, \
      exec); \
} \
static const void * \
prefix ## _any_results (void *op, int slot) \
{ \
  return results ((Op *) op, slot); \
} \
static void \
prefix ## _any_destroy (void *op) \
{ \
  prefix ## _destroy ((Op *) op); \
} \
CV_OPS_EXTERN const CvOps table = { \
  name, prefix ## _any_create, prefix ## _any_submit, \
  prefix ## _any_results, prefix ## _any_destroy \
}

/* ---- edge maps (sobel, canny: CvEdgeMapInfo) ---- */

static inline int
cv_edge_map_info_valid (const CvEdgeMapInfo * i)
{
  int p;

  if (!i || !cv_layout_valid (i->layout) || i->width < 1 || i->height < 1
      || (long long) i->width * i->height >= 0x7fffffffLL
      || i->n_out_planes < 1 || i->n_out_planes > CV_MAX_PLANES)
    return 0;
  for (p = 1; p < i->n_out_planes; p++)
    if (i->out_pixel_stride[p] < 1 || i->out_pixel_stride[p] > 4)
      return 0;
  return 1;
}

static inline int
cv_edge_map_frame_valid (const CvEdgeMapInfo * i, const CvFrame * f)
{
  int p;

  if (!f || !cv_plane_is (&f->in[0], i->width, i->height, i->layout.bpp)
      || !cv_plane_is (&f->out[0], i->width, i->height, 1))
    return 0;
  for (p = 1; p < i->n_out_planes; p++)
    if (!cv_plane_is_part_of (&f->out[p], i->width, i->height,
            i->out_pixel_stride[p]))
      return 0;
  return 1;
}

/* ---- convolve ---- */

/* the (bpp, channels) pairs of the formats: (1, 1), (2, 2), (3, 3),
 * (4, 3) */
static inline int
cv_convolve_pixel_valid (int bpp, int channels)
{
  return (bpp >= 1 && bpp <= 3 && channels == bpp) || (bpp == 4
      && channels == 3);
}

static inline int
cv_convolve_info_valid (const CvConvolveInfo * i)
{
  int p;

  if (!i || i->width < 1 || i->height < 1 || i->n_planes < 1
      || i->n_planes > CV_MAX_PLANES)
    return 0;
  for (p = 0; p < i->n_planes; p++)
    if (!cv_convolve_pixel_valid (i->bpp[p], i->channels[p]))
      return 0;
  return 1;
}

static inline int
cv_convolve_frame_valid (const CvConvolveInfo * i, const CvFrame * f)
{
  int p;

  if (!f || !cv_plane_is (&f->in[0], i->width, i->height, i->bpp[0])
      || !cv_plane_is (&f->out[0], i->width, i->height, i->bpp[0]))
    return 0;
  for (p = 1; p < i->n_planes; p++)
    if (!cv_plane_is_part_of (&f->in[p], i->width, i->height, i->bpp[p])
        || !cv_plane_is (&f->out[p], f->in[p].width, f->in[p].height,
            i->bpp[p]))
      return 0;
  return 1;
}

/* ---- nlmeans ---- */

/* the width in pixels of plane p >= 1 (cvnlmeans.h: NV12's UV plane, the
 * one of n_planes 2, has 2-byte pixels, the others 1-byte ones) */
static inline int
cv_nlmeans_plane_width (const CvNlMeansInfo * i, int p)
{
  return (int) (i->row_bytes[p] / (i->n_planes == 2 ? 2 : 1));
}

static inline int
cv_nlmeans_info_valid (const CvNlMeansInfo * i)
{
  int p;

  if (!i || !cv_layout_valid (i->layout) || i->width < 1 || i->height < 1
      || i->n_planes < 1 || i->n_planes > CV_MAX_PLANES
      || (i->rgb_mode != CV_NLMEANS_RGB_JOINT
          && i->rgb_mode != CV_NLMEANS_RGB_YCRCB)
      || i->temporal_window < 0 || i->temporal_window > CV_NLMEANS_MAX_TEMPORAL
      || (i->temporal_window > 1 && !(i->temporal_window & 1)))
    return 0;
  for (p = 1; p < i->n_planes; p++) {
    const int w = cv_nlmeans_plane_width (i, p);
    if (i->row_bytes[p] < 1 || (i->n_planes == 2 && i->row_bytes[p] % 2)
        || (w != i->width && w != i->width - i->width / 2)
        || (i->rows[p] != i->height && i->rows[p] != i->height - i->height / 2))
      return 0;
  }
  return 1;
}

/* rgb_mode ycrcb applies: packed RGB (one plane of 3 or 4 bytes) */
static inline int
cv_nlmeans_info_ycrcb (const CvNlMeansInfo * i)
{
  return i->rgb_mode == CV_NLMEANS_RGB_YCRCB && i->layout.bpp != 1
      && i->n_planes == 1;
}

static inline int
cv_nlmeans_frame_valid (const CvNlMeansInfo * i, const CvFrame * f)
{
  int p;

  if (!f || !cv_plane_is (&f->in[0], i->width, i->height, i->layout.bpp)
      || !cv_plane_is (&f->out[0], i->width, i->height, i->layout.bpp))
    return 0;
  for (p = 1; p < i->n_planes; p++) {
    const int w = cv_nlmeans_plane_width (i, p);
    const int bpp = i->n_planes == 2 ? 2 : 1;
    if (!cv_plane_is (&f->in[p], w, i->rows[p], bpp)
        || !cv_plane_is (&f->out[p], w, i->rows[p], bpp))
      return 0;
  }
  return 1;
}

/* ---- template matching ---- */

static inline int
cv_template_match_info_valid (const CvTemplateMatchInfo * i)
{
  return i && cv_layout_valid (i->layout) && i->width >= 1
      && i->height >= 1 && (i->score_map == 0 || i->score_map == 8
      || i->score_map == 16);
}

static inline int
cv_template_match_frame_valid (const CvTemplateMatchInfo * i,
    const CvFrame * f)
{
  return f && cv_plane_is (&f->in[0], i->width, i->height, i->layout.bpp)
      && (i->score_map == 0 || cv_plane_is (&f->out[0], i->width,
          i->height, i->score_map / 8));
}

/* ---- mean shift ---- */

static inline int
cv_meanshift_info_valid (const CvMeanShiftInfo * i)
{
  return i && cv_layout_valid (i->layout) && i->width >= 1
      && i->height >= 1;
}

static inline int
cv_meanshift_frame_valid (const CvMeanShiftInfo * i, const CvFrame * f)
{
  return f && cv_plane_is (&f->in[0], i->width, i->height, i->layout.bpp)
      && cv_plane_is (&f->out[0], i->width, i->height, i->layout.bpp);
}

#endif /* CV_OP_INTERNAL_H */
