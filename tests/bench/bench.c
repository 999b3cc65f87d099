/* cudavision-bench: push pre-made frames through one element and measure.
 *
 *   appsrc (frames in pinned or pageable memory) ! ELEMENT ! fakesink
 *
 * Prints frames/s, the element's mean and p99 latency (sink pad in -> src
 * pad out, wall clock), the element's own per-stage GPU timings (upload,
 * kernel, download from CUDA events, via its post-stats messages) and
 * beside them the physical floor measured on this machine: the PCIe time
 * of the frame's bytes at the pinned cudaMemcpy bandwidth, and the
 * device-memory time of one read of the input and one write of the output
 * at the device-to-device copy bandwidth.
 *
 * This is a program, not a test: it asserts nothing about speed.
 * Run `cudavision-bench --help` for the options.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CUDA
#include "floor.h"
#include "kbench.h"
#endif
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>
#endif

typedef struct
{
  guint n;
  gint64 *t_in;                 /* monotonic us at the element's sink pad */
  gint64 *t_out;                /* ... at the sink */
  GstClockTime dur;
} Times;

static GstPadProbeReturn
probe_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Times *t = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 now = g_get_monotonic_time ();
  guint64 idx = GST_BUFFER_PTS (buf) / t->dur;
  gboolean in = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (pad), "in"));

  if (idx < t->n)
    (in ? t->t_in : t->t_out)[idx] = now;
  return GST_PAD_PROBE_OK;
}

typedef struct
{
  GMutex lock;
  guint frames;
  gdouble up, ker, down;        /* sums of per-frame ms */
} Stats;

/* Runs in the posting thread: add up the element's statistics; an error
 * ends the program (the pipeline cannot recover and the pushing thread may
 * be blocked on a full appsrc). */
