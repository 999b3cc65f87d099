/* gst-cuda-vision: convolution filters and fused filter chains on the
 * GPU: the dispatch of a chain to its kernels and the operator
 * (cv_convolve_cuda_ops). Arithmetic identical to cpu-fallback/convolve.c
 * (see cvconvolve.h and convolve_common.h): bit-exact results.
 *
 * One launch per frame plane runs the whole chain, by the first of:
 *   convolve-named.cu     chains of named 3x3 filters (blur, gaussian,
 *                         sharpen, edge-detect): byte tiles along the
 *                         frame's edges, and for chains of one or two of
 *                         them rows sliding in registers in its interior
 *                         (convolve-named-rows.cuh);
 *   convolve-custom2d.cu  one general (non-separable) custom kernel on
 *                         any format;
 *   convolve-chain.cu     any chain fused on float tiles in shared memory
 *                         (custom 2-D and separable stages included).
 * Chains whose halo does not fit in shared memory run one stage per launch
 * of convolve-chain.cu through two device scratch frames (still one upload
 * and one download), which the operator owns.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve-internal.h"
#include "cuda-internal.h"
#include "cvop-internal.h"

#include <stdlib.h>
#include <string.h>

extern "C" CvStatus
cv_convolve_cuda (const CvPlane * src, CvPlane * dst, int bpp, int channels,
    const CvConvolveParams * p, CvCudaScratch * scratch,
    CvConvolveExactCache * exact, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  GpuChain g;
  int w, h, i, k, dev, max_smem, any_sep = 0;

  if (!src || !dst || !p || !scratch || !src->data || !dst->data)
    return CV_ERROR_INVALID_ARGUMENT;
  w = src->width;
  h = src->height;
  if (w < 1 || h < 1 || dst->width != w || dst->height != h
      || p->n_filters < 1 || p->n_filters > CV_CONVOLVE_MAX_CHAIN
      || p->ksize < 1 || p->ksize > CV_CONVOLVE_MAX_KSIZE || p->ksize % 2 == 0
      || !cv_border_mode_valid (p->border_mode))
    return CV_ERROR_INVALID_ARGUMENT;

  memset (&g, 0, sizeof (g));
  g.n = p->n_filters;
  g.border = p->border_mode;
  g.ksize = k = p->ksize;
  g.sep_custom = p->separable;
  for (i = 0; i < g.n; i++) {
    if (p->filters[i] < CV_FILTER_BLUR || p->filters[i] > CV_FILTER_CUSTOM)
      return CV_ERROR_INVALID_ARGUMENT;
    g.kind[i] = p->filters[i];
    g.R += cv_conv_stage_radius (g.kind[i], k);
    any_sep |= cv_conv_stage_separable (g.kind[i], g.sep_custom);
  }
  if (p->separable) {
    memcpy (g.w, p->krow, sizeof (float) * k);
    memcpy (g.w + k, p->kcol, sizeof (float) * k);
  } else {
    memcpy (g.w, p->kernel, sizeof (float) * k * k);
  }

  CV_CUDA_TRY (cudaGetDevice (&dev));
  CV_CUDA_TRY (cudaDeviceGetAttribute (&max_smem,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));

  /* specialised kernels: named chains (convolve-named.cu), one general
   * custom kernel (convolve-custom2d.cu) */
  {
    CvStatus ret;

    if (cv_conv_named_try (bpp, channels, src->data, src->stride, dst->data,
            dst->stride, w, h, g, st, &ret)
        || cv_conv_custom2d_try (bpp, channels, src->data, src->stride,
            dst->data, dst->stride, w, h, g, exact, st, &ret))
      return ret;
  }

  /* the whole chain in one pass when its halo fits in shared memory
   * (convolve-chain.cu) */
  if (cv_conv_chain_smem (g.n, any_sep, g.R, 8, channels) <= (size_t) max_smem)
    return cv_conv_chain_launch (bpp, channels, src->data, src->stride,
        dst->data, dst->stride, src->data, src->stride, w, h, g, max_smem,
        st);

  /* else one stage per launch through two scratch frames */
  {
    size_t fstride = (size_t) w * bpp, fsize = fstride * h;
    int n = g.n;
    CvStatus ret;
    uint8_t *sc;

    if (!scratch)
      return CV_ERROR_INVALID_ARGUMENT;
    /* the work queued with the scratch before has completed (the slot's
     * previous frame, or an earlier plane of this one: the largest plane
     * comes first) */
    ret = cv_cuda_scratch_reserve (scratch, 2 * fsize);
    if (ret != CV_OK)
      return ret;
    sc = (uint8_t *) scratch->ptr;
    for (i = 0; i < n && ret == CV_OK; i++) {
      GpuChain one = g;
      const uint8_t *s = i == 0 ? src->data : sc + ((i - 1) % 2) * fsize;
      size_t ss = i == 0 ? src->stride : fstride;
      uint8_t *d = i == n - 1 ? dst->data : sc + (i % 2) * fsize;
      size_t ds = i == n - 1 ? dst->stride : fstride;

      one.n = 1;
      one.kind[0] = g.kind[i];
      one.R = cv_conv_stage_radius (g.kind[i], k);
      ret = cv_conv_chain_launch (bpp, channels, s, ss, d, ds, src->data,
          src->stride, w, h, one, max_smem, st);
    }
    return ret;
  }
}

