/* gst-cuda-vision: cudatemplatematch's templates (see gstcvtemplate.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvtemplate.h"
#include "gstcvformat.h"

GST_DEBUG_CATEGORY_STATIC (gst_cv_template_debug);
#define GST_CAT_DEFAULT gst_cv_template_debug

static void
ensure_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cv_template_debug, "cudatemplatematch-load",
        0, "cudatemplatematch template loading");
    g_once_init_leave (&once, 1);
  }
}

static void
template_clear (gpointer p)
{
  GstCvTemplate *t = p;

  g_free (t->data);
  g_free (t->alpha);
  if (t->sample)
    gst_sample_unref (t->sample);
}

GstCvTemplate *
gst_cv_template_ref (GstCvTemplate * t)
{
  return t ? g_atomic_rc_box_acquire (t) : NULL;
}

void
gst_cv_template_unref (GstCvTemplate * t)
{
  if (t)
    g_atomic_rc_box_release_full (t, template_clear);
}

guint64
gst_cv_template_next_id (void)
{
  static guint64 next_id = 1;   /* template ids, unique in the process */
  static GMutex id_lock;
  guint64 id;

  g_mutex_lock (&id_lock);
  id = next_id++;
  g_mutex_unlock (&id_lock);
  return id;
}

/* The alpha of a raw video sample, w x h bytes, or NULL when its format
 * has none, its size is not w x h, or every pixel is opaque. */
static guint8 *
alpha_of (GstSample * sample, gint w, gint h)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstSample *rgba = NULL;
  guint8 *a = NULL;
  gboolean opaque = TRUE;
  gint x, y;

  if (!sample || !gst_video_info_from_caps (&info, gst_sample_get_caps
          (sample)) || !GST_VIDEO_INFO_HAS_ALPHA (&info))
    return NULL;
  switch (GST_VIDEO_INFO_FORMAT (&info)) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
      break;
    default:{
      GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
          G_TYPE_STRING, "RGBA", NULL);
      rgba = gst_video_convert_sample (sample, caps, 10 * GST_SECOND, NULL);
      gst_caps_unref (caps);
      if (!rgba || !gst_video_info_from_caps (&info,
              gst_sample_get_caps (rgba))) {
        if (rgba)
          gst_sample_unref (rgba);
        return NULL;
      }
      sample = rgba;
    }
  }
  if (GST_VIDEO_INFO_WIDTH (&info) == w && GST_VIDEO_INFO_HEIGHT (&info) == h
      && gst_video_frame_map (&f, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    const guint8 *base = GST_VIDEO_FRAME_COMP_DATA (&f, GST_VIDEO_COMP_A);
    const gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, GST_VIDEO_COMP_A);
    const gint rs = GST_VIDEO_FRAME_COMP_STRIDE (&f, GST_VIDEO_COMP_A);

    a = g_malloc ((gsize) w * h);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        a[(gsize) y * w + x] = base[(gsize) y * rs + (gsize) x * ps];
        opaque = opaque && a[(gsize) y * w + x] == 255;
      }
    gst_video_frame_unmap (&f);
  }
  if (rgba)
    gst_sample_unref (rgba);
  if (opaque) {
    g_free (a);
    a = NULL;
  }
  return a;
}

/* The template of a GRAY8 sample whose frame was checked to be whole, with
 * the alpha of orig (the sample before its conversion to GRAY8). */
static GstCvTemplate *
template_from_gray8 (GstSample * sample, GstSample * orig, gchar ** error)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstCvTemplate *t;
  gint y, w, h;

  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_GRAY8
      || !gst_video_frame_map (&f, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    *error = g_strdup ("the decoded template is not a whole GRAY8 frame");
    return NULL;
  }
  w = GST_VIDEO_INFO_WIDTH (&info);
  h = GST_VIDEO_INFO_HEIGHT (&info);
  t = g_atomic_rc_box_new0 (GstCvTemplate);
  t->data = g_malloc ((gsize) w * h);
  for (y = 0; y < h; y++)
    memcpy (t->data + (gsize) y * w, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
            0) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0), w);
  gst_video_frame_unmap (&f);
  t->cv.plane.data = t->data;
  t->cv.plane.stride = w;
  t->cv.plane.width = w;
  t->cv.plane.height = h;
  cv_template_stats (&t->cv);
  t->cv.id = gst_cv_template_next_id ();
  t->sample = gst_sample_ref (sample);
  t->alpha = alpha_of (orig, w, h);
  return t;
}

