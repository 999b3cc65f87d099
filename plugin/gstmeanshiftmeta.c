/* gst-cuda-vision: GstMeanShiftLabelsMeta, see gstmeanshiftmeta.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/video/video.h>

#include "gstmeanshiftmeta.h"

GType
gst_mean_shift_labels_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstMeanShiftLabelsMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
labels_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstMeanShiftLabelsMeta *m = (GstMeanShiftLabelsMeta *) meta;

  m->width = m->height = m->n_segments = 0;
  m->labels = NULL;
  return TRUE;
}

static void
labels_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstMeanShiftLabelsMeta *m = (GstMeanShiftLabelsMeta *) meta;

  g_free (m->labels);
  m->labels = NULL;
}

static gboolean
labels_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstMeanShiftLabelsMeta *m = (GstMeanShiftLabelsMeta *) meta, *d;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  if (((GstMetaTransformCopy *) data)->region)
    return FALSE;
  d = gst_buffer_add_mean_shift_labels_meta (dest, m->width, m->height);
  if (!d)
    return FALSE;
  d->n_segments = m->n_segments;
  memcpy (d->labels, m->labels, (gsize) m->width * m->height *
      sizeof (guint32));
  return TRUE;
}

const GstMetaInfo *
gst_mean_shift_labels_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *i =
        gst_meta_register (GST_MEAN_SHIFT_LABELS_META_API_TYPE,
        "GstMeanShiftLabelsMeta", sizeof (GstMeanShiftLabelsMeta),
        labels_meta_init, labels_meta_free, labels_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) i);
  }
  return info;
}

GstMeanShiftLabelsMeta *
gst_buffer_add_mean_shift_labels_meta (GstBuffer * buffer, guint width,
    guint height)
{
  GstMeanShiftLabelsMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  m = (GstMeanShiftLabelsMeta *) gst_buffer_add_meta (buffer,
      GST_MEAN_SHIFT_LABELS_META_INFO, NULL);
  if (!m)
    return NULL;
  m->width = width;
  m->height = height;
  m->labels = g_new (guint32, (gsize) width * height);
  return m;
}
