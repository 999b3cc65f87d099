/* GPU-resident pipelines: memory:CUDAMemory caps with nvcodec's elements.
 *
 * CPU suite: the pad templates offer CUDA memory, an element that runs on
 * the CPU never negotiates it, system memory in gives system memory out.
 * GPU suite: cudaupload/nvh264dec -> our elements -> cudadownload give the
 * same frames as the system-memory path, with no host copy in our
 * elements (host-transfers == 0), also for a chain of three elements;
 * two elements on two GPUs when the machine has two.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"

#include <string.h>

#define CUDA_FEATURE "memory:CUDAMemory"

static const gchar *elements[] = { "cudasobel", "cudaconvolve",
  "cudatemplatematch", "cudanlmeans", "cudameanshift", "cudacanny"
};

static gboolean
caps_have_feature (GstCaps * caps, const gchar * feature)
{
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, feature))
      return TRUE;
  }
  return FALSE;
}

#ifndef CVTEST_HAVE_GST_CUDA
#define CVTEST_HAVE_GST_CUDA 0
#endif
#if CVTEST_HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#endif

GST_START_TEST (test_templates_offer_both_memories)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElementFactory *f = gst_element_factory_find (elements[i]);
    const GList *l;

    fail_unless (f != NULL, "%s missing", elements[i]);
    for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
      GstStaticPadTemplate *t = l->data;
      GstCaps *caps = gst_static_pad_template_get_caps (t);
      /* CUDA memory only in a build with gstreamer-cuda */
      fail_unless_equals_int (caps_have_feature (caps, CUDA_FEATURE),
          CVTEST_HAVE_GST_CUDA);
      fail_unless (caps_have_feature (caps,
              GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY), "%s %s: no system memory",
          elements[i], t->name_template);
      gst_caps_unref (caps);
    }
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* An element running on the CPU offers no CUDA memory on either pad. */
GST_START_TEST (test_cpu_backend_offers_no_cuda_memory)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElement *e = gst_element_factory_make (elements[i], NULL);
    GstPad *sink = gst_element_get_static_pad (e, "sink");
    GstPad *src = gst_element_get_static_pad (e, "src");
    GstCaps *c;

    gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
    /* before start (backend=cpu) and after start */
    c = gst_pad_query_caps (sink, NULL);
    fail_if (caps_have_feature (c, CUDA_FEATURE), "%s", elements[i]);
    gst_caps_unref (c);
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    c = gst_pad_query_caps (sink, NULL);
    fail_if (caps_have_feature (c, CUDA_FEATURE), "%s", elements[i]);
    fail_if (gst_caps_is_empty (c));
    gst_caps_unref (c);
    c = gst_pad_query_caps (src, NULL);
    fail_if (caps_have_feature (c, CUDA_FEATURE), "%s", elements[i]);
    gst_caps_unref (c);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (src);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* System memory in, a downstream that takes either memory: system memory out
 * (frames are not moved to the GPU for nothing), on every backend. */
GST_START_TEST (test_system_memory_stays_system_memory)
{
  GstHarness *h = cvtest_harness_new ("cudasobel", NULL);
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (3);
  GstCaps *caps;

  gst_harness_set_sink_caps_str (h, "video/x-raw(" CUDA_FEATURE "), "
      "format=NV12; video/x-raw, format={ GRAY8, NV12 }");
  gst_harness_set_src_caps (h, cvtest_caps (GST_VIDEO_FORMAT_I420, 64, 48));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  fail_unless_equals_int (gst_harness_push (h, cvtest_random_frame (&info, 0,
              rand)), GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  gst_buffer_unref (gst_harness_pull (h));
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_if (caps_have_feature (caps, CUDA_FEATURE));
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "format"), "GRAY8");
  gst_caps_unref (caps);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* CUDA memory caps pushed at an element running on the CPU are refused. */
