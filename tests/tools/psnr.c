/* cv-psnr: PSNR between two images or videos, decoded by GStreamer.
 *
 *   cv-psnr [--format FORMAT] [--max-frames N] [--per-frame] A B
 *
 * A and B: files GStreamer can decode (JPEG, PNG, AVI, Y4M, ...; through
 * decodebin), converted by videoconvert to FORMAT (GRAY8 by default; any
 * 8-bit raw format, e.g. I420, RGB). Frames are compared in order, all
 * components of all planes over the visible width x height:
 *
 *   MSE  = mean over the compared bytes of (a - b)²
 *   PSNR = 10 log10 (255² / MSE) dB   (inf when identical)
 *
 * which is the seed's PSNR (10 log10 (1 / MSE) on [0,1] data). Output:
 * one line per frame with --per-frame, then
 *   frames N  mean-psnr X dB  global-psnr Y dB
 * (mean of the per-frame PSNRs; PSNR of the MSE over all frames).
 * Exit status: 0 done, 1 a file could not be decoded or the sizes differ,
 * 2 bad command line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/app/gstappsink.h>

#include <math.h>
#include <stdlib.h>

typedef struct
{
  GstElement *pipe, *sink;
} Decoder;

static gboolean
decoder_open (Decoder * d, const gchar * path, const gchar * format)
{
  gchar *loc = g_strescape (path, NULL);
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! video/x-raw,format=%s ! appsink name=sink sync=false",
      loc, format);
  GError *err = NULL;

  g_free (loc);
  d->pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!d->pipe) {
    g_printerr ("cv-psnr: %s\n", err ? err->message : "bad pipeline");
    g_clear_error (&err);
    return FALSE;
  }
  d->sink = gst_bin_get_by_name (GST_BIN (d->pipe), "sink");
  if (gst_element_set_state (d->pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_printerr ("cv-psnr: cannot decode %s\n", path);
    return FALSE;
  }
  return TRUE;
}

static void
decoder_close (Decoder * d)
{
  if (d->pipe) {
    GstBus *bus = gst_element_get_bus (d->pipe);
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (m) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      g_printerr ("cv-psnr: %s\n", e->message);
      g_clear_error (&e);
      gst_message_unref (m);
    }
    gst_object_unref (bus);
    gst_element_set_state (d->pipe, GST_STATE_NULL);
    gst_object_unref (d->sink);
    gst_object_unref (d->pipe);
  }
}

/* sum of squared differences and count of compared bytes of two frames */
static gboolean
frame_sse (GstSample * sa, GstSample * sb, double *sse, double *n)
{
  GstVideoInfo ia, ib;
  GstVideoFrame fa, fb;
  guint p;
  int x, y;

  if (!gst_video_info_from_caps (&ia, gst_sample_get_caps (sa)) ||
      !gst_video_info_from_caps (&ib, gst_sample_get_caps (sb)))
    return FALSE;
  if (GST_VIDEO_INFO_WIDTH (&ia) != GST_VIDEO_INFO_WIDTH (&ib) ||
      GST_VIDEO_INFO_HEIGHT (&ia) != GST_VIDEO_INFO_HEIGHT (&ib)) {
    g_printerr ("cv-psnr: sizes differ: %dx%d and %dx%d\n",
        GST_VIDEO_INFO_WIDTH (&ia), GST_VIDEO_INFO_HEIGHT (&ia),
        GST_VIDEO_INFO_WIDTH (&ib), GST_VIDEO_INFO_HEIGHT (&ib));
    return FALSE;
  }
  if (!gst_video_frame_map (&fa, &ia, gst_sample_get_buffer (sa), GST_MAP_READ))
    return FALSE;
  if (!gst_video_frame_map (&fb, &ib, gst_sample_get_buffer (sb), GST_MAP_READ)) {
    gst_video_frame_unmap (&fa);
    return FALSE;
  }
  *sse = 0;
  *n = 0;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    /* visible bytes of a row: up to the last component byte of the
     * plane's last pixel; rows: those of the plane's components */
    guint c, row = 0, rows = 0;
    for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&fa); c++)
      if (GST_VIDEO_FRAME_COMP_PLANE (&fa, c) == p) {
        row = MAX (row, (guint) (GST_VIDEO_FRAME_COMP_OFFSET (&fa, c) -
                GST_VIDEO_FRAME_PLANE_OFFSET (&fa, p) + 1 +
                (GST_VIDEO_FRAME_COMP_WIDTH (&fa, c) - 1) *
                GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, c)));
        rows = MAX (rows, (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c));
      }
    for (y = 0; y < (int) rows; y++) {
      const guint8 *a = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *b = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      for (x = 0; x < (int) row; x++) {
        double d = (double) a[x] - b[x];
        *sse += d * d;
      }
      *n += row;
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return TRUE;
}

