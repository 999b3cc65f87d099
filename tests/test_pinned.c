/* The pinned host memory allocator and pool (plugin/gstcvpinned.c) on
 * their own: allocation parameters honoured as GStreamer's system memory
 * allocator honours them, video pools of every layout, and the pipeline
 * that crashed (videoscale writing RGBA into pinned pool buffers that
 * started 63 bytes into their block). Then the process-wide cache of
 * pinned staging blocks the elements share (plugin/gstcvpinnedcache.c):
 * size classes, reuse between users, the bound on idle memory, blocks out
 * when the last user goes, and several threads at once. Run with the
 * leaks tracer (tests/meson.build): an object left alive at gst_deinit()
 * fails the program.
 *
 * Built twice: test_pinned (cpu suite) links a stand-in for cudaHostAlloc
 * (fake-cudart.c) that places blocks at chosen alignments and checks
 * containment; test_pinned_cuda (gpu suite) links the CUDA runtime and
 * allocates real pinned memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtest.h"

#include <string.h>

#include <gst/app/gstappsink.h>

#include "gstcvpinned.h"
#ifdef CVTEST_FAKE_CUDART
#include "fake-cudart.h"
#else
#include <cuda_runtime_api.h>
#endif

/* where the block of a memory lies, as far as the test can know: with the
 * stand-in, exactly; with the real runtime, not at all (TRUE) */
static void
check_inside_block (const guint8 * p, gsize n)
{
#ifdef CVTEST_FAKE_CUDART
  const guint8 *block;
  gsize size;

  fail_unless (fake_cudart_block (p, &block, &size), "%p is in no block", p);
  fail_unless (p >= block && p + n <= block + size,
      "bytes %p..%p outside the block %p..%p", p, p + n, block, block + size);
#else
  (void) p;
  (void) n;
#endif
}

static const gsize aligns[] = { 0, 1, 3, 7, 15, 31, 63, 127, 255, 4095 };
static const gsize prefixes[] = { 0, 1, 13, 64 };
static const gsize paddings[] = { 0, 1, 31 };
static const gsize sizes[] = { 1, 2, 3, 17, 612, 4097, 8294400 + 1 };

static void
check_params (GstAllocator * a, gsize size, const GstAllocationParams * params)
{
  GstAllocationParams p = *params;
  gsize align = p.align | gst_memory_alignment, i;
  GstMemory *mem, *sub, *copy;
  GstMapInfo map;
  guint8 *start;

  mem = gst_allocator_alloc (a, size, &p);
  fail_unless (mem != NULL);
  fail_unless (gst_memory_is_type (mem, GST_CV_PINNED_MEMORY_TYPE));
  fail_unless_equals_int (mem->size, size);
  fail_unless_equals_int (mem->offset, p.prefix);
  fail_unless (mem->maxsize >= p.prefix + size + p.padding);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READWRITE));
  fail_unless_equals_int (map.size, size);
  start = map.data - p.prefix;
  /* the block starts (prefix included) on the alignment */
  fail_unless (((guintptr) start & align) == 0,
      "size %" G_GSIZE_FORMAT " align %" G_GSIZE_FORMAT " prefix %"
      G_GSIZE_FORMAT ": data %p not aligned", size, p.align, p.prefix, start);
  /* all of maxsize is inside the block */
  check_inside_block (start, mem->maxsize);
  if (p.flags & GST_MEMORY_FLAG_ZERO_PREFIXED)
    for (i = 0; i < p.prefix; i++)
      fail_unless_equals_int (start[i], 0);
  if (p.flags & GST_MEMORY_FLAG_ZERO_PADDED)
    for (i = p.prefix + size; i < mem->maxsize; i++)
      fail_unless_equals_int (start[i], 0);
  /* writes to prefix + size + padding (all of maxsize) stay in the block:
   * the stand-in's canary, or AddressSanitizer, catches the others */
  memset (start, 0x11, mem->maxsize);
  memset (map.data, 0x22, size);
  gst_memory_unmap (mem, &map);

  /* a share and a copy see the same bytes */
  if (size > 2) {
    sub = gst_memory_share (mem, 1, size - 2);
    fail_unless (gst_memory_map (sub, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, size - 2);
    fail_unless_equals_int (map.data[0], 0x22);
    gst_memory_unmap (sub, &map);
    gst_memory_unref (sub);
  }
  copy = gst_memory_copy (mem, 0, -1);
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, size);
  fail_unless_equals_int (map.data[size - 1], 0x22);
  gst_memory_unmap (copy, &map);
  gst_memory_unref (copy);
  /* resize into the padding */
  if (p.padding) {
    gst_memory_resize (mem, 0, size + p.padding);
    fail_unless_equals_int (mem->size, size + p.padding);
  }
  gst_memory_unref (mem);
}