GstCvTemplate *
gst_cv_template_new_from_sample (GstSample * sample, gchar ** error)
{
  GstCaps *caps = sample ? gst_sample_get_caps (sample) : NULL;
  GstBuffer *buf = sample ? gst_sample_get_buffer (sample) : NULL;
  GstCaps *gray_caps;
  GstSample *gray;
  GstCvTemplate *t = NULL;
  GstVideoInfo info;
  GstVideoFrame f;
  GError *err = NULL;

  ensure_debug ();
  if (!caps || !buf) {
    *error = g_strdup_printf ("the sample has no %s",
        !caps ? "caps" : "buffer");
    return NULL;
  }
  if (!gst_video_info_from_caps (&info, caps)) {
    gchar *s = gst_caps_to_string (caps);
    *error = g_strdup_printf ("the sample's caps (%s) are not raw video", s);
    g_free (s);
    return NULL;
  }
  /* a video meta that gst_video_frame_map () would assert on (a
   * CRITICAL): refused first */
  {
    gchar *why = NULL;

    if (!gst_cuda_vision_meta_mappable (buf, &info, &why)) {
      *error = g_strdup_printf ("the sample's buffer does not match its "
          "caps: %s", why);
      g_free (why);
      return NULL;
    }
  }
  /* a whole frame of the caps (or of its video meta) */
  if (!gst_video_frame_map (&f, &info, buf, GST_MAP_READ)) {
    *error = g_strdup_printf ("the sample's buffer (%" G_GSIZE_FORMAT
        " bytes) does not hold a %s %dx%d frame (%" G_GSIZE_FORMAT " bytes)",
        gst_buffer_get_size (buf), GST_VIDEO_INFO_NAME (&info),
        GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
        GST_VIDEO_INFO_SIZE (&info));
    return NULL;
  }
  gst_video_frame_unmap (&f);
  gray_caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "GRAY8", NULL);
  gray = gst_video_convert_sample (sample, gray_caps, 10 * GST_SECOND, &err);
  gst_caps_unref (gray_caps);
  if (gray) {
    t = template_from_gray8 (gray, sample, error);
    gst_sample_unref (gray);
  } else {
    *error = g_strdup_printf ("could not convert it to GRAY8: %s",
        err ? err->message : "unknown reason");
  }
  g_clear_error (&err);
  return t;
}

/* ------------------------------------------------------------------------ */
/* Loading from a file */

struct _GstCvTemplateLoad
{
  gchar *path;
  GstClockTime timeout;
  GMutex lock;
  GCond cond;
  gboolean done;
  GstCvTemplate *tmpl;
  gchar *error;
};

GstCvTemplateLoad *
gst_cv_template_load_ref (GstCvTemplateLoad * load)
{
  return g_atomic_rc_box_acquire (load);
}

static void
load_clear (gpointer p)
{
  GstCvTemplateLoad *l = p;

  g_free (l->path);
  gst_cv_template_unref (l->tmpl);
  g_free (l->error);
  g_mutex_clear (&l->lock);
  g_cond_clear (&l->cond);
}

void
gst_cv_template_load_unref (GstCvTemplateLoad * load)
{
  if (load)
    g_atomic_rc_box_release_full (load, load_clear);
}

const gchar *
gst_cv_template_load_path (GstCvTemplateLoad * load)
{
  return load->path;
}