static GstBusSyncReply
bus_sync (G_GNUC_UNUSED GstBus * bus, GstMessage * m, gpointer user_data)
{
  Stats *st = user_data;

  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (m, &e, &dbg);
    g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (m->src),
        e->message, dbg ? dbg : "");
    exit (1);
  }
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT) {
    const GstStructure *s = gst_message_get_structure (m);
    guint f;
    gdouble u = 0, k = 0, d = 0;
    if (gst_structure_has_name (s, "cudavision-stats")
        && gst_structure_get_uint (s, "frames", &f)) {
      gst_structure_get_double (s, "upload-ms", &u);
      gst_structure_get_double (s, "kernel-ms", &k);
      gst_structure_get_double (s, "download-ms", &d);
      g_mutex_lock (&st->lock);
      st->frames += f;
      st->up += u * f;
      st->ker += k * f;
      st->down += d * f;
      g_mutex_unlock (&st->lock);
    }
  }
  return GST_BUS_PASS;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  gchar *element = g_strdup ("cudasobel"), *props = NULL;
  gchar *format = g_strdup ("GRAY8"), *backend = g_strdup ("auto");
  gchar *input = g_strdup ("pinned");
  gboolean cuda_mem;
  gint width = 1920, height = 1080, depth = 2, frames = 0, warmup = 20;
  gdouble seconds = 3.0;
  gboolean no_floor = FALSE;
  gchar *kernel = NULL;
  GOptionEntry entries[] = {
    {"element", 'e', 0, G_OPTION_ARG_STRING, &element,
        "Element factory (default cudasobel)", "NAME"},
    {"props", 'p', 0, G_OPTION_ARG_STRING, &props,
        "Element properties, gst-launch syntax: \"threshold=20 ...\"", "PROPS"},
    {"width", 'w', 0, G_OPTION_ARG_INT, &width, "Frame width (1920)", "PX"},
    {"height", 'h', 0, G_OPTION_ARG_INT, &height, "Frame height (1080)", "PX"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
        "Input video format (GRAY8)", "FMT"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "auto, cuda or cpu (auto)", "B"},
    {"depth", 'd', 0, G_OPTION_ARG_INT, &depth, "pipeline-depth 1..4 (2)",
        "N"},
    {"input", 'i', 0, G_OPTION_ARG_STRING, &input,
        "Input frames in 'pinned' (the plugin's allocator), 'pageable' "
          "or 'cuda' memory (frames made on the GPU, memory:CUDAMemory caps "
          "in and out: no PCIe in the loop) (pinned)", "MEM"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Frames to push (default: as many as fit in --seconds)", "N"},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Approximate run time when --frames is not given (3)", "S"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &warmup,
        "Frames left out of the statistics (20)", "N"},
    {"no-floor", 0, 0, G_OPTION_ARG_NONE, &no_floor,
        "Do not measure the PCIe / device-memory floor", NULL},
    {"kernel", 'k', 0, G_OPTION_ARG_STRING, &kernel,
        "Time only the CUDA kernel NAME (sobel, sobel-old, sobel-r2, sobel-r4, sobel-r8, sobel-r16, sobel5, sobel7, canny, "
          "canny-noise, convolve-blur, convolve-edge, "
          "convolve-blur-edge, convolve-custom15, convolve-custom31) on device-resident frames, "
          "launched back to back from a CUDA graph; no GStreamer", "NAME"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- gst-cuda-vision benchmark");
  GError *err = NULL;
  GstVideoInfo info;
  GstElement *pipe, *src, *el, *sink;
  GstAllocator *pinned = NULL;
  GstBuffer *made[4];
  GRand *rand;
  gchar *desc;
  Times t = { 0 };
  GstBus *bus;
  Stats st = { 0 };
  guint pushed = 0, i, n_lat = 0;
  gdouble *lat, fps = 0, lat_mean = 0;
  GstMessage *eos;
  gint64 t0;
  gchar *active = NULL;
  gsize in_bytes, out_bytes = 0;
  GstCaps *caps;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (&argc, &argv);

  if (kernel) {
#ifdef HAVE_CUDA
    double us = 0, bytes = 0;
    char msg[512] = "";
    CvBenchFloor fl = { 0 };
    int iters = frames > 0 ? frames : 200;

    if (cv_bench_measure_floor (0, 256u << 20, 10, &fl) != 0
        || cv_bench_kernel (kernel, format, width, height, iters, &us, &bytes,
            msg, sizeof (msg)) != 0) {
      g_printerr ("kernel benchmark failed: %s%s\n", msg, fl.device);
      return 1;
    }
    g_print ("device       %s\n", fl.device);
    g_print ("kernel       %s %s %dx%d: %.2f us per frame (graph of %d "
        "launches, median of 5)\n", kernel, format, width, height, us, iters);
    g_print ("floor        %.2f us (%.0f bytes at the device-copy bandwidth "
        "%.0f GB/s)\n", bytes / (fl.d2d_gbps * 1e9) * 1e6, bytes, fl.d2d_gbps);
    g_print ("RESULT kernel=%s format=%s size=%dx%d us=%.2f floor_us=%.2f\n",
        kernel, format, width, height, us, bytes / (fl.d2d_gbps * 1e9) * 1e6);
    return 0;
#else
    g_printerr ("built without CUDA: no kernel benchmark\n");
    return 1;
#endif
  }

  if (!gst_video_info_set_format (&info,
          gst_video_format_from_string (format), width, height)
      || GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_UNKNOWN) {
    g_printerr ("bad format or size\n");
    return 2;
  }
  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  info.fps_n = 30;
  info.fps_d = 1;
  in_bytes = GST_VIDEO_INFO_SIZE (&info);

  cuda_mem = g_str_equal (input, "cuda");
  desc = g_strdup_printf ("appsrc name=src format=time max-buffers=2 block=true"
      " ! %s name=el %s ! %s ! fakesink name=sink sync=false", element,
      props ? props : "", cuda_mem ? "video/x-raw(memory:CUDAMemory)" :
      "video/x-raw");
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    g_printerr ("pipeline: %s\n", err ? err->message : "?");
    return 2;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_util_set_object_arg (G_OBJECT (el), "backend", backend);
  g_object_set (el, "pipeline-depth", (guint) depth, "post-stats", TRUE, NULL);
  caps = gst_video_info_to_caps (&info);
  if (cuda_mem) {
    GstCaps *any_cuda =
        gst_caps_from_string ("video/x-raw(memory:CUDAMemory)");
    const gchar *pads[] = { "sink", "src" };
    guint k;

    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));
    /* the element's templates list the formats it takes and gives in CUDA
     * memory (those gstreamer-cuda's allocator can lay out); asking that
     * allocator for another one aborts inside gstreamer-cuda */
    for (k = 0; k < G_N_ELEMENTS (pads); k++) {
      GstPad *pad = gst_element_get_static_pad (el, pads[k]);
      GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
      gboolean any = gst_caps_can_intersect (tmpl, any_cuda);
      gboolean ok = k == 0 ? gst_caps_can_intersect (tmpl, caps) : any;

      gst_caps_unref (tmpl);
      gst_object_unref (pad);
      if (!any) {
        g_printerr ("%s has no CUDA memory on its %s pad (plugin built "
            "without gstreamer-cuda?): use --input pinned\n", element,
            pads[k]);
        return 2;
      }
      if (!ok) {
        g_printerr ("%s does not take %s frames in CUDA memory "
            "(gstreamer-cuda has no layout for them): use --input pinned\n",
            element, format);
        return 2;
      }
    }
    gst_caps_unref (any_cuda);
  }
  g_object_set (src, "caps", caps, NULL);

  /* the frames: 4 distinct random ones, reused */
  if (g_str_equal (input, "pinned")) {
    pinned = gst_allocator_find ("CudaVisionPinned");
    if (!pinned)
      g_printerr ("note: no pinned allocator (built without CUDA): pageable "
          "input\n");
  }
  rand = g_rand_new_with_seed (1);
