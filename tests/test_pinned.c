/* The pinned host memory allocator and pool (plugin/gstcvpinned.c) on
 * their own: allocation parameters honoured as GStreamer's system memory
 * allocator honours them, video pools of every layout, and the pipeline
 * that crashed (videoscale writing RGBA into pinned pool buffers that
 * started 63 bytes into their block).
 *
 * Built twice: test_pinned (cpu suite) links a stand-in for cudaHostAlloc
 * (fake-cudart.c) that places blocks at chosen alignments and checks
 * containment; test_pinned_cuda (gpu suite) links the CUDA runtime and
 * allocates real pinned memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"

#include <string.h>

#include <gst/app/gstappsink.h>

#include "gstcvpinned.h"
#ifdef CVTEST_FAKE_CUDART
#include "fake-cudart.h"
#else
#include <cuda_runtime_api.h>
#endif

/* where the block of a memory lies, as far as the test can know: with the
 * stand-in, exactly; with the real runtime, not at all (TRUE) */
static void
check_inside_block (const guint8 * p, gsize n)
{
#ifdef CVTEST_FAKE_CUDART
  const guint8 *block;
  gsize size;

  fail_unless (fake_cudart_block (p, &block, &size), "%p is in no block", p);
  fail_unless (p >= block && p + n <= block + size,
      "bytes %p..%p outside the block %p..%p", p, p + n, block, block + size);
#else
  (void) p;
  (void) n;
#endif
}

static const gsize aligns[] = { 0, 1, 3, 7, 15, 31, 63, 127, 255, 4095 };
static const gsize prefixes[] = { 0, 1, 13, 64 };
static const gsize paddings[] = { 0, 1, 31 };
static const gsize sizes[] = { 1, 2, 3, 17, 612, 4097, 8294400 + 1 };

static void
check_params (GstAllocator * a, gsize size, const GstAllocationParams * params)
{
  GstAllocationParams p = *params;
  gsize align = p.align | gst_memory_alignment, i;
  GstMemory *mem, *sub, *copy;
  GstMapInfo map;
  guint8 *start;

  mem = gst_allocator_alloc (a, size, &p);
  fail_unless (mem != NULL);
  fail_unless (gst_memory_is_type (mem, GST_CV_PINNED_MEMORY_TYPE));
  fail_unless_equals_int (mem->size, size);
  fail_unless_equals_int (mem->offset, p.prefix);
  fail_unless (mem->maxsize >= p.prefix + size + p.padding);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READWRITE));
  fail_unless_equals_int (map.size, size);
  start = map.data - p.prefix;
  /* the block starts (prefix included) on the alignment */
  fail_unless (((guintptr) start & align) == 0,
      "size %" G_GSIZE_FORMAT " align %" G_GSIZE_FORMAT " prefix %"
      G_GSIZE_FORMAT ": data %p not aligned", size, p.align, p.prefix, start);
  /* all of maxsize is inside the block */
  check_inside_block (start, mem->maxsize);
  if (p.flags & GST_MEMORY_FLAG_ZERO_PREFIXED)
    for (i = 0; i < p.prefix; i++)
      fail_unless_equals_int (start[i], 0);
  if (p.flags & GST_MEMORY_FLAG_ZERO_PADDED)
    for (i = p.prefix + size; i < mem->maxsize; i++)
      fail_unless_equals_int (start[i], 0);
  /* writes to prefix + size + padding (all of maxsize) stay in the block:
   * the stand-in's canary, or AddressSanitizer, catches the others */
  memset (start, 0x11, mem->maxsize);
  memset (map.data, 0x22, size);
  gst_memory_unmap (mem, &map);

  /* a share and a copy see the same bytes */
  if (size > 2) {
    sub = gst_memory_share (mem, 1, size - 2);
    fail_unless (gst_memory_map (sub, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, size - 2);
    fail_unless_equals_int (map.data[0], 0x22);
    gst_memory_unmap (sub, &map);
    gst_memory_unref (sub);
  }
  copy = gst_memory_copy (mem, 0, -1);
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, size);
  fail_unless_equals_int (map.data[size - 1], 0x22);
  gst_memory_unmap (copy, &map);
  gst_memory_unref (copy);
  /* resize into the padding */
  if (p.padding) {
    gst_memory_resize (mem, 0, size + p.padding);
    fail_unless_equals_int (mem->size, size + p.padding);
  }
  gst_memory_unref (mem);
}

