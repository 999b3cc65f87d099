/* cv-sweep-case: run ONE case of the sweep (tests/sweep/sweep.py) and write
 * what the element did, for the driver to compare.
 *
 *   cv-sweep-case [--out FILE] [--meta FILE] [--record-input FILE]
 *                 [--crop-meta] [--frames N] [--timeout SEC] PIPELINE
 *   cv-sweep-case --list-formats ELEMENT
 *   cv-sweep-case --check-elements NAME[,NAME...]
 *   cv-sweep-case --check-cuda
 *   cv-sweep-case --serve
 *
 * --serve: run many cases in one process (one GStreamer and CUDA start-up
 * for all: creating a CUDA context takes a good part of a second and
 * processes starting at once queue for it). Each line read on stdin is
 * the arguments of one case, quoted as for a shell, plus "--stderr FILE"
 * where its standard error goes; after each case "@@rc N" (its exit
 * status) is written on stdout. A crash or a timeout ends the process
 * (the driver then knows the case and starts another one).
 *
 * PIPELINE is a gst-launch description holding the element under test named
 * "el" and ending in "appsink name=sink". Optionally an element named "rec"
 * (e.g. the cudaupload in front of a CUDA-memory element) is where the input
 * is recorded instead of el's sink pad; it must see system memory.
 *
 * --crop-meta: the videocrop named "crop" crops in place and the frames
 * reach the next element with GstVideoMeta offsets into the full frame and
 * its strides (see crop_query_probe below).
 *
 * --frames N: the element named "limit" (an identity behind decodebin)
 * passes the first N frames, then EOS.
 *
 * Files written:
 *   --out           the visible bytes of every frame reaching the appsink,
 *                   plane after plane, row after row, without stride padding
 *                   (rows of GST_VIDEO_FRAME_COMP_WIDTH x pixel stride
 *                   bytes), frames one after the other;
 *   --record-input  the same for every frame entering el (or rec), mapped
 *                   with gst_video_frame_map (so GstVideoMeta offsets and
 *                   strides, e.g. videocrop's, are honoured);
 *   --meta          one line per fact, the first word saying which:
 *     in-info FORMAT W H FPS_N FPS_D   caps of the recorded pad
 *     in-planes ROWBYTES:ROWS ...      visible plane sizes of the input
 *     in N pts=P dur=D hash=H vmeta=O/S  input frame N (PTS, duration in ns
 *                                      or none, FNV-1a 64 of its visible
 *                                      bytes, the GstVideoMeta offsets and
 *                                      strides or "none")
 *     out-info FORMAT W H MEMORY       caps of el's source pad
 *     out N pts=P dur=D                frame N leaving el
 *     roi N TYPE X Y W H PARAMS        a GstVideoRegionOfInterestMeta of it
 *     labels N SEGMENTS W H HASH       its GstCudaMeanShiftLabelsMeta
 *     sink-info FORMAT W H             caps at the appsink
 *     sink-planes ROWBYTES:ROWS ...
 *     sink N hash=H                    frame N at the appsink
 *     msg STRUCTURE                    an element message of el (not
 *                                      cudavision-stats), as
 *                                      gst_structure_to_string
 *     warning SOURCE DOMAIN:CODE TEXT  a warning message
 *     error SOURCE DOMAIN:CODE TEXT    an error message
 *     end eos|error|timeout
 *
 * Exit status: 0 the pipeline reached EOS, 1 an error (posted on the bus,
 * or the pipeline did not start), 2 bad command line or a pipeline that
 * cannot be built, 3 timeout
 * (the process exits at once without shutting the pipeline down: a
 * deadlock cannot hang it). --list-formats prints one line per pad and
 * memory: "sink|src memory:FEATURE FORMAT FORMAT ...". --check-elements
 * prints the missing ones and exits 1 when there are any. --check-cuda
 * exits 0 when cudasobel starts with backend=cuda, else prints why and
 * exits 77.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FNV_OFFSET G_GUINT64_CONSTANT (0xcbf29ce484222325)
#define FNV_PRIME G_GUINT64_CONSTANT (0x100000001b3)

typedef struct
{
  GMutex lock;
  FILE *meta;
  FILE *out;
  FILE *in;
  GstElement *el;
  guint n_in, n_out, n_sink;
  gboolean in_info_done, out_info_done, sink_info_done;
} Case;

static guint64
fnv1a (guint64 h, const guint8 * p, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= FNV_PRIME;
  }
  return h;
}

static void
meta_printf (Case * c, const gchar * fmt, ...)
{
  va_list ap;

  if (!c->meta)
    return;
  va_start (ap, fmt);
  g_mutex_lock (&c->lock);
  vfprintf (c->meta, fmt, ap);
  fflush (c->meta);
  g_mutex_unlock (&c->lock);
  va_end (ap);
}

/* Visible bytes of plane p: rows of the plane's first component's width
 * times its pixel stride. */
