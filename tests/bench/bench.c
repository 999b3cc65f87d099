/* cudavision-bench: push pre-made frames through one element and measure.
 *
 *   appsrc (frames in pinned, pageable or CUDA memory) ! ELEMENT ! fakesink
 *
 * once, or as N independent pipelines in one process (--streams N, each
 * fed from its own appsrc by its own thread, spread round-robin over the
 * --devices), R times (--repeat R: every figure is the median of the R
 * runs, with their min and max). Frames go in as fast as the element
 * takes them or, with --live FPS, as from a camera: a live appsrc (no
 * do-timestamp, timestamps k / FPS), frame k of every stream pushed at
 * its due time start + k / FPS; the report then has the latency the
 * element adds per frame (median, p99, max) and the frames into and out
 * of the element, which must be equal.
 *
 * Prints frames/s: the aggregate, i.e. the frames of all streams (each
 * after its warm-up) over the wall time from the earliest first counted
 * output to the latest last one (never a sum of the streams' rates, which
 * adds up streams that did not run at the same time), per device
 * likewise; each stream's own rate (min / median / max over the streams);
 * and fairness: the slowest and the fastest stream's rate over the common
 * window in which every stream ran (from the last one's first counted
 * output to the first one's last), and slowest / fastest, beside each
 * stream's start-up (its first push to its first output). Several streams
 * start behind a gate: each pushes its warm-up frames and waits until
 * every stream has its first output; the measured phase (--seconds)
 * begins for all at once (--cold-start: no gate, a stream's start-up then
 * overlaps the others' measured frames). Then the
 * element's mean and p99 latency (sink pad in -> src pad out, wall clock;
 * with several streams also p50 and p99 of stream 0 and of the others
 * together, and of each stream: --priority N raises stream 0's
 * stream-priority to show what it buys under the others' load),
 * the element's own per-stage GPU timings (upload, kernel, download from
 * CUDA events) and host-side times (submit, wait, finish, via its
 * post-stats messages), the process CPU time per frame (getrusage), the
 * GPU utilisation (NVML, and the sum of the kernel times over the wall
 * time) and beside them the physical floor measured on this machine in
 * the same run: the PCIe time of the frame's bytes at the pinned cudaMemcpy
 * bandwidth, and the device-memory time of one read of the input and one
 * write of the output at the device-to-device copy bandwidth. A figure
 * that beats a physical floor (frames from host memory faster than the
 * PCIe floor allows) or the streams' own rates added up is reported on a
 * "MEASUREMENT BUG" line (and measurement_bug in RESULT and the JSON),
 * not passed off as a result. --json FILE appends the case as one JSON
 * object (tests/bench/plots.py draws them).
 *
 * This is a program, not a test: it asserts nothing about speed. With
 * --check it asserts what every stream delivered (tests/meson.build).
 * Run `cudavision-bench --help` for the options; docs/benchmarks.md.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE             /* RUSAGE_THREAD */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "nvml.h"
#ifdef HAVE_CUDA
#include "floor.h"
#include "kbench.h"
#include "gstcudavisionbase.h"
#endif
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>
#endif

#define MAX_DEV 16

/* the options */
typedef struct
{
  gchar *element, *props, *format, *backend, *input, *devices_arg;
  gchar *wait_mode, *json, *label, *priority_arg, *live_arg;
  gint priority;                /* stream 0's stream-priority, -1: not set */
  gint width, height, depth, frames, warmup, streams, repeat;
  gdouble seconds;
  gdouble live;                 /* --live FPS, 0: as fast as possible */
  gboolean no_floor, no_stats, check;
  gboolean threads;             /* --threads: CPU per thread name */
  gboolean cold_start;          /* no start gate (see Gate) */
  gint stagger_ms;              /* stream i starts i * this late, no gate */
  gint devices[MAX_DEV];
  guint n_devices;
  gboolean set_device;
} Opts;

/* the element's own statistics (post-stats messages), summed */
typedef struct
{
  GMutex lock;
  guint frames;
  gdouble up, ker, down;        /* sums of per-frame ms */
  guint host_frames;
  gdouble submit, wait, finish; /* sums of per-frame us */
  gint priority;                /* the element's stream-priority level as
                                 * it posts it, -1: none posted */
} Stats;

/* The start gate of a run: every stream pushes its warm-up frames and
 * waits until its first output is out (negotiation, allocation, the first
 * frame: its start-up) and every other stream's is; then all go on
 * together, from t_go. Without it (--cold-start, --live) a stream's
 * start-up overlaps the frames the others already push, and the common
 * window measures who started first as much as who is served. */
typedef struct
{
  GMutex lock;
  GCond cond;                   /* a first output, the gate opened */
  guint n, arrived;
  gboolean open;
  gint64 t_go;                  /* monotonic us, when it opened */
  gdouble cpu_go;               /* process CPU seconds then */
} Gate;

/* one pipeline */
typedef struct
{
  const Opts *o;
  Gate *gate;                   /* NULL: none */
  guint warm;                   /* with a gate: the frames pushed before it */
  gboolean passed;              /* through the gate (or without one) */
  gint64 t_push0;               /* monotonic us: the first push began */
  guint idx;
  gint device;
  GstElement *pipe, *src, *el, *sink;
  GstBus *bus;
  GstClockTime dur;
  guint cap;                    /* frames at most (t_in, t_out) */
  gint64 *t_in, *t_out;         /* monotonic us at the element's sink pad,
                                 * at its src pad (frame k's slot k: the
                                 * two pads' probes may run in different
                                 * threads, each writes its own array) */
  gint n_in, n_out;             /* buffers through the element's sink and
                                 * src pads (atomic) */
  gint64 t_caps_in, t_caps_out; /* monotonic us: the first CAPS event at
                                 * the element's sink pad (negotiation
                                 * begins), at its src pad (its set_caps
                                 * done: the operator made, its kernels
                                 * loaded, its slots prepared); 0: none */
  guint pushed;
  gint64 t_start;               /* --live: frame k is due at t_start +
                                 * k / FPS (monotonic us) */
  guint late;                   /* --live: frames pushed more than a frame
                                 * period after their due time */
  GThread *thread;
  GstBuffer **made;             /* the 4 input frames */
  gint64 deadline;
  /* what reached the sink (--check; under check_lock: the element may
   * push from a thread of its own) */
  GMutex check_lock;
  guint out_frames;
  GstClockTime last_pts;
  gboolean pts_bad;
  guint64 checksum;
  Stats st;
  /* the push thread's own CPU and context switches (measured by it at its
   * end: it is joined before /proc is read) */
  guint64 push_cpu_ns, push_vcsw, push_ivcsw;
} Stream;

/* one run's figures */
typedef struct
{
  gdouble fps;                  /* aggregate: frames_window / window_s */
  gdouble window_s;             /* from the earliest first counted output
                                 * to the latest last output, all streams */
  guint frames_window;          /* the counted frames in that window: each
                                 * stream's after its first counted one */
  gdouble *stream_fps;          /* per stream, over its own span */
  gdouble stream_fps_sum;       /* their sum (a bound, not the aggregate) */
  gdouble common_s;             /* the common window, in which every
                                 * stream ran: from the latest first
                                 * counted output (every stream past its
                                 * warm-up) to the earliest last one (none
                                 * ended yet), -1: none */
  gdouble *stream_common_fps;   /* per stream, in the common window */
  gdouble start_med_ms, start_max_ms;   /* each stream's start-up: its first
                                         * push to its first output; the
                                         * median and the longest */
  gdouble gate_ms;              /* t0 to the gate's opening, -1: none */
  /* where a stream's start-up goes, median and longest over the streams
   * (ms, -1: none): its set_caps (CAPS at the sink pad to CAPS at the src
   * pad), from then to its first input buffer at the sink pad (the
   * allocation query, the pool's activation, appsrc), and from that
   * buffer to its first output at the src pad (the first frame) */
  gdouble setcaps_med_ms, setcaps_max_ms;
  gdouble caps_in_med_ms, caps_in_max_ms;
  gdouble in_out_med_ms, in_out_max_ms;
  gdouble fair_min, fair_max, fair_ratio;       /* the slowest and fastest
                                                 * stream's rate in the
                                                 * common window, and
                                                 * slowest / fastest; -1 */
  gdouble dev_fps[MAX_DEV];     /* per device (index into Opts.devices),
                                 * each over its own window */
  gdouble lat_mean, lat_p99;    /* ms, over all streams */
  gdouble lat_p50, lat_max;     /* ms, over all streams */
  guint n_in, n_out;            /* buffers in and out of the elements, all
                                 * streams, warm-up included */
  guint late;                   /* --live: pushes a period late or more */
  gdouble *stream_p50, *stream_p99;     /* ms, per stream */
  gdouble lat0_p50, lat0_p99;   /* ms, stream 0 */
  gdouble lat_others_p50, lat_others_p99;       /* ms, streams 1.., pooled;
                                                 * -1 with one stream */
  gint priority0;               /* stream 0's stream-priority level, -1 */
  gdouble up, ker, down;        /* ms per frame, element's statistics */
  gdouble submit, wait, finish; /* us per frame, host side */
  gdouble cpu_us;               /* process CPU time per frame */
  gdouble nvml[MAX_DEV];        /* % or -1 */
  gdouble kbusy[MAX_DEV];       /* sum of kernel times / wall, % */
  gdouble wall_s;
  guint frames;                 /* after warm-up, all streams */
  gsize out_bytes;
  gchar *active;
  gboolean have_floor;
  gdouble h2d, d2h, duplex, d2d;        /* GB/s */
  gchar device[256];
} RunResult;

static GstPadProbeReturn
probe_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *t = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 now = g_get_monotonic_time ();
  guint64 idx = GST_BUFFER_PTS (buf) / t->dur;
  gboolean in = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (pad), "in"));

  /* the sink pad's probe runs in the streaming thread, the src pad's in
   * whichever thread the element pushes from: each writes only its own
   * array (read after EOS) and its own counter */
  if (idx < t->cap)
    (in ? t->t_in : t->t_out)[idx] = now;
  if (in) {
    g_atomic_int_inc (&t->n_in);
  } else if (g_atomic_int_add (&t->n_out, 1) == 0 && t->gate) {
    /* the stream's first output: its pushing thread may wait for it */
    g_mutex_lock (&t->gate->lock);
    g_cond_broadcast (&t->gate->cond);
    g_mutex_unlock (&t->gate->lock);
  }
  return GST_PAD_PROBE_OK;
}

/* the first CAPS event through the element's sink pad, and out of its src
 * pad (both in the streaming thread; read after EOS) */
static GstPadProbeReturn
caps_probe_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *t = user_data;
  gint64 *when;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) != GST_EVENT_CAPS)
    return GST_PAD_PROBE_OK;
  when = g_object_get_data (G_OBJECT (pad), "in") ? &t->t_caps_in :
      &t->t_caps_out;
  if (*when == 0)
    *when = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

/* FNV-1a over the visible bytes of every plane */
static guint64
fnv (guint64 h, const guint8 * d, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

/* --check: frames counted, timestamps increasing, output checksummed */
static GstPadProbeReturn
check_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *t = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vi;
  GstVideoFrame f;
  guint64 h = 14695981039346656037ull;
  guint p;

  g_mutex_lock (&t->check_lock);
  if (!GST_CLOCK_TIME_IS_VALID (pts) || (t->out_frames > 0
          && pts <= t->last_pts) || (t->out_frames == 0 && pts != 0))
    t->pts_bad = TRUE;
  t->last_pts = pts;
  t->out_frames++;
  if (caps && gst_video_info_from_caps (&vi, caps)
      && gst_video_frame_map (&f, &vi, buf, GST_MAP_READ)) {
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS], c, y;
      const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
      gsize row;

      gst_video_format_info_component (vi.finfo, p, comp);
      c = MAX (comp[0], 0);
      row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&f, c) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);
      for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, c); y++)
        h = fnv (h, d + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p), row);
    }
    gst_video_frame_unmap (&f);
  } else {
    t->pts_bad = TRUE;
  }
  if (caps)
    gst_caps_unref (caps);
  t->checksum = fnv (t->checksum, (const guint8 *) &h, sizeof (h));
  g_mutex_unlock (&t->check_lock);
  return GST_PAD_PROBE_OK;
}

/* Runs in the posting thread: add up the element's statistics; an error
 * ends the program (the pipeline cannot recover and the pushing thread may
 * be blocked on a full appsrc). */
