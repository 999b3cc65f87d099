/* gst-cuda-vision test helpers shared by the gst-check suites.
 *
 * Every suite runs once per backend: meson runs each test program with
 * CUDAVISION_TEST_BACKEND=cpu (suite "cpu", CI) and =cuda (suite "gpu").
 * Without a usable GPU the cuda run exits 77: meson reports it SKIPPED,
 * never passed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_TEST_H
#define CV_TEST_H

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* "cpu" or "cuda" from CUDAVISION_TEST_BACKEND (default "cpu"). */
const gchar *cvtest_backend (void);
gboolean cvtest_backend_is_cuda (void);
/* Waits (10 s at most) until n buffers reached the harness' sink and
 * returns how many did: asynchronous backends push from the element's
 * output thread after the push that submitted the frame has returned. */
guint cvtest_wait_for_outputs (GstHarness * h, guint n);

/* TRUE when an element started with backend=auto picks the GPU; else FALSE
 * and *reason (if not NULL) says why. */
gboolean cvtest_gpu_available (gchar ** reason);

/* Folder with real media (opencv-doc's samples): CUDAVISION_MEDIA_DIR or
 * /usr/share/doc/opencv-doc/examples/data. */
const gchar *cvtest_media_dir (void);

/* Run the suite with the backend from the environment; returns the exit
 * code for main(): 77 (skip) for the cuda run without a GPU. */
int cvtest_run_suite (Suite * s);

/* A harness around a new element of the factory, with backend set to the
 * test backend (or the given one when backend != NULL). */
GstHarness *cvtest_harness_new (const gchar * factory, const gchar * backend);

/* One frame through the harness's element, then the harness torn down:
 * pipeline-depth 1, src caps from info, in pushed (a reference of its
 * own; GST_FLOW_OK asserted) and the output pulled (asserted) and
 * returned. */
GstBuffer *cvtest_harness_process (GstHarness * h, const GstVideoInfo * info,
    GstBuffer * in);

/* Mismatches of the GRAY8 frame out (w x hgt, its own stride) against
 * ref (w * hgt bytes, rows without padding); the first 5 logged with
 * what. */
guint cvtest_compare_gray (GstBuffer * out, const guint8 * ref, int w,
    int hgt, const gchar * what);

/* A buffer holding a frame of info's format and size filled with random
 * bytes from rand, whose rows are padded by `pad` bytes beyond the default
 * stride (GstVideoMeta carries the strides). */
GstBuffer *cvtest_random_frame (const GstVideoInfo * info, guint pad,
    GRand * rand);

/* Caps for format/width/height at 30/1. */
GstCaps *cvtest_caps (GstVideoFormat format, gint width, gint height);

/* Decode an image file (e.g. a JPEG from the media dir) to a frame of the
 * given format through GStreamer's own decoders; NULL if it is missing. */
GstBuffer *cvtest_load_image (const gchar * path, GstVideoFormat format,
    GstVideoInfo * info_out);

G_END_DECLS
#endif