static void
plane_geometry (const GstVideoInfo * info, guint p, gsize * row_bytes,
    guint * rows)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, p, comp);
  *row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

static gchar *
planes_string (const GstVideoInfo * info)
{
  GString *s = g_string_new (NULL);
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize rb;
    guint rows;

    plane_geometry (info, p, &rb, &rows);
    g_string_append_printf (s, "%s%" G_GSIZE_FORMAT ":%u", p ? " " : "", rb,
        rows);
  }
  return g_string_free (s, FALSE);
}

/* Hash the visible bytes of a mapped frame, writing them to f when set. */
static guint64
frame_visible (GstVideoFrame * f, FILE * out, gboolean * write_ok)
{
  guint64 h = FNV_OFFSET;
  guint p, y;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (f); p++) {
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (f, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
    gsize rb;
    guint rows;

    plane_geometry (&f->info, p, &rb, &rows);
    for (y = 0; y < rows; y++) {
      const guint8 *row = data + (gssize) y * stride;
      h = fnv1a (h, row, rb);
      if (out && fwrite (row, 1, rb, out) != rb)
        *write_ok = FALSE;
    }
  }
  return h;
}

static gchar *
time_string (GstClockTime t)
{
  return GST_CLOCK_TIME_IS_VALID (t) ?
      g_strdup_printf ("%" G_GUINT64_FORMAT, t) : g_strdup ("none");
}

static void
die_write (const gchar * what)
{
  g_printerr ("cv-sweep-case: writing %s failed\n", what);
  _exit (2);
}

/* --crop-meta: videocrop (named "crop") crops in place when downstream
 * accepts GstVideoCropMeta and GstVideoMeta. Our elements accept only the
 * latter (gst_video_frame_map does not apply a crop meta), so videocrop
 * copies each frame to default strides. With --crop-meta the allocation
 * query answered downstream of videocrop also lists the crop meta, and the
 * next pad turns the crop meta into what a cropping decoder or camera
 * gives: a GstVideoMeta of the cropped size whose plane offsets point into
 * the full frame, with the full frame's strides. Chroma positions are
 * rounded down as videocrop's copy does. */
static GstPadProbeReturn
crop_query_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) == GST_QUERY_ALLOCATION &&
      gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE, NULL) &&
      !gst_query_find_allocation_meta (q, GST_VIDEO_CROP_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (q, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
crop_to_video_meta_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstVideoCropMeta *crop;
  GstVideoMeta *vm;
  const GstVideoFormatInfo *fi;
  guint p;

  if (!gst_buffer_get_video_crop_meta (buf))
    return GST_PAD_PROBE_OK;
  /* a new buffer sharing the memory: the metas of a pooled buffer go back
   * to the pool with it and must keep the full frame */
  buf = gst_buffer_copy (buf);
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  crop = gst_buffer_get_video_crop_meta (buf);
  vm = gst_buffer_get_video_meta (buf);
  if (!vm) {
    g_printerr ("cv-sweep-case: a crop meta without a video meta\n");
    return GST_PAD_PROBE_DROP;
  }
  fi = gst_video_format_get_info (vm->format);
  for (p = 0; p < vm->n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (fi, p, comp);
    vm->offset[p] +=
        (gsize) (crop->y >> GST_VIDEO_FORMAT_INFO_H_SUB (fi, comp[0])) *
        vm->stride[p] +
        (gsize) (crop->x >> GST_VIDEO_FORMAT_INFO_W_SUB (fi, comp[0])) *
        GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, comp[0]);
  }
  vm->width = crop->width;
  vm->height = crop->height;
  gst_buffer_remove_meta (buf, (GstMeta *) crop);
  return GST_PAD_PROBE_OK;
}