static GstBusSyncReply
bus_sync (G_GNUC_UNUSED GstBus * bus, GstMessage * m, gpointer user_data)
{
  Stats *st = user_data;

  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (m, &e, &dbg);
    g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (m->src),
        e->message, dbg ? dbg : "");
    exit (1);
  }
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT) {
    const GstStructure *s = gst_message_get_structure (m);
    guint f;
    gdouble u = 0, k = 0, d = 0, hs = 0, hw = 0, hf = 0;
    gint prio;
    if (gst_structure_has_name (s, "cudavision-stats")
        && gst_structure_get_uint (s, "frames", &f)) {
      gboolean host = gst_structure_get_double (s, "host-submit-us", &hs);
      gst_structure_get_double (s, "upload-ms", &u);
      gst_structure_get_double (s, "kernel-ms", &k);
      gst_structure_get_double (s, "download-ms", &d);
      gst_structure_get_double (s, "host-wait-us", &hw);
      gst_structure_get_double (s, "host-finish-us", &hf);
      g_mutex_lock (&st->lock);
      if (gst_structure_get_int (s, "stream-priority", &prio))
        st->priority = prio;
      st->frames += f;
      st->up += u * f;
      st->ker += k * f;
      st->down += d * f;
      if (host) {
        st->host_frames += f;
        st->submit += hs * f;
        st->wait += hw * f;
        st->finish += hf * f;
      }
      g_mutex_unlock (&st->lock);
    }
  }
  return GST_BUS_PASS;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* median, min and max of n values (sorted in place) */
static void
mmm (gdouble * v, guint n, gdouble out[3])
{
  if (n == 0) {
    out[0] = out[1] = out[2] = -1;
    return;
  }
  qsort (v, n, sizeof (gdouble), cmp_double);
  out[0] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  out[1] = v[0];
  out[2] = v[n - 1];
}

/* the q-quantile of n sorted values (the value at floor (q (n - 1))), -1
 * for none */
static gdouble
quantile (const gdouble * v, guint n, gdouble q)
{
  return n ? v[(guint) floor (q * (n - 1))] : -1;
}

/* the frames of stream t left out of the statistics: those pushed before
 * the gate, or without one its first --warmup (at most a quarter of its
 * frames, for slow runs) */
static guint
stream_warm (const Opts * o, const Stream * t)
{
  return t->gate ? t->warm : MIN ((guint) o->warmup, t->pushed / 4);
}

/* p50 and p99 of stream i's latencies after its warm-up (ms) */
static guint
stream_latencies (const Opts * o, const Stream * t, gdouble * out)
{
  guint w = stream_warm (o, t), k, n = 0;

  for (k = w; k < t->pushed && k < t->cap; k++)
    if (t->t_out[k] && t->t_in[k])
      out[n++] = (t->t_out[k] - t->t_in[k]) / 1000.0;
  return n;
}

static gboolean
element_has_property (GstElement * el, const gchar * name)
{
  return g_object_class_find_property (G_OBJECT_GET_CLASS (el), name) != NULL;
}

/* the caps of the input, and for CUDA memory a check that the element
 * takes them (asking gstreamer-cuda's allocator for a layout it does not
 * have aborts inside it) */
static gboolean
check_cuda_caps (const Opts * o, GstElement * el, GstCaps * caps)
{
  GstCaps *any_cuda = gst_caps_from_string ("video/x-raw(memory:CUDAMemory)");
  const gchar *pads[] = { "sink", "src" };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (pads); k++) {
    GstPad *pad = gst_element_get_static_pad (el, pads[k]);
    GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
    gboolean any = gst_caps_can_intersect (tmpl, any_cuda);
    gboolean ok = k == 0 ? gst_caps_can_intersect (tmpl, caps) : any;

    gst_caps_unref (tmpl);
    gst_object_unref (pad);
    if (!any) {
      g_printerr ("%s has no CUDA memory on its %s pad (plugin built "
          "without gstreamer-cuda?): use --input pinned\n", o->element,
          pads[k]);
      return FALSE;
    }
    if (!ok) {
      g_printerr ("%s does not take %s frames in CUDA memory "
          "(gstreamer-cuda has no layout for them): use --input pinned\n",
          o->element, o->format);
      return FALSE;
    }
  }
  gst_caps_unref (any_cuda);
  return TRUE;
}

static Stream *
stream_new (const Opts * o, guint idx, gint device, GstCaps * caps,
    GstBuffer ** made, GstContext * cuda_ctx, gboolean cuda_mem)
{
  Stream *t = g_new0 (Stream, 1);
  GError *err = NULL;
  gchar *desc;
  GstPad *p;

  t->o = o;
  t->idx = idx;
  t->device = device;
  t->made = made;
  /* --live: a live source (a camera's timestamps, not the arrival time:
   * do-timestamp off), paced by the pushing thread */
  desc = g_strdup_printf ("appsrc name=src format=time max-buffers=2 "
      "block=true is-live=%s do-timestamp=false ! %s name=el %s ! %s ! "
      "fakesink name=sink sync=false", o->live > 0 ? "true" : "false",
      o->element, o->props ? o->props : "", cuda_mem ?
      "video/x-raw(memory:CUDAMemory)" : "video/x-raw");
  t->pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!t->pipe) {
    g_printerr ("pipeline: %s\n", err ? err->message : "?");
    exit (2);
  }
  t->src = gst_bin_get_by_name (GST_BIN (t->pipe), "src");
  t->el = gst_bin_get_by_name (GST_BIN (t->pipe), "el");
  t->sink = gst_bin_get_by_name (GST_BIN (t->pipe), "sink");
  /* gst_parse_launch returns the pipeline without an element it does not
   * know (no such plugin: GST_PLUGIN_PATH), with err set */
  if (!t->src || !t->el || !t->sink) {
    g_printerr ("pipeline: %s\n", err ? err->message : "an element is "
        "missing");
    exit (2);
  }
  g_clear_error (&err);
  /* another element (identity: the harness's own cost) has none of these */
  if (element_has_property (t->el, "backend")) {
    gst_util_set_object_arg (G_OBJECT (t->el), "backend", o->backend);
    g_object_set (t->el, "pipeline-depth", (guint) o->depth, "post-stats",
        !o->no_stats, NULL);
  }
  if (o->set_device && element_has_property (t->el, "device-id"))
    g_object_set (t->el, "device-id", device, NULL);
  if (o->priority >= 0) {
    if (!element_has_property (t->el, "stream-priority")) {
      g_printerr ("%s has no stream-priority property\n", o->element);
      exit (2);
    }
    /* stream 0 at --priority, the others at the default */
    g_object_set (t->el, "stream-priority", idx == 0 ? o->priority : 0, NULL);
  }
  if (o->wait_mode) {
    if (!element_has_property (t->el, "wait-mode")) {
      g_printerr ("%s has no wait-mode property\n", o->element);
      exit (2);
    }
    gst_util_set_object_arg (G_OBJECT (t->el), "wait-mode", o->wait_mode);
  }
  if (cuda_mem && idx == 0 && !check_cuda_caps (o, t->el, caps))
    exit (2);
  g_object_set (t->src, "caps", caps, NULL);
  if (cuda_ctx)
    gst_element_set_context (t->pipe, cuda_ctx);

  t->dur = o->live > 0 ? (GstClockTime) (GST_SECOND / o->live) :
      GST_SECOND / 30;
  t->cap = o->frames > 0 ? (guint) o->frames :
      MAX (20000u, 4000000u / (guint) o->streams);
  t->t_in = g_new0 (gint64, t->cap);
  t->t_out = g_new0 (gint64, t->cap);
  p = gst_element_get_static_pad (t->el, "sink");
  g_object_set_data (G_OBJECT (p), "in", GINT_TO_POINTER (1));
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, probe_cb, t, NULL);
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, caps_probe_cb, t,
      NULL);
  gst_object_unref (p);
  p = gst_element_get_static_pad (t->el, "src");
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, probe_cb, t, NULL);
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, caps_probe_cb, t,
      NULL);
  gst_object_unref (p);
  p = gst_element_get_static_pad (t->sink, "sink");
  if (o->check)
    gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, check_cb, t, NULL);
  gst_object_unref (p);
  t->checksum = 14695981039346656037ull;
  g_mutex_init (&t->check_lock);
  g_mutex_init (&t->st.lock);
  t->st.priority = -1;
  t->bus = gst_element_get_bus (t->pipe);
  gst_bus_set_sync_handler (t->bus, bus_sync, &t->st, NULL);
  return t;
}

static void
stream_free (Stream * t)
{
  gst_element_set_state (t->pipe, GST_STATE_NULL);
  gst_object_unref (t->bus);
  gst_object_unref (t->src);
  gst_object_unref (t->el);
  gst_object_unref (t->sink);
  gst_object_unref (t->pipe);
  g_mutex_clear (&t->st.lock);
  g_mutex_clear (&t->check_lock);
  g_free (t->t_in);
  g_free (t->t_out);
  g_free (t);
}

static gdouble cpu_seconds (void);
static void push_thread_measure (Stream * t);

/* Stream t at the gate: its first output out (or its pushing over), then
 * until every stream is there. The last one opens it; the measured phase
 * (--seconds) runs from then. An element that holds every frame pushed so
 * far (a lookahead longer than --warmup) passes after a second without
 * output. */
static void
gate_pass (Stream * t)
{
  Gate *g = t->gate;
  gint64 start = g_get_monotonic_time ();

  t->passed = TRUE;
  if (!g)
    return;
  g_mutex_lock (&g->lock);
  while (t->pushed > 0 && g_atomic_int_get (&t->n_out) == 0) {
    gint64 now = g_get_monotonic_time ();

    if (now - start > 60 * G_TIME_SPAN_SECOND) {
      g_printerr ("stream %u: no output 60 s after its first frame (its "
          "%u warm-up frames pushed)\n", t->idx, t->pushed);
      exit (1);
    }
    if (now - start > G_TIME_SPAN_SECOND
        && (guint) g_atomic_int_get (&t->n_in) >= t->pushed)
      break;
    g_cond_wait_until (&g->cond, &g->lock, now + G_TIME_SPAN_SECOND / 4);
  }
  if (++g->arrived == g->n) {
    g->open = TRUE;
    g->t_go = g_get_monotonic_time ();
    g->cpu_go = cpu_seconds ();
    g_cond_broadcast (&g->cond);
  }
  while (!g->open)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
  if (t->o->frames <= 0)
    t->deadline = g->t_go + (gint64) (t->o->seconds * 1e6);
}

/* the stream's pushing thread */
static gpointer
push_thread (gpointer data)
{
  Stream *t = data;

  /* --stagger: a stream joining the ones already running */
  if (t->o->stagger_ms > 0) {
    gint64 late = t->t_start + (gint64) t->idx * t->o->stagger_ms * 1000 -
        g_get_monotonic_time ();

    if (late > 0)
      g_usleep (late);
  }
  t->t_push0 = g_get_monotonic_time ();
  while (t->pushed < t->cap) {
    GstBuffer *b;

    if (!t->passed && t->pushed == t->warm)
      gate_pass (t);

    if (t->o->live > 0) {
      /* a camera: frame k is pushed at its due time, not before; a frame
       * the element (a full appsrc) held back goes as soon as it can */
      gint64 due = t->t_start + (gint64) (t->pushed * 1e6 / t->o->live);
      gint64 now = g_get_monotonic_time ();

      if (now < due)
        g_usleep (due - now);
      else if (now - due > (gint64) (1e6 / t->o->live))
        t->late++;
      if (t->o->frames <= 0 && due > t->deadline)
        break;
    }
    b = gst_buffer_copy (t->made[t->pushed % 4]);       /* shares memory */

    GST_BUFFER_PTS (b) = t->pushed * t->dur;
    GST_BUFFER_DURATION (b) = t->dur;
    if (gst_app_src_push_buffer (GST_APP_SRC (t->src), b) != GST_FLOW_OK)
      break;
    t->pushed++;
    if (t->passed && t->o->frames <= 0 && g_get_monotonic_time () > t->deadline)
      break;
  }
  /* a stream that ended before the gate lets the others through */
  if (!t->passed)
    gate_pass (t);
  gst_app_src_end_of_stream (GST_APP_SRC (t->src));
  push_thread_measure (t);
  return NULL;
}

static gdouble
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* --threads: where the process CPU goes, per thread name. A thread's CPU
 * time from /proc/self/task/TID/schedstat (ns on a CPU; stat's utime +
 * stime in clock ticks where the kernel has no schedstat), its sleeps
 * (voluntary context switches: a wait that blocked) and preemptions
 * (involuntary) from its status. Threads that end before the second
 * reading (the push threads) measure themselves (Stream.push_*). */
typedef struct
{
  gint tid;
  gchar comm[32];
  guint64 cpu_ns, vcsw, ivcsw;
} ThreadStat;

