/* gst-cuda-vision: mean-shift filtering and segmentation, the operator
 * (cvop.h) on the CPU (cpu-fallback/meanshift.c) and on the GPU
 * (kernels/meanshift.cu).
 *
 * Source: D. Comaniciu, P. Meer, "Mean shift: a robust approach toward
 * feature space analysis", IEEE PAMI 24(5), 2002 (joint spatial-range
 * domain, kernel profiles, filtering and segmentation). The `flat` kernel
 * reproduces OpenCV's cv::pyrMeanShiftFiltering with maxLevel = 0.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_MEANSHIFT_H
#define CV_MEANSHIFT_H

#include "cvimage.h"
#include "cvop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel profiles k(g) over g = |dxy|^2 / hs^2 + |dc|^2 / hc^2, window g <= 1.
 * UNIFORM:      k = 1
 * TRIANGULAR:   k = 1 - sqrt (g)
 * EPANECHNIKOV: k = 1 - g
 * FLAT:         OpenCV's pyrMeanShiftFiltering (maxLevel 0): square spatial
 *               window |dx|, |dy| <= hs around the (integer) position, colour
 *               sphere sum (dc^2) <= round (hc^2) in integers, mean rounded
 *               to integers (round half to even, as cvRound), stop when the
 *               position did not move or |dx| + |dy| + |dc|^2 <= epsilon. */
typedef enum
{
  CV_MEANSHIFT_UNIFORM = 0,
  CV_MEANSHIFT_TRIANGULAR = 1,
  CV_MEANSHIFT_EPANECHNIKOV = 2,
  CV_MEANSHIFT_FLAT = 3,
} CvMeanShiftKernel;

typedef enum
{
  CV_MEANSHIFT_FILTER = 0,      /* each pixel takes its attractor's colour */
  CV_MEANSHIFT_SEGMENT = 1,     /* + merging, small regions, mean colours */
} CvMeanShiftMode;

/* Label of pixels without a segment (outside the ROI, or left out by the
 * colour range). */
#define CV_MEANSHIFT_NO_LABEL 0xFFFFFFFFu

/* Upper limits accepted by the operators (the element's property ranges). */
#define CV_MEANSHIFT_MAX_SPATIAL_RADIUS 255
#define CV_MEANSHIFT_MAX_ITERATIONS 100
/* Rounds of small-segment merging in segment mode (a fixed number so that
 * the GPU never waits for the host; each round merges every segment still
 * smaller than min_segment_size into its most similar neighbour). */
#define CV_MEANSHIFT_MERGE_ROUNDS 8

/* Parameters of one frame.
 * spatial_radius: hs in pixels, 1 .. CV_MEANSHIFT_MAX_SPATIAL_RADIUS.
 * color_radius:   hc in 8-bit colour units, > 0 (FLAT uses round (hc^2),
 *                 rounded half to even, as the squared radius).
 * kernel:         a CvMeanShiftKernel.
 * max_iterations: 1 .. CV_MEANSHIFT_MAX_ITERATIONS.
 * epsilon:        >= 0. Non-flat kernels stop when the Euclidean length of
 *                 the shift in joint (x, y, c) units (pixels and 8-bit
 *                 levels, not normalised), sqrt (dx^2 + dy^2 + |dc|^2), is
 *                 < epsilon (compared squared, in float); FLAT: OpenCV's rule.
 * mode:           a CvMeanShiftMode.
 * min_segment_size: segment mode: segments of fewer pixels are merged into
 *                 their most similar neighbour (0 or 1: none).
 * roi_x, roi_y, roi_width, roi_height: the region computed, inside the
 *                 frame (the caller clips); pixels outside are copied from
 *                 src unchanged. The computation only sees the ROI (windows
 *                 are clipped to it, as if it were the whole frame). An
 *                 empty ROI (width or height 0) copies the frame.
 * color_min, color_max: per channel [R, G, B] (GRAY8: [0] only) inclusive
 *                 range; pixels with any channel outside are left out of the
 *                 computation: they take part in no window, keep their
 *                 input value and get no label. */
typedef struct
{
  int spatial_radius;
  double color_radius;
  int kernel;
  int max_iterations;
  double epsilon;
  int mode;
  int min_segment_size;
  int roi_x, roi_y, roi_width, roi_height;
  uint8_t color_min[3];
  uint8_t color_max[3];
} CvMeanShiftParams;

/* Results of segment mode.
 * labels:     width * height uint32_t, row-major with row stride width: the
 *             frame pixel index (y * width + x) of the segment's first
 *             pixel in raster order (the smallest index: canonical, equal on
 *             GPU and CPU), or CV_MEANSHIFT_NO_LABEL.
 * n_segments: the number of segments (distinct labels other than
 *             CV_MEANSHIFT_NO_LABEL). */
typedef struct
{
  uint32_t *labels;
  uint32_t n_segments;
} CvMeanShiftSegments;