/* Decode the file to one GRAY8 frame (the loading thread). */
static GstCvTemplate *
decode_file (const gchar * path, GstClockTime timeout, gchar ** error)
{
  GstElement *pipe, *src, *sink, *raw;
  GstBus *bus;
  GstMessage *msg;
  GstSample *sample = NULL, *raw_sample = NULL;
  GstCvTemplate *t = NULL;
  GError *err = NULL;

  /* a FIFO, a device or a directory would block open() or never end */
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    *error = g_strdup ("no such file");
    return NULL;
  }
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    *error = g_strdup ("not a regular file (a FIFO, device or directory "
        "cannot be a template)");
    return NULL;
  }
  /* the luma as before (decodebin ! videoconvert ! GRAY8), and the
   * decoder's own output for the alpha */
  pipe = gst_parse_launch ("filesrc name=src ! decodebin ! tee name=t ! "
      "queue ! videoconvert ! video/x-raw,format=GRAY8 ! "
      "appsink name=sink sync=false max-buffers=1 "
      "t. ! queue ! appsink name=raw caps=video/x-raw sync=false "
      "max-buffers=1", &err);
  if (!pipe) {
    *error = g_strdup_printf ("no decoder pipeline: %s",
        err ? err->message : "unknown reason");
    g_clear_error (&err);
    return NULL;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  raw = gst_bin_get_by_name (GST_BIN (pipe), "raw");
  g_object_set (src, "location", path, NULL);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ASYNC_DONE);
  if (!msg) {
    *error = g_strdup_printf ("decoding did not finish within %"
        GST_TIME_FORMAT, GST_TIME_ARGS (timeout));
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    *error = g_strdup (err->message);
    g_clear_error (&err);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    *error = g_strdup ("the file holds no image");
  } else {
    g_signal_emit_by_name (sink, "pull-preroll", &sample);
    if (!sample)
      *error = g_strdup ("the file holds no image");
    else
      g_signal_emit_by_name (raw, "pull-preroll", &raw_sample);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (sample) {
    t = template_from_gray8 (sample, raw_sample, error);
    gst_sample_unref (sample);
  }
  if (raw_sample)
    gst_sample_unref (raw_sample);
  gst_object_unref (raw);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return t;
}

static gpointer
load_thread (gpointer data)
{
  GstCvTemplateLoad *l = data;
  gchar *error = NULL;
  GstCvTemplate *t = decode_file (l->path, l->timeout, &error);

  GST_DEBUG ("template %s: %s", l->path, t ? "loaded" : error);
  g_mutex_lock (&l->lock);
  l->tmpl = t;
  l->error = t ? NULL : g_strdup_printf ("'%s': %s", l->path, error);
  l->done = TRUE;
  g_cond_broadcast (&l->cond);
  g_mutex_unlock (&l->lock);
  g_free (error);
  gst_cv_template_load_unref (l);
  return NULL;
}

GstCvTemplateLoad *
gst_cv_template_load_file (const gchar * path, GstClockTime timeout)
{
  GstCvTemplateLoad *l = g_atomic_rc_box_new0 (GstCvTemplateLoad);
  GThread *thread;
  GError *err = NULL;

  ensure_debug ();
  l->path = g_strdup (path);
  l->timeout = timeout;
  g_mutex_init (&l->lock);
  g_cond_init (&l->cond);
  thread = g_thread_try_new ("cvtemplate-load", load_thread,
      gst_cv_template_load_ref (l), &err);
  if (thread) {
    g_thread_unref (thread);
  } else {
    l->error = g_strdup_printf ("'%s': no thread to load it: %s", path,
        err->message);
    l->done = TRUE;
    g_clear_error (&err);
    gst_cv_template_load_unref (l);     /* the thread's reference */
  }
  return l;
}

gboolean
gst_cv_template_load_wait (GstCvTemplateLoad * l, GstClockTime timeout,
    GstCvTemplate ** tmpl, gchar ** error)
{
  gint64 end = g_get_monotonic_time () + timeout / GST_USECOND;
  gboolean done;

  g_mutex_lock (&l->lock);
  while (!l->done)
    if (!g_cond_wait_until (&l->cond, &l->lock, end))
      break;
  done = l->done;
  if (done) {
    *tmpl = gst_cv_template_ref (l->tmpl);
    *error = g_strdup (l->error);
  }
  g_mutex_unlock (&l->lock);
  return done;
}

