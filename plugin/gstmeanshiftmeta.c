/* gst-cuda-vision: GstCudaMeanShiftLabelsMeta, see gstmeanshiftmeta.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstmeanshiftmeta.h"

void
gst_cuda_mean_shift_labels_meta_register (void)
{
  static gsize once = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
  };

  /* the default transform copies the structure with the buffer */
  if (g_once_init_enter (&once)) {
    gst_meta_register_custom (GST_CUDA_MEAN_SHIFT_LABELS_META_NAME, tags,
        NULL, NULL, NULL);
    g_once_init_leave (&once, 1);
  }
}

void
gst_buffer_add_cuda_mean_shift_labels_meta (GstBuffer * buffer, guint width,
    guint height, guint segments, const guint32 * labels)
{
  GstCustomMeta *meta;
  GstBuffer *lb;

  gst_cuda_mean_shift_labels_meta_register ();
  meta = gst_buffer_add_custom_meta (buffer,
      GST_CUDA_MEAN_SHIFT_LABELS_META_NAME);
  g_return_if_fail (meta != NULL);
  lb = gst_buffer_new_memdup (labels, (gsize) width * height *
      sizeof (guint32));
  gst_structure_set (gst_custom_meta_get_structure (meta),
      "width", G_TYPE_UINT, width, "height", G_TYPE_UINT, height,
      "segments", G_TYPE_UINT, segments, "labels", GST_TYPE_BUFFER, lb, NULL);
  gst_buffer_unref (lb);
}