static gboolean
read_file_text (const gchar * path, gchar * buf, gsize size)
{
  FILE *f = fopen (path, "r");
  gsize n;

  if (!f)
    return FALSE;
  n = fread (buf, 1, size - 1, f);
  fclose (f);
  buf[n] = 0;
  return n > 0;
}

static GArray *
thread_stats_read (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (ThreadStat));
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;
  gchar path[128], buf[4096];

  if (!dir)
    return a;
  while ((name = g_dir_read_name (dir))) {
    ThreadStat t = { 0 };
    gchar *p;

    t.tid = atoi (name);
    g_snprintf (path, sizeof (path), "/proc/self/task/%s/comm", name);
    if (read_file_text (path, buf, sizeof (buf)))
      g_strlcpy (t.comm, g_strstrip (buf), sizeof (t.comm));
    g_snprintf (path, sizeof (path), "/proc/self/task/%s/schedstat", name);
    if (read_file_text (path, buf, sizeof (buf))) {
      t.cpu_ns = g_ascii_strtoull (buf, NULL, 10);
    } else {
      g_snprintf (path, sizeof (path), "/proc/self/task/%s/stat", name);
      if (read_file_text (path, buf, sizeof (buf))
          && (p = strrchr (buf, ')'))) {
        gchar **f = g_strsplit (p + 2, " ", 0);
        /* fields 14 and 15 of stat; f[0] is field 3 */
        if (g_strv_length (f) > 13)
          t.cpu_ns = (g_ascii_strtoull (f[11], NULL, 10) +
              g_ascii_strtoull (f[12], NULL, 10)) * (1000000000ull /
              (guint64) sysconf (_SC_CLK_TCK));
        g_strfreev (f);
      }
    }
    g_snprintf (path, sizeof (path), "/proc/self/task/%s/status", name);
    if (read_file_text (path, buf, sizeof (buf))) {
      if ((p = strstr (buf, "\nvoluntary_ctxt_switches:")))
        t.vcsw = g_ascii_strtoull (p + 25, NULL, 10);
      if ((p = strstr (buf, "\nnonvoluntary_ctxt_switches:")))
        t.ivcsw = g_ascii_strtoull (p + 28, NULL, 10);
    }
    g_array_append_val (a, t);
  }
  g_dir_close (dir);
  return a;
}

/* the push thread measures itself at its end */
static void
push_thread_measure (Stream * t)
{
  struct timespec ts;
  struct rusage ru;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    t->push_cpu_ns = (guint64) ts.tv_sec * 1000000000ull + ts.tv_nsec;
#ifdef RUSAGE_THREAD
  if (getrusage (RUSAGE_THREAD, &ru) == 0) {
    t->push_vcsw = ru.ru_nvcsw;
    t->push_ivcsw = ru.ru_nivcsw;
  }
#endif
}

/* Print the CPU between two readings per thread name (digits at the end
 * of a name dropped: "cudavision-out" of every stream together), per
 * frame: CPU us, sleeps, preemptions. */
static void
thread_stats_print (GArray * before, GArray * after, Stream ** s,
    guint n_streams, guint frames)
{
  GHashTable *groups = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, g_free);
  GHashTableIter it;
  gpointer key, val;
  ThreadStat *push = g_new0 (ThreadStat, 1);
  guint i, j;
  gdouble total = 0;

  for (i = 0; i < after->len; i++) {
    ThreadStat *a = &g_array_index (after, ThreadStat, i), *g;
    ThreadStat b = { 0 };
    gchar *name = g_strdup (a->comm);
    gsize l = strlen (name);

    for (j = 0; j < before->len; j++)
      if (g_array_index (before, ThreadStat, j).tid == a->tid)
        b = g_array_index (before, ThreadStat, j);
    while (l > 1 && g_ascii_isdigit (name[l - 1]))
      name[--l] = 0;
    g = g_hash_table_lookup (groups, name);
    if (!g) {
      g = g_new0 (ThreadStat, 1);
      g_hash_table_insert (groups, name, g);
    } else {
      g_free (name);
    }
    g->tid++;                   /* threads in the group */
    g->cpu_ns += a->cpu_ns - MIN (b.cpu_ns, a->cpu_ns);
    g->vcsw += a->vcsw - MIN (b.vcsw, a->vcsw);
    g->ivcsw += a->ivcsw - MIN (b.ivcsw, a->ivcsw);
  }
  for (i = 0; i < n_streams; i++) {
    push->tid++;
    push->cpu_ns += s[i]->push_cpu_ns;
    push->vcsw += s[i]->push_vcsw;
    push->ivcsw += s[i]->push_ivcsw;
  }
  g_hash_table_insert (groups, g_strdup ("push (bench)"), push);
  frames = MAX (frames, 1);
  g_hash_table_iter_init (&it, groups);
  while (g_hash_table_iter_next (&it, &key, &val)) {
    ThreadStat *g = val;

    if (g->cpu_ns == 0 && g->vcsw == 0)
      continue;
    total += g->cpu_ns / 1e3 / frames;
    g_print ("threads      %-18s x%-3d %7.2f us CPU, %5.2f sleeps, %5.2f "
        "preempted per frame\n", (const gchar *) key, g->tid,
        g->cpu_ns / 1e3 / frames, (gdouble) g->vcsw / frames,
        (gdouble) g->ivcsw / frames);
  }
  g_print ("threads      all                     %7.2f us CPU per frame "
      "(%u frames, warm-up included; threads that ended between the two "
      "readings, but the push threads, are not in it: compare with the "
      "process's cpu line)\n", total, frames);
  g_hash_table_unref (groups);
}

static gint
device_slot (const Opts * o, gint device)
{
  guint d;

  for (d = 0; d < o->n_devices; d++)
    if (o->devices[d] == device)
      return d;
  return 0;
}

/* One run: n_streams pipelines, started together, frames pushed, EOS.
 * FALSE when a --check assertion failed. */