static GstAllocator *
pinned_allocator (void)
{
  GstAllocator *a = gst_cv_pinned_allocator_get ();

  fail_unless (a != NULL);
  return a;
}

GST_START_TEST (test_allocation_params)
{
  GstAllocator *a = pinned_allocator ();
#ifdef CVTEST_FAKE_CUDART
  /* blocks as cudaHostAlloc gives them (64-byte aligned), page aligned,
   * and at odd addresses */
  const gsize starts[] = { 64, 0, 1, 3, 17, 4032 };
#else
  const gsize starts[] = { 0 };
#endif
  guint s, i, j, k, l, f;

  for (s = 0; s < G_N_ELEMENTS (starts); s++) {
#ifdef CVTEST_FAKE_CUDART
    fake_cudart_set_misalign (starts[s]);
#endif
    for (i = 0; i < G_N_ELEMENTS (sizes); i++)
      for (j = 0; j < G_N_ELEMENTS (aligns); j++)
        for (k = 0; k < G_N_ELEMENTS (prefixes); k++)
          for (l = 0; l < G_N_ELEMENTS (paddings); l++)
            for (f = 0; f < 2; f++) {
              GstAllocationParams p;

              /* the large size once per alignment only: it is slow */
              if (sizes[i] > 1000000 && (k || l || f))
                continue;
              gst_allocation_params_init (&p);
              p.align = aligns[j];
              p.prefix = prefixes[k];
              p.padding = paddings[l];
              p.flags = f ? GST_MEMORY_FLAG_ZERO_PREFIXED |
                  GST_MEMORY_FLAG_ZERO_PADDED : 0;
              check_params (a, sizes[i], &p);
            }
  }
#ifdef CVTEST_FAKE_CUDART
  fake_cudart_set_misalign (64);
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
  gst_object_unref (a);
}

GST_END_TEST;

/* the plugin's own parameters: every buffer's data on 64 bytes */
GST_START_TEST (test_own_params)
{
  GstAllocator *a = pinned_allocator ();
  GstAllocationParams p;

  gst_cv_pinned_allocation_params (&p);
  fail_unless_equals_int (p.align, 63);
  check_params (a, 612, &p);
  check_params (a, 1920 * 1080 * 4, &p);
  gst_object_unref (a);
}

GST_END_TEST;

/* too large requests fail cleanly */
GST_START_TEST (test_overflow)
{
  GstAllocator *a = pinned_allocator ();
  GstAllocationParams p;

  gst_allocation_params_init (&p);
  p.align = 63;
  p.prefix = 16;
  fail_unless (gst_allocator_alloc (a, G_MAXSIZE - 8, &p) == NULL);
  gst_object_unref (a);
}

GST_END_TEST;

static const GstVideoFormat pool_formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_GRAY16_LE,
};

static const gint pool_sizes[][2] = {
  {1, 1}, {2, 1}, {1, 2}, {17, 9}, {33, 17}, {97, 61}, {513, 257},
  {641, 479}, {1283, 719}, {1920, 1080},
};

/* pools of every layout: each plane's rows lie inside the buffer's block,
 * plane 0 starts on 64 bytes, and every visible byte can be written */
