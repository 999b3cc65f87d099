/* gst-cuda-vision benchmark: device-resident kernel timings (no PCIe, no
 * GStreamer): each kernel submitted through its CUDA operator
 * (cv_*_cuda_ops, as the elements run it) back to back from a CUDA graph
 * on device buffers holding random data.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_BENCH_KBENCH_H
#define CV_BENCH_KBENCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Time kernel `name` ("copy": read and write the frame once, the practical
 * floor at that size; "sobel"; "templatematch64", "templatematch200":
 * 64x64 or 200x150 template, ccoeff-normed, best match; "convolve-blur",
 * "convolve-edge", "convolve-blur-edge", "convolve-custom15",
 * "convolve-custom31") on a width x height frame of `format`
 * ("GRAY8", "RGBA", ...). *us: mean microseconds per launch over `iters`
 * launches replayed from a graph (median of 5 replays); *bytes: bytes one
 * launch must move at least (input read once + output written once).
 * Returns 0, else non-zero with err filled. */
int cv_bench_kernel (const char *name, const char *format, int width,
    int height, int iters, double *us, double *bytes, char *err,
    int err_size);

#ifdef __cplusplus
}
#endif
#endif
