/* gst-cuda-vision: mean-shift filtering and segmentation, C ABI shared by
 * the CUDA kernels (kernels/meanshift.cu) and the CPU fallback
 * (cpu-fallback/meanshift.c).
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

/* Upper limits accepted by the C ABI (the element's property ranges). */
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
 * labels:     width * height guint32, row-major with row stride width: the
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

/* Mean-shift filtering / segmentation of one frame.
 *   src, dst: 8-bit planes of the same size and layout; layout gives bytes
 *             per pixel and the byte offsets of R, G, B (or -1, -1, -1 and
 *             bpp 1 for GRAY8, whose one channel is then the colour). Bytes
 *             of dst that are not R, G, B (alpha, padding) are copied from
 *             src. Colour distances are Euclidean over the (R, G, B) values
 *             (GRAY8: the grey value).
 *   Filter: for every pixel p of the ROI (not left out) the point
 *   (x, y, c) = (p, c(p)) moves to the kernel-weighted mean of the pixels
 *   (x', y', c') of its window, repeatedly (at most max_iterations, stop
 *   when the shift < epsilon); dst(p) = the final c rounded (half up,
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
 *   seg: segment mode only (NULL allowed in filter mode): seg->labels must
 *   hold width * height values; n_segments is set.
 * Returns CV_OK, CV_ERROR_INVALID_ARGUMENT (NULL planes, sizes differ or
 * < 1, parameters out of range, ROI not inside the frame, segment mode
 * without seg or with >= 2^32 - 1 pixels), CV_ERROR_NO_MEMORY,
 * CV_ERROR_CANCELLED (CPU: exec's cancel flag was set; exec NULL:
 * defaults). */
int cv_meanshift_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvMeanShiftParams * params, CvMeanShiftSegments * seg,
    const CvCpuExec * exec);

/* Same on the GPU: src and dst are device pointers (any pitch); the work
 * is queued on stream (a cudaStream_t) and not waited for. *work is the
 * caller's per-stream workspace pointer (NULL at first; device scratch and
 * pinned host memory, grown as needed; synchronises only when it grows);
 * free it with cv_meanshift_cuda_free(). In segment mode the labels and the
 * count are copied into pinned memory of *work: read them with
 * cv_meanshift_cuda_segments() after the stream has completed, before the
 * next call with the same workspace. Returns as the CPU version, or the
 * cudaError_t of a failing call. */
int cv_meanshift_cuda (const CvPlane * src, CvLumaLayout layout,
    CvPlane * dst, const CvMeanShiftParams * params, void **work,
    void *stream);

/* The segment-mode results of the last cv_meanshift_cuda() call on work:
 * seg->labels points into work's pinned memory (width * height values). */
void cv_meanshift_cuda_segments (void *work, CvMeanShiftSegments * seg);

/* Frees a workspace made by cv_meanshift_cuda() (NULL allowed). */
void cv_meanshift_cuda_free (void *work);

/* ---- the operator (cvop.h) ----
 * info:    CvMeanShiftInfo: frame->in[0] -> frame->out[0], read through
 *          layout, width x height.
 * params:  CvMeanShiftParams (the ROI already clipped to the frame).
 * results: CvMeanShiftSegments in segment mode (labels in host memory of
 *          the operator: width * height values), NULL in filter mode. */
typedef struct
{
  CvLumaLayout layout;
  int width, height;
} CvMeanShiftInfo;

extern const CvOps cv_meanshift_cpu_ops;
extern const CvOps cv_meanshift_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_MEANSHIFT_H */
