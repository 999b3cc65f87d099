/* gst-cuda-vision: the CUDA backend's host transfers
 * (gstcvbackend-cuda.h). Planes in pinned memory (the plugin's by their
 * memory type, others checked with cudaPointerGetAttributes) are copied
 * by DMA straight from/to the buffer; pageable ones go through pinned
 * staging (one CPU copy), taken at first use from the process-wide cache
 * (gstcvpinnedcache.c) and given back when the slot is freed (stop, caps
 * change).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvbackend-cuda.h"
#include "gstcvcudacontext.h"
#include "gstcvtrace.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vision_base_debug);
#define GST_CAT_DEFAULT gst_cuda_vision_base_debug

/* planes copied for one frame: one lock per frame */
void
gst_cv_cuda_count_transfers (GstCudaVisionBase * self, guint n)
{
  if (!n)
    return;
  GST_OBJECT_LOCK (self);
  cuda_backend (self)->host_transfers += n;
  GST_OBJECT_UNLOCK (self);
}

static gboolean
ptr_is_pinned (const void *ptr)
{
  struct cudaPointerAttributes attr;

  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess) {
    (void) cudaGetLastError ();
    return FALSE;
  }
  return attr.type == cudaMemoryTypeHost;
}

/* memory of our pinned allocator (portable: pinned for every device) is
 * known without asking the driver (cudaPointerGetAttributes per plane per
 * frame) */
gboolean
gst_cv_cuda_frame_is_pinned (GstVideoFrame * frame)
{
  guint p, i, n = gst_buffer_n_memory (frame->buffer);

  for (i = 0; i < n; i++)
    if (!gst_memory_is_type (gst_buffer_peek_memory (frame->buffer, i),
            GST_CV_PINNED_MEMORY_TYPE))
      break;
  if (n > 0 && i == n)
    return TRUE;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++)
    if (!ptr_is_pinned (GST_VIDEO_FRAME_PLANE_DATA (frame, p)))
      return FALSE;
  return TRUE;
}

/* the slot's staging of n bytes for a plane: from the shared cache at
 * first use (kept by the slot until it is freed) */
static guint8 *
staging (GstCudaVisionBase * self, GstCvStagingBlock * b, gsize n)
{
  GstCudaVisionBasePrivate *priv = GST_CV_PRIV (self);
  gboolean ok, pushed = FALSE;

  if (b->buffer && b->map.size >= n)
    return b->map.data;
  gst_cv_pinned_cache_release (b);
  /* cached blocks outlive the element and its context (which may be one
   * of nvcodec's, destroyed with its pipeline, and its page-locked memory
   * with it): they are allocated in the device's primary context, pushed
   * on top of the element's and popped again (the thread's context stack
   * is left as it was). Without a context of its own the element already
   * runs in the primary one (gst_cv_cuda_enter). */
  if (priv->ctx) {
    pushed = gst_cv_cuda_context_push_primary (cuda_backend (self)->device);
    if (!pushed)
      GST_WARNING_OBJECT (self, "the primary context of device %d cannot be "
          "made current: pinned staging allocated in the element's context",
          cuda_backend (self)->device);
    ok = gst_cv_pinned_cache_acquire (n, b);
    if (pushed)
      gst_cv_cuda_context_pop_primary ();
  } else {
    ok = gst_cv_pinned_cache_acquire (n, b);
  }
  (void) cudaGetLastError ();
  if (!ok) {
    GST_CV_RECORD_ERROR (self, CV_ERROR_NO_MEMORY, RESOURCE, NO_SPACE_LEFT,
        g_strdup_printf ("Could not allocate %" G_GSIZE_FORMAT " bytes of "
            "pinned host memory", n),
        g_strdup ("gst_cv_pinned_cache_acquire failed"));
    return NULL;
  }
  return b->map.data;
}

/* copy plane p of frame to or from a tightly packed pinned staging area */
gboolean
gst_cv_cuda_stage_plane (GstCudaVisionBase * self, GstVideoFrame * frame,
    guint p, GstCvStagingBlock * b, gboolean to_staging)
{
  gsize row = gst_cuda_vision_plane_row_bytes (&frame->info, p);
  guint rows = gst_cuda_vision_plane_rows (&frame->info, p), y;
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
  guint8 *st = staging (self, b, row * rows);

  if (!st)
    return FALSE;
  if (stride == row) {
    if (to_staging)
      memcpy (st, data, row * rows);
    else
      memcpy (data, st, row * rows);
  } else {
    for (y = 0; y < rows; y++) {
      if (to_staging)
        memcpy (st + y * row, data + y * stride, row);
      else
        memcpy (data + y * stride, st + y * row, row);
    }
  }
  return TRUE;
}

/* plane p of a host frame to or from the slot's device plane: by DMA
 * from/to the buffer when it is pinned, else through the staging */
gboolean
gst_cv_cuda_copy_plane (GstCudaVisionBase * self, CudaSlot * c,
    GstVideoFrame * f, guint p, gboolean pinned, gboolean up)
{
  gsize row = gst_cuda_vision_plane_row_bytes (&f->info, p);
  guint rows = gst_cuda_vision_plane_rows (&f->info, p);
  guint8 *host;
  gsize hpitch;

  if (pinned) {
    host = GST_VIDEO_FRAME_PLANE_DATA (f, p);
    hpitch = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
  } else if (up) {
    if (!gst_cv_cuda_stage_plane (self, f, p, &c->h_in[p], TRUE))
      return FALSE;
    host = c->h_in[p].map.data;
    hpitch = row;
  } else {
    if (!(host = staging (self, &c->h_out[p], row * rows)))
      return FALSE;
    hpitch = row;
  }
  if (up ? !CUDA_CHECK (self, cudaMemcpy2DAsync (c->d_in[p].data,
              c->d_in[p].stride, host, hpitch, row, rows,
              cudaMemcpyHostToDevice, c->stream)) :
      !CUDA_CHECK (self, cudaMemcpy2DAsync (host, hpitch, c->d_out[p].data,
              c->d_out[p].stride, row, rows, cudaMemcpyDeviceToHost,
              c->stream)))
    return FALSE;
  return TRUE;
}
