/* gst-cuda-vision: cudatemplatematch's templates, and loading them from
 * image files without blocking the element's threads.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_TEMPLATE_H__
#define __GST_CV_TEMPLATE_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cvtemplatematch.h"

G_BEGIN_DECLS

/* A template, immutable once made and shared by reference between the
 * element and the frames in flight: the GRAY8 plane with its statistics
 * and a process-unique id (cv, for the C interface), and the GRAY8 sample
 * it was made from (for the template-sample getter). */
typedef struct
{
  CvTemplate cv;
  guint8 *data;                 /* cv.plane.data */
  GstSample *sample;
  /* the image's alpha (cv.plane's size, tight), NULL when it has none or
   * every pixel is opaque (nothing to mask); cv itself is never masked:
   * gstcvtmscales.c makes the masked templates */
  guint8 *alpha;
} GstCvTemplate;

/* A new process-unique template id (CvTemplate.id). */
guint64 gst_cv_template_next_id (void);

GstCvTemplate *gst_cv_template_ref (GstCvTemplate * t);
void gst_cv_template_unref (GstCvTemplate * t);

/* A template from an application's sample of raw video (any format
 * gst_video_convert_sample() converts to GRAY8); its alpha, when the
 * format has one, read from the sample (converted to RGBA when it is not
 * packed 8-bit RGB with alpha). The sample must have
 * caps of raw video and a buffer holding a whole frame of them; NULL with
 * *error (a sentence to show) otherwise. Synchronous: the conversion of an
 * in-memory frame. */
GstCvTemplate *gst_cv_template_new_from_sample (GstSample * sample,
    gchar ** error);

/* Loading a template from an image file (decoded by GStreamer: filesrc !
 * decodebin ! videoconvert ! GRAY8, and the decoder's own output for the
 * alpha, e.g. a PNG with transparency) in a thread of its own, so that
 * neither set_property nor the streaming thread waits for the file system
 * or a decoder for longer than they choose. A path that is not a regular
 * file (a FIFO, a device, a directory) or does not exist fails at once;
 * decoding that does not produce an image within `timeout` fails. */
typedef struct _GstCvTemplateLoad GstCvTemplateLoad;

GstCvTemplateLoad *gst_cv_template_load_file (const gchar * path,
    GstClockTime timeout);

/* Wait at most `timeout` for the load to end. TRUE once it has ended, with
 * *tmpl (a new reference) or, on failure, *error (a sentence naming the
 * file and the reason); FALSE when it is still running. */
gboolean gst_cv_template_load_wait (GstCvTemplateLoad * load,
    GstClockTime timeout, GstCvTemplate ** tmpl, gchar ** error);

const gchar *gst_cv_template_load_path (GstCvTemplateLoad * load);
GstCvTemplateLoad *gst_cv_template_load_ref (GstCvTemplateLoad * load);
void gst_cv_template_load_unref (GstCvTemplateLoad * load);

/* An element's template (its own lock): set from a file (loaded as above)
 * or from a sample, read once per frame. The last one set wins. */
typedef struct _GstCvTemplateSource GstCvTemplateSource;

/* timeout: the longest a load may take, and the longest a reader waits */
GstCvTemplateSource *gst_cv_template_source_new (GstClockTime timeout);
void gst_cv_template_source_free (GstCvTemplateSource * src);

/* A file: loading starts at once in its own thread; NULL or "" removes the
 * template. */
void gst_cv_template_source_set_path (GstCvTemplateSource * src,
    const gchar * path);
/* A sample (NULL removes the template): FALSE with *error when it is
 * refused (see gst_cv_template_new_from_sample); frames then fail with
 * "template-sample: <error>". */
gboolean gst_cv_template_source_set_sample (GstCvTemplateSource * src,
    GstSample * sample, gchar ** error);

/* The template for the next frame, waiting for a load set before (at
 * most the timeout): *tmpl a new reference or NULL (no template, or it
 * failed), *error NULL or why it failed ("'path': reason"). */
void gst_cv_template_source_get (GstCvTemplateSource * src,
    GstCvTemplate ** tmpl, gchar ** error);
/* The path set (NULL when the template came from a sample). */
gchar *gst_cv_template_source_dup_path (GstCvTemplateSource * src);

G_END_DECLS
#endif
