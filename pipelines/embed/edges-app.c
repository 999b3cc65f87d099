/* gst-cuda-vision: embedding cudasobel in a C application.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Builds  SOURCE ! videoconvert ! videoscale
 *           ! video/x-raw,format=I420,width=W,height=H ! cudasobel name=sobel
 *           ! video/x-raw,format=GRAY8 ! appsink
 * where SOURCE is videotestsrc (a static pattern, default "circular") or a
 * file/URI (uridecodebin), pulls the edge maps from the appsink, prints for
 * every frame the number of non-zero (edge) pixels, and raises cudasobel's
 * threshold while the pipeline is PLAYING once --switch-at frames were
 * read. On a static pattern every frame read before the change has the same
 * count and the count drops once the new threshold reaches the element
 * (frames already queued when it changes still have the old one).
 *
 * Usage: edges-app [--frames N] [--switch-at K] [--threshold-before T0]
 *          [--threshold-after T1] [--pattern NAME] [--size WxH]
 *          [--backend auto|cuda|cpu] [--input FILE-OR-URI] [--build-dir DIR]
 *
 * Output, one line per frame, a summary of the counts, then the summary
 * line shared by the scripts of pipelines/:
 *   frame 3: 68296 edge pixels (threshold 20)
 *   summary: frames 20, backend cpu, first 68296 edges (threshold 20),
 *     last 55862 edges (threshold 120)
 *   edges-app: 20 frames, 95.3 fps, backend cpu, output none
 * Exit status 0 on success, 1 on a GStreamer error (message on stderr),
 * 2 on bad arguments.
 *
 * The plugin: --build-dir DIR scans DIR/plugin; without it
 * GST_PLUGIN_PATH, when set, or the installed plugin; when neither is set
 * the plugin of the build this program was built in (CV_BUILD_PLUGIN_DIR,
 * set by pipelines/meson.build).
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CV_BUILD_PLUGIN_DIR
#define CV_BUILD_PLUGIN_DIR NULL
#endif

typedef struct
{
  gint frames;
  gint switch_at;
  gint threshold_before;
  gint threshold_after;
  gint width, height;
  gchar *pattern;
  gchar *backend;
  gchar *input;
} Options;

/* Non-zero pixels of a GRAY8 frame (rows may be padded: use the stride). */
static guint64
count_edges (GstSample * sample)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint64 n = 0;
  gint x, y;

  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) ||
      GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_GRAY8 ||
      !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    g_printerr ("edges-app: cannot read the frame as GRAY8\n");
    exit (1);
  }
  for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (&frame); y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (x = 0; x < GST_VIDEO_FRAME_WIDTH (&frame); x++)
      n += row[x] != 0;
  }
  gst_video_frame_unmap (&frame);
  return n;
}

