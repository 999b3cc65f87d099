/* gst-cuda-vision: video formats as the operators see them: plane
 * geometry, the luma layout of a format, planes of a mapped frame, and the
 * check that a frame matches its caps.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_FORMAT_H__
#define __GST_CV_FORMAT_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cvimage.h"

G_BEGIN_DECLS

/* Bytes of pixel data in one row of a plane (width x pixel stride of its
 * first component), its rows, and the pixel stride alone (2 for NV12's
 * UV plane). */
gsize gst_cuda_vision_plane_row_bytes (const GstVideoInfo * info,
    guint plane);
guint gst_cuda_vision_plane_rows (const GstVideoInfo * info, guint plane);
guint gst_cuda_vision_plane_pixel_stride (const GstVideoInfo * info,
    guint plane);

/* For set_info(): how to read luma (or the colour components) of the
 * frame's first plane: GRAY8, I420 and NV12 -> the plane itself (bpp 1, no
 * colour offsets); RGBA, BGRA, RGBx, BGRx, RGB, BGR -> bytes per pixel and
 * the R, G, B byte offsets. FALSE for any other format. */
gboolean gst_cuda_vision_luma_layout (const GstVideoInfo * info,
    CvLumaLayout * layout);

/* The planes of a mapped frame (host or device pointers, as mapped),
 * GST_VIDEO_MAX_PLANES entries, the unused ones zero. */
void gst_cuda_vision_frame_planes (GstVideoFrame * frame, CvPlane * planes);

/* A mapped frame is one of the negotiated caps (a GstVideoMeta may say
 * otherwise), and every plane's rows lie within the memory mapped for it
 * (GStreamer 1.22's gst_video_frame_map() does not check a meta's strides
 * and offsets against the memory). FALSE with *why (a sentence) set. */
gboolean gst_cuda_vision_frame_is_sane (GstVideoFrame * frame,
    const GstVideoInfo * caps, gchar ** why);

/* Whether buf's GstVideoMeta (the one gst_video_frame_map() reads: the
 * lowest id), if it has one, can be mapped with info: the same format and
 * number of planes, at least info's width and height. GStreamer's
 * gst_video_frame_map() asserts these (a CRITICAL, fatal under
 * G_DEBUG=fatal-criticals) instead of failing: a buffer is checked with
 * this first. FALSE with *why (to free) saying what differs. */
gboolean gst_cuda_vision_meta_mappable (GstBuffer * buf,
    const GstVideoInfo * info, gchar ** why);

G_END_DECLS
#endif