static GstAllocator *
pinned_allocator (void)
{
  GstAllocator *a = gst_cv_pinned_allocator_get ();

  fail_unless (a != NULL);
  return a;
}

GST_START_TEST (test_allocation_params)
{
  GstAllocator *a = pinned_allocator ();
#ifdef CVTEST_FAKE_CUDART
  /* blocks as cudaHostAlloc gives them (64-byte aligned), page aligned,
   * and at odd addresses */
  const gsize starts[] = { 64, 0, 1, 3, 17, 4032 };
#else
  const gsize starts[] = { 0 };
#endif
  guint s, i, j, k, l, f;

  for (s = 0; s < G_N_ELEMENTS (starts); s++) {
#ifdef CVTEST_FAKE_CUDART
    fake_cudart_set_misalign (starts[s]);
#endif
    for (i = 0; i < G_N_ELEMENTS (sizes); i++)
      for (j = 0; j < G_N_ELEMENTS (aligns); j++)
        for (k = 0; k < G_N_ELEMENTS (prefixes); k++)
          for (l = 0; l < G_N_ELEMENTS (paddings); l++)
            for (f = 0; f < 2; f++) {
              GstAllocationParams p;

              /* the large size once per alignment only: it is slow */
              if (sizes[i] > 1000000 && (k || l || f))
                continue;
              gst_allocation_params_init (&p);
              p.align = aligns[j];
              p.prefix = prefixes[k];
              p.padding = paddings[l];
              p.flags = f ? GST_MEMORY_FLAG_ZERO_PREFIXED |
                  GST_MEMORY_FLAG_ZERO_PADDED : 0;
              check_params (a, sizes[i], &p);
            }
  }
#ifdef CVTEST_FAKE_CUDART
  fake_cudart_set_misalign (64);
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
  gst_object_unref (a);
}

GST_END_TEST;

/* the plugin's own parameters: every buffer's data on 64 bytes */
GST_START_TEST (test_own_params)
{
  GstAllocator *a = pinned_allocator ();
  GstAllocationParams p;

  gst_cv_pinned_allocation_params (&p);
  fail_unless_equals_int (p.align, 63);
  check_params (a, 612, &p);
  check_params (a, 1920 * 1080 * 4, &p);
  gst_object_unref (a);
}

GST_END_TEST;

/* too large requests fail cleanly */
GST_START_TEST (test_overflow)
{
  GstAllocator *a = pinned_allocator ();
  GstAllocationParams p;

  gst_allocation_params_init (&p);
  p.align = 63;
  p.prefix = 16;
  fail_unless (gst_allocator_alloc (a, G_MAXSIZE - 8, &p) == NULL);
  gst_object_unref (a);
}

GST_END_TEST;

static const GstVideoFormat pool_formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_GRAY16_LE,
};

static const gint pool_sizes[][2] = {
  {1, 1}, {2, 1}, {1, 2}, {17, 9}, {33, 17}, {97, 61}, {513, 257},
  {641, 479}, {1283, 719}, {1920, 1080},
};

/* pools of every layout: each plane's rows lie inside the buffer's block,
 * plane 0 starts on 64 bytes, and every visible byte can be written */
GST_START_TEST (test_pool)
{
  guint f, z, n;

  for (f = 0; f < G_N_ELEMENTS (pool_formats); f++)
    for (z = 0; z < G_N_ELEMENTS (pool_sizes); z++) {
      GstVideoInfo info;
      GstCaps *caps;
      GstBufferPool *pool;
      GstBuffer *bufs[3];

      gst_video_info_set_format (&info, pool_formats[f], pool_sizes[z][0],
          pool_sizes[z][1]);
      caps = gst_video_info_to_caps (&info);
      pool = gst_cv_pinned_pool_new (caps, &info, 3);
      fail_unless (pool != NULL);
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      for (n = 0; n < 3; n++) {
        GstVideoFrame frame;
        guint p;

        fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool,
                &bufs[n], NULL), GST_FLOW_OK);
        fail_unless (gst_memory_is_type (gst_buffer_peek_memory (bufs[n], 0),
                GST_CV_PINNED_MEMORY_TYPE));
        fail_unless (gst_video_frame_map (&frame, &info, bufs[n],
                GST_MAP_WRITE));
        fail_unless (((guintptr) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) & 63)
            == 0, "%s %dx%d: plane 0 at %p", GST_VIDEO_INFO_NAME (&info),
            pool_sizes[z][0], pool_sizes[z][1],
            GST_VIDEO_FRAME_PLANE_DATA (&frame, 0));
        for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
          gint comp[GST_VIDEO_MAX_COMPONENTS];
          guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
          gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), y, rows;

          gst_video_format_info_component (info.finfo, p, comp);
          rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
          check_inside_block (d, stride * (rows - 1) +
              GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
              GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]));
          for (y = 0; y < rows; y++)
            memset (d + y * stride, (int) (p + 1),
                GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
                GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]));
        }
        gst_video_frame_unmap (&frame);
      }
      for (n = 0; n < 3; n++)
        gst_buffer_unref (bufs[n]);
      fail_unless (gst_buffer_pool_set_active (pool, FALSE));
      gst_object_unref (pool);
      gst_caps_unref (caps);
    }
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
}