static gboolean
run_once (const Opts * o, guint n_streams, GstCaps * caps,
    GstBuffer ** made[MAX_DEV], GstContext * ctxs[MAX_DEV],
    gboolean cuda_mem, RunResult * r, guint64 * ref_checksum)
{
  Stream **s = g_new0 (Stream *, n_streams);
  CvNvmlSampler *sampler = NULL;
  Gate gate = { 0 };
  gboolean gated = n_streams > 1 && o->live <= 0 && !o->cold_start
      && o->stagger_ms <= 0;
  gint64 t0, t_end, *first, *last;
  guint *nfs;
  gdouble cpu0, cpu1, *lat;
  guint i, n_lat = 0, total_pushed = 0, d;
  gboolean ok = TRUE;
  guint64 lat_cap = 0;
  GArray *th0 = NULL;

  memset (r, 0, sizeof (*r));
  r->stream_fps = g_new0 (gdouble, n_streams);
  r->stream_p50 = g_new0 (gdouble, n_streams);
  r->stream_p99 = g_new0 (gdouble, n_streams);
  r->stream_common_fps = g_new0 (gdouble, n_streams);
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  gate.n = n_streams;

#ifdef HAVE_CUDA
  /* the floor in the same run, before it (the element then runs on a warm
   * device) */
  if (!o->no_floor && !g_str_equal (o->backend, "cpu")) {
    CvBenchFloor fl = { 0 };
    if (cv_bench_measure_floor (o->devices[0], 256u << 20, 10, &fl) == 0) {
      r->have_floor = TRUE;
      r->h2d = fl.h2d_gbps;
      r->d2h = fl.d2h_gbps;
      r->duplex = fl.duplex_gbps;
      r->d2d = fl.d2d_gbps;
      g_strlcpy (r->device, fl.device, sizeof (r->device));
    } else {
      g_printerr ("note: no floor measured: %s\n", fl.device);
    }
  }
#endif

  for (i = 0; i < n_streams; i++) {
    gint dev = o->devices[i % o->n_devices];
    gint slot = device_slot (o, dev);
    s[i] = stream_new (o, i, dev, caps, made[slot], ctxs[slot], cuda_mem);
    if (gated) {
      s[i]->gate = &gate;
      s[i]->warm = MIN ((guint) o->warmup, s[i]->cap / 4);
    }
  }
  for (i = 0; i < n_streams; i++)
    if (gst_element_set_state (s[i]->pipe, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      g_printerr ("could not start pipeline %u\n", i);
      exit (1);
    }
  /* --live: wait until every live source plays (a live pipeline does not
   * preroll; its sink completes its state change on the first frame), so
   * that no frame is due before its pipeline runs */
  for (i = 0; o->live > 0 && i < n_streams; i++) {
    GstState st = GST_STATE_NULL;

    if (gst_element_get_state (s[i]->src, &st, NULL, 10 * GST_SECOND) ==
        GST_STATE_CHANGE_FAILURE || st != GST_STATE_PLAYING) {
      g_printerr ("pipeline %u did not start\n", i);
      exit (1);
    }
  }

  if (!g_str_equal (o->backend, "cpu")) {
    gchar *bus_ids[MAX_DEV] = { NULL };
#ifdef HAVE_CUDA
    for (d = 0; d < o->n_devices; d++) {
      gchar buf[64];
      if (cv_bench_pci_bus_id (o->devices[d], buf, sizeof (buf)) == 0)
        bus_ids[d] = g_strdup (buf);
    }
#endif
    sampler = cv_nvml_sampler_start (o->n_devices,
        (const gchar * const *) bus_ids, o->devices);
    for (d = 0; d < o->n_devices; d++)
      g_free (bus_ids[d]);
  }
  if (o->threads)
    th0 = thread_stats_read ();
  cpu0 = cpu_seconds ();
  t0 = g_get_monotonic_time ();
  for (i = 0; i < n_streams; i++) {
    s[i]->deadline = t0 + (gint64) (o->seconds * 1e6);
    /* --live: every stream on its own thread and its own schedule, all
     * schedules from the same start */
    s[i]->t_start = t0;
    s[i]->thread = g_thread_new ("push", push_thread, s[i]);
  }
  for (i = 0; i < n_streams; i++) {
    GstMessage *eos;

    g_thread_join (s[i]->thread);
    eos = gst_bus_timed_pop_filtered (s[i]->bus, 120 * GST_SECOND,
        GST_MESSAGE_EOS);
    if (!eos) {
      g_printerr ("stream %u: no EOS after 120 s\n", i);
      exit (1);
    }
    gst_message_unref (eos);
    total_pushed += s[i]->pushed;
  }
  t_end = g_get_monotonic_time ();
  cpu1 = cpu_seconds ();
  if (th0) {
    GArray *th1 = thread_stats_read ();

    thread_stats_print (th0, th1, s, n_streams, total_pushed);
    g_array_unref (th1);
    g_array_unref (th0);
  }
  for (d = 0; d < MAX_DEV; d++)
    r->nvml[d] = -1;
  cv_nvml_sampler_stop (sampler, r->nvml);
  /* with the gate: the measured phase only (the frames pushed after it,
   * the time and the CPU from its opening) */
  r->gate_ms = -1;
  if (gated) {
    for (i = 0; i < n_streams; i++)
      total_pushed -= MIN (s[i]->warm, s[i]->pushed);
    r->gate_ms = (gate.t_go - t0) / 1e3;
    t0 = gate.t_go;
    cpu0 = gate.cpu_go;
  }
  r->cpu_us = (cpu1 - cpu0) * 1e6 / MAX (total_pushed, 1);
  r->wall_s = (t_end - t0) / 1e6;
  /* each stream's start-up: from its first push to its first output */
  {
    gdouble *st = g_new (gdouble, n_streams);
    guint n = 0;

    r->start_med_ms = r->start_max_ms = -1;
    for (i = 0; i < n_streams; i++)
      if (s[i]->pushed > 0 && s[i]->t_out[0] > 0)
        st[n++] = (s[i]->t_out[0] - s[i]->t_push0) / 1e3;
    if (n) {
      gdouble m[3];

      mmm (st, n, m);
      r->start_med_ms = m[0];
      r->start_max_ms = m[2];
    }
    g_free (st);
  }
  /* where it went: set_caps, to the first input, to the first output */
  {
    gdouble *st = g_new (gdouble, 3 * n_streams);
    gdouble *meds[3] = { &r->setcaps_med_ms, &r->caps_in_med_ms,
      &r->in_out_med_ms
    }, *maxs[3] = {
      &r->setcaps_max_ms, &r->caps_in_max_ms, &r->in_out_max_ms
    };
    guint n[3] = { 0, 0, 0 }, k;

    for (i = 0; i < n_streams; i++) {
      Stream *t = s[i];

      if (t->t_caps_in > 0 && t->t_caps_out >= t->t_caps_in)
        st[n[0]++] = (t->t_caps_out - t->t_caps_in) / 1e3;
      if (t->t_caps_out > 0 && t->pushed > 0 && t->t_in[0] >= t->t_caps_out)
        st[n_streams + n[1]++] = (t->t_in[0] - t->t_caps_out) / 1e3;
      if (t->pushed > 0 && t->t_in[0] > 0 && t->t_out[0] >= t->t_in[0])
        st[2 * n_streams + n[2]++] = (t->t_out[0] - t->t_in[0]) / 1e3;
    }
    for (k = 0; k < 3; k++) {
      gdouble m[3];

      *meds[k] = *maxs[k] = -1;
      if (n[k]) {
        mmm (st + k * n_streams, n[k], m);
        *meds[k] = m[0];
        *maxs[k] = m[2];
      }
    }
    g_free (st);
  }

  {
    GstPad *p = gst_element_get_static_pad (s[0]->sink, "sink");
    GstCaps *oc = gst_pad_get_current_caps (p);
    GstVideoInfo oi;
    GEnumValue *ev;
    gint a;
    GEnumClass *ec;

    if (oc && gst_video_info_from_caps (&oi, oc))
      r->out_bytes = GST_VIDEO_INFO_SIZE (&oi);
    if (oc)
      gst_caps_unref (oc);
    gst_object_unref (p);
    if (element_has_property (s[0]->el, "active-backend")) {
      g_object_get (s[0]->el, "active-backend", &a, NULL);
      ec = g_type_class_ref (g_type_from_name ("GstCudaVisionBackend"));
      ev = g_enum_get_value (ec, a);
      r->active = g_strdup (ev ? ev->value_nick : "?");
      g_type_class_unref (ec);
    } else {
      r->active = g_strdup ("none");
    }
  }
  for (i = 0; i < n_streams; i++)
    gst_element_set_state (s[i]->pipe, GST_STATE_NULL);

  /* --check: every stream got every frame, in order, with the output of
   * the single-stream run */
  if (o->check) {
    for (i = 0; i < n_streams; i++) {
      Stream *t = s[i];
      if (t->out_frames != (guint) o->frames || t->pushed != (guint) o->frames) {
        g_printerr ("CHECK FAILED: stream %u: %u frames pushed, %u reached "
            "the sink, expected %d\n", i, t->pushed, t->out_frames, o->frames);
        ok = FALSE;
      }
      if (g_atomic_int_get (&t->n_in) != g_atomic_int_get (&t->n_out)) {
        g_printerr ("CHECK FAILED: stream %u: %d frames into the element, "
            "%d out of it\n", i, g_atomic_int_get (&t->n_in),
            g_atomic_int_get (&t->n_out));
        ok = FALSE;
      }
      if (t->pts_bad) {
        g_printerr ("CHECK FAILED: stream %u: timestamps not increasing "
            "from 0 (or a frame not mappable)\n", i);
        ok = FALSE;
      }
      if (*ref_checksum == 0)
        *ref_checksum = t->checksum;
      else if (t->checksum != *ref_checksum) {
        g_printerr ("CHECK FAILED: stream %u (device %d): output checksum "
            "%016" G_GINT64_MODIFIER "x differs from the single-stream "
            "run's %016" G_GINT64_MODIFIER "x\n", i, t->device, t->checksum,
            *ref_checksum);
        ok = FALSE;
      }
    }
  }

  /* statistics over each stream's frames after the warm-up (at most a
   * quarter of its frames, for slow runs) */
  for (i = 0; i < n_streams; i++)
    lat_cap += s[i]->pushed;
  lat = g_new (gdouble, MAX (lat_cap, 1));
  first = g_new0 (gint64, n_streams);
  last = g_new0 (gint64, n_streams);
  nfs = g_new0 (guint, n_streams);
  {
    Stats all = { 0 };
    gint64 t_a = G_MAXINT64, t_b = 0, t_c = G_MAXINT64, t_s = 0;
    gint64 dev_a[MAX_DEV], dev_b[MAX_DEV];
    guint64 dev_n[MAX_DEV] = { 0 };

    for (d = 0; d < MAX_DEV; d++) {
      dev_a[d] = G_MAXINT64;
      dev_b[d] = 0;
    }
    for (i = 0; i < n_streams; i++) {
      Stream *t = s[i];
      guint w = stream_warm (o, t), k, nf = 0;

      r->n_in += g_atomic_int_get (&t->n_in);
      r->n_out += g_atomic_int_get (&t->n_out);
      r->late += t->late;
      first[i] = G_MAXINT64;
      for (k = w; k < t->pushed && k < t->cap; k++) {
        if (!t->t_out[k] || !t->t_in[k])
          continue;
        lat[n_lat++] = (t->t_out[k] - t->t_in[k]) / 1000.0;
        first[i] = MIN (first[i], t->t_out[k]);
        last[i] = MAX (last[i], t->t_out[k]);
        nf++;
      }
      r->frames += nf;
      nfs[i] = nf;
      if (nf >= 2) {
        r->stream_fps[i] = (nf - 1) * 1e6 / MAX (last[i] - first[i], 1);
        r->stream_fps_sum += r->stream_fps[i];
      }
      if (nf) {
        gint slot = device_slot (o, t->device);

        t_a = MIN (t_a, first[i]);
        t_b = MAX (t_b, last[i]);
        t_c = MIN (t_c, last[i]);
        t_s = MAX (t_s, first[i]);
        dev_a[slot] = MIN (dev_a[slot], first[i]);
        dev_b[slot] = MAX (dev_b[slot], last[i]);
      }
      all.frames += t->st.frames;
      all.up += t->st.up;
      all.ker += t->st.ker;
      all.down += t->st.down;
      all.host_frames += t->st.host_frames;
      all.submit += t->st.submit;
      all.wait += t->st.wait;
      all.finish += t->st.finish;
      r->kbusy[device_slot (o, t->device)] += t->st.ker;
    }
    /* aggregate: the counted frames of all streams (each stream's after
     * its warm-up and after its first counted one: its frame intervals)
     * over the wall time from the earliest first counted output to the
     * latest last one, t_b - t_a: never a sum of rates (streams that did
     * not run at the same time would add up to more than the machine
     * did), and never more than that sum. One stream: its own rate. Per
     * device likewise, over that device's own window. */
    r->fps = r->window_s = 0;
    for (i = 0; i < n_streams; i++)
      if (nfs[i]) {
        r->frames_window += nfs[i] - 1;
        dev_n[device_slot (o, s[i]->device)] += nfs[i] - 1;
      }
    if (t_b > t_a) {
      r->window_s = (t_b - t_a) / 1e6;
      r->fps = r->frames_window / r->window_s;
    }
    for (d = 0; d < o->n_devices; d++)
      r->dev_fps[d] = dev_b[d] > dev_a[d] ?
          dev_n[d] * 1e6 / (dev_b[d] - dev_a[d]) : 0;
    /* fairness: each stream's counted frames output in the common window
     * (t_s, t_c], in which every stream ran (each past its warm-up, none
     * ended), over its length: the slowest and the fastest, and slowest /
     * fastest. Not from the earliest first output t_a: the streams that
     * started later would be charged with their start-up (that is the
     * start-up figure's). A stream that started after another ended
     * leaves no common window: n/a, never a 0 that reads as starvation. */
    r->common_s = r->fair_min = r->fair_max = r->fair_ratio = -1;
    for (i = 0; i < n_streams; i++)
      r->stream_common_fps[i] = -1;
    if (t_c > t_s && t_c != G_MAXINT64) {
      r->common_s = (t_c - t_s) / 1e6;
      for (i = 0; i < n_streams; i++) {
        Stream *t = s[i];
        guint k, c = 0;
        gdouble rate;

        for (k = stream_warm (o, t); k < t->pushed && k < t->cap; k++)
          c += t->t_out[k] > t_s && t->t_out[k] <= t_c;
        rate = r->stream_common_fps[i] = c / r->common_s;
        if (i == 0 || rate < r->fair_min)
          r->fair_min = rate;
        if (i == 0 || rate > r->fair_max)
          r->fair_max = rate;
      }
      r->fair_ratio = r->fair_max > 0 ? r->fair_min / r->fair_max : -1;
    }
    if (n_lat) {
      gdouble sum = 0;
      for (i = 0; i < n_lat; i++)
        sum += lat[i];
      qsort (lat, n_lat, sizeof (gdouble), cmp_double);
      r->lat_mean = sum / n_lat;
      r->lat_p99 = lat[(guint) floor (0.99 * (n_lat - 1))];
      r->lat_p50 = quantile (lat, n_lat, 0.5);
      r->lat_max = lat[n_lat - 1];
    }
    /* per stream, then stream 0 against the others pooled (lat reused:
     * stream 0's first, the others' after them) */
    {
      guint n0 = 0, n_oth = 0;

      for (i = 0; i < n_streams; i++) {
        guint n = stream_latencies (o, s[i], lat + n0 + n_oth);

        qsort (lat + n0 + n_oth, n, sizeof (gdouble), cmp_double);
        r->stream_p50[i] = quantile (lat + n0 + n_oth, n, 0.5);
        r->stream_p99[i] = quantile (lat + n0 + n_oth, n, 0.99);
        if (i == 0)
          n0 = n;
        else
          n_oth += n;
      }
      r->lat0_p50 = r->stream_p50[0];
      r->lat0_p99 = r->stream_p99[0];
      qsort (lat + n0, n_oth, sizeof (gdouble), cmp_double);
      r->lat_others_p50 = quantile (lat + n0, n_oth, 0.5);
      r->lat_others_p99 = quantile (lat + n0, n_oth, 0.99);
      r->priority0 = s[0]->st.priority;
    }
    r->up = all.frames ? all.up / all.frames : -1;
    r->ker = all.frames ? all.ker / all.frames : -1;
    r->down = all.frames ? all.down / all.frames : -1;
    r->submit = all.host_frames ? all.submit / all.host_frames : -1;
    r->wait = all.host_frames ? all.wait / all.host_frames : -1;
    r->finish = all.host_frames ? all.finish / all.host_frames : -1;
    /* the kernels' busy share of the wall time, per device: > 100 % when
     * kernels of several streams overlap */
    for (d = 0; d < o->n_devices; d++)
      r->kbusy[d] = all.frames && g_str_equal (r->active, "cuda") ?
          r->kbusy[d] / (r->wall_s * 1e3) * 100 : -1;
  }
  g_free (lat);
  g_free (first);
  g_free (last);
  g_free (nfs);
  for (i = 0; i < n_streams; i++)
    stream_free (s[i]);
  g_free (s);
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
  return ok;
}

/* the floors of a run, derived */
static void
floors (const RunResult * r, gsize in_bytes, gsize out_bytes, gdouble f[5])
{
  gdouble h2d = in_bytes / (r->h2d * 1e9) * 1e3;
  gdouble d2h = out_bytes / (r->d2h * 1e9) * 1e3;
  gdouble duplex = (in_bytes + out_bytes) / (r->duplex * 1e9) * 1e3;

  f[0] = h2d;
  f[1] = d2h;
  f[2] = MAX (MAX (h2d, d2h), duplex);  /* ms/frame, overlapped */
  f[3] = 1e3 / f[2];            /* frames/s */
  f[4] = (in_bytes + out_bytes) / (r->d2d * 1e9) * 1e6; /* kernel us */
}

/* A figure beyond what the machine can physically do, or beyond what the
 * streams' own rates allow, is a bug of the measurement, not a result:
 * say so on a line of its own (TRUE when one was found). */
static gboolean
sanity (const Opts * o, const RunResult * runs, guint n_runs, gsize in_bytes,
    gsize out_bytes, gboolean cuda_mem)
{
  gboolean bug = FALSE;
  guint k, d;

  for (k = 0; k < n_runs; k++) {
    const RunResult *r = &runs[k];

    /* the aggregate counts each stream's frame intervals once, over a
     * window at least as long as each stream's own span: it cannot beat
     * the sum of the streams' own rates */
    if (o->streams > 1 && r->window_s > 0 && r->fps > r->stream_fps_sum *
        (1 + 1e-9) + 1e-6) {
      g_print ("MEASUREMENT BUG: run %u: aggregate %.1f frames/s exceeds "
          "the sum of the streams' own rates (%.1f frames/s)\n", k + 1,
          r->fps, r->stream_fps_sum);
      bug = TRUE;
    }
    /* frames from host memory cross the device's PCIe link both ways:
     * no device delivers more of them than its link's floor (measured on
     * the first device, in this run) */
    if (r->have_floor && !cuda_mem && g_strcmp0 (r->active, "cuda") == 0) {
      gdouble f[5];

      floors (r, in_bytes, out_bytes, f);
      for (d = 0; d < o->n_devices; d++) {
        gdouble rate = o->n_devices == 1 ? r->fps : r->dev_fps[d];

        if (rate / f[3] * 100 > 100) {
          g_print ("MEASUREMENT BUG: run %u: device %d delivered %.1f "
              "frames/s = %.1f %% of its PCIe floor (%.1f frames/s: %"
              G_GSIZE_FORMAT " bytes in and %" G_GSIZE_FORMAT " out at the "
              "bandwidths measured in this run): host-memory frames cannot "
              "beat it\n", k + 1, o->devices[d], rate, rate / f[3] * 100,
              f[3], in_bytes, out_bytes);
          bug = TRUE;
        }
      }
    }
  }
  return bug;
}

static void
json_mmm (GString * j, const gchar * key, const gdouble v[3])
{
  g_string_append_printf (j, "\"%s\": {\"median\": %.6g, \"min\": %.6g, "
      "\"max\": %.6g}", key, v[0], v[1], v[2]);
}

static void
json_str (GString * j, const gchar * key, const gchar * v)
{
  gchar *e = g_strescape (v ? v : "", NULL);
  g_string_append_printf (j, "\"%s\": \"%s\"", key, e);
  g_free (e);
}

/* the median / min / max over the runs of field at offset off */
#define RUNS_MMM(field, out) G_STMT_START { \
    for (k = 0; k < n_runs; k++) v[k] = runs[k].field; \
    mmm (v, n_runs, out); } G_STMT_END