#ifdef HAVE_GST_CUDA
  if (cuda_mem) {
    /* frames in CUDA memory of a context shared with the element */
    GstCudaContext *ctx;
    GstContext *gctx;
    GstAllocator *alloc;

    if (!gst_cuda_load_library () || !(ctx = gst_cuda_context_new (0))) {
      g_printerr ("no CUDA context: cannot run with --input cuda\n");
      return 1;
    }
    gctx = gst_context_new_cuda_context (ctx);
    gst_element_set_context (pipe, gctx);
    gst_context_unref (gctx);
    gst_cuda_memory_init_once ();
    alloc = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
    for (i = 0; i < 4; i++) {
      GstVideoFrame f;
      guint p;
      GstMemory *mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc),
          ctx, &info);
      GstCudaMemory *cmem = (GstCudaMemory *) mem;

      if (!mem) {
        g_printerr ("could not allocate CUDA memory for %s\n", format);
        return 1;
      }
      made[i] = gst_buffer_new ();
      gst_buffer_append_memory (made[i], mem);
      /* the pitched layout of the CUDA memory */
      gst_buffer_add_video_meta_full (made[i], GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_INFO_FORMAT (&info), width, height,
          GST_VIDEO_INFO_N_PLANES (&info), cmem->info.offset,
          cmem->info.stride);
      /* random data written on the host, uploaded once here */
      gst_video_frame_map (&f, &info, made[i], GST_MAP_WRITE);
      for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
        guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
        gsize k, n = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) *
            GST_VIDEO_FRAME_COMP_HEIGHT (&f, p ? 1 : 0);
        for (k = 0; k < n; k++)
          d[k] = g_rand_int_range (rand, 0, 256);
      }
      gst_video_frame_unmap (&f);
      gst_video_frame_map (&f, &info, made[i], GST_MAP_READ | GST_MAP_CUDA);
      gst_video_frame_unmap (&f);
    }
    gst_object_unref (alloc);
    gst_object_unref (ctx);
  }
#else
  if (cuda_mem) {
    g_printerr ("built without gstreamer-cuda: no --input cuda\n");
    return 1;
  }
