/* gst-cuda-vision: non-local-means denoising, the operator (cvop.h) on the
 * CPU (cpu-fallback/nlmeans.c) and on the GPU (kernels/nlmeans.cu).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_NLMEANS_H
#define CV_NLMEANS_H

#include "cvimage.h"
#include "cvop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest patch size and search window (both odd). */
#define CV_NLMEANS_MAX_PATCH 11
#define CV_NLMEANS_MAX_SEARCH 65
/* Largest temporal window (odd): frames in one denoising window. */
#define CV_NLMEANS_MAX_TEMPORAL 7

/* Parameters of one frame.
 * h:             filter strength, 8-bit intensity units, > 0 (finite).
 * patch_size:    side of the square patch, odd, 1..CV_NLMEANS_MAX_PATCH
 *                (the element allows 3..11).
 * search_window: side of the square search window centred on the pixel,
 *                odd, 1..CV_NLMEANS_MAX_SEARCH, or 0 for the whole frame.
 * patch_sigma:   standard deviation in pixels of the Gaussian weighting the
 *                patch, >= 0; 0 = uniform weights.
 * sigma:         known noise standard deviation, 8-bit units, >= 0.
 * h_color:       the chroma of I420 / NV12 (planes 1 ..): > 0, their
 *                filter strength (U and V denoised together, C = 2, one
 *                weight per pixel, as OpenCV denoises a 2-channel image);
 *                0: the chroma planes are copied unchanged (the behaviour
 *                before h_color existed; a zeroed params struct keeps it).
 *                Packed RGB with info rgb_mode CV_NLMEANS_RGB_YCRCB: the
 *                same for Cr and Cb (> 0: denoised together with h_color;
 *                0: kept). Not used for GRAY8 and joint packed RGB.
 * store, centre, radius: the frames of a temporal window, read only by
 *                an operator made with an info temporal_window of 3 or
 *                more (OpenCV's fastNlMeansDenoisingMulti): frame->in is
 *                stored in the operator's temporal ring (below) as frame
 *                `store` (an index >= 0, increasing by one per stored
 *                frame; -1: frame->in is not read), and frame->out
 *                receives frame `centre` (-1: frame->out is not written)
 *                denoised with the frames centre - radius .. centre +
 *                radius (0 <= radius <= temporal_window / 2), all stored
 *                by this submit or earlier ones. */
typedef struct
{
  double h;
  int patch_size;
  int search_window;
  double patch_sigma;
  double sigma;
  double h_color;
  long long store;
  long long centre;
  int radius;
} CvNlMeansParams;

/* The temporal ring: the operator's (one per stream, shared by its
 * slots), made at create for the info's temporal_window (3 or more): the
 * last temporal_window + 5 stored frames (the window and up to
 * CV_OP_MAX_SLOTS = 4 frames in flight: a slot's frame never reads an
 * entry that a later frame in flight overwrites) in the operator's memory
 * (host for the CPU, device for CUDA, with an event per frame so that a
 * slot on another stream waits for its copy), freed with the operator.
 * The window is fixed for the operator's stream (the element reads
 * temporal-window at negotiation and makes the operator then). */