static gboolean
setup_crop_meta (GstElement * pipe)
{
  GstElement *crop = gst_bin_get_by_name (GST_BIN (pipe), "crop");
  GstPad *src, *peer;

  if (!crop)
    return FALSE;
  src = gst_element_get_static_pad (crop, "src");
  peer = gst_pad_get_peer (src);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PULL, crop_query_probe, NULL, NULL);
  if (peer) {
    gst_pad_add_probe (peer, GST_PAD_PROBE_TYPE_BUFFER,
        crop_to_video_meta_probe, NULL, NULL);
    gst_object_unref (peer);
  }
  gst_object_unref (src);
  gst_object_unref (crop);
  return peer != NULL;
}

/* --frames N: the element named "limit" lets N frames through, then
 * sends EOS downstream and returns EOS upstream (identity's eos-after
 * behind decodebin passed frames out of order in GStreamer 1.22: the N-th
 * frame's PTS changed from run to run) */
typedef struct
{
  gint left;
  gboolean eos_sent;
} Limit;

static GstPadProbeReturn
limit_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Limit *l = user_data;

  if (l->left > 0) {
    l->left--;
    return GST_PAD_PROBE_OK;
  }
  if (!l->eos_sent) {
    l->eos_sent = TRUE;
    gst_pad_push_event (pad, gst_event_new_eos ());
  }
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = NULL;
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_EOS;
  return GST_PAD_PROBE_HANDLED;
}

/* el's (or rec's) sink pad: caps and the visible input bytes */
static GstPadProbeReturn
input_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Case *c = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vinfo;
  GstVideoFrame f;
  GstVideoMeta *vm;
  GString *vms;
  gchar *pts, *dur;
  gboolean ok = TRUE;
  guint64 h = 0;
  guint p;

  if (!caps || !gst_video_info_from_caps (&vinfo, caps)) {
    meta_printf (c, "in %u unmapped no-caps\n", c->n_in++);
    if (caps)
      gst_caps_unref (caps);
    return GST_PAD_PROBE_OK;
  }
  if (!c->in_info_done) {
    gchar *planes = planes_string (&vinfo);

    meta_printf (c, "in-info %s %d %d %d %d\nin-planes %s\n",
        GST_VIDEO_INFO_NAME (&vinfo), GST_VIDEO_INFO_WIDTH (&vinfo),
        GST_VIDEO_INFO_HEIGHT (&vinfo), GST_VIDEO_INFO_FPS_N (&vinfo),
        GST_VIDEO_INFO_FPS_D (&vinfo), planes);
    g_free (planes);
    c->in_info_done = TRUE;
  }
  vm = gst_buffer_get_video_meta (buf);
  vms = g_string_new (vm ? "" : "none");
  if (vm) {
    for (p = 0; p < vm->n_planes; p++)
      g_string_append_printf (vms, "%s%" G_GSIZE_FORMAT, p ? "," : "",
          vm->offset[p]);
    g_string_append_c (vms, '/');
    for (p = 0; p < vm->n_planes; p++)
      g_string_append_printf (vms, "%s%d", p ? "," : "", vm->stride[p]);
  }
  if (gst_video_frame_map (&f, &vinfo, buf, GST_MAP_READ)) {
    h = frame_visible (&f, c->in, &ok);
    gst_video_frame_unmap (&f);
    if (!ok)
      die_write ("the input record");
  } else {
    ok = FALSE;
  }
  pts = time_string (GST_BUFFER_PTS (buf));
  dur = time_string (GST_BUFFER_DURATION (buf));
  if (ok)
    meta_printf (c, "in %u pts=%s dur=%s hash=%016" G_GINT64_MODIFIER
        "x vmeta=%s\n", c->n_in, pts, dur, h, vms->str);
  else
    meta_printf (c, "in %u pts=%s dur=%s unmapped vmeta=%s\n", c->n_in, pts,
        dur, vms->str);
  c->n_in++;
  g_free (pts);
  g_free (dur);
  g_string_free (vms, TRUE);
  gst_caps_unref (caps);
  return GST_PAD_PROBE_OK;
}

