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
#include "cvop.h"
#include "gstcvformat.h"

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

#define GST_TYPE_CUDA_VISION_WAIT_MODE (gst_cuda_vision_wait_mode_get_type ())
GType gst_cuda_vision_wait_mode_get_type (void);

/**
 * GstCudaVisionWaitMode:
 * @GST_CUDA_VISION_WAIT_BLOCK: the output thread sleeps between queries
 *   of the frame's CUDA event (cudaEventQuery) until the GPU is done with
 *   the frame: first for about 3/4 of the recent frames' (median) GPU
 *   time from submission to done, then in steps of 1/8 of the time waited
 *   (4 us to 250 us). A few wake-ups per frame; once the recent times are
 *   representative, a frame is seen done at most about 1/8 of its time
 *   late.
 * @GST_CUDA_VISION_WAIT_SPIN: it queries the event without sleeping until
 *   the frame is done: the lowest latency, one CPU core busy meanwhile.
 * @GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK: it queries for up to 100 us, then
 *   sleeps as block does.
 *
 * How the element waits for a frame on the GPU (CUDA backend only).
 */
typedef enum
{
  GST_CUDA_VISION_WAIT_BLOCK,
  GST_CUDA_VISION_WAIT_SPIN,
  GST_CUDA_VISION_WAIT_SPIN_THEN_BLOCK,
} GstCudaVisionWaitMode;

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
 * One frame as a subclass sees it in prepare_frame() and finish_frame().
 * @in_info, @out_info: the negotiated video infos.
 * @params: the subclass's parameter snapshot (params_size bytes), taken by
 *   get_params() when the frame entered the element: property changes take
 *   effect at frame boundaries even with several frames in flight; it
 *   lives until the frame leaves (clear_params() then).
 * @backend: where the frame is computed (CUDA or CPU).
 * @slot: index of the frame's slot, 0 .. pipeline-depth - 1.
 * @results: finish_frame(): what the operator found (its results(), e.g.
 *   CvTemplateMatchResult), NULL for operators without results; NULL in
 *   prepare_frame().
 * @store, @centre, @radius: with a lookahead
 *   (gst_cuda_vision_base_set_lookahead(), else -1, -1, 0): the index of
 *   the input frame of this submission in the stream since the last reset
 *   (-1: none, a frame of the drain at the end), the index of the frame
 *   whose output this submission produces (-1: none, the first lookahead
 *   frames) and how many frames on each side of it exist (the lookahead,
 *   less at the first and last frames).
 */
typedef struct
{
  const GstVideoInfo *in_info;
  const GstVideoInfo *out_info;
  gpointer params;
  GstCudaVisionBackend backend;
  guint slot;
  gconstpointer results;
  gint64 store;
  gint64 centre;
  guint radius;
} GstCudaVisionFrame;

/**
 * GST_CUDA_VISION_FRAME_ERROR:
 * @self: the element
 * @status: the #CvStatus to return (e.g. CV_ERROR_INVALID_ARGUMENT)
 * @domain: GStreamer's error domain without GST_ and _ERROR (RESOURCE)
 * @code: the code without the domain's prefix (OPEN_READ)
 * @text: the message, as GST_ELEMENT_ERROR's: ("format", ...) or (NULL)
 * @debug: the debug string, the same way
 *
 * For prepare_frame(): records the frame's error as GST_ELEMENT_ERROR()
 * would post it, and evaluates to @status, which prepare_frame() returns:
 * the base then posts it, in the one place where it posts the errors of
 * frames (the backends' too), and stops with GST_FLOW_ERROR.
 */
#define GST_CUDA_VISION_FRAME_ERROR(self, status, domain, code, text, debug) \
  gst_cuda_vision_base_record_error (GST_CUDA_VISION_BASE (self), (status), \
      GST_ ## domain ## _ERROR, GST_ ## domain ## _ERROR_ ## code, \
      _gst_element_error_printf text, _gst_element_error_printf debug, \
      __FILE__, GST_FUNCTION, __LINE__)