GST_START_TEST (test_pool)
{
  guint f, z, n;

  for (f = 0; f < G_N_ELEMENTS (pool_formats); f++)
    for (z = 0; z < G_N_ELEMENTS (pool_sizes); z++) {
      GstVideoInfo info;
      GstCaps *caps;
      GstBufferPool *pool;
      GstBuffer *bufs[3];

      gst_video_info_set_format (&info, pool_formats[f], pool_sizes[z][0],
          pool_sizes[z][1]);
      caps = gst_video_info_to_caps (&info);
      pool = gst_cv_pinned_pool_new (caps, &info, 3);
      fail_unless (pool != NULL);
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      for (n = 0; n < 3; n++) {
        GstVideoFrame frame;
        guint p;

        fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool,
                &bufs[n], NULL), GST_FLOW_OK);
        fail_unless (gst_memory_is_type (gst_buffer_peek_memory (bufs[n], 0),
                GST_CV_PINNED_MEMORY_TYPE));
        fail_unless (gst_video_frame_map (&frame, &info, bufs[n],
                GST_MAP_WRITE));
        fail_unless (((guintptr) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) & 63)
            == 0, "%s %dx%d: plane 0 at %p", GST_VIDEO_INFO_NAME (&info),
            pool_sizes[z][0], pool_sizes[z][1],
            GST_VIDEO_FRAME_PLANE_DATA (&frame, 0));
        for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
          gint comp[GST_VIDEO_MAX_COMPONENTS];
          guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
          gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), y, rows;

          gst_video_format_info_component (info.finfo, p, comp);
          rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
          check_inside_block (d, stride * (rows - 1) +
              GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
              GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]));
          for (y = 0; y < rows; y++)
            memset (d + y * stride, (int) (p + 1),
                GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
                GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]));
        }
        gst_video_frame_unmap (&frame);
      }
      for (n = 0; n < 3; n++)
        gst_buffer_unref (bufs[n]);
      fail_unless (gst_buffer_pool_set_active (pool, FALSE));
      gst_object_unref (pool);
      gst_caps_unref (caps);
    }
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
}

GST_END_TEST;

/* appsink answers the ALLOCATION query as the elements do: GstVideoMeta
 * and the pinned allocator and pool */
static GstPadProbeReturn
propose_pinned (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_meta (q, GST_VIDEO_META_API_TYPE, NULL);
  gst_cv_pinned_propose_allocation (q, 3);
  (*(guint *) user_data)++;
  return GST_PAD_PROBE_HANDLED;
}

/* Visible bytes of every frame, row by row, into a checksum; with the
 * probe also asserts that the frames are in pinned memory. */
static gchar *
run_scale (GstVideoFormat fmt, gint w, gint h, gboolean pinned)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=smpte num-buffers=3 ! "
      "video/x-raw,width=320,height=240 ! videoconvert ! videoscale ! "
      "video/x-raw,format=%s,width=%d,height=%d ! appsink name=sink "
      "sync=false", gst_video_format_to_string (fmt), w, h);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstSample *sample;
  guint frames = 0, proposals = 0;
  gchar *res;

  if (pinned)
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
        propose_pinned, &proposals, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer *buf = gst_sample_get_buffer (sample);
    guint p, y;

    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    if (pinned)
      fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
              GST_CV_PINNED_MEMORY_TYPE), "%s %dx%d: frame %u not pinned",
          gst_video_format_to_string (fmt), w, h, frames);
    fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS];

      gst_video_format_info_component (info.finfo, p, comp);
      for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
          y++)
        g_checksum_update (sum, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
                p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p),
            GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]));
    }
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
    frames++;
  }
  fail_unless_equals_int (frames, 3);
  if (pinned)
    fail_unless (proposals > 0, "the ALLOCATION query never reached appsink");
  gst_element_set_state (pipe, GST_STATE_NULL);
  res = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return res;
}

/* The crash: videoscale (ORC) writing RGBA frames into pinned pool
 * buffers. Same visible bytes as into system memory, no crash. */