GST_START_TEST (test_cuda_caps_refused_on_cpu)
{
  GstHarness *h = cvtest_harness_new ("cudasobel", "cpu");
  GstVideoInfo info;
  GRand *rand = g_rand_new_with_seed (4);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(" CUDA_FEATURE "), "
      "format=NV12, width=64, height=48, framerate=30/1");

  gst_harness_set_src_caps (h, caps);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
  fail_unless_equals_int (gst_harness_push (h, cvtest_random_frame (&info, 0,
              rand)), GST_FLOW_NOT_NEGOTIATED);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- GPU pipelines ---- */

typedef struct
{
  GPtrArray *samples;
  GPtrArray *samples1;          /* of appsink "sink1", when there is one */
  guint64 transfers[4];         /* host-transfers of elements e0..e3 */
  gint ctx_device[4];           /* their gst.cuda.context's device, -1 */
  guintptr ctx[4];              /* and the GstCudaContext (compared only) */
} Run;

static void
pull_all (GstElement * sink, GPtrArray * into)
{
  GstSample *s;

  while (TRUE) {
    s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    if (!s)
      break;
    g_ptr_array_add (into, s);
  }
}

/* Run desc to EOS, collect the samples of appsink "sink" (and "sink1":
 * both unbounded, pulled one after the other) and the host-transfers of
 * elements named e0, e1, ... */
/* the CUDA context an element answers a context query with */
static void
element_context (GstElement * e, gint * device, guintptr * ctx)
{
  GstQuery *q = gst_query_new_context ("gst.cuda.context");
  GstContext *c = NULL;

  *device = -1;
  *ctx = 0;
  if (gst_element_query (e, q)) {
    gst_query_parse_context (q, &c);
    if (c) {
      const GstStructure *st = gst_context_get_structure (c);
      /* cuda-device-id: guint in GStreamer 1.22, gint before */
      const GValue *dev = gst_structure_get_value (st, "cuda-device-id");
      const GValue *obj = gst_structure_get_value (st, "gst.cuda.context");

      if (dev && G_VALUE_HOLDS_UINT (dev))
        *device = (gint) g_value_get_uint (dev);
      else if (dev && G_VALUE_HOLDS_INT (dev))
        *device = g_value_get_int (dev);
      if (obj && G_VALUE_HOLDS_OBJECT (obj))
        *ctx = (guintptr) g_value_get_object (obj);
    }
  }
  gst_query_unref (q);
}

static Run run_built (GstElement * p, const gchar * desc);

static Run
run_pipeline (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "");
  return run_built (p, desc);
}

/* run_pipeline () of a pipeline made already (takes it) */
static Run
run_built (GstElement * p, const gchar * desc)
{
  GstElement *sink, *sink1;
  Run r = { 0 };
  GstBus *bus;
  GstMessage *m;
  guint i;

  r.samples = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  r.samples1 = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s", desc);
  pull_all (sink, r.samples);
  if ((sink1 = gst_bin_get_by_name (GST_BIN (p), "sink1"))) {
    pull_all (sink1, r.samples1);
    gst_object_unref (sink1);
  }
  bus = gst_element_get_bus (p);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (m) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (m, &e, &dbg);
    fail ("%s: %s (%s)", desc, e->message, dbg);
  }
  for (i = 0; i < 4; i++) {
    gchar name[8];
    GstElement *e;
    g_snprintf (name, sizeof (name), "e%u", i);
    if ((e = gst_bin_get_by_name (GST_BIN (p), name))) {
      g_object_get (e, "host-transfers", &r.transfers[i], NULL);
      element_context (e, &r.ctx_device[i], &r.ctx[i]);
      gst_object_unref (e);
    } else {
      r.ctx_device[i] = -1;
    }
  }
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  return r;
}

static void
run_clear (Run * r)
{
  g_ptr_array_unref (r->samples);
  g_ptr_array_unref (r->samples1);
}