static void
write_rois (Case * c, GstBuffer * buf)
{
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GString *params = g_string_new (NULL);
    GList *l;

    for (l = roi->params; l; l = l->next) {
      gchar *s = gst_structure_to_string (l->data);
      g_string_append_printf (params, " %s", s);
      g_free (s);
    }
    meta_printf (c, "roi %u %s %u %u %u %u%s\n", c->n_out,
        g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h,
        params->str);
    g_string_free (params, TRUE);
  }
}

/* el's source pad: caps, timestamps and the metas of every output frame
 * (here rather than at the appsink: cudadownload drops video metas) */
static GstPadProbeReturn
output_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Case *c = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gchar *pts, *dur;

  if (!c->out_info_done) {
    GstCaps *caps = gst_pad_get_current_caps (pad);
    GstVideoInfo vinfo;

    if (caps && gst_video_info_from_caps (&vinfo, caps)) {
      GstCapsFeatures *feat = gst_caps_get_features (caps, 0);
      gchar *fs = feat ? gst_caps_features_to_string (feat) :
          g_strdup ("memory:SystemMemory");

      meta_printf (c, "out-info %s %d %d %s\n", GST_VIDEO_INFO_NAME (&vinfo),
          GST_VIDEO_INFO_WIDTH (&vinfo), GST_VIDEO_INFO_HEIGHT (&vinfo), fs);
      g_free (fs);
    }
    if (caps)
      gst_caps_unref (caps);
    c->out_info_done = TRUE;
  }
  pts = time_string (GST_BUFFER_PTS (buf));
  dur = time_string (GST_BUFFER_DURATION (buf));
  meta_printf (c, "out %u pts=%s dur=%s\n", c->n_out, pts, dur);
  g_free (pts);
  g_free (dur);
  write_rois (c, buf);
  {
    /* cudameanshift's custom meta, through GStreamer's API */
    GstCustomMeta *lm = gst_buffer_get_custom_meta (buf,
        "GstCudaMeanShiftLabelsMeta");
    if (lm) {
      const GstStructure *st = gst_custom_meta_get_structure (lm);
      guint w = 0, h = 0, segments = 0;
      GstBuffer *labels = NULL;
      GstMapInfo map;
      guint64 hash = 0;

      gst_structure_get (st, "width", G_TYPE_UINT, &w, "height", G_TYPE_UINT,
          &h, "segments", G_TYPE_UINT, &segments, "labels", GST_TYPE_BUFFER,
          &labels, NULL);
      if (labels && gst_buffer_map (labels, &map, GST_MAP_READ)) {
        hash = fnv1a (FNV_OFFSET, map.data, map.size);
        gst_buffer_unmap (labels, &map);
      }
      gst_clear_buffer (&labels);
      meta_printf (c, "labels %u %u %u %u %016" G_GINT64_MODIFIER "x\n",
          c->n_out, segments, w, h, hash);
    }
  }
  c->n_out++;
  return GST_PAD_PROBE_OK;
}