#endif
  for (i = 0; i < 4 && !cuda_mem; i++) {
    GstMapInfo map;
    gsize k;
    made[i] = gst_buffer_new_allocate (pinned, in_bytes, NULL);
    if (!made[i] && pinned) {
      g_printerr ("note: pinned allocation failed (no usable GPU?): pageable "
          "input\n");
      gst_clear_object (&pinned);
      made[i] = gst_buffer_new_allocate (NULL, in_bytes, NULL);
    }
    if (!made[i]) {
      g_printerr ("could not allocate input frames (%s memory)\n", input);
      return 1;
    }
    gst_buffer_map (made[i], &map, GST_MAP_WRITE);
    for (k = 0; k + 4 <= map.size; k += 4) {
      guint32 v = g_rand_int (rand);
      memcpy (map.data + k, &v, 4);
    }
    gst_buffer_unmap (made[i], &map);
  }
  g_rand_free (rand);
  gst_caps_unref (caps);

  /* GPU floors first, so that the element runs on a warm device */
  {
#ifdef HAVE_CUDA
    CvBenchFloor fl = { 0 };
    if (!no_floor && !g_str_equal (backend, "cpu")) {
      if (cv_bench_measure_floor (0, 256u << 20, 10, &fl) == 0) {
        g_object_set_data_full (G_OBJECT (pipe), "floor",
            g_memdup2 (&fl, sizeof (fl)), g_free);
      } else {
        g_printerr ("note: no floor measured: %s\n", fl.device);
      }
    }
#endif
  }

  g_mutex_init (&st.lock);
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, bus_sync, &st, NULL);
  if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_printerr ("could not start the pipeline\n");
    return 1;
  }

  /* frame count: as given, or measured over a short first run */
  t.dur = GST_SECOND / 30;
  t.n = frames > 0 ? (guint) frames : 1000000;
  t.t_in = g_new0 (gint64, t.n);
  t.t_out = g_new0 (gint64, t.n);
  {
    GstPad *p = gst_element_get_static_pad (el, "sink");
    g_object_set_data (G_OBJECT (p), "in", GINT_TO_POINTER (1));
    gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, probe_cb, &t, NULL);
    gst_object_unref (p);
    p = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, probe_cb, &t, NULL);
    gst_object_unref (p);
  }

  t0 = g_get_monotonic_time ();
  while (pushed < t.n) {
    GstBuffer *b = gst_buffer_copy (made[pushed % 4]);  /* shares memory */

    GST_BUFFER_PTS (b) = pushed * t.dur;
    GST_BUFFER_DURATION (b) = t.dur;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), b) != GST_FLOW_OK)
      break;
    pushed++;
    if (frames <= 0 && g_get_monotonic_time () - t0 > seconds * 1e6)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  eos = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND, GST_MESSAGE_EOS);
  if (!eos) {
    g_printerr ("no EOS after 120 s\n");
    return 1;
  }
  gst_message_unref (eos);
  {
    GstPad *p = gst_element_get_static_pad (sink, "sink");
    GstCaps *oc = gst_pad_get_current_caps (p);
    GstVideoInfo oi;
    if (oc && gst_video_info_from_caps (&oi, oc))
      out_bytes = GST_VIDEO_INFO_SIZE (&oi);
    if (oc)
      gst_caps_unref (oc);
    gst_object_unref (p);
  }
  {
    GEnumValue *ev;
    gint a;
    GEnumClass *ec;
    g_object_get (el, "active-backend", &a, NULL);
    ec = g_type_class_ref (g_type_from_name ("GstCudaVisionBackend"));
    ev = g_enum_get_value (ec, a);
    active = g_strdup (ev ? ev->value_nick : "?");
    g_type_class_unref (ec);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);

  /* statistics over the frames after the warm-up (at most a quarter of
   * the frames, for slow runs) */
  warmup = MIN ((guint) warmup, pushed / 4);
  lat = g_new (gdouble, pushed);
  {
    gint64 first = 0, last = 0;
    guint nf = 0;
    gdouble sum = 0;
    for (i = warmup; i < pushed; i++) {
      if (!t.t_out[i] || !t.t_in[i])
        continue;
      lat[n_lat++] = (t.t_out[i] - t.t_in[i]) / 1000.0;
      sum += lat[n_lat - 1];
      if (!first)
        first = t.t_out[i];
      last = t.t_out[i];
      nf++;
    }
    if (nf < 2) {
      g_printerr ("too few frames (%u) after the warm-up\n", nf);
      return 1;
    }
    qsort (lat, n_lat, sizeof (gdouble), cmp_double);
    g_print ("element      %s %s\n", element, props ? props : "");
    g_print ("frame        %dx%d %s in (%" G_GSIZE_FORMAT " bytes), out %"
        G_GSIZE_FORMAT " bytes\n", width, height, format, in_bytes, out_bytes);
    g_print ("backend      %s, pipeline-depth %d, %s input\n", active, depth,
        cuda_mem ? "CUDA-memory" : pinned ? "pinned" : "pageable");
    g_print ("frames       %u (%u after warm-up)\n", pushed, nf);
    fps = (nf - 1) * 1e6 / (last - first);
    g_print ("throughput   %.1f frames/s (%.3f ms/frame)\n", fps, 1e3 / fps);
    lat_mean = sum / nf;
    g_print ("latency      mean %.3f ms, p99 %.3f ms (in element, wall)\n",
        lat_mean, lat[(guint) floor (0.99 * (n_lat - 1))]);
    if (st.frames && cuda_mem && depth == 1)
      g_print ("overhead     %.1f us per frame in the element besides the "
          "kernel (wall time per frame - kernel time, frames in CUDA "
          "memory, synchronous)\n", 1e6 / fps - 1e3 * st.ker / st.frames);
    else if (st.frames && cuda_mem)
      g_print ("per frame    %.1f us wall time with the kernel (%.1f us) "
          "overlapped across %d frames in flight\n", 1e6 / fps,
          1e3 * st.ker / st.frames, depth);
    if (st.frames)
      g_print ("stages       upload %.4f ms, kernel %.4f ms, download %.4f ms"
          " (%s, mean of %u frames)\n", st.up / st.frames,
          st.ker / st.frames, st.down / st.frames,
          g_str_equal (active, "cuda") ? "CUDA events" : "CPU wall clock",
          st.frames);
  }
