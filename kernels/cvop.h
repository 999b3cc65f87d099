/* gst-cuda-vision: the one shape of every algorithm's C interface, on the
 * CPU (cpu-fallback/) and on the GPU (kernels/) alike: an operator is made
 * once per negotiated stream for its frames and the most of them in
 * flight (create), runs one frame in one of its slots (submit, results)
 * and is freed (destroy), as CV-CUDA's operators are. Plain C, no GStreamer
 * types.
 *
 * Each algorithm's header (cvsobel.h, cvconvolve.h, ...) declares its
 * CvXxxInfo (what is fixed for a stream: formats, sizes, layouts), its
 * CvXxxParams (the per-frame parameter snapshot), its results where it has
 * any, its operator handle CvXxxOp (opaque, one type for both backends)
 * and, per backend (cpu, cuda), the typed functions
 *   CvStatus cv_xxx_cpu_create (const CvXxxInfo *info, int max_slots,
 *       CvXxxOp **op);
 *   CvStatus cv_xxx_cpu_submit (CvXxxOp *op, int slot,
 *       const CvFrame *frame, const CvXxxParams *params,
 *       const CvExec *exec);
 *   const CvXxxResults *cv_xxx_cpu_results (CvXxxOp *op, int slot);
 *       (template matching and mean shift only)
 *   void cv_xxx_cpu_destroy (CvXxxOp *op);
 * with the semantics of the table's members below; an operator goes only
 * to the functions of the backend that made it. From them one macro
 * (CV_OPS_TABLE, kernels/cvop-internal.h) makes the algorithm's two
 * generic tables, cv_xxx_cpu_ops and cv_xxx_cuda_ops (CvOps, below),
 * which the elements drive (plugin/: an element names its two tables,
 * the base calls them). A build without CUDA links the CUDA tables from
 * kernels/nocuda.c: every member NULL (cv_op_available () is then FALSE),
 * and the typed CUDA functions are not defined at all: code built without
 * HAVE_CUDA reaches the CUDA operators through the tables only (a call of
 * a typed CUDA function there fails to link, it does not fail at run
 * time).
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

/* Most frames one operator may have in flight (max_slots at create): the
 * elements' largest pipeline-depth; the nlmeans temporal ring keeps the
 * window and this many frames in flight besides (cvnlmeans.h). */
#define CV_OP_MAX_SLOTS 4

/* An operator table: an algorithm's typed functions with info, params,
 * results and the operator as void pointers (CV_OPS_TABLE). An operator is
 * made once per negotiated stream, with the most frames it may have in
 * flight, and owns every workspace those frames need; a frame runs in one
 * of its slots, chosen by the caller.
 *
 * create:  an operator for frames described by info (the algorithm's
 *          CvXxxInfo, read during the call only) with max_slots slots
 *          (1 .. CV_OP_MAX_SLOTS: the caller's pipeline depth), in *op.
 *          It allocates what the info fixes for every slot: per slot,
 *          the scratch memory, device planes, uploads and results of one
 *          frame in flight; per stream, what the frames share (the
 *          nlmeans temporal ring, whose window is the info's).
 *          Workspaces that depend on a frame's parameters (a search
 *          window or patch size, a chain's kernels, a template, mean
 *          shift's segment mode) are the slot's too and grow at a submit
 *          into that slot when the parameters need more. There is no other
 *          scratch convention: callers never pass memory of their own
 *          besides the frame's planes, and nothing below the operators
 *          takes a workspace from outside the operator. The CPU
 *          operators' frame-sized temporaries (convolve's chain
 *          intermediates, nlmeans' padded planes, mean shift's arrays)
 *          live within one submit, mapped per frame (cpu-fallback/
 *          cvworkspace.h: no fill inside the allocator, nothing held
 *          between frames).
 * submit:  one frame in slot `slot` (0 .. max_slots - 1) with the
 *          parameter snapshot params (the algorithm's CvXxxParams, read
 *          during the call only, except where the algorithm says
 *          otherwise); CUDA: returns as soon as the work is queued on
 *          exec->stream. The caller gives a slot to one frame at a time:
 *          a slot is used again only once its previous frame's work is
 *          complete (CUDA: its stream reached it), and the frames of
 *          different slots may run at once on different streams (they
 *          share only the stream-wide state, which the operator orders
 *          with events). The CPU caller computes frames one at a time
 *          (slot 0 when synchronous).
 * results: what the last submit into slot `slot` found (the algorithm's
 *          results struct, the slot's memory), NULL for algorithms
 *          without results; valid once that submit's work is complete,
 *          until the next submit into the same slot.
 * destroy: frees the operator and every slot's workspace (CUDA: no work
 *          of it may be pending on any stream).
 * Every function returns a CvStatus (cvimage.h): CV_OK, a CV_ERROR_*
 * (CV_ERROR_INVALID_ARGUMENT for a slot out of range), or (CUDA)
 * CV_ERROR_CUDA with the first failing CUDA call's error kept beside it.
 * Threads: results (op, i) of a slot whose frame is complete may run at
 * the same time as submit (op, j, ...) into another slot j (the element's
 * output thread and streaming thread do); nothing else of one operator
 * may run in two threads at once. */
typedef struct
{
  const char *name;
  CvStatus (*create) (const void *info, int max_slots, void **op);
  CvStatus (*submit) (void *op, int slot, const CvFrame * frame,
      const void *params, const CvExec * exec);
  const void *(*results) (void *op, int slot);
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