GST_START_TEST (test_videoscale_into_pinned)
{
  const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_GRAY8,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12
  };
  const gint dims[][2] = { {17, 9}, {33, 17}, {96, 64}, {97, 61},
  {400, 300}, {513, 257}, {641, 479}, {1283, 719}
  };
  guint f, z;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++)
    for (z = 0; z < G_N_ELEMENTS (dims); z++) {
      gchar *ref = run_scale (fmts[f], dims[z][0], dims[z][1], FALSE);
      gchar *got = run_scale (fmts[f], dims[z][0], dims[z][1], TRUE);

      fail_unless_equals_string (got, ref);
      g_free (ref);
      g_free (got);
    }
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
}

GST_END_TEST;

/* the cache's blocks are all freed (no user left) */
static void
check_cache_empty (void)
{
  gsize idle;
  guint n_classes;

  gst_cv_pinned_cache_stats (NULL, &idle, &n_classes);
  fail_unless_equals_uint64 (idle, 0);
  fail_unless_equals_int (n_classes, 0);
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
}

static guint
cache_allocs (void)
{
  guint n;

  gst_cv_pinned_cache_stats (&n, NULL, NULL);
  return n;
}

/* the planes of one element's slots: 1080p NV12 (Y and UV), pipeline
 * depth 2, input and output staging */
static const gsize nv12_planes[] = { 1920 * 1080, 1920 * 540 };

#define SLOT_BLOCKS 8

static void
take_slots (GstCvStagingBlock * b, const gsize * planes, guint n_planes)
{
  guint i;

  for (i = 0; i < SLOT_BLOCKS; i++) {
    gsize want = planes[i % n_planes];

    fail_unless (gst_cv_pinned_cache_acquire (want, &b[i]));
    fail_unless (b[i].map.size >= want);
    fail_unless (((guintptr) b[i].map.data & 63) == 0);
    check_inside_block (b[i].map.data, b[i].map.size);
    memset (b[i].map.data, 0x40 + i, want);
  }
}

static void
give_slots (GstCvStagingBlock * b)
{
  guint i;

  for (i = 0; i < SLOT_BLOCKS; i++) {
    gst_cv_pinned_cache_release (&b[i]);
    fail_unless (b[i].buffer == NULL);
  }
}

static gint
cmp_ptr (gconstpointer a, gconstpointer b)
{
  guintptr x = *(const guintptr *) a, y = *(const guintptr *) b;
  return x < y ? -1 : x > y;
}

/* sorted addresses of the blocks */
static void
block_set (const GstCvStagingBlock * b, guintptr * set)
{
  guint i;

  for (i = 0; i < SLOT_BLOCKS; i++)
    set[i] = (guintptr) b[i].map.data;
  qsort (set, SLOT_BLOCKS, sizeof (guintptr), cmp_ptr);
}

/* size classes: at least the size, at most a quarter more (4 KiB at
 * least), growing with the size; one pool per class */
GST_START_TEST (test_cache_classes)
{
  gsize size, prev = 0;
  GstBufferPool *a, *b, *c;
  guint n_classes;

  gst_cv_pinned_cache_use ();
  for (size = 1; size < ((gsize) 1 << 31); size += size / 7 + 1) {
    gsize c = gst_cv_pinned_cache_class_size (size);

    fail_unless (c >= size && c >= 4096, "%" G_GSIZE_FORMAT " -> %"
        G_GSIZE_FORMAT, size, c);
    fail_unless (size <= 4096 || c - size <= size / 4, "%" G_GSIZE_FORMAT
        " -> %" G_GSIZE_FORMAT, size, c);
    fail_unless (c >= prev);
    fail_unless (gst_cv_pinned_cache_class_size (c) == c);
    prev = c;
  }
  fail_unless (gst_cv_pinned_cache_class_size (G_MAXSIZE / 2) == 0);
  /* 1080p GRAY8 (2 073 600 bytes) and a slightly larger plane share a
   * class; 1080p RGBA is another */
  a = gst_cv_pinned_cache_pool (1920 * 1080);
  b = gst_cv_pinned_cache_pool (1920 * 1080 + 4096);
  c = gst_cv_pinned_cache_pool (1920 * 1080 * 4);
  fail_unless (a != NULL && c != NULL);
  fail_unless (a == b);
  fail_unless (a != c);
  gst_cv_pinned_cache_stats (NULL, NULL, &n_classes);
  fail_unless_equals_int (n_classes, 2);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (c);
  gst_cv_pinned_cache_unuse ();
  check_cache_empty ();
}

