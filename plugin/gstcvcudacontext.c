/* gst-cuda-vision: the shared CUDA context (gstreamer-cuda), see
 * gstcvcudacontext.h. Built only with CUDA and gstreamer-cuda.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <cuda_runtime_api.h>
#include <gst/base/gstbasetransform.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcvcudacontext.h"

GST_DEBUG_CATEGORY_STATIC (gst_cv_cuda_context_debug);
#define GST_CAT_DEFAULT gst_cv_cuda_context_debug

static void
ensure_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cv_cuda_context_debug, "cudavisioncontext",
        0, "gst-cuda-vision CUDA context");
    g_once_init_leave (&once, 1);
  }
}

gboolean
gst_cv_cuda_context_supported (void)
{
  return TRUE;
}

typedef int (*CuCtxGetCurrentFunc) (void **ctx);

/* A GstCudaContext around the device's primary context: the one the CUDA
 * runtime (and every library on it) uses in this process. */
static GstCudaContext *
wrap_primary_context (GstElement * element, gint device)
{
  CuCtxGetCurrentFunc get_current = NULL;
  enum cudaDriverEntryPointQueryResult q;
  void *cuctx = NULL;

  if (cudaSetDevice (device) != cudaSuccess || cudaFree (NULL) != cudaSuccess
      || cudaGetDriverEntryPointByVersion ("cuCtxGetCurrent",
          (void **) &get_current, 4000, cudaEnableDefault, &q) != cudaSuccess
      || !get_current || get_current (&cuctx) != 0 || !cuctx) {
    (void) cudaGetLastError ();
    GST_WARNING_OBJECT (element, "no primary context on device %d", device);
    return NULL;
  }
  return gst_cuda_context_new_wrapped (cuctx, device);
}

static gboolean
same_context (GstCudaContext * a, GstCudaContext * b)
{
  return a && b && (a == b
      || gst_cuda_context_get_handle (a) == gst_cuda_context_get_handle (b));
}

gint
gst_cv_cuda_context_device (gpointer ctx)
{
  guint dev = 0;

  g_object_get (ctx, "cuda-device-id", &dev, NULL);
  return (gint) dev;
}

gboolean
gst_cv_cuda_context_ensure (GstElement * element, gint device_id,
    gpointer * ctx)
{
  GstPad *pads[2] = { GST_BASE_TRANSFORM_SRC_PAD (element),
    GST_BASE_TRANSFORM_SINK_PAD (element)
  };
  GstCudaContext **cctx = (GstCudaContext **) ctx;
  guint i;

  ensure_debug ();
  if (*cctx && device_id >= 0 && gst_cv_cuda_context_device (*cctx) !=
      device_id)
    gst_clear_object (cctx);
  if (*cctx)
    return TRUE;
  if (!gst_cuda_load_library ())
    return FALSE;

  for (i = 0; i < 2 && !*cctx; i++) {
    GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    if (gst_pad_peer_query (pads[i], q)) {
      GstContext *c = NULL;
      gst_query_parse_context (q, &c);
      if (c)
        gst_cuda_handle_set_context (element, c, device_id, cctx);
    }
    gst_query_unref (q);
  }
  if (!*cctx)
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CUDA_CONTEXT_TYPE));
  if (!*cctx) {
    GstContext *c;

    *cctx = wrap_primary_context (element, device_id < 0 ? 0 : device_id);
    if (!*cctx)
      return FALSE;
    c = gst_context_new_cuda_context (*cctx);
    gst_element_post_message (element,
        gst_message_new_have_context (GST_OBJECT (element), c));
  }
  GST_INFO_OBJECT (element, "CUDA context %" GST_PTR_FORMAT, *cctx);
  return TRUE;
}

void
gst_cv_cuda_context_clear (gpointer * ctx)
{
  gst_clear_object ((GstCudaContext **) ctx);
}