static GstFlowReturn
new_sample (GstAppSink * sink, gpointer user_data)
{
  Case *c = user_data;
  GstSample *s = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  GstVideoInfo vinfo;
  GstVideoFrame f;
  gboolean ok = TRUE;

  if (!s)
    return GST_FLOW_ERROR;
  if (!gst_video_info_from_caps (&vinfo, gst_sample_get_caps (s))) {
    meta_printf (c, "sink %u no-caps\n", c->n_sink++);
    gst_sample_unref (s);
    return GST_FLOW_OK;
  }
  if (!c->sink_info_done) {
    gchar *planes = planes_string (&vinfo);

    meta_printf (c, "sink-info %s %d %d\nsink-planes %s\n",
        GST_VIDEO_INFO_NAME (&vinfo), GST_VIDEO_INFO_WIDTH (&vinfo),
        GST_VIDEO_INFO_HEIGHT (&vinfo), planes);
    g_free (planes);
    c->sink_info_done = TRUE;
  }
  buf = gst_sample_get_buffer (s);
  if (gst_video_frame_map (&f, &vinfo, buf, GST_MAP_READ)) {
    guint64 h = frame_visible (&f, c->out, &ok);

    gst_video_frame_unmap (&f);
    if (!ok)
      die_write ("the output");
    meta_printf (c, "sink %u hash=%016" G_GINT64_MODIFIER "x\n", c->n_sink, h);
  } else {
    meta_printf (c, "sink %u unmapped\n", c->n_sink);
  }
  c->n_sink++;
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

/* In the posting thread, in posting order: el's element messages, warnings
 * and errors of any element. */
static GstBusSyncReply
bus_sync (GstBus * bus, GstMessage * m, gpointer user_data)
{
  Case *c = user_data;
  GError *e = NULL;
  const gchar *kind = NULL;

  switch (GST_MESSAGE_TYPE (m)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *st = gst_message_get_structure (m);
      gchar *s;

      if (GST_MESSAGE_SRC (m) != GST_OBJECT (c->el) || !st ||
          gst_structure_has_name (st, "cudavision-stats"))
        break;
      s = gst_structure_to_string (st);
      meta_printf (c, "msg %s\n", s);
      g_free (s);
      break;
    }
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (m, &e, NULL);
      kind = "warning";
      break;
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (m, &e, NULL);
      kind = "error";
      break;
    default:
      break;
  }
  if (kind) {
    gchar *text = g_strdup (e->message);

    g_strdelimit (text, "\n", ' ');
    meta_printf (c, "%s %s %s:%d %s\n", kind, GST_MESSAGE_SRC_NAME (m),
        g_quark_to_string (e->domain), e->code, text);
    g_free (text);
    g_error_free (e);
  }
  return GST_BUS_PASS;
}

static int
list_formats (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);
  const GList *l;

  if (!f) {
    g_printerr ("cv-sweep-case: no element %s (GST_PLUGIN_PATH?)\n", name);
    return 2;
  }
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *caps = gst_static_caps_get (&t->static_caps);
    const gchar *dir = t->direction == GST_PAD_SINK ? "sink" : "src";
    guint i, j;

    for (i = 0; i < gst_caps_get_size (caps); i++) {
      const GstStructure *st = gst_caps_get_structure (caps, i);
      GstCapsFeatures *feat = gst_caps_get_features (caps, i);
      const GValue *fmt = gst_structure_get_value (st, "format");
      gchar *fs;

      if (!gst_structure_has_name (st, "video/x-raw") || !fmt)
        continue;
      if (feat && !gst_caps_features_is_any (feat))
        fs = gst_caps_features_to_string (feat);
      else
        fs = g_strdup ("memory:SystemMemory");
      g_print ("%s %s", dir, fs);
      if (GST_VALUE_HOLDS_LIST (fmt)) {
        for (j = 0; j < gst_value_list_get_size (fmt); j++)
          g_print (" %s",
              g_value_get_string (gst_value_list_get_value (fmt, j)));
      } else if (G_VALUE_HOLDS_STRING (fmt)) {
        g_print (" %s", g_value_get_string (fmt));
      }
      g_print ("\n");
      g_free (fs);
    }
    gst_caps_unref (caps);
  }
  gst_object_unref (f);
  return 0;
}

static int
check_elements (const gchar * list)
{
  gchar **names = g_strsplit (list, ",", -1);
  int ret = 0;
  guint i;

  for (i = 0; names[i]; i++) {
    GstElementFactory *f;

    if (!*names[i])
      continue;
    f = gst_element_factory_find (names[i]);
    if (f) {
      gst_object_unref (f);
    } else {
      g_print ("missing %s\n", names[i]);
      ret = 1;
    }
  }
  g_strfreev (names);
  return ret;
}

