/* gst-cuda-vision: the base element every element of the plugin derives from.
 * See docs/base-class.md for the design and how to write a subclass.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_VISION_BASE_H__
#define __GST_CUDA_VISION_BASE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "cvimage.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_VISION_BASE (gst_cuda_vision_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaVisionBase, gst_cuda_vision_base, GST,
    CUDA_VISION_BASE, GstBaseTransform);

#define GST_TYPE_CUDA_VISION_BACKEND (gst_cuda_vision_backend_get_type ())
GType gst_cuda_vision_backend_get_type (void);

/**
 * GstCudaVisionBackend:
 * @GST_CUDA_VISION_BACKEND_AUTO: the GPU when one is usable, else the CPU
 *   (one GST_WARNING says why). As the value of `active-backend`: not
 *   decided yet (the element has not started).
 * @GST_CUDA_VISION_BACKEND_CUDA: the GPU; an element error at start when no
 *   CUDA device is usable.
 * @GST_CUDA_VISION_BACKEND_CPU: the C99/OpenMP fallback, synchronous.
 */
typedef enum
{
  GST_CUDA_VISION_BACKEND_AUTO,
  GST_CUDA_VISION_BACKEND_CUDA,
  GST_CUDA_VISION_BACKEND_CPU,
} GstCudaVisionBackend;

#define GST_CUDA_VISION_MAX_DEPTH 4

/* The elements' author metadata. */
#define GST_CUDA_VISION_AUTHOR \
    "gst-cuda-vision maintainers <maintainers@users.noreply.a-seed-9d3eecc7.example>"

/* The caps feature of GStreamer's CUDA device memory (GstCudaMemory). */
#define GST_CUDA_VISION_CUDA_MEMORY_FEATURE "memory:CUDAMemory"

/* The 8-bit formats GStreamer 1.22's CUDA allocator (GstCudaMemory) can
 * hold; memory:CUDAMemory caps are restricted to them (GRAY8 is not one:
 * elements that output GRAY8 also offer NV12/I420 for CUDA memory). */
#define GST_CUDA_VISION_CUDA_MEMORY_FORMATS \
    "{ I420, YV12, NV12, NV21, Y42B, Y444, RGBA, BGRA, RGBx, BGRx, ARGB, " \
    "ABGR, RGB, BGR }"

/**
 * GstCudaVisionFrame:
 * One frame as a subclass sees it in process_cpu()/process_cuda().
 * @in, @out: the planes of the input and output frame. On the CPU path they
 *   point into the mapped buffers (host memory, the buffers' own strides);
 *   on the CUDA path into device memory of this slot (pitched). Planes that
 *   the subclass did not ask to be uploaded (upload_planes) have data NULL
 *   on the CUDA path. width/height are those of the plane's first component.
 * @in_info, @out_info: the negotiated video infos.
 * @params: the subclass's parameter snapshot (params_size bytes), taken by
 *   get_params() when the frame entered the element: property changes take
 *   effect at frame boundaries even with several frames in flight.
 * @stream: the slot's cudaStream_t (CUDA path), NULL on the CPU path. Queue
 *   all work on it and do not wait for it.
 * @slot: index of the slot, 0 .. pipeline-depth - 1.
 * @scratch: per-slot pointer owned by the subclass (e.g. device scratch
 *   memory, allocated lazily on first use); freed with free_scratch() when
 *   the slots are torn down (caps change, stop).
 * @cpu: process_cpu(): how the CPU call runs (the `n-threads` property and
 *   the element's cancel flag, set while flushing or stopping): pass it to
 *   the cv_*_cpu() call. NULL on the CUDA path.
 */
typedef struct
{
  CvPlane in[GST_VIDEO_MAX_PLANES];
  CvPlane out[GST_VIDEO_MAX_PLANES];
  const GstVideoInfo *in_info;
  const GstVideoInfo *out_info;
  gconstpointer params;
  gpointer stream;
  guint slot;
  gpointer *scratch;
  const CvCpuExec *cpu;
} GstCudaVisionFrame;

/* Returned by process_cpu()/process_cuda() that posted their own element
 * error (GST_ELEMENT_ERROR): the base stops with GST_FLOW_ERROR and posts
 * nothing more. */
#define GST_CUDA_VISION_ERROR_POSTED (-100)

/**
 * GstCudaVisionBaseClass:
 * @params_size: bytes of the per-frame parameter snapshot.
 * @get_params: copy the element's properties into @params (take
 *   GST_OBJECT_LOCK). Called once per frame in the streaming thread.
 * @set_info: validate the negotiated caps and prepare (formats, layouts,
 *   upload_planes). Return FALSE to refuse them (not-negotiated).
 * @process_cpu: compute @frame on the CPU. Returns CV_OK, a CV_ERROR_*
 *   (CV_ERROR_CANCELLED: the frame is dropped silently, the element is
 *   flushing or stopping) or GST_CUDA_VISION_ERROR_POSTED.
 * @process_cuda: queue @frame's work on frame->stream. Returns CV_OK, a
 *   CV_ERROR_* or a cudaError_t. NULL when the element has no GPU version.
 * @finish_frame: optional; called when a frame's result is complete (the
 *   GPU work of its slot has finished), in output order, before *outbuf is
 *   pushed: post messages, attach metas, draw (gst_buffer_make_writable()
 *   on *outbuf is cheap: the element holds no other reference). frame->in
 *   and frame->out are not set here.
 * @free_scratch: optional; frees what process_cuda/process_cpu put in
 *   *frame->scratch. Called with the element's CUDA context current.
 * @transform_format_caps: optional; like GstBaseTransform::transform_caps
 *   but on plain caps without memory features and without filter: map
 *   formats/sizes of one pad to the other (default: identity). The base
 *   adds the memory features (CUDA memory, system memory), intersects with
 *   the other pad's template and applies the filter. Do not override
 *   GstBaseTransform::transform_caps.
 */