/* ---- the operator (cvop.h) ----
 * Non-local means (A. Buades, B. Coll, J.-M. Morel, "A non-local algorithm
 * for image denoising", CVPR 2005), with the Gaussian-weighted patch distance
 * of the paper and the noise offset of Buades, Coll, Morel, IPOL 2011.
 *
 * For every pixel x of the frame (each colour component c separately):
 *
 *   out_c(x) = sum_y w(x,y) f_c(y) / sum_y w(x,y)
 *   w(x,y)   = exp (-max (d²(x,y) - 2 sigma², 0) / h²)
 *   d²(x,y)  = sum_{|i|,|j|<=r} g(i) g(j) (1/C) sum_c (f_c(x+(i,j)) - f_c(y+(i,j)))²
 *              / (sum_{|i|<=r} g(i))²
 *   g(i)     = exp (-i² / (2 patch_sigma²))   (g = 1 when patch_sigma = 0)
 *
 * with r = patch_size / 2, C the number of colour components (1, 2 or 3;
 * one weight per pixel from the colour patch distance) and y running over the
 * pixels of the frame with |y - x| <= search_window / 2 in both axes (every
 * pixel of the frame when search_window = 0; the window is clipped to the
 * frame, y is never a padded pixel). Patch pixels outside the frame are read
 * with symmetric padding (MATLAB padarray 'symmetric', edge pixel repeated:
 * ... c b a | a b c ...), reflected again as often as needed, so any patch
 * size works on any frame size (even 1x1). x itself (d² = 0, w = 1) is always
 * in the sum, the denominator is >= 1.
 * out = round-to-nearest of the ratio, saturated to 0..255.
 *
 * Both backends compute this in single precision with the same formulation:
 * D(q) = sum_c (f_c(q) - f_c(q + off))² per offset off = y - x, its
 * separable weighted patch sum S = (g ⊗ g) * D (row pass, then column pass,
 * terms in the order i = -r .. r), w = 2^(-max (S a - b, 0) c) with
 * a = 1/(C (sum g)²), b = 2 sigma², c = log2(e)/h² (computed once in
 * double, rounded to float), float accumulation. They agree within 1 LSB
 * (different exp approximations, FMA contraction, summation order of the
 * offsets).
 *
 * info:    CvNlMeansInfo.
 *          layout: how plane 0 is read: bpp 1 with r, g, b = -1 (GRAY8,
 *          the Y plane of I420 / NV12: one grey component), or bpp 3 or 4
 *          with the byte offsets (< bpp) of R, G, B, denoised together
 *          (C = 3); the remaining byte of a 4-byte pixel (alpha, padding)
 *          is copied.
 *          rgb_mode (packed RGB only; ignored for bpp 1):
 *          CV_NLMEANS_RGB_JOINT (0, a zeroed info): R, G, B denoised
 *          together as above (C = 3, h; h_color unused).
 *          CV_NLMEANS_RGB_YCRCB: every frame converted to YCrCb with
 *          OpenCV's 8-bit integer maths (cv::cvtColor COLOR_RGB2YCrCb,
 *          kernels/nlmeans_ycrcb.h), once, when it is read (temporal: when
 *          it is stored in the ring); Y denoised with h (C = 1), Cr and
 *          Cb together with h_color (C = 2; h_color 0: kept), then
 *          converted back (COLOR_YCrCb2RGB); the remaining byte of a
 *          4-byte pixel is copied. Equals OpenCV's cvtColor ->
 *          fastNlMeansDenoising(Multi) of Y with h and of the 2-channel
 *          CrCb with hColor -> cvtColor back, within the 1 LSB of the
 *          denoiser.
 *          Any other value: CV_ERROR_INVALID_ARGUMENT.
 *          width, height: plane 0 (>= 1).
 *          n_planes: planes of the frame (1 .. CV_MAX_PLANES).
 *          row_bytes[p], rows[p]: plane p >= 1 (the chroma): bytes per
 *          row (>= 1) and rows (the frame's height or its 4:2:0 chroma
 *          height ceil (height / 2)); [0] is not read. Its pixels are
 *          1 byte (I420's U, V), for n_planes 2 (NV12's UV) 2 bytes:
 *          its width in pixels, row_bytes[p] or row_bytes[p] / 2, is
 *          the frame's width or ceil (width / 2).
 *          temporal_window: 0 or 1: every submit denoises frame->in into
 *          frame->out on its own. Odd 3 .. CV_NLMEANS_MAX_TEMPORAL: a
 *          window of frames (params store, centre, radius), whose ring
 *          the operator makes at create.
 * frame:   in[0] -> out[0]: width x height pixels of layout.bpp bytes,
 *          denoised (out[0] may not alias in[0]). in[p] -> out[p] for
 *          1 <= p < n_planes (the chroma of I420 / NV12): the first
 *          row_bytes[p] bytes of every row copied unchanged; planes of the
 *          the info's size (row_bytes[p], rows[p]), strides >=
 *          row_bytes[p].
 * Memory: made at create for the info: the temporal ring (above), and
 *          per slot on the GPU the device planes of the slot's frame (the
 *          packed chroma of I420 / NV12, the YCrCb planes of rgb-mode
 *          ycrcb), on the CPU the operator's YCrCb planes (one frame at a
 *          time). The CUDA operator's device scratch per slot (bounded, at
 *          most 64 MiB: per-pixel partial sums where the offsets are split
 *          over several blocks, frames that fill less than half the GPU,
 *          whole-frame mode) depends on the patch size and search window:
 *          it grows at a submit into the slot when the frame's parameters
 *          need more (the slot's previous frame has completed then).
 * params:  CvNlMeansParams. No results (results () returns NULL).
 * Returns: create: CV_OK, CV_ERROR_INVALID_ARGUMENT (a bad info),
 *          CV_ERROR_NO_MEMORY, (CUDA) CV_ERROR_CUDA. submit: CV_OK,
 *          CV_ERROR_INVALID_ARGUMENT (parameters out of the ranges above,
 *          a plane missing or not of the info's sizes, a window frame
 *          not stored or overwritten, CUDA: frames beyond the grid
 *          limits), CV_ERROR_NO_MEMORY, CV_ERROR_CANCELLED (CPU), or
 *          (CUDA) CV_ERROR_CUDA (the first failing call's error kept). */
typedef enum
{
  CV_NLMEANS_RGB_JOINT = 0,
  CV_NLMEANS_RGB_YCRCB = 1
} CvNlMeansRgbMode;

typedef struct
{
  CvLumaLayout layout;
  int width, height;
  int n_planes;
  size_t row_bytes[CV_MAX_PLANES];
  int rgb_mode;                 /* CvNlMeansRgbMode */
  int temporal_window;
  int rows[CV_MAX_PLANES];
} CvNlMeansInfo;

/* The typed operator (cvop.h): an operator of either backend, made by
 * that backend's create and passed only to its functions. */
typedef struct CvNlMeansOp CvNlMeansOp;

CvStatus cv_nlmeans_cpu_create (const CvNlMeansInfo * info, int max_slots,
    CvNlMeansOp ** op);
CvStatus cv_nlmeans_cpu_submit (CvNlMeansOp * op, int slot,
    const CvFrame * frame, const CvNlMeansParams * params, const CvExec * exec);
void cv_nlmeans_cpu_destroy (CvNlMeansOp * op);

/* CUDA builds only (kernels/nocuda.c defines none of them). */
CvStatus cv_nlmeans_cuda_create (const CvNlMeansInfo * info, int max_slots,
    CvNlMeansOp ** op);
CvStatus cv_nlmeans_cuda_submit (CvNlMeansOp * op, int slot,
    const CvFrame * frame, const CvNlMeansParams * params, const CvExec * exec);
void cv_nlmeans_cuda_destroy (CvNlMeansOp * op);

/* The generic tables of the typed functions above (CV_OPS_TABLE), as
 * the elements drive them; in a build without CUDA the CUDA table's
 * members are all NULL (cv_op_available () is FALSE). */
extern const CvOps cv_nlmeans_cpu_ops;
extern const CvOps cv_nlmeans_cuda_ops;

#ifdef __cplusplus
}
#endif
#endif /* CV_NLMEANS_H */