/* same number of frames, same pixels, same timestamps */
static void
assert_same_samples (GPtrArray * a, GPtrArray * b)
{
  guint i, p, y;

  fail_unless_equals_int (a->len, b->len);
  fail_unless (a->len > 0);
  for (i = 0; i < a->len; i++) {
    GstSample *sa = g_ptr_array_index (a, i);
    GstSample *sb = g_ptr_array_index (b, i);
    GstVideoInfo ia, ib;
    GstVideoFrame fa, fb;

    fail_unless (gst_video_info_from_caps (&ia, gst_sample_get_caps (sa)));
    fail_unless (gst_video_info_from_caps (&ib, gst_sample_get_caps (sb)));
    fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&ia),
        GST_VIDEO_INFO_FORMAT (&ib));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer (sa)),
        GST_BUFFER_PTS (gst_sample_get_buffer (sb)));
    fail_unless (gst_video_frame_map (&fa, &ia, gst_sample_get_buffer (sa),
            GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fb, &ib, gst_sample_get_buffer (sb),
            GST_MAP_READ));
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS];
      guint rows, bytes;
      gst_video_format_info_component (ia.finfo, p, comp);
      rows = GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]);
      bytes = GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0]) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
      for (y = 0; y < rows; y++)
        fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p),
                (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p), bytes) == 0,
            "frame %u plane %u row %u differs", i, p, y);
    }
    gst_video_frame_unmap (&fa);
    gst_video_frame_unmap (&fb);
  }
}

static void
assert_same_frames (Run * a, Run * b)
{
  assert_same_samples (a->samples, b->samples);
}

#define SRC "videotestsrc pattern=ball num-buffers=20 ! " \
  "video/x-raw,format=NV12,width=640,height=480,framerate=30/1"

GST_START_TEST (test_cuda_memory_sobel)
{
  Run gpu = run_pipeline (SRC " ! cudaupload ! cudasobel name=e0 "
      "threshold=10 ! video/x-raw(" CUDA_FEATURE ") ! cudadownload ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false");
  Run cpu = run_pipeline (SRC " ! cudasobel backend=cpu threshold=10 ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false");

  assert_same_frames (&gpu, &cpu);
  fail_unless_equals_int (gpu.samples->len, 20);
  fail_unless_equals_uint64 (gpu.transfers[0], 0);
  run_clear (&gpu);
  run_clear (&cpu);
}

GST_END_TEST;

/* cudacanny in CUDA memory (NV12 out): the CPU's frames, no host copy */
GST_START_TEST (test_cuda_memory_canny)
{
  Run gpu = run_pipeline (SRC " ! cudaupload ! cudacanny name=e0 "
      "low-threshold=30 high-threshold=90 kernel-size=5 ! video/x-raw("
      CUDA_FEATURE ") ! cudadownload ! video/x-raw,format=NV12 ! "
      "appsink name=sink sync=false");
  Run cpu = run_pipeline (SRC " ! cudacanny backend=cpu low-threshold=30 "
      "high-threshold=90 kernel-size=5 ! video/x-raw,format=NV12 ! "
      "appsink name=sink sync=false");

  assert_same_frames (&gpu, &cpu);
  fail_unless_equals_int (gpu.samples->len, 20);
  fail_unless_equals_uint64 (gpu.transfers[0], 0);
  run_clear (&gpu);
  run_clear (&cpu);
}

GST_END_TEST;

GST_START_TEST (test_cuda_memory_chain_of_three)
{
  Run gpu = run_pipeline (SRC " ! cudaupload ! cudaconvolve name=e0 "
      "filters=blur ! cudasobel name=e1 ! video/x-raw(" CUDA_FEATURE
      ") ! cudaconvolve name=e2 filters=sharpen ! cudadownload ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false");
  Run cpu = run_pipeline (SRC " ! cudaconvolve backend=cpu filters=blur ! "
      "cudasobel backend=cpu ! video/x-raw,format=NV12 ! "
      "cudaconvolve backend=cpu filters=sharpen ! appsink name=sink "
      "sync=false");
  guint i;

  assert_same_frames (&gpu, &cpu);
  for (i = 0; i < 3; i++)
    fail_unless (gpu.transfers[i] == 0, "element e%u copied %" G_GUINT64_FORMAT
        " planes through the host", i, gpu.transfers[i]);
  run_clear (&gpu);
  run_clear (&cpu);
}

