/* gst-cuda-vision: the CUDA context all of an element's CUDA work runs in,
 * the "gst.cuda.context" shared with nvcodec's elements (gstreamer-cuda).
 * Built from gstcvcudacontext.c with gstreamer-cuda, from
 * gstcvcudacontext-none.c without it (then there is no shared context, no
 * CUDA memory, and every function below says so).
 *
 * The context is passed as an opaque pointer (a GstCudaContext *) so that
 * the base element needs no gstreamer-cuda header.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CV_CUDA_CONTEXT_H__
#define __GST_CV_CUDA_CONTEXT_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* TRUE when built with gstreamer-cuda: shared contexts and CUDA memory. */
gboolean gst_cv_cuda_context_supported (void);

/* The "gst.cuda.context" for device_id (-1: any) into *ctx, unless *ctx
 * already holds one of that device: a neighbour's (context query on both
 * pads of element, a GstBaseTransform), the application's (need-context
 * message), else the device's primary context (the CUDA runtime's, so no
 * context of our own is created), announced with have-context. */
gboolean gst_cv_cuda_context_ensure (GstElement * element, gint device_id,
    gpointer * ctx);
void gst_cv_cuda_context_clear (gpointer * ctx);
gint gst_cv_cuda_context_device (gpointer ctx);
/* Make it current in this thread / undo. */
gboolean gst_cv_cuda_context_push (gpointer ctx);
void gst_cv_cuda_context_pop (void);

/* GstElement::set_context and the CONTEXT query (share ours). */
void gst_cv_cuda_context_set (GstElement * element, GstContext * context,
    gint device_id, gpointer * ctx);
gboolean gst_cv_cuda_context_query (GstElement * element, GstQuery * query,
    gpointer ctx);

/* Every memory of buf is GstCudaMemory of ctx (the same CUcontext,
 * whichever GstCudaContext object wraps it): used in place. */
gboolean gst_cv_cuda_context_owns_buffer (gpointer ctx, GstBuffer * buf);
/* A GstCudaBufferPool of ctx, and whether a pool is one of ctx. */
GstBufferPool *gst_cv_cuda_context_pool_new (gpointer ctx);
gboolean gst_cv_cuda_context_owns_pool (gpointer ctx, GstBufferPool * pool);
/* The map flag of CUDA memory (GST_MAP_CUDA; 0 without gstreamer-cuda). */
GstMapFlags gst_cv_cuda_context_map_flag (void);

/* Push the primary context of device (retained once for the life of the
 * process) on top of this thread's current one: what outlives the
 * element's context is allocated there (the shared pinned staging). FALSE
 * when it cannot be (then nothing was pushed); pop it with
 * gst_cv_cuda_context_pop_primary (). */
gboolean gst_cv_cuda_context_push_primary (gint device);
void gst_cv_cuda_context_pop_primary (void);

G_END_DECLS
#endif