GST_END_TEST;

/* Two users (two elements) of the same frame size, one after the other:
 * the second gets the first's blocks, no new host allocation; a third of
 * another size allocates its own */
GST_START_TEST (test_cache_reuse)
{
  GstCvStagingBlock a[SLOT_BLOCKS], b[SLOT_BLOCKS], c[SLOT_BLOCKS];
  guintptr set_a[SLOT_BLOCKS], set_b[SLOT_BLOCKS];
  const gsize uhd_rgba[] = { 3840 * 2160 * 4 };
  guint allocs0, allocs1, i;
  gsize idle;

  gst_cv_pinned_cache_use ();   /* element A */
  gst_cv_pinned_cache_use ();   /* element B */
  allocs0 = cache_allocs ();
  take_slots (a, nv12_planes, 2);
  allocs1 = cache_allocs ();
  fail_unless_equals_int (allocs1 - allocs0, SLOT_BLOCKS);
  block_set (a, set_a);
  give_slots (a);               /* A stops */
  gst_cv_pinned_cache_stats (NULL, &idle, NULL);
  fail_unless_equals_uint64 (idle, 4 * gst_cv_pinned_cache_class_size
      (nv12_planes[0]) + 4 * gst_cv_pinned_cache_class_size (nv12_planes[1]));
  take_slots (b, nv12_planes, 2);       /* B starts */
  fail_unless_equals_int (cache_allocs (), allocs1);
  block_set (b, set_b);
  for (i = 0; i < SLOT_BLOCKS; i++)
    fail_unless (set_a[i] == set_b[i], "block %u: %p is not one of A's", i,
        (gpointer) set_b[i]);
  gst_cv_pinned_cache_stats (NULL, &idle, NULL);
  fail_unless_equals_uint64 (idle, 0);
  /* another size: its own blocks, while B holds its own */
  take_slots (c, uhd_rgba, 1);
  fail_unless_equals_int (cache_allocs () - allocs1, SLOT_BLOCKS);
  give_slots (c);
  give_slots (b);
  gst_cv_pinned_cache_unuse ();
  gst_cv_pinned_cache_unuse ();
  check_cache_empty ();
}

GST_END_TEST;

/* idle blocks beyond the limit are freed when they come back */
GST_START_TEST (test_cache_limit)
{
  GstCvStagingBlock b[SLOT_BLOCKS];
  const gsize one[] = { 100000 };
  gsize cls = gst_cv_pinned_cache_class_size (one[0]), idle;
  guint allocs0;

  gst_cv_pinned_cache_use ();
  gst_cv_pinned_cache_set_limit (3 * cls + cls / 2);
  allocs0 = cache_allocs ();
  take_slots (b, one, 1);
  give_slots (b);
  gst_cv_pinned_cache_stats (NULL, &idle, NULL);
  fail_unless_equals_uint64 (idle, 3 * cls);
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), 3);
#endif
  /* three come from the cache, the others are new */
  take_slots (b, one, 1);
  fail_unless_equals_int (cache_allocs () - allocs0, 2 * SLOT_BLOCKS - 3);
  give_slots (b);
  /* limit 0: nothing kept (those taken from the cache freed too) */
  gst_cv_pinned_cache_set_limit (0);
  take_slots (b, one, 1);
  give_slots (b);
  gst_cv_pinned_cache_stats (NULL, &idle, NULL);
  fail_unless_equals_uint64 (idle, 0);
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), 0);
#endif
  gst_cv_pinned_cache_set_limit ((gsize) 256 << 20);
  gst_cv_pinned_cache_unuse ();
  check_cache_empty ();
}