#ifdef HAVE_CUDA
  {
    CvBenchFloor *fl = g_object_get_data (G_OBJECT (pipe), "floor");
    if (fl) {
      double h2d = in_bytes / (fl->h2d_gbps * 1e9) * 1e3;
      double d2h = out_bytes / (fl->d2h_gbps * 1e9) * 1e3;
      double duplex = (in_bytes + out_bytes) / (fl->duplex_gbps * 1e9) * 1e3;
      double dev = (in_bytes + out_bytes) / (fl->d2d_gbps * 1e9) * 1e6;
      g_print ("device       %s\n", fl->device);
      g_print ("bandwidth    H2D %.1f GB/s, D2H %.1f GB/s, both at once %.1f "
          "GB/s, device copy %.0f GB/s (read+write)\n", fl->h2d_gbps,
          fl->d2h_gbps, fl->duplex_gbps, fl->d2d_gbps);
      g_print ("floor        PCIe %.3f ms/frame serial (H2D %.3f + D2H %.3f), "
          "%.3f ms overlapped (%.0f frames/s); kernel %.2f us (one read of "
          "the input and one write of the output at device-copy bandwidth)\n",
          h2d + d2h, h2d, d2h, MAX (MAX (h2d, d2h), duplex),
          1e3 / MAX (MAX (h2d, d2h), duplex), dev);
    }
  }
#endif
  g_print ("RESULT element=%s format=%s size=%dx%d backend=%s depth=%d input=%s"
      " fps=%.1f lat_mean_ms=%.3f lat_p99_ms=%.3f kernel_ms=%.4f\n", element,
      format, width, height, active, depth,
      cuda_mem ? "cuda" : pinned ? "pinned" : "pageable",
      fps, lat_mean, lat[(guint) floor (0.99 * (n_lat - 1))],
      st.frames ? st.ker / st.frames : -1.0);
  for (i = 0; i < 4; i++)
    gst_buffer_unref (made[i]);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (el);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (lat);
  return 0;
}