CvStatus gst_cuda_vision_base_record_error (GstCudaVisionBase * self,
    CvStatus status, GQuark domain, gint code, gchar * text, gchar * debug,
    const gchar * file, const gchar * func, gint line);

/**
 * GstCudaVisionBaseClass:
 * @cpu_ops: the algorithm's CPU operator table (kernels/cvop.h), required.
 * @cuda_ops: its CUDA operator table; one that cv_op_available() refuses
 *   (a build without CUDA) means no GPU version.
 * @op_info_size: bytes of the operator's info (the algorithm's CvXxxInfo).
 * @params_size: bytes of the per-frame parameter snapshot (the operator's
 *   params first, the subclass's own fields after them if any).
 * @get_params: copy the element's properties into @params (take
 *   GST_OBJECT_LOCK); may take references (released by clear_params).
 *   Called once per frame in the streaming thread.
 * @clear_params: optional; release what get_params() took (called when the
 *   frame leaves the element, and before a slot's snapshot is retaken).
 * @set_info: validate the negotiated caps and fill @op_info, the
 *   operator's info (formats, sizes, layouts); optionally
 *   gst_cuda_vision_base_set_upload_planes() and
 *   gst_cuda_vision_base_set_output_is_input(). Return FALSE to refuse
 *   them (not-negotiated).
 * @prepare_frame: optional; per-frame checks before the operator runs
 *   (warnings, estimates). Returns CV_OK or a CV_ERROR_* (the base posts a
 *   generic error for it), or GST_CUDA_VISION_FRAME_ERROR() (the base
 *   posts that error).
 * @finish_frame: optional; called when a frame's result is complete, in
 *   output order, before *outbuf is pushed: post messages, attach metas,
 *   draw (gst_buffer_make_writable() on *outbuf is cheap: the element holds
 *   no other reference). frame->results is the operator's results.
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

  const CvOps *cpu_ops;
  const CvOps *cuda_ops;
  gsize op_info_size;
  gsize params_size;
  void (*get_params) (GstCudaVisionBase * self, gpointer params);
  void (*clear_params) (GstCudaVisionBase * self, gpointer params);
    gboolean (*set_info) (GstCudaVisionBase * self, GstCaps * incaps,
      const GstVideoInfo * in_info, GstCaps * outcaps,
      const GstVideoInfo * out_info, gpointer op_info);
  CvStatus (*prepare_frame) (GstCudaVisionBase * self,
      GstCudaVisionFrame * frame);
    GstFlowReturn (*finish_frame) (GstCudaVisionBase * self,
      GstCudaVisionFrame * frame, GstBuffer ** outbuf);
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
 * (the operator's results) and applied in finish_frame().
 * The output caps then equal the input caps, memory features included. Set
 * it at init and whenever the property that decides it changes (then call
 * gst_base_transform_reconfigure_src): it takes effect with the next caps
 * (latched when caps are set, so frames negotiated in one mode keep it). */
void gst_cuda_vision_base_set_output_is_input (GstCudaVisionBase * self,
    gboolean output_is_input);

/* For set_info(): the element needs `frames` frames after each one before
 * its output can be computed (temporal filters; 0, the default, none;
 * at most GST_CUDA_VISION_MAX_LOOKAHEAD). The base (gstcvhistory.c) then
 * keeps the inputs whose output is not out yet, submits every input once
 * (frame->store) and pairs it with the output of the frame `frames`
 * earlier (frame->centre; output buffer, timestamps and metas from that
 * frame's input), adds `frames` frame durations to the LATENCY query,
 * and at EOS, caps changes, STREAM_START and SEGMENT submits the frames
 * still owed (frame->store -1, frame->radius shrunk); FLUSH_STOP and stop
 * discard them. Set on every negotiation (reset to 0 before set_info). */
#define GST_CUDA_VISION_MAX_LOOKAHEAD 8
void gst_cuda_vision_base_set_lookahead (GstCudaVisionBase * self,
    guint frames);

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

/* Describe a status of the C ABI; for CV_ERROR_CUDA the CUDA error this
 * thread kept beside it (cv_status_cuda_error ()). */
const gchar *gst_cuda_vision_status_string (CvStatus status);

G_END_DECLS
#endif