static void
report (const Opts * o, RunResult * runs, guint n_runs, gsize in_bytes,
    gboolean cuda_mem, gboolean pinned)
{
  gdouble *v = g_new (gdouble, MAX (n_runs * o->streams, 1));
  gdouble fps[3], smin[3], smed[3], smax[3], lm[3], lp[3], up[3], ker[3],
      down[3], sub[3], wai[3], fin[3], cpu[3], fl[3] = { -1, -1, -1 },
      l0p50[3], l0p99[3], lop50[3], lop99[3], *sp50, *sp99,
      share[3] = { -1, -1, -1 }, dev[MAX_DEV][3], nv[MAX_DEV][3],
      kb[MAX_DEV][3], win[3], fwin[3], nfr[3], ssum[3], com[3], fmin[3],
      fmax[3], fratio[3], lp50[3], lmax[3], smed_ms[3], smax_ms[3],
      gms[3], scmed[3], scmax[3], cimed[3], cimax[3], iomed[3], iomax[3], *scf;
  guint64 n_in = 0, n_out = 0, late = 0;
  gboolean bug = FALSE;
  RunResult *r0 = &runs[0];
  gsize out_bytes = r0->out_bytes;
  const gchar *input = cuda_mem ? "cuda" : pinned ? "pinned" : "pageable";
  guint k, i, d;
  gboolean have_floor = TRUE;
  /* the devices that carry a stream (round-robin), each with its link */
  const guint links = MIN ((guint) o->streams, (guint) o->n_devices);
  GString *devs = g_string_new (NULL);

  for (d = 0; d < o->n_devices; d++)
    g_string_append_printf (devs, "%s%d", d ? "," : "", o->devices[d]);
  RUNS_MMM (fps, fps);
  RUNS_MMM (lat_mean, lm);
  RUNS_MMM (lat_p99, lp);
  RUNS_MMM (up, up);
  RUNS_MMM (ker, ker);
  RUNS_MMM (down, down);
  RUNS_MMM (submit, sub);
  RUNS_MMM (wait, wai);
  RUNS_MMM (finish, fin);
  RUNS_MMM (cpu_us, cpu);
  RUNS_MMM (lat0_p50, l0p50);
  RUNS_MMM (lat0_p99, l0p99);
  RUNS_MMM (lat_others_p50, lop50);
  RUNS_MMM (lat_others_p99, lop99);
  RUNS_MMM (window_s, win);
  RUNS_MMM (frames_window, fwin);
  RUNS_MMM (frames, nfr);
  RUNS_MMM (stream_fps_sum, ssum);
  RUNS_MMM (common_s, com);
  RUNS_MMM (fair_min, fmin);
  RUNS_MMM (fair_max, fmax);
  RUNS_MMM (fair_ratio, fratio);
  RUNS_MMM (lat_p50, lp50);
  RUNS_MMM (lat_max, lmax);
  RUNS_MMM (start_med_ms, smed_ms);
  RUNS_MMM (start_max_ms, smax_ms);
  RUNS_MMM (gate_ms, gms);
  RUNS_MMM (setcaps_med_ms, scmed);
  RUNS_MMM (setcaps_max_ms, scmax);
  RUNS_MMM (caps_in_med_ms, cimed);
  RUNS_MMM (caps_in_max_ms, cimax);
  RUNS_MMM (in_out_med_ms, iomed);
  RUNS_MMM (in_out_max_ms, iomax);
  for (k = 0; k < n_runs; k++) {
    n_in += runs[k].n_in;
    n_out += runs[k].n_out;
    late += runs[k].late;
  }
  /* each stream's p50 and p99: the medians over the runs */
  sp50 = g_new (gdouble, o->streams);
  sp99 = g_new (gdouble, o->streams);
  scf = g_new (gdouble, o->streams);
  for (i = 0; i < (guint) o->streams; i++) {
    gdouble m[3];

    RUNS_MMM (stream_p50[i], m);
    sp50[i] = m[0];
    RUNS_MMM (stream_p99[i], m);
    sp99[i] = m[0];
    RUNS_MMM (stream_common_fps[i], m);
    scf[i] = m[0];
  }
  for (d = 0; d < o->n_devices; d++) {
    RUNS_MMM (dev_fps[d], dev[d]);
    RUNS_MMM (nvml[d], nv[d]);
    RUNS_MMM (kbusy[d], kb[d]);
  }
  /* per stream: min / median / max over the streams of each run, then
   * the median of those over the runs */
  {
    gdouble *a = g_new (gdouble, o->streams), m[3];
    gdouble *mins = g_new (gdouble, n_runs), *meds = g_new (gdouble, n_runs),
        *maxs = g_new (gdouble, n_runs);
    for (k = 0; k < n_runs; k++) {
      memcpy (a, runs[k].stream_fps, o->streams * sizeof (gdouble));
      mmm (a, o->streams, m);
      meds[k] = m[0];
      mins[k] = m[1];
      maxs[k] = m[2];
    }
    mmm (mins, n_runs, smin);
    mmm (meds, n_runs, smed);
    mmm (maxs, n_runs, smax);
    g_free (a);
    g_free (mins);
    g_free (meds);
    g_free (maxs);
  }
  for (k = 0; k < n_runs; k++)
    have_floor &= runs[k].have_floor;
  /* frames in CUDA memory never cross PCIe: no PCIe floor applies (the
   * device-memory floor and the kernel-bound rate are printed instead) */
  if (have_floor && !cuda_mem) {
    gdouble f[5];
    /* each run against its own floor: the share of the PCIe floor. With
     * --devices, every device that carries a stream has its own link: the
     * floor is the first device's (measured in the run; the links taken as
     * equal) times the number of those devices (streams go round-robin),
     * so the aggregate of two GPUs is not set against one link (sanity ()
     * checks each device's own rate against one link) */
    for (k = 0; k < n_runs; k++) {
      floors (&runs[k], in_bytes, out_bytes, f);
      v[k] = f[3] * links;
    }
    mmm (v, n_runs, fl);
    for (k = 0; k < n_runs; k++) {
      floors (&runs[k], in_bytes, out_bytes, f);
      v[k] = runs[k].fps / (f[3] * links) * 100;
    }
    mmm (v, n_runs, share);
  }

  /* the human-readable block */
  g_print ("\n== %s %s | %dx%d %s | %s input | depth %d | %d stream%s on "
      "device%s %s | backend %s | wait %s | %u run%s\n", o->element,
      o->props ? o->props : "", o->width, o->height, o->format, input,
      o->depth, o->streams, o->streams == 1 ? "" : "s",
      o->n_devices == 1 ? "" : "s", devs->str, r0->active,
      o->wait_mode ? o->wait_mode : "default", n_runs, n_runs == 1 ? "" : "s");
  g_print ("element      %s %s\n", o->element, o->props ? o->props : "");
  g_print ("frame        %dx%d %s in (%" G_GSIZE_FORMAT " bytes), out %"
      G_GSIZE_FORMAT " bytes\n", o->width, o->height, o->format, in_bytes,
      out_bytes);
  g_print ("backend      %s, pipeline-depth %d, %s input\n", r0->active,
      o->depth, cuda_mem ? "CUDA-memory" : pinned ? "pinned" : "pageable");
  g_print ("frames       %u (after warm-up, all streams, run 1)\n", r0->frames);
  g_print ("%-24s %12s %12s %12s\n", "figure (over runs)", "median", "min",
      "max");
#define ROW(name, a, fmt) if ((a)[0] >= 0) \
    g_print ("%-24s %12" fmt " %12" fmt " %12" fmt "\n", name, (a)[0], \
        (a)[1], (a)[2])
  ROW ("fps aggregate", fps, ".1f");
  ROW ("window (s)", win, ".4f");
  ROW ("frames in window", fwin, ".0f");
  if (o->streams > 1) {
    ROW ("fps per stream, min", smin, ".1f");
    ROW ("fps per stream, median", smed, ".1f");
    ROW ("fps per stream, max", smax, ".1f");
    ROW ("sum of streams' fps", ssum, ".1f");
    ROW ("start-up, median (ms)", smed_ms, ".1f");
    ROW ("start-up, slowest (ms)", smax_ms, ".1f");
    ROW ("gate opened at (ms)", gms, ".1f");
    ROW ("common window (s)", com, ".4f");
    ROW ("common fps, slowest", fmin, ".1f");
    ROW ("common fps, fastest", fmax, ".1f");
    ROW ("slowest / fastest", fratio, ".3f");
  }
  for (d = 0; o->n_devices > 1 && d < o->n_devices; d++) {
    gchar *n = g_strdup_printf ("fps on device %d", o->devices[d]);
    ROW (n, dev[d], ".1f");
    g_free (n);
  }
  ROW ("latency mean (ms)", lm, ".3f");
  if (o->live > 0)
    ROW ("latency p50 (ms)", lp50, ".3f");
  ROW ("latency p99 (ms)", lp, ".3f");
  if (o->live > 0)
    ROW ("latency max (ms)", lmax, ".3f");
  if (o->streams > 1) {
    ROW ("stream 0 latency p50 (ms)", l0p50, ".3f");
    ROW ("stream 0 latency p99 (ms)", l0p99, ".3f");
    ROW ("others latency p50 (ms)", lop50, ".3f");
    ROW ("others latency p99 (ms)", lop99, ".3f");
  }
  ROW ("upload (ms)", up, ".4f");
  ROW ("kernel (ms)", ker, ".4f");
  ROW ("download (ms)", down, ".4f");
  ROW ("host submit (us)", sub, ".1f");
  ROW ("host wait (us)", wai, ".1f");
  ROW ("host finish (us)", fin, ".1f");
  ROW ("CPU time/frame (us)", cpu, ".1f");
  for (d = 0; d < o->n_devices; d++) {
    gchar *n = g_strdup_printf ("GPU %d util NVML (%%)", o->devices[d]);
    ROW (n, nv[d], ".1f");
    g_free (n);
    n = g_strdup_printf ("GPU %d kernel busy (%%)", o->devices[d]);
    ROW (n, kb[d], ".1f");
    g_free (n);
  }
  ROW (links == 1 ? "PCIe floor (fps)" : "PCIe floor x dev (fps)", fl, ".1f");
  ROW ("share of PCIe floor (%)", share, ".1f");
  g_print ("throughput   %.1f frames/s (%.3f ms/frame) aggregate, median of "
      "%u\n", fps[0], 1e3 / fps[0], n_runs);
  g_print ("window       %.0f frames in %.4f s: each stream's frames after "
      "its warm-up and its first counted one, from the earliest first "
      "counted output to the latest last one (median of %u)\n", fwin[0],
      win[0], n_runs);
  if (o->streams > 1)
    g_print ("start-up     %.1f ms median, %.1f ms the slowest stream: from "
        "its first push to its first output (negotiation, allocation, the "
        "first frame); %s, median of %u\n", smed_ms[0], smax_ms[0],
        gms[0] >= 0 ? "every stream through it and its warm-up before "
        "the measured phase (the start gate)" : "overlapping the others' "
        "measured frames (no start gate: --cold-start, --stagger or --live)",
        n_runs);
  if (o->streams > 1)
    g_print ("start-up by stage  set_caps %.1f / %.1f ms (median / slowest "
        "stream: CAPS at the element's sink pad to CAPS at its src pad: the "
        "operator, its kernels, its slots), then to the first input %.1f / "
        "%.1f ms (allocation, the output pool), first input to first output "
        "%.1f / %.1f ms (the first frame); medians of %u\n", scmed[0],
        scmax[0], cimed[0], cimax[0], iomed[0], iomax[0], n_runs);
  if (o->streams > 1 && fratio[0] >= 0)
    g_print ("fairness     slowest %.1f, fastest %.1f frames/s = %.3f in the "
        "common window (%.4f s, in which every stream ran: from the last "
        "one's first counted output until the first one ended), median of "
        "%u\n", fmin[0], fmax[0], fratio[0], com[0], n_runs);
  else if (o->streams > 1)
    g_print ("fairness     n/a: no common window (a stream's first counted "
        "output came after another stream's last one: see start-up)\n");
  if (o->live > 0) {
    g_print ("live         %g frames/s per stream, each pushed at its due "
        "time (start + k / %g s, appsrc is-live, do-timestamp off); %"
        G_GUINT64_FORMAT " pushed a frame period or more late\n", o->live,
        o->live, late);
    g_print ("live frames  in %" G_GUINT64_FORMAT ", out %" G_GUINT64_FORMAT
        " (element sink pad / src pad, all streams, all runs, warm-up "
        "included): %s\n", n_in, n_out, n_in == n_out ? "equal" :
        "NOT EQUAL: frames lost or added in the element");
    g_print ("live latency p50 %.3f ms [%.3f-%.3f], p99 %.3f ms [%.3f-%.3f],"
        " max %.3f ms [%.3f-%.3f] added per frame (element sink pad in -> "
        "src pad out, after warm-up, all streams; median [min-max] of %u "
        "run%s)\n", lp50[0], lp50[1], lp50[2], lp[0], lp[1], lp[2], lmax[0],
        lmax[1], lmax[2], n_runs, n_runs == 1 ? "" : "s");
  }
  g_print ("latency      mean %.3f ms, p99 %.3f ms (in element, wall)\n",
      lm[0], lp[0]);
  g_print ("cpu          %.1f us process CPU time per frame (getrusage, all "
      "threads, all streams)\n", cpu[0]);
  if (o->streams > 1) {
    g_print ("by stream    latency p50/p99 ms (median over runs):");
    for (i = 0; i < (guint) o->streams; i++)
      g_print (" %u: %.3f/%.3f", i, sp50[i], sp99[i]);
    g_print ("\n");
    g_print ("by stream    frames/s in the common window (median over "
        "runs):");
    for (i = 0; i < (guint) o->streams; i++)
      g_print (" %u: %.1f", i, scf[i]);
    g_print ("\n");
  }
  if (o->priority >= 0)
    g_print ("priority     stream 0: stream-priority %d, level %d as the "
        "element posts it (-1: not posted: CPU backend or --no-stats); "
        "others 0\n", o->priority, r0->priority0);
  if (ker[0] >= 0 && cuda_mem && o->streams == 1) {
    gdouble per = 1e6 / fps[0];
    if (o->depth == 1)
      g_print ("overhead     %.1f us per frame in the element besides the "
          "kernel (wall time per frame - kernel time, frames in CUDA "
          "memory, synchronous)\n", per - 1e3 * ker[0]);
    else
      g_print ("per frame    %.1f us wall time with the kernel (%.1f us) "
          "overlapped across %d frames in flight: %.1f us beyond the "
          "kernel\n", per, 1e3 * ker[0], o->depth, per - 1e3 * ker[0]);
  }
  if (ker[0] >= 0 && cuda_mem && o->streams > 1)
    g_print ("kernel rate  %.1f frames/s = 1 / kernel time as the streams' "
        "events measure it (they overlap: compare with the one-stream "
        "kernel time instead)\n", 1e3 / ker[0]);
  if (ker[0] >= 0)
    g_print ("stages       upload %.4f ms, kernel %.4f ms, download %.4f ms"
        " (%s, mean per frame)\n", up[0], ker[0], down[0],
        g_str_equal (r0->active, "cuda") ? "CUDA events" : "CPU wall clock");
  if (sub[0] >= 0)
    g_print ("host         submit %.1f us, wait %.1f us, finish %.1f us per "
        "frame (the element's streaming thread, wall clock)\n", sub[0],
        wai[0], fin[0]);
  if (have_floor) {
    gdouble f[5];
    floors (r0, in_bytes, out_bytes, f);
    g_print ("device       %s\n", r0->device);
    g_print ("bandwidth    H2D %.1f GB/s, D2H %.1f GB/s, both at once %.1f "
        "GB/s, device copy %.0f GB/s (read+write)\n", r0->h2d, r0->d2h,
        r0->duplex, r0->d2d);
    g_print ("floor        PCIe %.3f ms/frame serial (H2D %.3f + D2H %.3f), "
        "%.3f ms overlapped (%.0f frames/s); kernel %.2f us (one read of "
        "the input and one write of the output at device-copy bandwidth)\n",
        f[0] + f[1], f[0], f[1], f[2], f[3], f[4]);
  }
  bug = sanity (o, runs, n_runs, in_bytes, out_bytes, cuda_mem);
  g_print ("RESULT element=%s format=%s size=%dx%d backend=%s depth=%d "
      "input=%s streams=%d devices=%s repeat=%u fps=%.1f fps_min=%.1f "
      "fps_max=%.1f lat_mean_ms=%.3f lat_p99_ms=%.3f kernel_ms=%.4f "
      "cpu_us=%.1f pcie_share=%.1f priority=%d priority_level=%d "
      "lat0_p50_ms=%.3f lat0_p99_ms=%.3f lat_others_p50_ms=%.3f "
      "lat_others_p99_ms=%.3f window_s=%.6f frames_window=%.0f frames=%.0f "
      "stream_fps_sum=%.1f stream_fps_max=%.1f common_s=%.6f "
      "common_fps_min=%.1f common_fps_max=%.1f fairness=%.3f "
      "start_med_ms=%.1f start_max_ms=%.1f gate_ms=%.1f "
      "setcaps_med_ms=%.1f setcaps_max_ms=%.1f caps_in_med_ms=%.1f "
      "caps_in_max_ms=%.1f in_out_med_ms=%.1f in_out_max_ms=%.1f "
      "measurement_bug=%d", o->element, o->format, o->width,
      o->height, r0->active, o->depth, input, o->streams, devs->str, n_runs,
      fps[0], fps[1], fps[2], lm[0], lp[0], ker[0], cpu[0], share[0],
      o->priority, r0->priority0, l0p50[0], l0p99[0], lop50[0], lop99[0],
      win[0], fwin[0], nfr[0], ssum[0], smax[0], com[0], fmin[0], fmax[0],
      fratio[0], smed_ms[0], smax_ms[0], gms[0], scmed[0], scmax[0],
      cimed[0], cimax[0], iomed[0], iomax[0], bug);
  if (o->live > 0)
    g_print (" live_fps=%g live_in=%" G_GUINT64_FORMAT " live_out=%"
        G_GUINT64_FORMAT " live_late=%" G_GUINT64_FORMAT " live_lat_p50_ms=%.3f"
        " live_lat_p99_ms=%.3f live_lat_max_ms=%.3f", o->live, n_in, n_out,
        late, lp50[0], lp[0], lmax[0]);
  g_print ("\n");

  if (o->json) {
    GString *j = g_string_new ("{");
    FILE *f;

    json_str (j, "label", o->label);
    g_string_append (j, ", ");
    json_str (j, "element", o->element);
    g_string_append (j, ", ");
    json_str (j, "props", o->props);
    g_string_append (j, ", ");
    json_str (j, "format", o->format);
    g_string_append_printf (j, ", \"width\": %d, \"height\": %d, ",
        o->width, o->height);
    json_str (j, "backend", r0->active);
    g_string_append (j, ", ");
    json_str (j, "input", input);
    g_string_append_printf (j, ", \"depth\": %d, \"streams\": %d, "
        "\"devices\": [%s], \"repeat\": %u, ", o->depth, o->streams,
        devs->str, n_runs);
    json_str (j, "wait_mode", o->wait_mode ? o->wait_mode : "default");
    g_string_append_printf (j, ", \"post_stats\": %s, \"in_bytes\": %"
        G_GSIZE_FORMAT ", \"out_bytes\": %" G_GSIZE_FORMAT ", ",
        o->no_stats ? "false" : "true", in_bytes, out_bytes);
    json_mmm (j, "fps", fps);
    g_string_append (j, ", \"fps_runs\": [");
    for (k = 0; k < n_runs; k++)
      g_string_append_printf (j, "%s%.6g", k ? ", " : "", runs[k].fps);
    g_string_append (j, "], ");
    json_mmm (j, "stream_fps_min", smin);
    g_string_append (j, ", ");
    json_mmm (j, "stream_fps_median", smed);
    g_string_append (j, ", ");
    json_mmm (j, "stream_fps_max", smax);
    g_string_append (j, ", ");
    json_mmm (j, "stream_fps_sum", ssum);
    g_string_append (j, ", ");
    json_mmm (j, "window_s", win);
    g_string_append (j, ", ");
    json_mmm (j, "frames_window", fwin);
    g_string_append (j, ", ");
    json_mmm (j, "common_window_s", com);
    g_string_append (j, ", ");
    json_mmm (j, "common_fps_min", fmin);
    g_string_append (j, ", ");
    json_mmm (j, "common_fps_max", fmax);
    g_string_append (j, ", ");
    json_mmm (j, "fairness", fratio);
    g_string_append (j, ", ");
    json_mmm (j, "start_median_ms", smed_ms);
    g_string_append (j, ", ");
    json_mmm (j, "start_max_ms", smax_ms);
    g_string_append (j, ", ");
    json_mmm (j, "gate_ms", gms);
    g_string_append (j, ", ");
    json_mmm (j, "setcaps_median_ms", scmed);
    g_string_append (j, ", ");
    json_mmm (j, "setcaps_max_ms", scmax);
    g_string_append (j, ", ");
    json_mmm (j, "caps_to_input_median_ms", cimed);
    g_string_append (j, ", ");
    json_mmm (j, "caps_to_input_max_ms", cimax);
    g_string_append (j, ", ");
    json_mmm (j, "input_to_output_median_ms", iomed);
    g_string_append (j, ", ");
    json_mmm (j, "input_to_output_max_ms", iomax);
    g_string_append (j, ", \"stream_common_fps\": [");
    for (i = 0; i < (guint) o->streams; i++)
      g_string_append_printf (j, "%s%.6g", i ? ", " : "", scf[i]);
    g_string_append (j, "]");
    g_string_append_printf (j, ", \"measurement_bug\": %s",
        bug ? "true" : "false");
    g_string_append (j, ", \"device_fps\": {");
    for (d = 0; d < o->n_devices; d++) {
      gchar *n = g_strdup_printf ("%d", o->devices[d]);
      g_string_append (j, d ? ", " : "");
      json_mmm (j, n, dev[d]);
      g_free (n);
    }
    g_string_append (j, "}, \"gpu_util_nvml_pct\": {");
    for (d = 0; d < o->n_devices; d++) {
      gchar *n = g_strdup_printf ("%d", o->devices[d]);
      g_string_append (j, d ? ", " : "");
      json_mmm (j, n, nv[d]);
      g_free (n);
    }
    g_string_append (j, "}, \"kernel_busy_pct\": {");
    for (d = 0; d < o->n_devices; d++) {
      gchar *n = g_strdup_printf ("%d", o->devices[d]);
      g_string_append (j, d ? ", " : "");
      json_mmm (j, n, kb[d]);
      g_free (n);
    }
    g_string_append (j, "}, ");
    json_mmm (j, "lat_mean_ms", lm);
    g_string_append (j, ", ");
    json_mmm (j, "lat_p99_ms", lp);
    g_string_append (j, ", ");
    json_mmm (j, "lat_p50_ms", lp50);
    g_string_append (j, ", ");
    json_mmm (j, "lat_max_ms", lmax);
    g_string_append_printf (j, ", \"frames_in\": %" G_GUINT64_FORMAT
        ", \"frames_out\": %" G_GUINT64_FORMAT ", \"live_fps\": %g",
        n_in, n_out, o->live);
    if (o->live > 0) {
      g_string_append_printf (j, ", \"live_late\": %" G_GUINT64_FORMAT ", ",
          late);
      json_mmm (j, "live_lat_p50_ms", lp50);
      g_string_append (j, ", ");
      json_mmm (j, "live_lat_p99_ms", lp);
      g_string_append (j, ", ");
      json_mmm (j, "live_lat_max_ms", lmax);
    }
    g_string_append_printf (j, ", \"priority\": %d, \"priority_level\": %d, ",
        o->priority, r0->priority0);
    json_mmm (j, "lat0_p50_ms", l0p50);
    g_string_append (j, ", ");
    json_mmm (j, "lat0_p99_ms", l0p99);
    g_string_append (j, ", ");
    json_mmm (j, "lat_others_p50_ms", lop50);
    g_string_append (j, ", ");
    json_mmm (j, "lat_others_p99_ms", lop99);
    g_string_append (j, ", \"stream_lat_p50_ms\": [");
    for (i = 0; i < (guint) o->streams; i++)
      g_string_append_printf (j, "%s%.6g", i ? ", " : "", sp50[i]);
    g_string_append (j, "], \"stream_lat_p99_ms\": [");
    for (i = 0; i < (guint) o->streams; i++)
      g_string_append_printf (j, "%s%.6g", i ? ", " : "", sp99[i]);
    g_string_append (j, "], ");
    json_mmm (j, "upload_ms", up);
    g_string_append (j, ", ");
    json_mmm (j, "kernel_ms", ker);
    g_string_append (j, ", ");
    json_mmm (j, "download_ms", down);
    g_string_append (j, ", ");
    json_mmm (j, "host_submit_us", sub);
    g_string_append (j, ", ");
    json_mmm (j, "host_wait_us", wai);
    g_string_append (j, ", ");
    json_mmm (j, "host_finish_us", fin);
    g_string_append (j, ", ");
    json_mmm (j, "cpu_us_per_frame", cpu);
    if (have_floor) {
      gdouble f[5];
      floors (r0, in_bytes, out_bytes, f);
      g_string_append (j, ", ");
      json_mmm (j, "pcie_floor_fps", fl);
      g_string_append (j, ", ");
      json_mmm (j, "pcie_floor_share_pct", share);
      g_string_append_printf (j, ", \"floor_run1\": {\"h2d_gbps\": %.4g, "
          "\"d2h_gbps\": %.4g, \"duplex_gbps\": %.4g, \"d2d_gbps\": %.4g, "
          "\"kernel_floor_us\": %.4g}, ", r0->h2d, r0->d2h, r0->duplex,
          r0->d2d, f[4]);
      json_str (j, "device", r0->device);
    }
    g_string_append (j, "}\n");
    f = fopen (o->json, "a");
    if (!f || fputs (j->str, f) < 0) {
      g_printerr ("could not append to %s\n", o->json);
      exit (1);
    }
    fclose (f);
    g_string_free (j, TRUE);
  }
  for (i = 0; i < n_runs; i++) {
    g_free (runs[i].stream_fps);
    g_free (runs[i].stream_p50);
    g_free (runs[i].stream_p99);
    g_free (runs[i].stream_common_fps);
    g_free (runs[i].active);
  }
  g_free (sp50);
  g_free (sp99);
  g_free (scf);
  g_string_free (devs, TRUE);
  g_free (v);
}