static double
to_psnr (double mse)
{
  return mse > 0 ? 10 * log10 (255.0 * 255.0 / mse) : INFINITY;
}

int
main (int argc, char **argv)
{
  gchar *format = NULL;
  gint max_frames = 0;
  gboolean per_frame = FALSE;
  GOptionEntry entries[] = {
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
          "Raw format both are converted to before comparing (default GRAY8)",
        "FORMAT"},
    {"max-frames", 'n', 0, G_OPTION_ARG_INT, &max_frames,
        "Compare at most N frames (0 = all)", "N"},
    {"per-frame", 'p', 0, G_OPTION_ARG_NONE, &per_frame,
        "Print the PSNR of every frame", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("A B - PSNR of B against A");
  GError *err = NULL;
  Decoder da = { NULL, NULL }, db = { NULL, NULL };
  double tot_sse = 0, tot_n = 0, sum_psnr = 0;
  int frames = 0, ret = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc != 3) {
    g_printerr ("%s\n", err ? err->message :
        "usage: cv-psnr [--format FORMAT] [--max-frames N] [--per-frame] A B");
    g_clear_error (&err);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (!format)
    format = g_strdup ("GRAY8");
  if (gst_video_format_from_string (format) == GST_VIDEO_FORMAT_UNKNOWN) {
    g_printerr ("cv-psnr: unknown format %s\n", format);
    return 2;
  }

  if (!decoder_open (&da, argv[1], format)
      || !decoder_open (&db, argv[2], format)) {
    ret = 1;
    goto done;
  }
  while (max_frames <= 0 || frames < max_frames) {
    GstSample *sa = gst_app_sink_pull_sample (GST_APP_SINK (da.sink));
    GstSample *sb = gst_app_sink_pull_sample (GST_APP_SINK (db.sink));
    double sse, n;
    gboolean ok;

    if (!sa || !sb) {
      if (sa || sb)
        g_printerr ("cv-psnr: %s has more frames; compared %d\n",
            sa ? argv[1] : argv[2], frames);
      if (sa)
        gst_sample_unref (sa);
      if (sb)
        gst_sample_unref (sb);
      break;
    }
    ok = frame_sse (sa, sb, &sse, &n);
    gst_sample_unref (sa);
    gst_sample_unref (sb);
    if (!ok) {
      ret = 1;
      goto done;
    }
    if (per_frame)
      g_print ("frame %d  psnr %.3f dB\n", frames, to_psnr (sse / n));
    tot_sse += sse;
    tot_n += n;
    sum_psnr += to_psnr (sse / n);
    frames++;
  }
  if (frames == 0) {
    g_printerr ("cv-psnr: no frame decoded\n");
    ret = 1;
  } else {
    g_print ("frames %d  mean-psnr %.3f dB  global-psnr %.3f dB\n", frames,
        sum_psnr / frames, to_psnr (tot_sse / tot_n));
  }
done:
  decoder_close (&da);
  decoder_close (&db);
  g_free (format);
  return ret;
}