/* ------------------------------------------------------------------------ */
/* An element's template */

struct _GstCvTemplateSource
{
  GMutex lock;
  GstClockTime timeout;
  gchar *path;
  GstCvTemplate *tmpl;
  gchar *error;
  GstCvTemplateLoad *pending;
};

GstCvTemplateSource *
gst_cv_template_source_new (GstClockTime timeout)
{
  GstCvTemplateSource *src = g_new0 (GstCvTemplateSource, 1);

  g_mutex_init (&src->lock);
  src->timeout = timeout;
  return src;
}

/* replace everything (taking t, error and pending) */
static void
source_set (GstCvTemplateSource * src, GstCvTemplate * t, gchar * error,
    GstCvTemplateLoad * pending, const gchar * path)
{
  GstCvTemplate *old;
  GstCvTemplateLoad *old_pending;

  g_mutex_lock (&src->lock);
  old = src->tmpl;
  src->tmpl = t;
  g_free (src->error);
  src->error = error;
  old_pending = src->pending;
  src->pending = pending;
  g_free (src->path);
  src->path = g_strdup (path);
  g_mutex_unlock (&src->lock);
  gst_cv_template_unref (old);
  if (old_pending)
    gst_cv_template_load_unref (old_pending);
}

void
gst_cv_template_source_free (GstCvTemplateSource * src)
{
  source_set (src, NULL, NULL, NULL, NULL);
  g_mutex_clear (&src->lock);
  g_free (src);
}

void
gst_cv_template_source_set_path (GstCvTemplateSource * src, const gchar * path)
{
  if (!path || !*path)
    source_set (src, NULL, NULL, NULL, NULL);
  else
    source_set (src, NULL, NULL, gst_cv_template_load_file (path,
            src->timeout), path);
}

gboolean
gst_cv_template_source_set_sample (GstCvTemplateSource * src,
    GstSample * sample, gchar ** error)
{
  GstCvTemplate *t;

  if (!sample) {
    source_set (src, NULL, NULL, NULL, NULL);
    return TRUE;
  }
  t = gst_cv_template_new_from_sample (sample, error);
  source_set (src, t, t ? NULL : g_strdup_printf ("template-sample: %s",
          *error), NULL, NULL);
  return t != NULL;
}

/* wait for the pending load, if any, and make its outcome the template */
static void
finish_pending (GstCvTemplateSource * src)
{
  GstCvTemplateLoad *load;
  GstCvTemplate *t = NULL;
  gchar *error = NULL;

  g_mutex_lock (&src->lock);
  load = src->pending ? gst_cv_template_load_ref (src->pending) : NULL;
  g_mutex_unlock (&src->lock);
  if (!load)
    return;
  if (!gst_cv_template_load_wait (load, src->timeout, &t, &error))
    error = g_strdup_printf ("'%s': still loading after %" GST_TIME_FORMAT,
        gst_cv_template_load_path (load), GST_TIME_ARGS (src->timeout));
  g_mutex_lock (&src->lock);
  if (src->pending == load) {
    gst_cv_template_load_unref (src->pending);
    src->pending = NULL;
    gst_cv_template_unref (src->tmpl);
    src->tmpl = t;
    g_free (src->error);
    src->error = error;
    t = NULL;
    error = NULL;
  }
  g_mutex_unlock (&src->lock);
  /* a newer template was set meanwhile: this outcome is stale */
  gst_cv_template_unref (t);
  g_free (error);
  gst_cv_template_load_unref (load);
}

void
gst_cv_template_source_get (GstCvTemplateSource * src, GstCvTemplate ** tmpl,
    gchar ** error)
{
  finish_pending (src);
  g_mutex_lock (&src->lock);
  *tmpl = gst_cv_template_ref (src->tmpl);
  *error = g_strdup (src->error);
  g_mutex_unlock (&src->lock);
}

gchar *
gst_cv_template_source_dup_path (GstCvTemplateSource * src)
{
  gchar *path;

  g_mutex_lock (&src->lock);
  path = g_strdup (src->path);
  g_mutex_unlock (&src->lock);
  return path;
}