GST_END_TEST;

/* the last user goes while a block is out: the block stays usable and is
 * freed when it comes back; a new user gets a new pool */
GST_START_TEST (test_cache_block_out_at_clear)
{
  GstCvStagingBlock b;
  GstBufferPool *before, *after;

  gst_cv_pinned_cache_use ();
  before = gst_cv_pinned_cache_pool (5000);
  fail_unless (gst_cv_pinned_cache_acquire (5000, &b));
  gst_cv_pinned_cache_unuse ();
  memset (b.map.data, 0x7f, 5000);
  gst_cv_pinned_cache_use ();
  after = gst_cv_pinned_cache_pool (5000);
  fail_unless (after != before);
  gst_object_unref (after);
  gst_cv_pinned_cache_unuse ();
  gst_object_unref (before);
  gst_cv_pinned_cache_release (&b);
  check_cache_empty ();
}

GST_END_TEST;

/* a user of test_cache_hundred_users goes: its slots stop, then it is
 * finalized */
static void
user_goes (GstCvStagingBlock * blocks, gboolean * alive, guint * gone)
{
  give_slots (blocks);
  gst_cv_pinned_cache_unuse ();
  *alive = FALSE;
  (*gone)++;
}

/* Issue #28: pinned memory must come back when the elements are gone.
 * 100 users (element instances: gst_cv_pinned_cache_use at instance init,
 * _unuse at finalize, as the base class does), each with the staging of
 * its slots (SLOT_BLOCKS blocks of one of several frame layouts, taken at
 * its first frame, given back when it stops), up to 4 alive at once and
 * overlapping; after every 25th the last one goes: then no pinned byte is
 * in use (idle bytes, classes, and under the stand-in cudart the blocks
 * and bytes allocated and not freed), and while users live the idle
 * blocks stay within the bound. */
GST_START_TEST (test_cache_hundred_users)
{
  /* planes of 1080p NV12, 720p RGBA, 4K GRAY8, 640x480 I420 */
  static const gsize layouts[][2] = {
    {1920 * 1080, 1920 * 540}, {1280 * 720 * 4, 1280 * 720 * 4},
    {3840 * 2160, 3840 * 2160}, {640 * 480, 320 * 240},
  };
  GstCvStagingBlock b[4][SLOT_BLOCKS];
  gboolean alive[4] = { FALSE };
  const gsize limit = (gsize) 64 << 20;
  guint user, k, gone = 0;
  gsize idle;

  gst_cv_pinned_cache_set_limit (limit);
  for (user = 0; user < 100; user++) {
    guint slot = user % 4;

    /* the user 4 before this one goes */
    if (alive[slot])
      user_goes (b[slot], &alive[slot], &gone);
    gst_cv_pinned_cache_use ();
    alive[slot] = TRUE;
    take_slots (b[slot], layouts[user % G_N_ELEMENTS (layouts)], 2);
    gst_cv_pinned_cache_stats (NULL, &idle, NULL);
    fail_unless (idle <= limit, "%" G_GSIZE_FORMAT " bytes idle", idle);
    if (user % 25 == 24) {
      /* every user goes: nothing pinned is left */
      for (k = 0; k < 4; k++)
        if (alive[k])
          user_goes (b[k], &alive[k], &gone);
      check_cache_empty ();
#ifdef CVTEST_FAKE_CUDART
      fail_unless_equals_uint64 (fake_cudart_outstanding_bytes (), 0);
#endif
    }
  }
  fail_unless_equals_int (gone, 100);
  gst_cv_pinned_cache_set_limit ((gsize) 256 << 20);
  check_cache_empty ();
}

GST_END_TEST;

#define N_THREADS 8
#define ITERATIONS 300

static const gsize thread_sizes[] = { 4096, 70000, 1920 * 1080 };