struct _GstCudaVisionBaseClass
{
  GstBaseTransformClass parent_class;

  gsize params_size;
  void (*get_params) (GstCudaVisionBase * self, gpointer params);
    gboolean (*set_info) (GstCudaVisionBase * self, GstCaps * incaps,
      const GstVideoInfo * in_info, GstCaps * outcaps,
      const GstVideoInfo * out_info);
  int (*process_cpu) (GstCudaVisionBase * self, GstCudaVisionFrame * frame);
  int (*process_cuda) (GstCudaVisionBase * self, GstCudaVisionFrame * frame);
    GstFlowReturn (*finish_frame) (GstCudaVisionBase * self,
      GstCudaVisionFrame * frame, GstBuffer ** outbuf);
  void (*free_scratch) (GstCudaVisionBase * self, gpointer scratch);
  GstCaps *(*transform_format_caps) (GstCudaVisionBase * self,
      GstPadDirection direction, GstCaps * caps);

  gpointer _reserved[8];
};

/* For set_info(): which input planes the CUDA path uploads (bit p = plane
 * p). Default: all planes. cudasobel uploads only the luma plane of YUV. */
void gst_cuda_vision_base_set_upload_planes (GstCudaVisionBase * self,
    guint mask);

/* Analysis elements (cudatemplatematch) push their input buffer on instead
 * of a new output buffer: no output planes are allocated, mapped or
 * downloaded (frame->out is empty); results are read back by the subclass
 * (e.g. into pinned scratch in process_cuda) and applied in finish_frame().
 * The output caps then equal the input caps, memory features included. Set
 * it at init and whenever the property that decides it changes (then call
 * gst_base_transform_reconfigure_src): it takes effect with the next caps
 * (latched when caps are set, so frames negotiated in one mode keep it). */
void gst_cuda_vision_base_set_output_is_input (GstCudaVisionBase * self,
    gboolean output_is_input);

/* Bytes of pixel data in one row of plane (width x pixel stride of its
 * first component), and the pixel stride alone (2 for NV12's UV plane). */
gsize gst_cuda_vision_plane_row_bytes (const GstVideoInfo * info,
    guint plane);
guint gst_cuda_vision_plane_pixel_stride (const GstVideoInfo * info,
    guint plane);

/* For set_info(): how to read luma (or the colour components) of the
 * frame's first plane: GRAY8, I420 and NV12 -> the plane itself (bpp 1, no
 * colour offsets); RGBA, BGRA, RGBx, BGRx, RGB, BGR -> bytes per pixel and
 * the R, G, B byte offsets. FALSE for any other format. */
gboolean gst_cuda_vision_luma_layout (const GstVideoInfo * info,
    CvLumaLayout * layout);

/* For class_init(): adds the element's "sink" and "src" pad templates
 * (always): the formats (a caps list string, "{ GRAY8, I420 }") in system
 * memory and, built with gstreamer-cuda, in CUDA memory (frames stay on
 * the GPU between nvcodec's elements and ours) for those of them that
 * GStreamer's CUDA allocator can hold (GST_CUDA_VISION_CUDA_MEMORY_FORMATS).
 * The base offers CUDA memory only when the element runs on the GPU. */
void gst_cuda_vision_base_class_add_pad_templates (GstElementClass * klass,
    const gchar * sink_formats, const gchar * src_formats);

/* For process_*(): the estimated cost of this frame's settings in seconds
 * on the backend running (the subclass's model). Above 1 s per frame, one
 * element warning (LIBRARY/SETTINGS) says so with the estimate and
 * `setting` (a description of what is costly); again only for another
 * setting. */
void gst_cuda_vision_base_check_cost (GstCudaVisionBase * self,
    gdouble seconds, const gchar * setting);

/* For set_property(), without the object lock held: a property value was
 * refused and the previous one kept; `text` (taken) says which and why. An
 * element warning (LIBRARY/SETTINGS) on the bus, where applications see
 * it, and in the debug log. */
void gst_cuda_vision_base_post_rejection (GstCudaVisionBase * self,
    gchar * text);

/* For finish_frame(): posts an element message about the frame in buf,
 * structure s (taken) completed with the fields GStreamer's opencv
 * elements give their messages, each a guint64 in nanoseconds
 * (GST_CLOCK_TIME_NONE when unknown): "timestamp" (the PTS),
 * "stream-time" and "running-time" (of the PTS in the current segment)
 * and "duration". */
void gst_cuda_vision_base_post_frame_message (GstCudaVisionBase * self,
    GstStructure * s, GstBuffer * buf);

/* Threads the CPU backend uses per frame (the `n-threads` property, or
 * the number of processors when it is 0). */
guint gst_cuda_vision_base_cpu_threads (GstCudaVisionBase * self);

/* The backend running now (CUDA or CPU), AUTO before start. */
GstCudaVisionBackend gst_cuda_vision_base_get_active_backend
    (GstCudaVisionBase * self);

/* Describe a status code returned by the C ABI (CV_ERROR_* or cudaError_t). */
const gchar *gst_cuda_vision_status_string (int status);

G_END_DECLS
#endif