static int
kernel_only (const Opts * o, const gchar * kernel)
{
#ifdef HAVE_CUDA
  double us = 0, bytes = 0;
  char msg[512] = "";
  CvBenchFloor fl = { 0 };
  int iters = o->frames > 0 ? o->frames : 200;

  if (cv_bench_measure_floor (o->devices[0], 256u << 20, 10, &fl) != 0
      || cv_bench_kernel (kernel, o->format, o->width, o->height, iters, &us,
          &bytes, msg, sizeof (msg)) != 0) {
    g_printerr ("kernel benchmark failed: %s%s\n", msg, fl.device);
    return 1;
  }
  g_print ("device       %s\n", fl.device);
  g_print ("kernel       %s %s %dx%d: %.2f us per frame (graph of %d "
      "launches, median of 5)\n", kernel, o->format, o->width, o->height, us,
      iters);
  g_print ("floor        %.2f us (%.0f bytes at the device-copy bandwidth "
      "%.0f GB/s)\n", bytes / (fl.d2d_gbps * 1e9) * 1e6, bytes, fl.d2d_gbps);
  g_print ("RESULT kernel=%s format=%s size=%dx%d us=%.2f floor_us=%.2f\n",
      kernel, o->format, o->width, o->height, us,
      bytes / (fl.d2d_gbps * 1e9) * 1e6);
  if (o->json) {
    FILE *f = fopen (o->json, "a");
    if (!f) {
      g_printerr ("could not append to %s\n", o->json);
      return 1;
    }
    fprintf (f, "{\"label\": \"%s\", \"kernel\": \"%s\", \"format\": \"%s\", "
        "\"width\": %d, \"height\": %d, \"kernel_us\": %.4g, "
        "\"kernel_floor_us\": %.4g}\n", o->label ? o->label : "", kernel,
        o->format, o->width, o->height, us, bytes / (fl.d2d_gbps * 1e9) * 1e6);
    fclose (f);
  }
  return 0;
#else
  g_printerr ("built without CUDA: no kernel benchmark\n");
  return 1;
#endif
}