/* A pending error on the bus: print it and return TRUE. */
static gboolean
bus_error (GstElement * pipeline, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL;

  gst_object_unref (bus);
  if (msg == NULL)
    return FALSE;
  gst_message_parse_error (msg, &err, &dbg);
  g_printerr ("edges-app: error from %s: %s\n", GST_OBJECT_NAME (msg->src),
      err->message);
  if (dbg)
    g_printerr ("  debug: %s\n", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  return TRUE;
}

static gchar *
build_description (const Options * o)
{
  gchar *src, *desc;

  if (o->input) {
    gchar *uri = gst_uri_is_valid (o->input) ? g_strdup (o->input) :
        gst_filename_to_uri (o->input, NULL);
    if (uri == NULL) {
      g_printerr ("edges-app: bad input %s\n", o->input);
      exit (2);
    }
    /* main () stops after --frames frames */
    src = g_strdup_printf ("uridecodebin uri=\"%s\"", uri);
    g_free (uri);
  } else {
    src = g_strdup_printf ("videotestsrc pattern=%s num-buffers=%d",
        o->pattern, o->frames);
  }
  desc = g_strdup_printf ("%s ! videoconvert ! videoscale "
      "! video/x-raw,format=I420,width=%d,height=%d "
      "! cudasobel name=sobel threshold=%d backend=%s "
      "! video/x-raw,format=GRAY8 ! appsink name=sink sync=false max-buffers=1",
      src, o->width, o->height, o->threshold_before, o->backend);
  g_free (src);
  return desc;
}

int
main (int argc, char **argv)
{
  Options o = { 20, 10, 20, 120, 320, 240, NULL, NULL, NULL };
  gchar *size = NULL, *desc;
  GError *err = NULL;
  GOptionContext *ctx;
  GstElement *pipeline, *sobel, *sink;
  GstSample *sample;
  gint i, ret = 0, current;
  guint64 first = 0, last = 0;
  gint first_thr = 0, last_thr = 0;
  gchar *active = NULL;
  gchar *build_dir = NULL, *plugin_dir = NULL;
  gint64 t0, t1;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT, &o.frames, "Frames to process (20)",
        "N"},
    {"switch-at", 0, 0, G_OPTION_ARG_INT, &o.switch_at,
        "Change the threshold after K frames were read (10)", "K"},
    {"threshold-before", 0, 0, G_OPTION_ARG_INT, &o.threshold_before,
        "Threshold at start, 0..255 (20)", "T0"},
    {"threshold-after", 0, 0, G_OPTION_ARG_INT, &o.threshold_after,
        "Threshold after the change, 0..255 (120)", "T1"},
    {"pattern", 0, 0, G_OPTION_ARG_STRING, &o.pattern,
        "videotestsrc pattern (circular)", "NAME"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "Frame size (320x240)", "WxH"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &o.backend,
        "cudasobel backend: auto, cuda or cpu (auto)", "B"},
    {"input", 0, 0, G_OPTION_ARG_STRING, &o.input,
        "Video file or URI instead of videotestsrc", "FILE"},
    {"build-dir", 0, 0, G_OPTION_ARG_FILENAME, &build_dir,
        "Take the plugin from DIR/plugin (default: GST_PLUGIN_PATH when "
          "set, else this program's build)", "DIR"},
    {NULL}
  };

  ctx = g_option_context_new ("- cudasobel in an application");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("edges-app: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (o.pattern == NULL)
    o.pattern = g_strdup ("circular");
  if (o.backend == NULL)
    o.backend = g_strdup ("auto");
  if (size && sscanf (size, "%dx%d", &o.width, &o.height) != 2) {
    g_printerr ("edges-app: --size must be WIDTHxHEIGHT\n");
    return 2;
  }
  if (o.frames < 1 || o.switch_at < 0 || o.width < 1 || o.height < 1 ||
      o.threshold_before < 0 || o.threshold_before > 255 ||
      o.threshold_after < 0 || o.threshold_after > 255) {
    g_printerr ("edges-app: bad argument (see --help)\n");
    return 2;
  }
  if (build_dir != NULL)
    plugin_dir = g_build_filename (build_dir, "plugin", NULL);
  else if (g_getenv ("GST_PLUGIN_PATH") == NULL && CV_BUILD_PLUGIN_DIR)
    plugin_dir = g_strdup (CV_BUILD_PLUGIN_DIR);
  if (plugin_dir != NULL) {
    gchar *so = g_build_filename (plugin_dir, "libgstcudavision.so", NULL);
    gboolean found = g_file_test (so, G_FILE_TEST_IS_REGULAR);

    g_free (so);
    if (!found && build_dir != NULL) {
      g_printerr ("edges-app: no plugin in %s\n", plugin_dir);
      return 2;
    }
    if (found)
      gst_registry_scan_path (gst_registry_get (), plugin_dir);
    g_free (plugin_dir);
  }

  desc = build_description (&o);
  g_print ("pipeline: %s\n", desc);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  /* a missing element (no cudasobel on GST_PLUGIN_PATH...) may still give a
   * partial pipeline, with the error set */
  if (pipeline == NULL || err != NULL) {
    g_printerr ("edges-app: %s\n", err ? err->message : "no pipeline");
    g_clear_error (&err);
    if (pipeline)
      gst_object_unref (pipeline);
    return 1;
  }
  sobel = gst_bin_get_by_name (GST_BIN (pipeline), "sobel");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_assert (sobel != NULL && sink != NULL);

  t0 = g_get_monotonic_time ();
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    if (!bus_error (pipeline, 0))
      g_printerr ("edges-app: the pipeline could not start\n");
    ret = 1;
    goto done;
  }

  current = o.threshold_before;
  for (i = 0; i < o.frames; i++) {
    guint64 n;

    if (i == o.switch_at) {
      /* cudasobel reads its properties once per frame, under the object
       * lock: setting one while PLAYING is safe from any thread. */
      g_object_set (sobel, "threshold", o.threshold_after, NULL);
      current = o.threshold_after;
      g_print ("threshold set to %d while playing\n", current);
    }
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_SECOND);
    if (sample == NULL) {
      if (!bus_error (pipeline, 0))
        g_printerr ("edges-app: %s after %d frames\n",
            gst_app_sink_is_eos (GST_APP_SINK (sink)) ? "end of stream" :
            "no frame within 10 s", i);
      ret = 1;
      break;
    }
    n = count_edges (sample);
    gst_sample_unref (sample);
    g_print ("frame %d: %" G_GUINT64_FORMAT " edge pixels (threshold %d)\n",
        i, n, current);
    if (i == 0) {
      first = n;
      first_thr = current;
    }
    last = n;
    last_thr = current;
  }
  t1 = g_get_monotonic_time ();
  if (ret == 0 && bus_error (pipeline, 0))
    ret = 1;
  if (ret == 0) {
    GEnumValue *v;
    gint backend;

    g_object_get (sobel, "active-backend", &backend, NULL);
    v = g_enum_get_value (G_ENUM_CLASS (g_type_class_peek
            (G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property
                    (G_OBJECT_GET_CLASS (sobel), "active-backend")))), backend);
    active = g_strdup (v ? v->value_nick : "?");
    g_print ("summary: frames %d, backend %s, first %" G_GUINT64_FORMAT
        " edges (threshold %d), last %" G_GUINT64_FORMAT
        " edges (threshold %d)\n", o.frames, active, first, first_thr, last,
        last_thr);
    g_print ("edges-app: %d frames, %.1f fps, backend %s, output none\n",
        o.frames, t1 > t0 ? o.frames * 1e6 / (t1 - t0) : 0.0, active);
  }

done:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sobel);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (active);
  g_free (o.pattern);
  g_free (o.backend);
  g_free (o.input);
  g_free (size);
  g_free (build_dir);
  return ret;
}