/* backend=cuda starts (as cvtest_gpu_available: backend=auto picks cuda) */
static int
check_cuda (void)
{
  GstElement *e = gst_element_factory_make ("cudasobel", NULL);
  gint active = 0;

  if (!e) {
    g_print ("cudasobel not found (GST_PLUGIN_PATH?)\n");
    return 77;
  }
  gst_util_set_object_arg (G_OBJECT (e), "backend", "auto");
  if (gst_element_set_state (e, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE)
    g_object_get (e, "active-backend", &active, NULL);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  if (active == 1)              /* GST_CUDA_VISION_BACKEND_CUDA */
    return 0;
  g_print ("backend=cuda cannot start: backend=auto picked the CPU "
      "(no usable CUDA GPU)\n");
  return 77;
}

static FILE *
open_or_die (const gchar * path)
{
  FILE *f = fopen (path, "wb");

  if (!f) {
    g_printerr ("cv-sweep-case: cannot write %s\n", path);
    exit (2);
  }
  return f;
}

static void
close_or_die (FILE * f, const gchar * what)
{
  if (f && fclose (f) != 0)
    die_write (what);
}

/* One case; gst_init() is called here when `init` (after the options,
 * GStreamer's among them), else it was called before. */
static int
run_args (int argc, char **argv, gboolean init)
{
  gchar *out_path = NULL, *meta_path = NULL, *in_path = NULL;
  gchar *list = NULL, *check = NULL;
  gboolean cuda = FALSE, crop_meta = FALSE;
  gint frames = -1;
  Limit limit = { 0, FALSE };
  gdouble timeout = 60.0;
  GOptionEntry entries[] = {
    {"out", 0, 0, G_OPTION_ARG_FILENAME, &out_path,
        "Visible output bytes", "FILE"},
    {"meta", 0, 0, G_OPTION_ARG_FILENAME, &meta_path,
        "Per-frame metadata, messages, errors", "FILE"},
    {"record-input", 0, 0, G_OPTION_ARG_FILENAME, &in_path,
        "Visible input bytes at el's (or rec's) sink pad", "FILE"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &frames,
        "The element named limit passes N frames, then EOS", "N"},
    {"crop-meta", 0, 0, G_OPTION_ARG_NONE, &crop_meta,
        "videocrop (named crop) crops in place: GstVideoMeta offsets", NULL},
    {"timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout,
        "Give up after SEC seconds (exit 3)", "SEC"},
    {"list-formats", 0, 0, G_OPTION_ARG_STRING, &list,
        "Print the element's pad template formats", "ELEMENT"},
    {"check-elements", 0, 0, G_OPTION_ARG_STRING, &check,
        "Print the missing elements of the list", "A,B"},
    {"check-cuda", 0, 0, G_OPTION_ARG_NONE, &cuda,
        "Exit 0 when backend=cuda starts, else 77", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("PIPELINE");
  GError *err = NULL;
  GstElement *pipe, *sink, *rec;
  GstBus *bus;
  GstMessage *m;
  GstPad *pad;
  Case c = { 0 };
  GstAppSinkCallbacks cb;
  int ret;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (init)
    g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("cv-sweep-case: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (init)
    gst_init (NULL, NULL);

  if (list)
    return list_formats (list);
  if (check)
    return check_elements (check);
  if (cuda)
    return check_cuda ();
  if (argc != 2) {
    g_printerr ("usage: cv-sweep-case [--out F] [--meta F] "
        "[--record-input F] [--timeout SEC] PIPELINE\n");
    return 2;
  }

  g_mutex_init (&c.lock);
  c.meta = meta_path ? open_or_die (meta_path) : NULL;
  c.out = out_path ? open_or_die (out_path) : NULL;
  c.in = in_path ? open_or_die (in_path) : NULL;

  pipe = gst_parse_launch_full (argv[1], NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &err);
  if (!pipe) {
    meta_printf (&c, "error parse %s:%d %s\nend error\n",
        g_quark_to_string (err->domain), err->code, err->message);
    g_printerr ("cv-sweep-case: %s\n", err->message);
    return 2;
  }
  c.el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  if (!c.el || !sink || !GST_IS_APP_SINK (sink)) {
    g_printerr ("cv-sweep-case: the pipeline needs an element named el and "
        "an appsink named sink\n");
    return 2;
  }
  g_object_set (sink, "sync", FALSE, "emit-signals", FALSE, NULL);
  memset (&cb, 0, sizeof (cb));
  cb.new_sample = new_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, &c, NULL);

  /* before the input record's probe: probes run in the order added */
  if (crop_meta && !setup_crop_meta (pipe)) {
    g_printerr ("cv-sweep-case: --crop-meta needs a linked videocrop named "
        "crop\n");
    return 2;
  }
  if (frames >= 0) {
    GstElement *lim = gst_bin_get_by_name (GST_BIN (pipe), "limit");

    if (!lim) {
      g_printerr ("cv-sweep-case: --frames needs an element named limit\n");
      return 2;
    }
    limit.left = frames;
    pad = gst_element_get_static_pad (lim, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, limit_probe, &limit,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (lim);
  }
  rec = gst_bin_get_by_name (GST_BIN (pipe), "rec");
  pad = gst_element_get_static_pad (rec ? rec : c.el, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, input_probe, &c, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (c.el, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, output_probe, &c, NULL);
  gst_object_unref (pad);
  if (rec)
    gst_object_unref (rec);

  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, bus_sync, &c, NULL);
  if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* the error message (if any) was written by bus_sync */
    m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (m)
      gst_message_unref (m);
    g_printerr ("cv-sweep-case: the pipeline did not start\n");
    ret = 1;
  } else {
    m = gst_bus_timed_pop_filtered (bus, (GstClockTime) (timeout * GST_SECOND),
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (!m) {
      meta_printf (&c, "end timeout\n");
      g_printerr ("cv-sweep-case: timeout after %.0f s\n", timeout);
      if (c.meta)
        fflush (c.meta);
      _exit (3);
    }
    ret = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS ? 0 : 1;
    if (ret) {
      GError *e = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (m, &e, &dbg);
      g_printerr ("cv-sweep-case: error from %s: %s\n%s\n",
          GST_MESSAGE_SRC_NAME (m), e->message, GST_STR_NULL (dbg));
      g_error_free (e);
      g_free (dbg);
    }
    gst_message_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  /* after NULL: nothing writes any more */
  meta_printf (&c, "end %s\n", ret ? "error" : "eos");
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (c.el);
  gst_object_unref (pipe);
  close_or_die (c.meta, "the metadata");
  close_or_die (c.out, "the output");
  close_or_die (c.in, "the input record");
  g_mutex_clear (&c.lock);
  return ret;
}

/* --serve: cases from stdin, one per line (see the top) */
static int
serve (void)
{
  gchar line[65536];

  gst_init (NULL, NULL);
  while (fgets (line, sizeof (line), stdin)) {
    gchar **args = NULL, **argv, *err_path = NULL;
    GError *err = NULL;
    gint argc = 0, n, i, j, saved = -1, rc;

    g_strchomp (line);
    if (!*line)
      continue;
    if (!g_shell_parse_argv (line, &n, &args, &err)) {
      g_printerr ("cv-sweep-case --serve: %s\n", err->message);
      g_clear_error (&err);
      printf ("@@rc 2\n");
      fflush (stdout);
      continue;
    }
    /* argv[0], then the arguments without --stderr FILE */
    argv = g_new0 (gchar *, n + 2);
    argv[argc++] = g_strdup ("cv-sweep-case");
    for (i = 0; i < n; i++) {
      if (g_str_equal (args[i], "--stderr") && i + 1 < n)
        err_path = args[++i];
      else
        argv[argc++] = args[i];
    }
    if (err_path) {
      gint fd = open (err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

      fflush (stderr);
      if (fd >= 0) {
        saved = dup (2);
        dup2 (fd, 2);
        close (fd);
      }
    }
    {
      /* GOptionContext takes the strings it parses out of argv */
      gchar **copy = g_new0 (gchar *, argc + 1);
      for (j = 0; j < argc; j++)
        copy[j] = argv[j];
      rc = run_args (argc, copy, FALSE);
      g_free (copy);
    }
    if (saved >= 0) {
      fflush (stderr);
      dup2 (saved, 2);
      close (saved);
    }
    g_free (argv[0]);
    g_free (argv);
    g_strfreev (args);
    printf ("@@rc %d\n", rc);
    fflush (stdout);
  }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && g_str_equal (argv[1], "--serve"))
    return serve ();
  return run_args (argc, argv, TRUE);
}