/* ---- the operator (cvconvolve.h) ---- */

namespace {

struct ConvolveSlot
{
  CvConvolveInfo info;
  CvCudaScratch scratch;        /* the slot's (cv_convolve_cuda) */
  CvConvolveExactCache exact;   /* the slot's (cv_convolve_cuda) */
};

/* every kernel the planes' pixels can launch (named chains, general
 * custom kernels, the fused chain: the filters change per frame), loaded
 * at create (cv_cuda_preload, issue #24) */
CvStatus
convolve_preload (const CvConvolveInfo * info)
{
  CvStatus st = CV_OK;

  for (int p = 0; st == CV_OK && p < info->n_planes; p++) {
    st = cv_conv_named_preload (info->bpp[p], info->channels[p]);
    if (st == CV_OK)
      st = cv_conv_custom2d_preload (info->bpp[p], info->channels[p]);
    if (st == CV_OK)
      st = cv_conv_chain_preload (info->bpp[p], info->channels[p]);
  }
  return st;
}

CvStatus
convolve_slot_create (const CvConvolveInfo * info, ConvolveSlot ** slot)
{
  ConvolveSlot *o;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_convolve_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  CvStatus st = convolve_preload (info);
  if (st != CV_OK)
    return st;
  o = (ConvolveSlot *) calloc (1, sizeof (ConvolveSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  *slot = o;
  return CV_OK;
}

CvStatus
convolve_slot_submit (ConvolveSlot * o, const CvFrame * frame,
    const CvConvolveParams * params, const CvExec * exec)
{
  void *stream = cv_exec_stream (exec);
  CvFrame f;
  CvStatus status = CV_OK;

  if (!params || !cv_convolve_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  /* the chain on every plane, each at its own size; this slot's previous
   * frame has completed (a slot takes a frame only then), so the scratch
   * may grow */
  for (int p = 0; status == CV_OK && p < o->info.n_planes; p++)
    status = cv_convolve_cuda (&f.in[p], &f.out[p], o->info.bpp[p],
        o->info.channels[p], params, &o->scratch, &o->exact, stream);
  return status;
}

void
convolve_slot_destroy (ConvolveSlot * o)
{
  if (!o)
    return;
  cv_cuda_scratch_free (&o->scratch);
  free (o);
}

}                               /* namespace */

CV_SLOT_OP_FUNCTIONS (cv_convolve_cuda, convolve_slot, ConvolveSlot,
    CvConvolveOp, CvConvolveInfo, CvConvolveParams);
CV_OPS_TABLE (cv_convolve_cuda_ops, "convolve-cuda", cv_convolve_cuda,
    CvConvolveOp, CvConvolveInfo, CvConvolveParams, cv_op_no_results);
