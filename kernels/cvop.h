/* gst-cuda-vision: the one shape of every algorithm's C interface, on the
 * CPU (cpu-fallback/) and on the GPU (kernels/) alike: an operator is made
 * for the negotiated frames (create), runs one frame at a time (submit)
 * and is freed (destroy), as CV-CUDA's operators are. Plain C, no GStreamer
 * types.
 *
 * Each algorithm's header (cvsobel.h, cvconvolve.h, ...) declares its
 * CvXxxInfo (what is fixed for a stream: formats, sizes, layouts), its
 * CvXxxParams (the per-frame parameter snapshot), its results where it has
 * any, and two operator tables: cv_xxx_cpu_ops and cv_xxx_cuda_ops. A
 * build without CUDA links the CUDA tables from kernels/nocuda.c: every
 * function pointer NULL (cv_op_available () is then FALSE).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_OP_H
#define CV_OP_H

#include "cvimage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Planes per frame at most (GST_VIDEO_MAX_PLANES). */
#define CV_MAX_PLANES 4

/* What the negotiated caps fix for an operator that reads the luma of a
 * frame and writes an edge map (cv_sobel_*, cv_canny_*): the input's luma
 * layout, the size (the output's too), and the output's planes: plane 0
 * the map (1 byte per pixel), planes 1 .. n_out_planes - 1 (NV12, I420)
 * neutral chroma with out_pixel_stride[p] bytes per sample (NV12's UV
 * plane: 2). */
typedef struct
{
  CvLumaLayout layout;
  int width, height;
  int n_out_planes;
  int out_pixel_stride[CV_MAX_PLANES];
} CvEdgeMapInfo;

/* One frame's planes in the operator's memory: host memory for the CPU
 * operators, device memory for the CUDA ones (any pitch). Planes an
 * algorithm does not read (e.g. the chroma of I420 for cudasobel) may have
 * data NULL. */
typedef struct
{
  CvPlane in[CV_MAX_PLANES];
  CvPlane out[CV_MAX_PLANES];
} CvFrame;

/* How a submit runs.
 * stream:    CUDA operators: the cudaStream_t the frame's work is queued
 *            on; submit never waits for it. CPU operators: unused.
 * n_threads: CPU operators: OpenMP threads, 0 = OpenMP's default.
 * cancel:    CPU operators: NULL, or a flag another thread may set at any
 *            time; the work polls it between blocks of rows, stops and
 *            returns CV_ERROR_CANCELLED (the output is then incomplete).
 * A NULL exec means { NULL, 0, NULL }. */
typedef struct
{
  void *stream;
  int n_threads;
  const int *cancel;
} CvExec;

/* An operator table. create: an operator for frames described by info
 * (the algorithm's CvXxxInfo, read during the call only), in *op; it
 * allocates what the info fixes (workspaces grow later when a frame's
 * parameters need more). submit: one frame with the parameter snapshot
 * params (the algorithm's CvXxxParams, read during the call only, except
 * where the algorithm says otherwise); CUDA: returns as soon as the work
 * is queued on exec->stream. results: what the last submit found (the
 * algorithm's results struct), NULL for algorithms without results; valid
 * once the submit's work is complete (CUDA: the stream has reached it),
 * until the next submit. destroy: frees the operator (CUDA: no work of it
 * may be pending). Every function returns a CvStatus (cvimage.h): CV_OK,
 * a CV_ERROR_*, or (CUDA) CV_ERROR_CUDA with the first failing CUDA call's
 * error kept beside it. One operator must not be used by two threads at
 * once. */
typedef struct
{
  const char *name;
  CvStatus (*create) (const void *info, void **op);
  CvStatus (*submit) (void *op, const CvFrame * frame, const void *params,
      const CvExec * exec);
  const void *(*results) (void *op);
  void (*destroy) (void *op);
} CvOps;

/* Whether an operator table is built in (FALSE for the CUDA tables of a
 * build without CUDA). */
static inline int
cv_op_available (const CvOps * ops)
{
  return ops && ops->create && ops->submit && ops->destroy;
}

#ifdef __cplusplus
}
#endif
#endif /* CV_OP_H */