/* ---- the operator (cvop.h) ----
 * Mean-shift filtering / segmentation of one frame, frame->in[0] ->
 * frame->out[0], planes of the same size and layout: layout gives bytes
 * per pixel and the byte offsets of R, G, B (or -1, -1, -1 and bpp 1 for
 * GRAY8, whose one channel is then the colour). Bytes of the output that
 * are not R, G, B (alpha, padding) are copied from the input. Colour
 * distances are Euclidean over the (R, G, B) values (GRAY8: the grey
 * value).
 *   Filter: for every pixel p of the ROI (not left out) the point
 *   (x, y, c) = (p, c(p)) moves to the kernel-weighted mean of the pixels
 *   (x', y', c') of its window, repeatedly (at most max_iterations, stop
 *   when the shift < epsilon); out(p) = the final c rounded (half up,
 *   clamped to 0..255; FLAT: already integer).
 *   Segment: then 4-neighbours p, q are joined when their attractors are
 *   close: |xy*(p) - xy*(q)|^2 <= hs^2 and |c*(p) - c*(q)|^2 <= hc^2 (c*:
 *   the rounded filtered colour; FLAT: hc^2 is round (hc^2)); segments are
 *   the connected components. Then up to CV_MEANSHIFT_MERGE_ROUNDS rounds:
 *   every segment with < min_segment_size pixels picks the 4-adjacent
 *   segment whose mean filtered colour is nearest (squared distance in
 *   double, converted to float; ties: the smaller label) and all picks are
 *   joined at once. Each pixel is painted with its segment's mean filtered
 *   colour, per channel (sum + n / 2) / n in integers.
 * The CPU and CUDA operators give the same bytes, labels and counts (the
 * per-pixel math is shared, the segmentation follows the same
 * deterministic rules).
 *
 * info:    CvMeanShiftInfo.
 *          layout: bpp 1 with r, g, b = -1 (GRAY8), or bpp 3 or 4 with
 *          the byte offsets (< bpp) of R, G, B.
 *          width, height: the frame (>= 1).
 * frame:   in[0] -> out[0]: width x height pixels of layout.bpp bytes,
 *          rows of at least width * bpp bytes. Other planes are not read
 *          or written (NULL allowed).
 * params:  CvMeanShiftParams (the ROI already clipped to the frame).
 * results: CvMeanShiftSegments of the slot after a submit into it in
 *          segment mode (labels in host memory of the slot: width *
 *          height values, pinned on the GPU, valid until the next submit
 *          into the slot), NULL in filter mode (and before the slot's
 *          first successful submit, or after a failed one).
 * Memory: per slot; the CUDA operator makes the filter's device buffers
 *          for the whole frame at create, and segment mode's (48 bytes
 *          per pixel of the ROI, the label map in device and pinned
 *          memory) at the slot's first segment-mode frame; the CPU
 *          operator the label map then, and the passes' buffers per
 *          frame.
 * Returns: create: CV_OK, CV_ERROR_INVALID_ARGUMENT (a bad info),
 *          CV_ERROR_NO_MEMORY, (CUDA) CV_ERROR_CUDA. submit: CV_OK,
 *          CV_ERROR_INVALID_ARGUMENT (NULL params, a plane missing or not
 *          of the info's sizes, parameters out of range, ROI not inside
 *          the frame, segment mode with >= 2^32 - 1 pixels),
 *          CV_ERROR_NO_MEMORY, CV_ERROR_CANCELLED (CPU), or (CUDA)
 *          CV_ERROR_CUDA (the first failing call's error kept). */
typedef struct
{
  CvLumaLayout layout;
  int width, height;
} CvMeanShiftInfo;

/* The typed operator (cvop.h): an operator of either backend, made by
 * that backend's create and passed only to its functions. */
typedef struct CvMeanShiftOp CvMeanShiftOp;

CvStatus cv_meanshift_cpu_create (const CvMeanShiftInfo * info, int max_slots,
    CvMeanShiftOp ** op);
CvStatus cv_meanshift_cpu_submit (CvMeanShiftOp * op, int slot,
    const CvFrame * frame, const CvMeanShiftParams * params,
    const CvExec * exec);
const CvMeanShiftSegments *cv_meanshift_cpu_results (CvMeanShiftOp * op,
    int slot);
void cv_meanshift_cpu_destroy (CvMeanShiftOp * op);

/* CUDA builds only (kernels/nocuda.c defines none of them). */
CvStatus cv_meanshift_cuda_create (const CvMeanShiftInfo * info,
    int max_slots, CvMeanShiftOp ** op);
CvStatus cv_meanshift_cuda_submit (CvMeanShiftOp * op, int slot,
    const CvFrame * frame, const CvMeanShiftParams * params,
    const CvExec * exec);
const CvMeanShiftSegments *cv_meanshift_cuda_results (CvMeanShiftOp * op,
    int slot);
void cv_meanshift_cuda_destroy (CvMeanShiftOp * op);

/* The generic tables of the typed functions above (CV_OPS_TABLE), as
 * the elements drive them; in a build without CUDA the CUDA table's
 * members are all NULL (cv_op_available () is FALSE). */
extern const CvOps cv_meanshift_cpu_ops;
extern const CvOps cv_meanshift_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_MEANSHIFT_H */