GST_END_TEST;

/* NVDEC straight into cudasobel: the same frames as decoding to system
 * memory first, and no host copy in cudasobel. */
GST_START_TEST (test_nvh264dec_sobel)
{
  gchar *path = g_build_filename (cvtest_media_dir (), "sample-h264.mp4",
      NULL);
  gchar *a, *b;
  Run gpu, cpu;
  GstElementFactory *f = gst_element_factory_find ("nvh264dec");

  fail_unless (f != NULL, "nvh264dec is not available");
  gst_object_unref (f);
  fail_unless (g_file_test (path, G_FILE_TEST_EXISTS), "%s missing", path);
  a = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse ! "
      "nvh264dec ! cudasobel name=e0 ! video/x-raw(" CUDA_FEATURE ") ! "
      "cudadownload ! video/x-raw,format=NV12 ! appsink name=sink "
      "sync=false", path);
  b = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse ! "
      "nvh264dec ! cudadownload ! video/x-raw,format=NV12 ! cudasobel "
      "backend=cpu ! video/x-raw,format=NV12 ! appsink name=sink sync=false",
      path);
  gpu = run_pipeline (a);
  cpu = run_pipeline (b);
  assert_same_frames (&gpu, &cpu);
  fail_unless_equals_uint64 (gpu.transfers[0], 0);
  run_clear (&gpu);
  run_clear (&cpu);
  g_free (a);
  g_free (b);
  g_free (path);
}

GST_END_TEST;

/* Two elements on two GPUs in one process: cudaupload's context (device
 * 0) is refused by the element on device 1, which then copies the frames
 * through the host and still gives the right result. */
GST_START_TEST (test_two_gpus)
{
  Run gpu = run_pipeline (SRC " ! cudaupload cuda-device-id=0 ! "
      "cudasobel name=e0 device-id=0 ! video/x-raw(" CUDA_FEATURE ") ! "
      "cudaconvolve name=e1 device-id=1 backend=cuda filters=blur ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false");
  Run cpu = run_pipeline (SRC " ! cudasobel backend=cpu ! "
      "video/x-raw,format=NV12 ! cudaconvolve backend=cpu filters=blur ! "
      "appsink name=sink sync=false");

  assert_same_frames (&gpu, &cpu);
  fail_unless_equals_uint64 (gpu.transfers[0], 0);
  fail_unless (gpu.transfers[1] > 0);
  run_clear (&gpu);
  run_clear (&cpu);
}

GST_END_TEST;

/* One pipeline, two branches of the same frames, each through cudaupload
 * and cudasobel on its own device (d0, d1) and cudadownload: each element
 * shares the context of cudaupload on its device (host-transfers 0: a
 * context of another device would be refused and the frames copied
 * through the host) and gives the CPU's frames. Loop 0: devices 0 and 1;
 * loop 1 (the dry run on one GPU): both on device 0. */