static void
opts_clear (Opts * o)
{
  g_free (o->element);
  g_free (o->props);
  g_free (o->format);
  g_free (o->backend);
  g_free (o->input);
  g_free (o->devices_arg);
  g_free (o->wait_mode);
  g_free (o->json);
  g_free (o->label);
  g_free (o->priority_arg);
  g_free (o->live_arg);
}

static gboolean
parse_devices (Opts * o)
{
  gchar **parts;
  guint i;

  o->n_devices = 1;
  o->devices[0] = 0;
  if (!o->devices_arg)
    return TRUE;
  o->set_device = TRUE;
  parts = g_strsplit (o->devices_arg, ",", -1);
  o->n_devices = 0;
  for (i = 0; parts[i]; i++) {
    gchar *end;
    gint64 v = g_ascii_strtoll (parts[i], &end, 10);
    guint k;

    if (*end || end == parts[i] || v < 0 || v > 64 || o->n_devices == MAX_DEV)
      break;
    for (k = 0; k < o->n_devices; k++)
      if (o->devices[k] == v)
        break;
    if (k < o->n_devices)
      break;
    o->devices[o->n_devices++] = (gint) v;
  }
  i = parts[i] == NULL;
  g_strfreev (parts);
  return i && o->n_devices > 0;
}