GST_END_TEST;

/* appsink answers the ALLOCATION query as the elements do: GstVideoMeta
 * and the pinned allocator and pool */
static GstPadProbeReturn
propose_pinned (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_meta (q, GST_VIDEO_META_API_TYPE, NULL);
  gst_cv_pinned_propose_allocation (q, 3);
  (*(guint *) user_data)++;
  return GST_PAD_PROBE_HANDLED;
}

/* Visible bytes of every frame, row by row, into a checksum; with the
 * probe also asserts that the frames are in pinned memory. */
static gchar *
run_scale (GstVideoFormat fmt, gint w, gint h, gboolean pinned)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=smpte num-buffers=3 ! "
      "video/x-raw,width=320,height=240 ! videoconvert ! videoscale ! "
      "video/x-raw,format=%s,width=%d,height=%d ! appsink name=sink "
      "sync=false", gst_video_format_to_string (fmt), w, h);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstSample *sample;
  guint frames = 0, proposals = 0;
  gchar *res;

  if (pinned)
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
        propose_pinned, &proposals, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer *buf = gst_sample_get_buffer (sample);
    guint p, y;

    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    if (pinned)
      fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
              GST_CV_PINNED_MEMORY_TYPE), "%s %dx%d: frame %u not pinned",
          gst_video_format_to_string (fmt), w, h, frames);
    fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS];

      gst_video_format_info_component (info.finfo, p, comp);
      for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
          y++)
        g_checksum_update (sum, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
                p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p),
            GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]));
    }
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
    frames++;
  }
  fail_unless_equals_int (frames, 3);
  if (pinned)
    fail_unless (proposals > 0, "the ALLOCATION query never reached appsink");
  gst_element_set_state (pipe, GST_STATE_NULL);
  res = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return res;
}

/* The crash: videoscale (ORC) writing RGBA frames into pinned pool
 * buffers. Same visible bytes as into system memory, no crash. */
GST_START_TEST (test_videoscale_into_pinned)
{
  const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12
  };
  const gint dims[][2] = { {17, 9}, {33, 17}, {96, 64}, {97, 61},
  {400, 300}, {513, 257}, {641, 479}, {1283, 719}
  };
  guint f, z;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (z = 0; z < G_N_ELEMENTS (dims); z++) {
      gchar *ref = run_scale (fmts[f], dims[z][0], dims[z][1], FALSE);
      gchar *got = run_scale (fmts[f], dims[z][0], dims[z][1], TRUE);

      fail_unless_equals_string (got, ref);
      g_free (ref);
      g_free (got);
    }
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
}

GST_END_TEST;

static Suite *
pinned_suite (void)
{
  Suite *s = suite_create ("pinned");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_allocation_params);
  tcase_add_test (tc, test_own_params);
  tcase_add_test (tc, test_overflow);
  tcase_add_test (tc, test_pool);
  tcase_add_test (tc, test_videoscale_into_pinned);
  return s;
}

/* The plugin is not loaded here (it holds a copy of the same types): the
 * allocator is the one compiled into this program. */
int
main (int argc, char **argv)
{
  SRunner *sr;
  int nf;

  gst_check_init (&argc, &argv);
#ifndef CVTEST_FAKE_CUDART
  {
    int n = 0;
    if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0) {
      g_print ("SKIP: no usable CUDA device\n");
      return 77;
    }
  }
#endif
  gst_cv_pinned_allocator_register ();
  sr = srunner_create (pinned_suite ());
  srunner_run_all (sr, CK_NORMAL);
  nf = srunner_ntests_failed (sr);
  srunner_free (sr);
  return nf == 0 ? 0 : 1;
}