GST_START_TEST (test_two_gpus_shared_contexts)
{
  gint d0 = 0, d1 = __i__ == 0 ? 1 : 0;
  gchar *desc = g_strdup_printf (SRC " ! tee name=t "
      "t. ! queue ! cudaupload cuda-device-id=%d ! cudasobel name=e0 "
      "device-id=%d backend=cuda threshold=10 ! video/x-raw(" CUDA_FEATURE
      ") ! cudadownload ! video/x-raw,format=NV12 ! appsink name=sink "
      "sync=false "
      "t. ! queue ! cudaupload cuda-device-id=%d ! cudasobel name=e1 "
      "device-id=%d backend=cuda threshold=10 ! video/x-raw(" CUDA_FEATURE
      ") ! cudadownload ! video/x-raw,format=NV12 ! appsink name=sink1 "
      "sync=false", d0, d0, d1, d1);
  Run gpu = run_pipeline (desc);
  Run cpu = run_pipeline (SRC " ! cudasobel backend=cpu threshold=10 ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false");

  g_print ("two GPUs%s: cudasobel on devices %d and %d: %u and %u frames, "
      "host-transfers %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT "\n",
      __i__ ? " (dry run)" : "", d0, d1, gpu.samples->len, gpu.samples1->len,
      gpu.transfers[0], gpu.transfers[1]);
  assert_same_samples (gpu.samples, cpu.samples);
  assert_same_samples (gpu.samples1, cpu.samples);
  fail_unless_equals_uint64 (gpu.transfers[0], 0);
  fail_unless_equals_uint64 (gpu.transfers[1], 0);
  /* each element's context is of its device */
  fail_unless_equals_int (gpu.ctx_device[0], d0);
  fail_unless_equals_int (gpu.ctx_device[1], d1);
  if (d0 != d1)
    fail_unless (gpu.ctx[0] != gpu.ctx[1]);
  run_clear (&gpu);
  run_clear (&cpu);
  g_free (desc);
}

GST_END_TEST;

/* The context of device 0 given to an element on device d1 before it
 * starts (as an application's gst_element_set_context () would): on two
 * GPUs (loop 0, d1 = 1) refused (docs/cuda-memory.md), the element finds
 * a context of its own device and still gives the CPU's frames; in the dry
 * run (loop 1, d1 = 0) taken: both elements answer with that context. */