int
main (int argc, char **argv)
{
  Opts o = { 0 };
  gchar *kernel = NULL;
  GOptionEntry entries[] = {
    {"element", 'e', 0, G_OPTION_ARG_STRING, &o.element,
        "Element factory (default cudasobel)", "NAME"},
    {"props", 'p', 0, G_OPTION_ARG_STRING, &o.props,
        "Element properties, gst-launch syntax: \"threshold=20 ...\"", "PROPS"},
    {"width", 'w', 0, G_OPTION_ARG_INT, &o.width, "Frame width (1920)", "PX"},
    {"height", 'h', 0, G_OPTION_ARG_INT, &o.height, "Frame height (1080)",
        "PX"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &o.format,
        "Input video format (GRAY8)", "FMT"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &o.backend,
        "auto, cuda or cpu (auto)", "B"},
    {"depth", 'd', 0, G_OPTION_ARG_INT, &o.depth,
          "pipeline-depth 1..4 (the element's default)",
        "N"},
    {"input", 'i', 0, G_OPTION_ARG_STRING, &o.input,
        "Input frames in 'pinned' (the plugin's allocator), 'pageable' "
          "or 'cuda' memory (frames made on the GPU, memory:CUDAMemory caps "
          "in and out: no PCIe in the loop) (pinned)", "MEM"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &o.frames,
        "Frames to push into each stream (default: as many as fit in "
          "--seconds)", "N"},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &o.seconds,
        "Approximate run time when --frames is not given (3)", "S"},
    {"live", 0, 0, G_OPTION_ARG_STRING, &o.live_arg,
        "A camera at FPS frames/s per stream: appsrc is-live (do-timestamp "
          "off, timestamps k / FPS), each frame pushed at its due time "
          "(start + k / FPS), every stream on its own schedule; the report "
          "adds the latency the element adds per frame (p50, p99, max) and "
          "the frames in and out of it (default: push as fast as the "
          "element takes them)", "FPS"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &o.warmup,
        "Frames of each stream left out of the statistics, pushed before "
          "the start gate with --streams (20)", "N"},
    {"streams", 'S', 0, G_OPTION_ARG_INT, &o.streams,
        "N independent pipelines in this process, each fed by its own "
          "appsrc and thread, started together: each pushes its --warmup "
          "frames, and the measured phase (--seconds) begins for all once "
          "every one has its first output (--cold-start: no such gate); fps "
          "is then the aggregate "
          "(the frames of all streams over the wall time from the earliest "
          "first counted output to the latest last one), with min / median "
          "/ max of the streams' own rates, the slowest and fastest "
          "stream's rate in the window where all of them ran (fairness), "
          "and each stream's start-up (its first push to its first output) "
          "(1)", "N"},
    {"devices", 'D', 0, G_OPTION_ARG_STRING, &o.devices_arg,
        "CUDA devices to spread the streams over, round-robin: \"0,1\" "
          "(sets device-id; default: the element's default device)", "LIST"},
    {"repeat", 'r', 0, G_OPTION_ARG_INT, &o.repeat,
        "Runs of the case; every figure is the median over them, with min "
          "and max, each run measured beside its own floor (1; 5 for "
          "figures)", "R"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &o.json,
        "Append the case's figures as one JSON object (one line) to FILE "
          "(tests/bench/plots.py reads them)", "FILE"},
    {"label", 0, 0, G_OPTION_ARG_STRING, &o.label,
        "A name for the case in the JSON output", "TEXT"},
    {"wait-mode", 0, 0, G_OPTION_ARG_STRING, &o.wait_mode,
        "The element's wait-mode: block, spin or spin-then-block (the "
          "element's default)", "MODE"},
    {"priority", 0, 0, G_OPTION_ARG_STRING, &o.priority_arg,
        "stream-priority of stream 0's element: N >= 0 or 'max' (the "
          "element clamps it to the device's highest level); the other "
          "streams' at 0. The report then has stream 0's latency p50 / p99 "
          "beside the others' (default: the property left alone)", "N"},
    {"no-stats", 0, 0, G_OPTION_ARG_NONE, &o.no_stats,
        "post-stats=false: no CUDA-event timings (no kernel/stage figures), "
          "to measure what the timing costs", NULL},
    {"check", 0, 0, G_OPTION_ARG_NONE, &o.check,
        "With --frames: run one stream, then the case, and fail (exit 1) "
          "unless every stream delivered exactly --frames frames with "
          "increasing timestamps and the single-stream run's output "
          "(checksum of the visible bytes)", NULL},
    {"threads", 0, 0, G_OPTION_ARG_NONE, &o.threads,
        "Print each run's CPU per frame by thread name (/proc/self/task: "
          "CPU time, sleeps, preemptions), to see where the process CPU "
          "goes", NULL},
    {"no-floor", 0, 0, G_OPTION_ARG_NONE, &o.no_floor,
        "Do not measure the PCIe / device-memory floor", NULL},
    {"cold-start", 0, 0, G_OPTION_ARG_NONE, &o.cold_start,
        "With --streams: no start gate. Every stream pushes from the start "
          "without waiting for the others' start-up (the first frames of "
          "the later ones overlap the measured frames of the earlier "
          "ones), to see how a stream starts next to busy ones (default: "
          "every stream pushes its --warmup frames, and the measured "
          "phase begins once every stream has its first output)", NULL},
    {"stagger", 0, 0, G_OPTION_ARG_INT, &o.stagger_ms,
        "With --streams, as --cold-start: stream i begins to push MS * i "
          "ms after the first (all end at --seconds), to see how a stream "
          "starts next to busy ones (its start-up) and shares with them "
          "once it runs (fairness: the window where all ran) (0)", "MS"},
    {"kernel", 'k', 0, G_OPTION_ARG_STRING, &kernel,
        "Time only the CUDA kernel NAME (sobel, sobel-r4, sobel-r8, sobel5, "
          "sobel7, sobel-nv12 (-f GRAY8: cudasobel's NV12 frame), canny, "
          "canny-noise, convolve-blur, convolve-edge, "
          "convolve-blur-edge, convolve-custom7, convolve-custom15, "
          "convolve-custom31, convolve-custom15-dyadic, "
          "convolve-custom31-dyadic; convolve-*: -f GRAY8, RGB, BGR, RGBA, "
          "BGRA, RGBx, BGRx) on "
          "device-resident frames, launched back to back from a CUDA graph; "
          "no GStreamer", "NAME"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- gst-cuda-vision benchmark");
  GError *err = NULL;
  GstVideoInfo info;
  GstAllocator *pinned = NULL;
  GstBuffer *made_all[MAX_DEV][4], **made[MAX_DEV] = { NULL };
  GstContext *ctxs[MAX_DEV] = { NULL };
  GRand *rand;
  gboolean cuda_mem, ok = TRUE;
  gsize in_bytes;
  GstCaps *caps;
  RunResult *runs;
  guint i, d;
  guint64 ref = 0;

  o.width = 1920;
  o.height = 1080;
  o.warmup = 20;
  o.seconds = 3.0;
  o.streams = 1;
  o.repeat = 1;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (&argc, &argv);
  /* the defaults of the strings (set here: GOption does not free a
   * default it replaces) */
  if (!o.element)
    o.element = g_strdup ("cudasobel");
  if (!o.format)
    o.format = g_strdup ("GRAY8");
  if (!o.backend)
    o.backend = g_strdup ("auto");
  if (!o.input)
    o.input = g_strdup ("pinned");
  if (o.depth == 0) {
    /* the element's own default, so that "default properties" are */
    GstElementFactory *f = gst_element_factory_find (o.element);
    GstElement *e = f ? gst_element_factory_create (f, NULL) : NULL;
    GParamSpec *ps = e ? g_object_class_find_property (G_OBJECT_GET_CLASS
        (e), "pipeline-depth") : NULL;

    o.depth = ps ? (gint) G_PARAM_SPEC_UINT (ps)->default_value : 1;
    if (e)
      gst_object_unref (e);
    if (f)
      gst_object_unref (f);
  }
  if (!parse_devices (&o)) {
    g_printerr ("--devices: a comma-separated list of distinct device "
        "ordinals, e.g. 0,1\n");
    g_free (kernel);
    opts_clear (&o);
    return 2;
  }
  if (o.streams < 1 || o.streams > 1024 || o.repeat < 1 || o.repeat > 100) {
    g_printerr ("--streams 1..1024, --repeat 1..100\n");
    g_free (kernel);
    opts_clear (&o);
    return 2;
  }
  o.priority = -1;
  if (o.priority_arg) {
    gchar *end;
    gint64 v = g_ascii_strtoll (o.priority_arg, &end, 10);

    if (g_str_equal (o.priority_arg, "max"))
      o.priority = G_MAXINT;
    else if (*o.priority_arg && !*end && v >= 0 && v <= G_MAXINT)
      o.priority = (gint) v;
    else {
      g_printerr ("--priority: a number >= 0 or 'max', not '%s'\n",
          o.priority_arg);
      g_free (kernel);
      opts_clear (&o);
      return 2;
    }
  }
  if (o.live_arg) {
    gchar *end;

    o.live = g_ascii_strtod (o.live_arg, &end);
    if (!*o.live_arg || *end || !(o.live > 0 && o.live <= 100000)) {
      g_printerr ("--live: frames per second, > 0 and <= 100000, not "
          "'%s'\n", o.live_arg);
      g_free (kernel);
      opts_clear (&o);
      return 2;
    }
  }
  if (o.stagger_ms < 0 || o.stagger_ms > 60000 || (o.stagger_ms > 0
          && o.live > 0)) {
    g_printerr ("--stagger: 0..60000 ms, not with --live\n");
    g_free (kernel);
    opts_clear (&o);
    return 2;
  }
  if (o.check && o.frames <= 0) {
    g_printerr ("--check needs --frames\n");
    g_free (kernel);
    opts_clear (&o);
    return 2;
  }

  if (kernel) {
    int rc = kernel_only (&o, kernel);
    g_free (kernel);
    opts_clear (&o);
    return rc;
  }

  if (!gst_video_info_set_format (&info,
          gst_video_format_from_string (o.format), o.width, o.height)
      || GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_UNKNOWN) {
    g_printerr ("bad format or size\n");
    opts_clear (&o);
    return 2;
  }
#ifdef HAVE_GST_CUDA
  if (g_str_equal (o.input, "cuda")) {
    /* GStreamer 1.22's CUDA allocator aborts on other formats (GRAY8) */
    GstCaps *held = gst_caps_from_string ("video/x-raw, format=(string) "
        GST_CUDA_VISION_CUDA_MEMORY_FORMATS);
    GstCaps *want = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, o.format, NULL);
    const gboolean can = gst_caps_can_intersect (held, want);

    gst_caps_unref (held);
    gst_caps_unref (want);
    if (!can) {
      g_printerr ("--input cuda: GStreamer's CUDA memory cannot hold %s "
          "(it holds %s)\n", o.format, GST_CUDA_VISION_CUDA_MEMORY_FORMATS);
      opts_clear (&o);
      return 2;
    }
  }
#endif
  info.fps_n = 30;
  info.fps_d = 1;
  if (o.live > 0)
    gst_util_double_to_fraction (o.live, &info.fps_n, &info.fps_d);
  in_bytes = GST_VIDEO_INFO_SIZE (&info);
  cuda_mem = g_str_equal (o.input, "cuda");
#ifdef HAVE_CUDA
  if (o.check && g_str_equal (o.backend, "cuda")) {
    gint n = cv_bench_device_count ();
    for (d = 0; d < o.n_devices; d++)
      if (o.devices[d] >= n) {
        g_print ("SKIP: no CUDA device %d (%d found)\n", o.devices[d], n);
        return 77;
      }
  }
#else
  if (o.check && g_str_equal (o.backend, "cuda")) {
    g_print ("SKIP: built without CUDA\n");
    return 77;
  }
#endif
  caps = gst_video_info_to_caps (&info);
  if (cuda_mem)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));

  /* the frames: 4 distinct random ones, reused (the same in every stream;
   * in CUDA memory: one set per device, in a context per device shared
   * with that device's elements) */
  if (g_str_equal (o.input, "pinned")) {
    /* the plugin registers its allocator when it loads: load it first (no
     * pipeline exists yet) */
    GstElementFactory *f = gst_element_factory_find (o.element);
    GstPluginFeature *loaded = f ?
        gst_plugin_feature_load (GST_PLUGIN_FEATURE (f)) : NULL;

    if (loaded)
      gst_object_unref (loaded);
    if (f)
      gst_object_unref (f);
    pinned = gst_allocator_find ("CudaVisionPinned");
    if (!pinned)
      g_printerr ("note: no pinned allocator (built without CUDA): pageable "
          "input\n");
  }
#ifdef HAVE_GST_CUDA
  for (d = 0; cuda_mem && d < o.n_devices; d++) {
    GstCudaContext *cctx;
    GstAllocator *alloc;

    if (!gst_cuda_load_library ()
        || !(cctx = gst_cuda_context_new (o.devices[d]))) {
      g_printerr ("no CUDA context on device %d: cannot run with --input "
          "cuda\n", o.devices[d]);
      return 1;
    }
    ctxs[d] = gst_context_new_cuda_context (cctx);
    gst_cuda_memory_init_once ();
    alloc = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
    rand = g_rand_new_with_seed (1);
    for (i = 0; i < 4; i++) {
      GstVideoFrame f;
      guint p;
      /* GStreamer 1.24 added the stream argument (GstCudaStream); NULL:
       * the context's default stream, what 1.22 used */
#if GST_CHECK_VERSION(1, 24, 0)
      GstMemory *mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc),
          cctx, NULL, &info);
#else
      GstMemory *mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc),
          cctx, &info);
#endif
      GstCudaMemory *cmem = (GstCudaMemory *) mem;
      GstBuffer *b;

      if (!mem) {
        g_printerr ("could not allocate CUDA memory for %s\n", o.format);
        return 1;
      }
      b = made_all[d][i] = gst_buffer_new ();
      gst_buffer_append_memory (b, mem);
      /* the pitched layout of the CUDA memory */
      gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_INFO_FORMAT (&info), o.width, o.height,
          GST_VIDEO_INFO_N_PLANES (&info), cmem->info.offset,
          cmem->info.stride);
      /* random data written on the host, uploaded once here (the visible
       * bytes the same on every device) */
      gst_video_frame_map (&f, &info, b, GST_MAP_WRITE);
      for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
        guint8 *dd = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
        gsize k, n = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) *
            GST_VIDEO_FRAME_COMP_HEIGHT (&f, p ? 1 : 0);
        for (k = 0; k < n; k++)
          dd[k] = g_rand_int_range (rand, 0, 256);
      }
      gst_video_frame_unmap (&f);
      gst_video_frame_map (&f, &info, b, GST_MAP_READ | GST_MAP_CUDA);
      gst_video_frame_unmap (&f);
    }
    g_rand_free (rand);
    made[d] = made_all[d];
    gst_object_unref (alloc);
    gst_object_unref (cctx);
  }
#else
  if (cuda_mem) {
    g_printerr ("built without gstreamer-cuda: no --input cuda\n");
    return 1;
  }
#endif
  rand = g_rand_new_with_seed (1);
  for (i = 0; i < 4 && !cuda_mem; i++) {
    GstMapInfo map;
    gsize k;
    made_all[0][i] = gst_buffer_new_allocate (pinned, in_bytes, NULL);
    if (!made_all[0][i] && pinned) {
      g_printerr ("note: pinned allocation failed (no usable GPU?): pageable "
          "input\n");
      gst_clear_object (&pinned);
      made_all[0][i] = gst_buffer_new_allocate (NULL, in_bytes, NULL);
    }
    if (!made_all[0][i]) {
      g_printerr ("could not allocate input frames (%s memory)\n", o.input);
      return 1;
    }
    gst_buffer_map (made_all[0][i], &map, GST_MAP_WRITE);
    for (k = 0; k + 4 <= map.size; k += 4) {
      guint32 v = g_rand_int (rand);
      memcpy (map.data + k, &v, 4);
    }
    gst_buffer_unmap (made_all[0][i], &map);
  }
  g_rand_free (rand);
  /* host frames (pinned memory is portable): the same for every device */
  for (d = 0; !cuda_mem && d < o.n_devices; d++)
    made[d] = made_all[0];

  if (o.check) {
    /* the reference: one stream on the first device */
    Opts one = o;
    RunResult r;

    one.streams = 1;
    one.n_devices = 1;
    one.no_floor = TRUE;
    if (!run_once (&one, 1, caps, made, ctxs, cuda_mem, &r, &ref))
      ok = FALSE;
    g_print ("check: single-stream run: %u frames, checksum %016"
        G_GINT64_MODIFIER "x\n", (guint) o.frames, ref);
    g_free (r.stream_fps);
    g_free (r.stream_p50);
    g_free (r.stream_p99);
    g_free (r.stream_common_fps);
    g_free (r.active);
  }
  runs = g_new0 (RunResult, o.repeat);
  for (i = 0; i < (guint) o.repeat; i++) {
    RunResult *r = &runs[i];
    if (!run_once (&o, o.streams, caps, made, ctxs, cuda_mem, r, &ref))
      ok = FALSE;
    g_print ("run %u/%d: %.1f frames/s aggregate over %d stream%s (%u frames "
        "in %.4f s), %.1f us CPU/frame, %.2f s\n", i + 1, o.repeat, r->fps,
        o.streams, o.streams == 1 ? "" : "s", r->frames_window, r->window_s,
        r->cpu_us, r->wall_s);
    if (o.live > 0)
      g_print ("run %u/%d: live: frames in %u, out %u; added latency p50 "
          "%.3f ms, p99 %.3f ms, max %.3f ms\n", i + 1, o.repeat, r->n_in,
          r->n_out, r->lat_p50, r->lat_p99, r->lat_max);
    if (r->frames < 2 && !o.check) {
      g_printerr ("too few frames (%u) after the warm-up\n", r->frames);
      return 1;
    }
  }
  report (&o, runs, o.repeat, in_bytes, cuda_mem, pinned != NULL);
  if (o.check)
    g_print ("check: %s: %d stream%s x %d frames, %d run%s\n",
        ok ? "OK" : "FAILED", o.streams, o.streams == 1 ? "" : "s", o.frames,
        o.repeat, o.repeat == 1 ? "" : "s");

  for (d = 0; d < MAX_DEV; d++)
    if (ctxs[d])
      gst_context_unref (ctxs[d]);
  for (d = 0; d < (cuda_mem ? o.n_devices : 1); d++)
    for (i = 0; i < 4; i++)
      gst_buffer_unref (made_all[d][i]);
  gst_caps_unref (caps);
  gst_clear_object (&pinned);
  g_free (runs);
  opts_clear (&o);
  return ok ? 0 : 1;
}
