/* gst-cuda-vision test helpers. SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cvtest.h"

#include <stdlib.h>
#include <string.h>

const gchar *
cvtest_backend (void)
{
  const gchar *b = g_getenv ("CUDAVISION_TEST_BACKEND");

  return (b && *b) ? b : "cpu";
}

guint
cvtest_wait_for_outputs (GstHarness * h, guint n)
{
  gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (gst_harness_buffers_in_queue (h) < n
      && g_get_monotonic_time () < until)
    g_usleep (200);
  return gst_harness_buffers_in_queue (h);
}

gboolean
cvtest_backend_is_cuda (void)
{
  return g_str_equal (cvtest_backend (), "cuda");
}

gboolean
cvtest_gpu_available (gchar ** reason)
{
  GstElement *e;
  GstStateChangeReturn r;
  gint active = 0;

  e = gst_element_factory_make ("cudasobel", NULL);
  if (!e) {
    if (reason)
      *reason = g_strdup ("cudasobel not found (GST_PLUGIN_PATH?)");
    return FALSE;
  }
  gst_util_set_object_arg (G_OBJECT (e), "backend", "auto");
  r = gst_element_set_state (e, GST_STATE_PAUSED);
  if (r != GST_STATE_CHANGE_FAILURE)
    g_object_get (e, "active-backend", &active, NULL);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  if (active == 1)              /* GST_CUDA_VISION_BACKEND_CUDA */
    return TRUE;
  if (reason)
    *reason = g_strdup ("backend=auto picked the CPU (no usable CUDA GPU)");
  return FALSE;
}

const gchar *
cvtest_media_dir (void)
{
  const gchar *d = g_getenv ("CUDAVISION_MEDIA_DIR");

  return (d && *d) ? d : "/usr/share/doc/opencv-doc/examples/data";
}

int
cvtest_run_suite (Suite * s)
{
  SRunner *sr;
  int nf;

  if (cvtest_backend_is_cuda ()) {
    gchar *reason = NULL;
    if (!cvtest_gpu_available (&reason)) {
      g_print ("SKIP: backend=cuda: %s\n", reason);
      g_free (reason);
      return 77;
    }
  }
  g_print ("backend: %s\n", cvtest_backend ());
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  nf = srunner_ntests_failed (sr);
  srunner_free (sr);
  return nf == 0 ? 0 : 1;
}

GstHarness *
cvtest_harness_new (const gchar * factory, const gchar * backend)
{
  GstHarness *h = gst_harness_new (factory);

  gst_util_set_object_arg (G_OBJECT (h->element), "backend",
      backend ? backend : cvtest_backend ());
  return h;
}

GstBuffer *
cvtest_harness_process (GstHarness * h, const GstVideoInfo * info,
    GstBuffer * in)
{
  GstBuffer *out;

  g_object_set (h->element, "pipeline-depth", 1, NULL);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_harness_teardown (h);
  return out;
}

guint
cvtest_compare_gray (GstBuffer * out, const guint8 * ref, int w, int hgt,
    const gchar * what)
{
  GstVideoInfo oi;
  GstVideoFrame f;
  guint bad = 0;
  int x, y;

  gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_GRAY8, w, hgt);
  fail_unless (gst_video_frame_map (&f, &oi, out, GST_MAP_READ));
  for (y = 0; y < hgt; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (x = 0; x < w; x++)
      if (row[x] != ref[y * w + x]) {
        if (bad < 5)
          GST_ERROR ("%s: (%d,%d) got %u expected %u", what, x, y, row[x],
              ref[y * w + x]);
        bad++;
      }
  }
  gst_video_frame_unmap (&f);
  return bad;
}

GstCaps *
cvtest_caps (GstVideoFormat format, gint width, gint height)
{
  return gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, gst_video_format_to_string (format),
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
}

GstBuffer *
cvtest_random_frame (const GstVideoInfo * info, guint pad, GRand * rand)
{
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  gsize total = 0, i;
  guint p, n = GST_VIDEO_INFO_N_PLANES (info);
  GstBuffer *buf;
  GstMapInfo map;

  for (p = 0; p < n; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint rows;

    gst_video_format_info_component (info->finfo, p, comp);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p) + pad;
    offset[p] = total;
    total += (gsize) stride[p] * rows;
  }
  buf = gst_buffer_new_allocate (NULL, total, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i + 4 <= total; i += 4) {
    guint32 v = g_rand_int (rand);
    memcpy (map.data + i, &v, 4);
  }
  for (; i < total; i++)
    map.data[i] = g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n, offset, stride);
  return buf;
}

GstBuffer *
cvtest_load_image (const gchar * path, GstVideoFormat format,
    GstVideoInfo * info_out)
{
  gchar *desc;
  GstElement *pipe, *sink;
  GstSample *sample = NULL;
  GstBuffer *buf = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! videoconvert "
      "! video/x-raw,format=%s ! appsink name=sink sync=false", path,
      gst_video_format_to_string (format));
  pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  if (!pipe)
    return NULL;
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  if (sample) {
    GstVideoFrame f, c;
    GstVideoInfo info;

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    /* copy into a buffer of default strides that outlives the pipeline */
    buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    gst_video_frame_map (&f, &info, gst_sample_get_buffer (sample),
        GST_MAP_READ);
    gst_video_frame_map (&c, &info, buf, GST_MAP_WRITE);
    gst_video_frame_copy (&c, &f);
    gst_video_frame_unmap (&c);
    gst_video_frame_unmap (&f);
    if (info_out)
      *info_out = info;
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return buf;
}