GST_START_TEST (test_two_gpus_given_context)
{
  gint d1 = __i__ == 0 ? 1 : 0;
  gchar *desc = g_strdup_printf (SRC " ! cudasobel name=e0 device-id=0 "
      "backend=cuda threshold=10 ! video/x-raw,format=NV12 ! "
      "cudaconvolve name=e1 device-id=%d backend=cuda filters=blur ! "
      "video/x-raw,format=NV12 ! appsink name=sink sync=false", d1);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *e0, *e1;
  GstContext *c0 = NULL;
  GstQuery *q;
  Run gpu, cpu;

  /* device 0's context: the one cudasobel device-id=0 finds at READY */
  fail_unless (p != NULL);
  e0 = gst_bin_get_by_name (GST_BIN (p), "e0");
  e1 = gst_bin_get_by_name (GST_BIN (p), "e1");
  fail_unless (gst_element_set_state (e0, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  q = gst_query_new_context ("gst.cuda.context");
  fail_unless (gst_element_query (e0, q), "no CUDA context on device 0");
  gst_query_parse_context (q, &c0);
  fail_unless (c0 != NULL);
  gst_context_ref (c0);
  gst_query_unref (q);
  gst_element_set_context (e1, c0);
  gst_object_unref (e0);
  gst_object_unref (e1);
  gst_context_unref (c0);

  gpu = run_built (p, desc);
  cpu = run_pipeline (SRC " ! cudasobel backend=cpu threshold=10 ! "
      "video/x-raw,format=NV12 ! cudaconvolve backend=cpu filters=blur ! "
      "appsink name=sink sync=false");
  g_print ("given context%s: e0 on device %d, e1 on device %d (%s)\n",
      __i__ ? " (dry run)" : "", gpu.ctx_device[0], gpu.ctx_device[1],
      gpu.ctx[0] == gpu.ctx[1] ? "the same context" : "its own context");
  fail_unless_equals_int (gpu.ctx_device[0], 0);
  fail_unless_equals_int (gpu.ctx_device[1], d1);
  fail_unless_equals_int (gpu.ctx[0] == gpu.ctx[1], d1 == 0);
  assert_same_frames (&gpu, &cpu);
  run_clear (&gpu);
  run_clear (&cpu);
  g_free (desc);
}

GST_END_TEST;

static int
gpu_count (void)
{
  /* elements started with device-id N fail when device N does not exist */
  int n = 0;
  while (n < 16) {
    GstElement *e = gst_element_factory_make ("cudasobel", NULL);
    GstStateChangeReturn r;
    gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
    g_object_set (e, "device-id", n, NULL);
    r = gst_element_set_state (e, GST_STATE_PAUSED);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
    if (r == GST_STATE_CHANGE_FAILURE)
      break;
    n++;
  }
  return n;
}

#if CVTEST_HAVE_GST_CUDA
/* An application thread that pushes frames into an element with a CUDA
 * context of its own current finds it current again after each frame,
 * the context stack as it was: the element pushes and pops its context,
 * and the pinned staging of system-memory input (taken at the first
 * frame, from the process-wide cache) is allocated with the device's
 * primary context pushed on top and popped. Before that fix the staging
 * went through cudaSetDevice, which put the primary context in place of
 * the caller's. */
GST_START_TEST (test_caller_context_kept)
{
  GstCudaContext *mine;
  GstHarness *h;
  CUcontext top = NULL;
  guint i;

  fail_unless (gst_cuda_load_library ());
  mine = gst_cuda_context_new (0);
  fail_unless (mine != NULL);
  h = cvtest_harness_new ("cudasobel", "cuda");
  g_object_set (h->element, "pipeline-depth", 1, NULL);
  gst_harness_set_src_caps (h, cvtest_caps (GST_VIDEO_FORMAT_GRAY8, 64, 48));
  fail_unless (gst_cuda_context_push (mine));
  for (i = 0; i < 3; i++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, 64 * 48, NULL);

    gst_buffer_memset (b, 0, 40 * i, 64 * 48);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    fail_unless (gst_cuda_context_pop (&top));
    fail_unless (top == gst_cuda_context_get_handle (mine),
        "frame %u: the caller's CUDA context is no longer current", i);
    fail_unless (gst_cuda_context_push (mine));
  }
  fail_unless (gst_cuda_context_pop (&top));
  /* the last frame leaves from the element's output thread */
  fail_unless_equals_int (cvtest_wait_for_outputs (h, 3), 3);
  gst_harness_teardown (h);
  gst_object_unref (mine);
}

GST_END_TEST;
#endif

static Suite *
cudamem_suite (void)
{
  Suite *s = suite_create ("cudamemory");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_templates_offer_both_memories);
  tcase_add_test (tc, test_cpu_backend_offers_no_cuda_memory);
  tcase_add_test (tc, test_system_memory_stays_system_memory);
  tcase_add_test (tc, test_cuda_caps_refused_on_cpu);
  if (cvtest_backend_is_cuda ()) {
    tcase_add_test (tc, test_cuda_memory_sobel);
    tcase_add_test (tc, test_cuda_memory_canny);
    tcase_add_test (tc, test_cuda_memory_chain_of_three);
    tcase_add_test (tc, test_nvh264dec_sobel);
#if CVTEST_HAVE_GST_CUDA
    tcase_add_test (tc, test_caller_context_kept);
#endif
    /* the dry run of the two-GPU tests: both devices 0 */
    tcase_add_loop_test (tc, test_two_gpus_shared_contexts, 1, 2);
    tcase_add_loop_test (tc, test_two_gpus_given_context, 1, 2);
    if (gpu_count () >= 2) {
      tcase_add_test (tc, test_two_gpus);
      tcase_add_loop_test (tc, test_two_gpus_shared_contexts, 0, 1);
      tcase_add_loop_test (tc, test_two_gpus_given_context, 0, 1);
    } else {
      g_print ("NOTE: one GPU: the two-GPU tests (test_two_gpus, "
          "test_two_gpus_shared_contexts and test_two_gpus_given_context on "
          "devices 0 and 1) are not registered; their dry run on device 0 "
          "is\n");
    }
  }
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cvtest_run_suite (cudamem_suite ());
}