gboolean
gst_cv_cuda_context_push (gpointer ctx)
{
  return gst_cuda_context_push (ctx);
}

void
gst_cv_cuda_context_pop (void)
{
  gst_cuda_context_pop (NULL);
}

void
gst_cv_cuda_context_set (GstElement * element, GstContext * context,
    gint device_id, gpointer * ctx)
{
  gst_cuda_handle_set_context (element, context, device_id,
      (GstCudaContext **) ctx);
}

gboolean
gst_cv_cuda_context_query (GstElement * element, GstQuery * query, gpointer ctx)
{
  return gst_cuda_handle_context_query (element, query, ctx);
}

gboolean
gst_cv_cuda_context_owns_buffer (gpointer ctx, GstBuffer * buf)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    if (!gst_is_cuda_memory (mem)
        || !same_context (GST_CUDA_MEMORY_CAST (mem)->context, ctx))
      return FALSE;
  }
  return n > 0;
}

GstBufferPool *
gst_cv_cuda_context_pool_new (gpointer ctx)
{
  return gst_cuda_buffer_pool_new (ctx);
}

gboolean
gst_cv_cuda_context_owns_pool (gpointer ctx, GstBufferPool * pool)
{
  return GST_IS_CUDA_BUFFER_POOL (pool)
      && same_context (GST_CUDA_BUFFER_POOL (pool)->context, ctx);
}

GstMapFlags
gst_cv_cuda_context_map_flag (void)
{
  return GST_MAP_CUDA;
}

/* ---- the device's primary context ----
 * The driver's primary-context calls, through the runtime's entry points
 * (the plugin links the runtime, not libcuda; contexts as void *, without
 * cuda.h, which gstreamer-cuda >= 1.24 ships a stub of). */
typedef int (*PrimaryRetainFn) (void **ctx, int device);
typedef int (*CtxPushFn) (void *ctx);
typedef int (*CtxPopFn) (void **ctx);
static PrimaryRetainFn drv_retain;
static CtxPushFn drv_push;
static CtxPopFn drv_pop;
#define MAX_PRIMARY 64
static void *primary[MAX_PRIMARY];
static GMutex primary_lock;

static gpointer
load_driver_entries (gpointer unused)
{
  void *f[3] = { NULL, NULL, NULL };
  static const char *const names[3] = { "cuDevicePrimaryCtxRetain",
    "cuCtxPushCurrent", "cuCtxPopCurrent"
  };
  int i;

  for (i = 0; i < 3; i++) {
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion (names[i], &f[i], 12000,
            cudaEnableDefault, &q) != cudaSuccess
        || q != cudaDriverEntryPointSuccess)
      f[i] = NULL;
  }
  (void) cudaGetLastError ();
  if (!f[0] || !f[1] || !f[2])
    return GINT_TO_POINTER (FALSE);
  drv_retain = (PrimaryRetainFn) f[0];
  drv_push = (CtxPushFn) f[1];
  drv_pop = (CtxPopFn) f[2];
  return GINT_TO_POINTER (TRUE);
}

/* device's primary context, retained once for the life of the process
 * (the shared pinned staging lives in it), or NULL */
static void *
primary_context (gint device)
{
  static GOnce once = G_ONCE_INIT;
  void *c = NULL;

  if (!GPOINTER_TO_INT (g_once (&once, load_driver_entries, NULL))
      || device < 0 || device >= MAX_PRIMARY)
    return NULL;
  g_mutex_lock (&primary_lock);
  if (!primary[device] && drv_retain (&c, device) == 0)
    primary[device] = c;
  c = primary[device];
  g_mutex_unlock (&primary_lock);
  return c;
}

gboolean
gst_cv_cuda_context_push_primary (gint device)
{
  void *pc = primary_context (device);

  return pc && drv_push (pc) == 0;
}

void
gst_cv_cuda_context_pop_primary (void)
{
  void *popped;

  (void) drv_pop (&popped);
}