/* each thread: take a block, fill it with its own pattern, let the others
 * run, check the pattern is intact (no block is given to two users at
 * once), give it back */
static gpointer
cache_thread (gpointer data)
{
  guint id = GPOINTER_TO_UINT (data), i;
  GRand *r = g_rand_new_with_seed (id);

  gst_cv_pinned_cache_use ();
  for (i = 0; i < ITERATIONS; i++) {
    gsize n = thread_sizes[g_rand_int_range (r, 0,
            G_N_ELEMENTS (thread_sizes))], k;
    GstCvStagingBlock b;
    guint8 v = (guint8) (id * 31 + i);

    if (!gst_cv_pinned_cache_acquire (n, &b))
      g_error ("thread %u: no block of %" G_GSIZE_FORMAT " bytes", id, n);
    memset (b.map.data, v, n);
    g_thread_yield ();
    for (k = 0; k < n; k += 997)
      if (b.map.data[k] != v)
        g_error ("thread %u: block %p shared", id, b.map.data);
    if (b.map.data[n - 1] != v)
      g_error ("thread %u: block %p shared", id, b.map.data);
    gst_cv_pinned_cache_release (&b);
  }
  gst_cv_pinned_cache_unuse ();
  g_rand_free (r);
  return NULL;
}

GST_START_TEST (test_cache_threads)
{
  GThread *t[N_THREADS];
  guint i, allocs0 = cache_allocs (), used;
  gsize idle;

  gst_cv_pinned_cache_use ();   /* keeps the cache over the threads */
  for (i = 0; i < N_THREADS; i++)
    t[i] = g_thread_new ("cache", cache_thread, GUINT_TO_POINTER (i));
  for (i = 0; i < N_THREADS; i++)
    g_thread_join (t[i]);
  /* at most one block per thread and class was ever needed at once */
  used = cache_allocs () - allocs0;
  fail_unless (used >= 1 && used <= N_THREADS * G_N_ELEMENTS (thread_sizes),
      "%u blocks allocated", used);
  gst_cv_pinned_cache_stats (NULL, &idle, NULL);
  fail_unless (idle > 0 && idle <= (gsize) 256 << 20);
#ifdef CVTEST_FAKE_CUDART
  fail_unless_equals_int (fake_cudart_outstanding (), used);
#endif
  gst_cv_pinned_cache_unuse ();
  check_cache_empty ();
}

GST_END_TEST;

static Suite *
pinned_suite (void)
{
  Suite *s = suite_create ("pinned");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_allocation_params);
  tcase_add_test (tc, test_own_params);
  tcase_add_test (tc, test_overflow);
  tcase_add_test (tc, test_pool);
  tcase_add_test (tc, test_videoscale_into_pinned);
  tcase_add_test (tc, test_cache_classes);
  tcase_add_test (tc, test_cache_reuse);
  tcase_add_test (tc, test_cache_limit);
  tcase_add_test (tc, test_cache_block_out_at_clear);
  tcase_add_test (tc, test_cache_hundred_users);
  tcase_add_test (tc, test_cache_threads);
  return s;
}

/* The plugin is not loaded here (it holds a copy of the same types): the
 * allocator is the one compiled into this program. */
int
main (int argc, char **argv)
{
  SRunner *sr;
  int nf;

  gst_check_init (&argc, &argv);
#ifndef CVTEST_FAKE_CUDART
  {
    int n = 0;
    if (cudaGetDeviceCount (&n) != cudaSuccess || n == 0) {
      g_print ("SKIP: no usable CUDA device\n");
      return 77;
    }
  }
#endif
  gst_cv_pinned_allocator_register ();
  sr = srunner_create (pinned_suite ());
  srunner_run_all (sr, CK_NORMAL);
  nf = srunner_ntests_failed (sr);
  srunner_free (sr);
  /* gst-check deinitialises GStreamer at exit: the leaks tracer
   * (GST_TRACERS=leaks) then warns about objects still alive, which
   * gst-check makes fatal */
  return nf == 0 ? 0 : 1;
}
