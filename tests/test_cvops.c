/* test_cvops: the operators' C interface itself (kernels/cvop.h), as
 * CV-CUDA tests its operators: no GStreamer element, the tables called
 * directly.
 *
 * cvops-cpu (CUDAVISION_TEST_BACKEND=cpu, suite cpu): both tables of every
 * algorithm are there (cv_op_available; the CUDA ones only in a CUDA
 * build), create / destroy, the checks of infos and frames (mismatched
 * sizes, bad infos, NULL arguments), results () semantics, the chroma
 * planes the operators fill or copy, n_threads 1 and 3 against the
 * default, cancellation (a pre-set cancel flag), cv_draw_rectangles
 * against the element's former drawing; and the whole comparison below
 * run with the CPU operator on both sides (the second one on planes of
 * other pitches and addresses), which checks the comparison itself and
 * that the CPU operators do not depend on the layout of their memory.
 *
 * cvops-cuda (CUDAVISION_TEST_BACKEND=cuda, suite gpu, CK_FORK=no; exit
 * 77, skipped, without a GPU): every algorithm on random planes (seeded,
 * the seed printed with each case), sizes 1x1, odd, wide, 1080p-ish,
 * every layout and multi-plane format the elements use and a range of
 * parameters: the CPU operator on host planes against the CUDA operator on
 * the same planes copied to device memory of other pitches (aligned by
 * cudaMallocPitch, and odd pitches at odd addresses; 2-byte pixels 16-bit
 * aligned), byte for byte
 * (nlmeans: as test_nlmeans compares the backends, at most 0.1 % of the
 * components differ, none by more than 2), the results identical
 * (matches with their scores bit for bit, segment counts and labels), the
 * row padding of every output untouched; the argument checks on the CUDA
 * tables; several operators with frames in flight on their own streams.
 *
 * CVOPS_SEED (environment): the first seed (default 1).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cvsobel.h"
#include "cvcanny.h"
#include "cvconvolve.h"
#include "cvnlmeans.h"
#include "cvtemplatematch.h"
#include "cvmeanshift.h"
#include "cvdraw.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda-internal.h"
#include "cpu-internal.h"
#endif

/* the CvNlMeansParams tables below give the spatial fields only: h_color 0
 * (chroma copied) and no temporal window */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define POISON 0xA5

static gboolean
backend_is_cuda (void)
{
  const gchar *b = g_getenv ("CUDAVISION_TEST_BACKEND");

  return b && g_str_equal (b, "cuda");
}

/* ---- random planes ---- */

static guint32 next_seed;

static guint32
case_seed (void)
{
  return next_seed++;
}

/* A host plane w x h of pixels of bpp bytes, rows padded by pad bytes
 * (rounded up to even for 2-byte pixels: GRAY16 rows are 16-bit aligned,
 * as GStreamer's). */
static CvPlane
hplane_new (int w, int h, int bpp, int pad)
{
  CvPlane p;

  if (bpp == 2)
    pad += pad & 1;
  p.width = w;
  p.height = h;
  p.stride = (size_t) w *bpp + pad;
  p.data = g_malloc (p.stride * h);
  memset (p.data, POISON, p.stride * h);
  return p;
}

static void
hplane_free (CvPlane * p)
{
  g_free (p->data);
  p->data = NULL;
}

/* Content of a plane (padding included): 0 noise, 1 smooth gradients with
 * a little noise, 2 flat 16x16 blocks with a little noise (segments,
 * template matches, flat windows). */
static void
hplane_fill (CvPlane * p, int bpp, int kind, GRand * r)
{
  guint8 block[64][64][4];
  int x, y, c;

  for (y = 0; y < 64; y++)
    for (x = 0; x < 64; x++)
      for (c = 0; c < 4; c++)
        block[y][x][c] = (guint8) g_rand_int_range (r, 0, 256);
  for (y = 0; y < p->height; y++) {
    guint8 *row = p->data + (size_t) y * p->stride;
    for (x = 0; x < (int) p->stride; x++) {
      int px = x / bpp, ch = x % bpp, v;
      if (kind == 0 || px >= p->width) {
        row[x] = (guint8) g_rand_int_range (r, 0, 256);
        continue;
      }
      if (kind == 1)
        v = (px * 3 + y * 5 + ch * 60) % 256 + g_rand_int_range (r, -6, 7);
      else
        v = block[(y / 16) % 64][(px / 16) % 64][ch] +
            g_rand_int_range (r, -3, 4);
      row[x] = (guint8) (v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

/* ---- the memory of the operator under test ----
 * cuda: device memory, aligned (cudaMallocPitch) or at odd addresses with
 * odd pitches; host: the CPU operator on host planes of other pitches and
 * addresses than the reference's (the comparison's self-check). */
typedef struct
{
  gboolean cuda;
  gboolean odd;
} Mem;

typedef struct
{
  CvPlane p;
  guint8 *base;
  size_t size;
} DPlane;

#ifdef HAVE_CUDA
#define CUDA_CK(call) G_STMT_START { cudaError_t e_ = (call); \
    fail_unless (e_ == cudaSuccess, "%s: %s", #call, \
        cudaGetErrorString (e_)); } G_STMT_END
#endif

static void
dplane_alloc (const Mem * m, DPlane * d, int w, int h, int bpp)
{
  size_t row = (size_t) w * bpp, pitch;

  memset (d, 0, sizeof (*d));
  d->p.width = w;
  d->p.height = h;
  if (m->cuda) {
#ifdef HAVE_CUDA
    if (m->odd) {
      /* 2-byte pixels: 16-bit aligned rows (GRAY16), not 4-byte */
      pitch = bpp == 2 ? row + 6 : row + 5;
      d->size = pitch * h + 8;
      CUDA_CK (cudaMalloc ((void **) &d->base, d->size));
      d->p.data = d->base + (bpp == 2 ? 2 : 1);
    } else {
      CUDA_CK (cudaMallocPitch ((void **) &d->base, &pitch, row, h));
      d->size = pitch * h;
      d->p.data = d->base;
    }
    CUDA_CK (cudaMemset (d->base, POISON, d->size));
    /* cudaMemset runs on the legacy default stream, asynchronously to the
     * host; the operator under test runs on a non-blocking stream, which
     * does not wait for it: without this the poison could land after the
     * operator's output (seen on an H200: bytes of a finished row read
     * back as 0xA5) */
    CUDA_CK (cudaDeviceSynchronize ());
#else
    fail ("no CUDA in this build");
    pitch = 0;
#endif
  } else {
    pitch = m->odd ? (bpp == 2 ? row + 6 : row + 5) : (row + 511) / 512 * 512;
    d->size = pitch * h + 8;
    d->base = g_malloc (d->size);
    memset (d->base, POISON, d->size);
    d->p.data = d->base + (m->odd ? (bpp == 2 ? 2 : 1) : 0);
  }
  d->p.stride = pitch;
}

/* the rows (w * bpp bytes) of host plane src into d */
static void
dplane_upload (const Mem * m, DPlane * d, const CvPlane * src, int bpp)
{
  size_t row = (size_t) src->width * bpp;
  int y;

  if (m->cuda) {
#ifdef HAVE_CUDA
    CUDA_CK (cudaMemcpy2D (d->p.data, d->p.stride, src->data, src->stride,
            row, src->height, cudaMemcpyHostToDevice));
#endif
    return;
  }
  for (y = 0; y < src->height; y++)
    memcpy (d->p.data + (size_t) y * d->p.stride,
        src->data + (size_t) y * src->stride, row);
}

/* the whole of d (rows and padding, pitch * height bytes) into host
 * memory */
static guint8 *
dplane_download (const Mem * m, const DPlane * d)
{
  size_t n = d->p.stride * d->p.height;
  guint8 *h = g_malloc (n);

  if (m->cuda) {
#ifdef HAVE_CUDA
    CUDA_CK (cudaMemcpy (h, d->p.data, n, cudaMemcpyDeviceToHost));
#endif
  } else {
    memcpy (h, d->p.data, n);
  }
  return h;
}

static void
dplane_free (const Mem * m, DPlane * d)
{
  if (!d->base)
    return;
  if (m->cuda) {
#ifdef HAVE_CUDA
    CUDA_CK (cudaFree (d->base));
#endif
  } else {
    g_free (d->base);
  }
  d->base = NULL;
}

typedef struct
{
  void *stream;
} Queue;

static void
queue_init (const Mem * m, Queue * q)
{
  q->stream = NULL;
#ifdef HAVE_CUDA
  if (m->cuda) {
    cudaStream_t s;
    CUDA_CK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
    q->stream = s;
  }
#endif
}

static void
queue_sync (const Mem * m, Queue * q)
{
#ifdef HAVE_CUDA
  if (m->cuda) {
    CUDA_CK (cudaStreamSynchronize ((cudaStream_t) q->stream));
    CUDA_CK (cudaGetLastError ());
  }
#endif
}

static void
queue_free (const Mem * m, Queue * q)
{
#ifdef HAVE_CUDA
  if (m->cuda && q->stream)
    CUDA_CK (cudaStreamDestroy ((cudaStream_t) q->stream));
#endif
  q->stream = NULL;
}

/* ---- one case: the CPU operator against the operator under test ---- */

typedef enum
{
  RES_NONE,
  RES_TEMPLATE_MATCH,
  RES_MEANSHIFT,
} ResKind;

typedef struct
{
  gchar *what;
  const CvOps *ref, *test;      /* the CPU table, the table under test */
  const void *info, *params;
  int n_in, n_out;
  CvPlane in[CV_MAX_PLANES];    /* host planes (filled) */
  int in_bpp[CV_MAX_PLANES];
  int out_w[CV_MAX_PLANES], out_h[CV_MAX_PLANES], out_bpp[CV_MAX_PLANES];
  gboolean nlmeans;             /* compare as test_nlmeans does */
  ResKind res;
  int width, height;            /* of the label map */
} Case;

/* nlmeans: the backends agree within 1 LSB (never more than 2 apart) on
 * at least 99.9 % of the components over all the frames of a comparison
 * (nlmeans_total_*, checked at the end of compare_nlmeans); one frame may
 * have up to 1 % (small random frames: 7 of 3404 bytes, 0.2 %, were seen
 * on the H100 with a 37x23 RGBA frame) */
static size_t nlmeans_total_off, nlmeans_total_n;

static void
compare_bytes_nlmeans (const Case * c, int p, const guint8 * a, size_t as,
    const guint8 * b, size_t bs)
{
  size_t row = (size_t) c->out_w[p] * c->out_bpp[p], n = 0, off = 0;
  int y, maxd = 0;
  size_t x;

  /* (no fail_unless per byte: check sends every one to its parent) */
  for (y = 0; y < c->out_h[p]; y++)
    for (x = 0; x < row; x++) {
      int d = abs ((int) a[(size_t) y * as + x] - (int) b[(size_t) y * bs + x]);
      if (d > 2)
        fail ("%s: plane %d byte (%" G_GSIZE_FORMAT ", %d) CPU %u, other %u",
            c->what, p, x, y, a[(size_t) y * as + x], b[(size_t) y * bs + x]);
      maxd = MAX (maxd, d);
      off += d > 0;
      n++;
    }
  nlmeans_total_off += off;
  nlmeans_total_n += n;
  fail_unless (off <= (n + 99) / 100, "%s: plane %d: %" G_GSIZE_FORMAT
      " of %" G_GSIZE_FORMAT " bytes differ (max %d)", c->what, p, off, n,
      maxd);
}

static void
compare_rows (const Case * c, int p, const guint8 * a, size_t as,
    const guint8 * b, size_t bs)
{
  size_t row = (size_t) c->out_w[p] * c->out_bpp[p];
  int y;

  if (c->nlmeans && p == 0) {
    compare_bytes_nlmeans (c, p, a, as, b, bs);
    return;
  }
  for (y = 0; y < c->out_h[p]; y++) {
    const guint8 *ra = a + (size_t) y * as, *rb = b + (size_t) y *bs;
    if (memcmp (ra, rb, row) != 0) {
      size_t x = 0;
      while (ra[x] == rb[x])
        x++;
      fail ("%s: plane %d differs at byte %" G_GSIZE_FORMAT " of row %d: CPU "
          "%u, other %u", c->what, p, x, y, ra[x], rb[x]);
    }
  }
}

/* the bytes of a plane beyond its rows are untouched */
static void
check_padding (const Case * c, int p, const guint8 * d, size_t stride,
    const char *side)
{
  size_t row = (size_t) c->out_w[p] * c->out_bpp[p], x;
  int y;

  for (y = 0; y < c->out_h[p]; y++)
    for (x = row; x < stride; x++)
      if (d[(size_t) y * stride + x] != POISON)
        fail ("%s: %s wrote the padding of plane %d (byte %" G_GSIZE_FORMAT
            " of row %d)", c->what, side, p, x, y);
}

static void
compare_results (const Case * c, const void *ra, const void *rb)
{
  if (c->res == RES_NONE) {
    fail_unless (ra == NULL && rb == NULL, "%s: results", c->what);
  } else if (c->res == RES_TEMPLATE_MATCH) {
    const CvTemplateMatchResult *a = ra, *b = rb;
    int i;

    fail_unless (a && b, "%s: no results", c->what);
    fail_unless_equals_int (a->count, b->count);
    for (i = 0; i < a->count; i++)
      fail_unless (a->match[i].x == b->match[i].x
          && a->match[i].y == b->match[i].y
          && memcmp (&a->match[i].score, &b->match[i].score,
              sizeof (double)) == 0
          && memcmp (a->match[i].around, b->match[i].around,
              sizeof (a->match[i].around)) == 0
          && a->match[i].scale == b->match[i].scale
          && a->match[i].w == b->match[i].w && a->match[i].h == b->match[i].h,
          "%s: match %d: CPU (%d, %d) %.9g, other (%d, %d) %.9g", c->what, i,
          a->match[i].x, a->match[i].y, a->match[i].score, b->match[i].x,
          b->match[i].y, b->match[i].score);
  } else {
    const CvMeanShiftSegments *a = ra, *b = rb;
    const CvMeanShiftParams *p = c->params;

    if (p->mode != CV_MEANSHIFT_SEGMENT) {
      fail_unless (a == NULL && b == NULL, "%s: filter mode results", c->what);
      return;
    }
    fail_unless (a && b && a->labels && b->labels, "%s: no segments", c->what);
    fail_unless (a->n_segments == b->n_segments, "%s: %u segments on the "
        "CPU, %u on the other", c->what, a->n_segments, b->n_segments);
    fail_unless (memcmp (a->labels, b->labels,
            (size_t) c->width * c->height * sizeof (uint32_t)) == 0,
        "%s: labels differ", c->what);
  }
}

static void
run_case (Case * c, const Mem * m)
{
  CvFrame hf, df;
  CvPlane hout[CV_MAX_PLANES];
  DPlane din[CV_MAX_PLANES], dout[CV_MAX_PLANES];
  void *a = NULL, *b = NULL;
  CvExec ex = { NULL, 0, NULL };
  Queue q;
  int p, st;

  g_print ("  %s\n", c->what);
  memset (&hf, 0, sizeof (hf));
  memset (&df, 0, sizeof (df));
  memset (din, 0, sizeof (din));
  memset (dout, 0, sizeof (dout));
  queue_init (m, &q);

  /* the reference: the CPU operator on the host planes */
  for (p = 0; p < c->n_in; p++)
    hf.in[p] = c->in[p];
  for (p = 0; p < c->n_out; p++) {
    hout[p] = hplane_new (c->out_w[p], c->out_h[p], c->out_bpp[p], 3);
    hf.out[p] = hout[p];
  }
  st = c->ref->create (c->info, 1, &a);
  fail_unless_equals_int (st, CV_OK);
  st = c->ref->submit (a, 0, &hf, c->params, NULL);
  fail_unless (st == CV_OK, "%s: CPU submit returned %d", c->what, st);

  /* the operator under test on copies of the planes */
  for (p = 0; p < c->n_in; p++) {
    dplane_alloc (m, &din[p], c->in[p].width, c->in[p].height, c->in_bpp[p]);
    dplane_upload (m, &din[p], &c->in[p], c->in_bpp[p]);
    df.in[p] = din[p].p;
  }
  for (p = 0; p < c->n_out; p++) {
    dplane_alloc (m, &dout[p], c->out_w[p], c->out_h[p], c->out_bpp[p]);
    df.out[p] = dout[p].p;
  }
  st = c->test->create (c->info, 1, &b);
  fail_unless (st == CV_OK, "%s: create returned %d", c->what, st);
  ex.stream = q.stream;
  st = c->test->submit (b, 0, &df, c->params, &ex);
  fail_unless (st == CV_OK, "%s: submit returned %d", c->what, st);
  queue_sync (m, &q);

  for (p = 0; p < c->n_out; p++) {
    guint8 *got = dplane_download (m, &dout[p]);

    compare_rows (c, p, hout[p].data, hout[p].stride, got, dout[p].p.stride);
    check_padding (c, p, hout[p].data, hout[p].stride, "the CPU");
    check_padding (c, p, got, dout[p].p.stride, "the other");
    g_free (got);
  }
  compare_results (c, c->ref->results (a, 0), c->test->results (b, 0));

  c->ref->destroy (a);
  c->test->destroy (b);
  for (p = 0; p < c->n_in; p++)
    dplane_free (m, &din[p]);
  for (p = 0; p < c->n_out; p++) {
    dplane_free (m, &dout[p]);
    hplane_free (&hout[p]);
  }
  queue_free (m, &q);
}

static void
case_clear (Case * c)
{
  int p;

  for (p = 0; p < c->n_in; p++)
    hplane_free (&c->in[p]);
  g_free (c->what);
  memset (c, 0, sizeof (*c));
}

/* ---- formats ---- */

typedef struct
{
  const char *name;
  CvLumaLayout layout;          /* of plane 0 */
  int n_planes;
  int bpp[CV_MAX_PLANES];
  gboolean sub[CV_MAX_PLANES];  /* 4:2:0 chroma plane */
} Format;

static const Format formats[] = {
  {"GRAY8", {1, -1, -1, -1}, 1, {1}, {FALSE}},
  {"I420", {1, -1, -1, -1}, 3, {1, 1, 1}, {FALSE, TRUE, TRUE}},
  {"NV12", {1, -1, -1, -1}, 2, {1, 2}, {FALSE, TRUE}},
  {"RGB", {3, 0, 1, 2}, 1, {3}, {FALSE}},
  {"BGR", {3, 2, 1, 0}, 1, {3}, {FALSE}},
  {"RGBA", {4, 0, 1, 2}, 1, {4}, {FALSE}},
  {"BGRx", {4, 2, 1, 0}, 1, {4}, {FALSE}},
  {"xRGB", {4, 1, 2, 3}, 1, {4}, {FALSE}},
};

#define F_GRAY8 0
#define F_I420 1
#define F_NV12 2
#define F_RGB 3
#define F_BGR 4
#define F_RGBA 5
#define F_BGRx 6
#define F_xRGB 7

static int
plane_w (const Format * f, int p, int w)
{
  return f->sub[p] ? w - w / 2 : w;
}

static int
plane_h (const Format * f, int p, int h)
{
  return f->sub[p] ? h - h / 2 : h;
}

/* the input planes of a frame of format f (random, padded rows) */
static void
case_inputs (Case * c, const Format * f, int w, int h, int kind, GRand * r)
{
  int p;

  c->n_in = f->n_planes;
  for (p = 0; p < f->n_planes; p++) {
    c->in[p] = hplane_new (plane_w (f, p, w), plane_h (f, p, h), f->bpp[p],
        (p * 7 + w) % 13);
    hplane_fill (&c->in[p], f->bpp[p], kind, r);
    c->in_bpp[p] = f->bpp[p];
  }
}

/* outputs of the same shapes as the inputs */
static void
case_outputs_like_inputs (Case * c)
{
  int p;

  c->n_out = c->n_in;
  for (p = 0; p < c->n_in; p++) {
    c->out_w[p] = c->in[p].width;
    c->out_h[p] = c->in[p].height;
    c->out_bpp[p] = c->in_bpp[p];
  }
}

typedef struct
{
  int w, h;
  gboolean big;                 /* 1080p-ish: the GPU run only for the
                                 * costly algorithms */
} Size;

static const Size sizes[] = {
  {1, 1, FALSE}, {2, 3, FALSE}, {37, 23, FALSE}, {1031, 7, FALSE},
  {5, 301, FALSE}, {161, 119, FALSE}, {1920, 1080, TRUE},
};

/* ---- the comparisons, per algorithm ---- */

/* CVOPS_SMALL=1 (tests/device-run.sh sanitize: compute-sanitizer makes
 * every access slow) leaves out the 1080p size everywhere */
static gboolean
size_skipped (const Size * s, gboolean big)
{
  static gint small = -1;

  if (small < 0)
    small = g_getenv ("CVOPS_SMALL") != NULL;
  return s->big && (!big || small);
}

/* the outputs of the edge-map operators (sobel, canny) */
static const struct
{
  const char *name;
  int n, ps[CV_MAX_PLANES];
} edge_outs[] = {
  {"GRAY8", 1, {1}}, {"NV12", 2, {1, 2}}, {"I420", 3, {1, 1, 1}},
};

/* an edge-map case: random inputs of fmt, the info and output planes of
 * edge_outs[o] */
static void
edge_map_case (Case * c, CvEdgeMapInfo * info, const Format * fmt, guint o,
    int w, int h, int pad_kind, GRand * r)
{
  int p;

  memset (c, 0, sizeof (*c));
  memset (info, 0, sizeof (*info));
  case_inputs (c, fmt, w, h, pad_kind, r);
  info->layout = fmt->layout;
  info->width = w;
  info->height = h;
  info->n_out_planes = edge_outs[o].n;
  memcpy (info->out_pixel_stride, edge_outs[o].ps, sizeof (edge_outs[o].ps));
  c->n_out = edge_outs[o].n;
  for (p = 0; p < c->n_out; p++) {
    c->out_w[p] = p ? w - w / 2 : w;
    c->out_h[p] = p ? h - h / 2 : h;
    c->out_bpp[p] = edge_outs[o].ps[p] ? edge_outs[o].ps[p] : 1;
  }
  c->info = info;
}

static void
compare_sobel (const Mem * m, const CvOps * test, gboolean big)
{
  static const int in_fmts[] = { F_GRAY8, F_I420, F_RGB, F_BGR, F_RGBA,
    F_BGRx, F_xRGB
  };
  static const CvSobelParams params[] = {
    {0, 0, 3, 0}, {40, 30, 3, 0}, {-60, 0, 3, 0}, {255, 254, 3, 0},
    {0, 100, 3, 0},
    {10, 20, 5, CV_SOBEL_NORM_L2}, {0, 50, 7, CV_SOBEL_NORM_L1},
    {-30, 0, 3, CV_SOBEL_NORM_L1}, {0, 0, 7, CV_SOBEL_NORM_L2},
    {5, 0, 5, CV_SOBEL_NORM_L1},
  };
  guint s, f, o;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    if (size_skipped (&sizes[s], big))
      continue;
    for (f = 0; f < G_N_ELEMENTS (in_fmts); f++)
      for (o = 0; o < G_N_ELEMENTS (edge_outs); o++) {
        const Format *fmt = &formats[in_fmts[f]];
        const CvSobelParams *prm = &params[(s + f + o) % G_N_ELEMENTS (params)];
        const int w = sizes[s].w, h = sizes[s].h;
        guint32 seed = case_seed ();
        GRand *r = g_rand_new_with_seed (seed);
        CvEdgeMapInfo info;
        Case c;

        edge_map_case (&c, &info, fmt, o, w, h, (s + f) % 3, r);
        c.what = g_strdup_printf ("sobel %dx%d %s -> %s brightness %d "
            "threshold %d kernel-size %d norm %d, seed %u", w, h, fmt->name,
            edge_outs[o].name, prm->brightness, prm->threshold,
            prm->kernel_size, prm->norm, seed);
        c.ref = &cv_sobel_cpu_ops;
        c.test = test;
        c.params = prm;
        run_case (&c, m);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

static void
compare_canny (const Mem * m, const CvOps * test, gboolean big)
{
  static const int in_fmts[] = { F_GRAY8, F_I420, F_NV12, F_RGB, F_BGRx,
    F_xRGB
  };
  /* every aperture and norm; thresholds in order, swapped, fractional,
   * 0 (every local maximum an edge), huge (none) */
  static const CvCannyParams params[] = {
    {50, 150, 3, 0}, {20, 60, 5, 1}, {300, 900, 7, 0}, {150, 50, 3, 1},
    {12.5, 33.7, 5, 0}, {0, 0, 7, 1}, {1e6, 1e6, 3, 0}, {100, 300, 0, 0},
    {40, 120, 7, 1},
  };
  guint s, f, o;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    if (size_skipped (&sizes[s], big))
      continue;
    for (f = 0; f < G_N_ELEMENTS (in_fmts); f++)
      for (o = 0; o < G_N_ELEMENTS (edge_outs); o++) {
        const Format *fmt = &formats[in_fmts[f]];
        const CvCannyParams *prm = &params[(s + 2 * f + o) %
            G_N_ELEMENTS (params)];
        const int w = sizes[s].w, h = sizes[s].h;
        guint32 seed = case_seed ();
        GRand *r = g_rand_new_with_seed (seed);
        CvEdgeMapInfo info;
        Case c;

        edge_map_case (&c, &info, fmt, o, w, h, (s + f) % 3, r);
        c.what = g_strdup_printf ("canny %dx%d %s -> %s thresholds %g %g "
            "kernel-size %d l2 %d, seed %u", w, h, fmt->name, edge_outs[o].name,
            prm->low_threshold, prm->high_threshold, prm->kernel_size,
            prm->l2_gradient, seed);
        c.ref = &cv_canny_cpu_ops;
        c.test = test;
        c.params = prm;
        run_case (&c, m);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

/* the chains compared: named filters and their chains, custom kernels 2-D
 * and separable, chains whose halo does not fit in shared memory */
#define N_CHAINS 13
static const char *chain_names[N_CHAINS] = {
  "blur", "gaussian", "sharpen", "edge-detect", "blur,edge-detect",
  "gaussian,sharpen,blur", "custom 5x5", "custom 7x7 separable",
  "custom 31x31", "blur,custom 3x3,edge-detect", "8 x custom 31x31",
  "8 x custom 9x9 separable", "custom 1x1",
};

static const int border_modes[] = { CV_BORDER_CONSTANT,
  CV_BORDER_REPLICATE, CV_BORDER_REFLECT_101
};

static void
make_chain (int i, int border, GRand * r, CvConvolveParams * p)
{
  static const int named[][3] = {
    {CV_FILTER_BLUR}, {CV_FILTER_GAUSSIAN}, {CV_FILTER_SHARPEN},
    {CV_FILTER_EDGE_DETECT}, {CV_FILTER_BLUR, CV_FILTER_EDGE_DETECT},
    {CV_FILTER_GAUSSIAN, CV_FILTER_SHARPEN, CV_FILTER_BLUR},
  };
  static const int named_n[] = { 1, 1, 1, 1, 2, 3 };
  int k, a, b, j;
  float col[CV_CONVOLVE_MAX_KSIZE], row[CV_CONVOLVE_MAX_KSIZE];

  memset (p, 0, sizeof (*p));
  p->border_mode = border;
  p->ksize = 1;
  p->kernel[0] = 1.0f;
  if (i < 6) {
    p->n_filters = named_n[i];
    for (j = 0; j < p->n_filters; j++)
      p->filters[j] = named[i][j];
    fail_unless_equals_int (cv_convolve_params_prepare (p), CV_OK);
    return;
  }
  switch (i) {
    case 6:
      k = 5;
      break;
    case 7:
    case 11:
      k = i == 7 ? 7 : 9;
      break;
    case 8:
    case 10:
      k = 31;
      break;
    case 9:
      k = 3;
      break;
    default:
      k = 1;
      break;
  }
  p->ksize = k;
  if (i == 7 || i == 11) {
    for (a = 0; a < k; a++) {
      col[a] = (float) g_rand_double_range (r, 0.05, 1.0);
      row[a] = (float) g_rand_double_range (r, -0.3, 1.0) / k;
    }
    for (a = 0; a < k; a++)
      for (b = 0; b < k; b++)
        p->kernel[a * k + b] = col[a] * row[b];
  } else {
    for (a = 0; a < k * k; a++)
      p->kernel[a] = (float) g_rand_double_range (r, -0.6, 1.0) / (k * k) *
          2.0f;
    p->kernel[(k / 2) * k + k / 2] += 0.5f;
  }
  if (i == 9) {
    p->n_filters = 3;
    p->filters[0] = CV_FILTER_BLUR;
    p->filters[1] = CV_FILTER_CUSTOM;
    p->filters[2] = CV_FILTER_EDGE_DETECT;
  } else if (i == 10 || i == 11) {
    p->n_filters = 8;
    for (j = 0; j < 8; j++)
      p->filters[j] = CV_FILTER_CUSTOM;
  } else {
    p->n_filters = 1;
    p->filters[0] = CV_FILTER_CUSTOM;
  }
  fail_unless_equals_int (cv_convolve_params_prepare (p), CV_OK);
  if (i == 7 || i == 11)
    fail_unless (p->separable, "%s: not separable", chain_names[i]);
}

static void
compare_convolve (const Mem * m, const CvOps * test, gboolean big)
{
  static const int fmts[] = { F_GRAY8, F_I420, F_NV12, F_RGB, F_BGR, F_RGBA,
    F_BGRx
  };
  guint s, f, i;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const int w = sizes[s].w, h = sizes[s].h;

    if (size_skipped (&sizes[s], big))
      continue;
    for (i = 0; i < N_CHAINS; i++)
      for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
        const Format *fmt = &formats[fmts[f]];
        guint32 seed;
        GRand *r;
        CvConvolveParams prm;
        CvConvolveInfo info;
        Case c;
        int p;

        /* every format on two sizes, one format per chain on the others;
         * the big frame with the cheaper chains, the longest chains on
         * small frames */
        if (s != 2 && s != 5 && f != (s + i) % G_N_ELEMENTS (fmts))
          continue;
        if (sizes[s].big && (i == 8 || i >= 10))
          continue;
        if ((i == 10 || i == 11) && (size_t) w * h > 20000)
          continue;
        seed = case_seed ();
        r = g_rand_new_with_seed (seed);
        memset (&c, 0, sizeof (c));
        memset (&info, 0, sizeof (info));
        make_chain (i, border_modes[(s + f + i) % 3], r, &prm);
        case_inputs (&c, fmt, w, h, (s + i) % 3, r);
        case_outputs_like_inputs (&c);
        info.width = w;
        info.height = h;
        info.n_planes = fmt->n_planes;
        for (p = 0; p < fmt->n_planes; p++) {
          info.bpp[p] = fmt->bpp[p];
          info.channels[p] = MIN (fmt->bpp[p], 3);
        }
        c.what = g_strdup_printf ("convolve %dx%d %s %s border %d, seed %u",
            w, h, fmt->name, chain_names[i], prm.border_mode, seed);
        c.ref = &cv_convolve_cpu_ops;
        c.test = test;
        c.info = &info;
        c.params = &prm;
        run_case (&c, m);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

static void
compare_nlmeans (const Mem * m, const CvOps * test, gboolean big)
{
  static const int fmts[] = { F_GRAY8, F_I420, F_NV12, F_RGB, F_BGRx,
    F_RGBA
  };
  static const CvNlMeansParams params[] = {
    {10, 7, 21, 5.0 / 3.0, 0}, {60, 3, 3, 0, 0}, {0.01, 5, 7, 0, 0},
    {60, 11, 0, 0, 15}, {10.5, 7, 21, 5.0 / 3.0, 15}, {60, 9, 35, 2, 0},
    {60, 1, 1, 0, 0}, {25, 5, 0, 1, 0},
  };
  guint s, f, i;

  nlmeans_total_off = nlmeans_total_n = 0;
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const int w = sizes[s].w, h = sizes[s].h;

    if (size_skipped (&sizes[s], big))
      continue;
    for (i = 0; i < G_N_ELEMENTS (params); i++)
      for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
        const Format *fmt = &formats[fmts[f]];
        const CvNlMeansParams *prm = &params[i];
        guint32 seed;
        GRand *r;
        CvNlMeansInfo info;
        Case c;
        int p;

        if (f != (s + i) % G_N_ELEMENTS (fmts) && s != 2)
          continue;
        /* whole-frame mode on small frames; the big frame: the default
         * settings, grey and colour */
        if (prm->search_window == 0 && (size_t) w * h > 8000)
          continue;
        if (sizes[s].big && !(i == 0 && (fmts[f] == F_GRAY8
                    || fmts[f] == F_RGB)))
          continue;
        if (sizes[s].big && f != 0 && fmts[f] != F_RGB)
          continue;
        seed = case_seed ();
        r = g_rand_new_with_seed (seed);
        memset (&c, 0, sizeof (c));
        memset (&info, 0, sizeof (info));
        case_inputs (&c, fmt, w, h, (s + i + f) % 3, r);
        case_outputs_like_inputs (&c);
        info.layout = fmt->layout;
        info.width = w;
        info.height = h;
        info.n_planes = fmt->n_planes;
        for (p = 1; p < fmt->n_planes; p++) {
          info.row_bytes[p] = (size_t) c.in[p].width * fmt->bpp[p];
          info.rows[p] = c.in[p].height;
        }
        c.nlmeans = TRUE;
        c.what = g_strdup_printf ("nlmeans %dx%d %s h %g patch %d search %d "
            "patch-sigma %g sigma %g, seed %u", w, h, fmt->name, prm->h,
            prm->patch_size, prm->search_window, prm->patch_sigma,
            prm->sigma, seed);
        c.ref = &cv_nlmeans_cpu_ops;
        c.test = test;
        c.info = &info;
        c.params = prm;
        run_case (&c, m);
        case_clear (&c);
        g_rand_free (r);
      }
  }
  g_print ("nlmeans: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes "
      "differ over all frames\n", nlmeans_total_off, nlmeans_total_n);
  /* the 0.1 % bound is about a population of components: checked where
   * the frames hold a million (the 1080p ones, left out by CVOPS_SMALL) */
  if (nlmeans_total_n >= 1000000)
    fail_unless (nlmeans_total_off * 1000 <= nlmeans_total_n,
        "nlmeans: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes differ "
        "over all frames (more than 0.1 %%)", nlmeans_total_off,
        nlmeans_total_n);
}

/* BT.601 luma of pixel (x, y) of plane 0, written out here */
static guint8
luma_at (const CvPlane * p, CvLumaLayout l, int x, int y)
{
  const guint8 *px = p->data + (size_t) y * p->stride + (size_t) x * l.bpp;

  if (l.r < 0)
    return px[0];
  return (guint8) ((77 * px[l.r] + 150 * px[l.g] + 29 * px[l.b] + 128) / 256);
}

/* The same frame setup with a masked template (about a quarter of its
 * pixels masked out), alone and as the first of three templates searched
 * together (with an unmasked crop of it and the unmasked template): the
 * matches, their template index and size, bit-identical. */
static void
compare_template_match_masked (const Mem * m, const CvOps * test,
    const Format * fmt, const CvTemplateMatchInfo * info,
    const CvTemplateMatchFrameParams * base, const guint8 * tpix, int tw,
    int th, guint32 seed, int kind, GRand * r)
{
  guint8 *tcopy = g_memdup2 (tpix, (gsize) tw * th);
  guint8 *mask = g_malloc ((gsize) tw * th);
  CvTemplate tl[3];
  CvTemplateMatchFrameParams prm = *base;
  int i, v;

  for (i = 0; i < tw * th; i++)
    mask[i] = g_rand_int_range (r, 0, 4) ? (guint8) g_rand_int_range (r, 1,
        256) : 0;
  mask[0] = 255;
  memset (tl, 0, sizeof (tl));
  tl[0].plane.data = tcopy;
  tl[0].plane.stride = tw;
  tl[0].plane.width = tw;
  tl[0].plane.height = th;
  tl[0].mask.data = mask;
  tl[0].mask.stride = tw;
  tl[0].mask.width = tw;
  tl[0].mask.height = th;
  tl[0].id = seed + 1000003u;
  fail_unless_equals_int (cv_template_stats (&tl[0]), CV_OK);
  /* normalised: 0/1, the template 0 outside */
  for (i = 0; i < tw * th; i++)
    fail_unless (mask[i] <= 1 && (mask[i] || !tcopy[i]));
  tl[1].plane.data = (guint8 *) tpix;
  tl[1].plane.stride = tw;
  tl[1].plane.width = MAX (1, tw / 2);
  tl[1].plane.height = MAX (1, th * 2 / 3);
  tl[1].id = seed + 2000003u;
  fail_unless_equals_int (cv_template_stats (&tl[1]), CV_OK);
  tl[2] = *base->templ;
  for (v = 1; v <= 2; v++) {
    Case c;

    memset (&c, 0, sizeof (c));
    case_inputs (&c, fmt, info->width, info->height, kind, r);
    prm.templ = tl;
    prm.n_templ = v == 1 ? 1 : 3;
    if (info->score_map) {
      c.n_out = 1;
      c.out_w[0] = info->width;
      c.out_h[0] = info->height;
      c.out_bpp[0] = info->score_map / 8;
    }
    c.res = RES_TEMPLATE_MATCH;
    c.what = g_strdup_printf ("template matching %dx%d %s masked template "
        "%dx%d%s method %d max-matches %d threshold %g score map %d, seed %u",
        info->width, info->height, fmt->name, tw, th,
        v == 2 ? " and 2 more" : "", prm.match.method,
        prm.match.max_matches, prm.match.threshold, info->score_map, seed);
    c.ref = &cv_template_match_cpu_ops;
    c.test = test;
    c.info = info;
    c.params = &prm;
    run_case (&c, m);
    case_clear (&c);
  }
  g_free (tcopy);
  g_free (mask);
}

static void
compare_template_match (const Mem * m, const CvOps * test, gboolean big)
{
  static const int fmts[] = { F_GRAY8, F_I420, F_RGB, F_BGRx, F_xRGB };
  static const int tsizes[][2] = {
    {1, 1}, {5, 4}, {17, 16}, {64, 64}, {3, 40}, {-1, -1},      /* frame */
    {0, 0},                     /* no template */
  };
  guint s, f, t;
  int method;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const int w = sizes[s].w, h = sizes[s].h;

    if (size_skipped (&sizes[s], big))
      continue;
    for (t = 0; t < G_N_ELEMENTS (tsizes); t++)
      for (method = 0; method < CV_TM_N_METHODS; method++) {
        const guint f0 = (s + t + method) % G_N_ELEMENTS (fmts);
        for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
          const Format *fmt = &formats[fmts[f]];
          int tw = tsizes[t][0] < 0 ? w : MIN (tsizes[t][0], w);
          int th = tsizes[t][1] < 0 ? h : MIN (tsizes[t][1], h);
          guint32 seed;
          GRand *r;
          CvTemplateMatchInfo info;
          CvTemplateMatchFrameParams prm;
          CvTemplate tm;
          guint8 *tpix = NULL;
          Case c;
          int x, y, x0, y0;

          if (f != f0 && s != 2)
            continue;
          if (sizes[s].big && (tsizes[t][0] != 64
                  || method == CV_TM_SQDIFF_NORMED || method == CV_TM_CCORR))
            continue;
          seed = case_seed ();
          r = g_rand_new_with_seed (seed);
          memset (&c, 0, sizeof (c));
          memset (&info, 0, sizeof (info));
          memset (&prm, 0, sizeof (prm));
          memset (&tm, 0, sizeof (tm));
          case_inputs (&c, fmt, w, h, (s + t) % 3, r);
          info.layout = fmt->layout;
          info.width = w;
          info.height = h;
          info.score_map = (s + t + method) % 3 == 0 ? 0 :
              (s + t + method) % 3 == 1 ? 8 : 16;
          prm.match.method = method;
          prm.match.max_matches = (t + method) % 3 == 0 ? 1 :
              (t + method) % 3 == 1 ? 5 : CV_TEMPLATE_MATCH_MAX_MATCHES;
          prm.match.threshold = method == CV_TM_SQDIFF ? -1.0 :
              method == CV_TM_SQDIFF_NORMED ? 0.3 :
              method == CV_TM_CCORR ? -1.0 : method == CV_TM_CCOEFF ?
              (t % 2 ? 0.0 : -1.0) : method == CV_TM_CCOEFF_NORMED ? -1.0 : 0.5;
          /* the score map comes from the info: this one is not read */
          prm.match.score_map = 8;
          if (tw > 0 && th > 0) {
            /* cut from the frame's luma, a little changed */
            x0 = g_rand_int_range (r, 0, w - tw + 1);
            y0 = g_rand_int_range (r, 0, h - th + 1);
            tpix = g_malloc ((size_t) tw * th);
            for (y = 0; y < th; y++)
              for (x = 0; x < tw; x++) {
                int v = luma_at (&c.in[0], fmt->layout, x0 + x, y0 + y) +
                    g_rand_int_range (r, -2, 3);
                tpix[y * tw + x] = (guint8) CLAMP (v, 0, 255);
              }
            tm.plane.data = tpix;
            tm.plane.stride = tw;
            tm.plane.width = tw;
            tm.plane.height = th;
            tm.id = seed;
            fail_unless_equals_int (cv_template_stats (&tm), CV_OK);
            prm.templ = &tm;
          }
          if (info.score_map) {
            c.n_out = 1;
            c.out_w[0] = w;
            c.out_h[0] = h;
            c.out_bpp[0] = info.score_map / 8;
          }
          c.res = RES_TEMPLATE_MATCH;
          c.what = g_strdup_printf ("template matching %dx%d %s template "
              "%dx%d method %d max-matches %d threshold %g score map %d, "
              "seed %u", w, h, fmt->name, prm.templ ? tw : 0,
              prm.templ ? th : 0, method, prm.match.max_matches,
              prm.match.threshold, info.score_map, seed);
          c.ref = &cv_template_match_cpu_ops;
          c.test = test;
          c.info = &info;
          c.params = &prm;
          run_case (&c, m);
          case_clear (&c);
          if (tpix && f == f0 && tw >= 2 && th >= 2)
            compare_template_match_masked (m, test, fmt, &info, &prm, tpix,
                tw, th, seed, (s + t) % 3, r);
          g_free (tpix);
          g_rand_free (r);
        }
      }
  }
}

static void
compare_meanshift (const Mem * m, const CvOps * test, gboolean big)
{
  static const int fmts[] = { F_GRAY8, F_RGB, F_BGRx, F_RGBA, F_xRGB };
  guint s, f;
  int i;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const int w = sizes[s].w, h = sizes[s].h;

    if (size_skipped (&sizes[s], big))
      continue;
    for (i = 0; i < 12; i++)
      for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
        const Format *fmt = &formats[fmts[f]];
        guint32 seed;
        GRand *r;
        CvMeanShiftInfo info;
        CvMeanShiftParams prm;
        Case c;
        int k;

        if (f != (s + i) % G_N_ELEMENTS (fmts) && s != 2)
          continue;
        if (sizes[s].big && i != 0 && i != 5)
          continue;
        seed = case_seed ();
        r = g_rand_new_with_seed (seed);
        memset (&c, 0, sizeof (c));
        memset (&info, 0, sizeof (info));
        memset (&prm, 0, sizeof (prm));
        case_inputs (&c, fmt, w, h, i % 2 ? 2 : 1, r);
        case_outputs_like_inputs (&c);
        info.layout = fmt->layout;
        info.width = w;
        info.height = h;
        prm.kernel = i % 4;
        prm.mode = i >= 4 && i < 10 ? CV_MEANSHIFT_SEGMENT :
            CV_MEANSHIFT_FILTER;
        prm.spatial_radius = sizes[s].big ? 3 : 1 + (i * 3) % 8;
        prm.color_radius = 6.5 + 4 * (i % 5);
        prm.max_iterations = sizes[s].big ? 3 : 1 + (i * 7) % 10;
        prm.epsilon = i % 3 == 0 ? 0 : (i % 3 == 1 ? 1 : 0.25);
        prm.min_segment_size = i == 6 || i == 7 ? 20 : (i == 8 ? 2 : 0);
        prm.roi_width = w;
        prm.roi_height = h;
        if (i == 7 || i == 10) {
          /* a region of the frame */
          prm.roi_x = w / 4;
          prm.roi_y = h / 3;
          prm.roi_width = w / 2;
          prm.roi_height = h - h / 3 - h / 5;
        } else if (i == 9) {
          prm.roi_width = 0;    /* empty: the frame copied */
        }
        for (k = 0; k < 3; k++) {
          prm.color_min[k] = i == 8 || i == 11 ? 30 : 0;
          prm.color_max[k] = i == 8 || i == 11 ? 220 : 255;
        }
        c.res = RES_MEANSHIFT;
        c.width = w;
        c.height = h;
        c.what = g_strdup_printf ("meanshift %dx%d %s kernel %d %s hs %d hc "
            "%g iterations %d epsilon %g min-size %d roi %d,%d %dx%d, seed %u",
            w, h, fmt->name, prm.kernel, prm.mode ? "segment" : "filter",
            prm.spatial_radius, prm.color_radius, prm.max_iterations,
            prm.epsilon, prm.min_segment_size, prm.roi_x, prm.roi_y,
            prm.roi_width, prm.roi_height, seed);
        c.ref = &cv_meanshift_cpu_ops;
        c.test = test;
        c.info = &info;
        c.params = &prm;
        run_case (&c, m);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

/* ---- the tables ---- */

typedef struct
{
  const char *name;
  const CvOps *cpu, *cuda;
} Algo;

static const Algo algos[] = {
  {"sobel", &cv_sobel_cpu_ops, &cv_sobel_cuda_ops},
  {"convolve", &cv_convolve_cpu_ops, &cv_convolve_cuda_ops},
  {"nlmeans", &cv_nlmeans_cpu_ops, &cv_nlmeans_cuda_ops},
  {"template match", &cv_template_match_cpu_ops, &cv_template_match_cuda_ops},
  {"meanshift", &cv_meanshift_cpu_ops, &cv_meanshift_cuda_ops},
  {"canny", &cv_canny_cpu_ops, &cv_canny_cuda_ops},
};

#define A_SOBEL 0
#define A_CONVOLVE 1
#define A_NLMEANS 2
#define A_TM 3
#define A_MEANSHIFT 4
#define A_CANNY 5

/* A valid info, frame and parameters of each algorithm for a w x h frame
 * of format f (planes in the memory m), to be broken one field at a
 * time. */
typedef struct
{
  int algo;
  const Format *fmt;
  CvSobelInfo sobel;
  CvConvolveInfo convolve;
  CvNlMeansInfo nlmeans;
  CvTemplateMatchInfo tm;
  CvMeanShiftInfo meanshift;
  CvCannyInfo canny;
  CvSobelParams sobel_p;
  CvConvolveParams convolve_p;
  CvNlMeansParams nlmeans_p;
  CvTemplateMatchFrameParams tm_p;
  CvTemplate templ;
  guint8 tpix[16];
  CvMeanShiftParams meanshift_p;
  CvCannyParams canny_p;
  DPlane in[CV_MAX_PLANES], out[CV_MAX_PLANES];
  int n_in, n_out;
  CvFrame frame;
} Setup;

static const void *
setup_info (Setup * s)
{
  switch (s->algo) {
    case A_SOBEL:
      return &s->sobel;
    case A_CONVOLVE:
      return &s->convolve;
    case A_NLMEANS:
      return &s->nlmeans;
    case A_TM:
      return &s->tm;
    case A_CANNY:
      return &s->canny;
    default:
      return &s->meanshift;
  }
}

static const void *
setup_params (Setup * s)
{
  switch (s->algo) {
    case A_SOBEL:
      return &s->sobel_p;
    case A_CONVOLVE:
      return &s->convolve_p;
    case A_NLMEANS:
      return &s->nlmeans_p;
    case A_TM:
      return &s->tm_p;
    case A_CANNY:
      return &s->canny_p;
    default:
      return &s->meanshift_p;
  }
}

/* sobel: format f in, NV12 out (two output planes); the others: f in and
 * out (template matching: GRAY8 score map) */
static void
setup_init (Setup * s, int algo, int f, int w, int h, const Mem * m)
{
  const Format *fmt = &formats[f];
  const Format *nv12 = &formats[F_NV12];
  int p;

  memset (s, 0, sizeof (*s));
  s->algo = algo;
  s->fmt = fmt;
  s->n_in = fmt->n_planes;
  for (p = 0; p < s->n_in; p++) {
    dplane_alloc (m, &s->in[p], plane_w (fmt, p, w), plane_h (fmt, p, h),
        fmt->bpp[p]);
    s->frame.in[p] = s->in[p].p;
  }
  if (algo == A_SOBEL || algo == A_CANNY) {
    s->n_out = 2;
    for (p = 0; p < 2; p++)
      dplane_alloc (m, &s->out[p], plane_w (nv12, p, w), plane_h (nv12, p,
              h), nv12->bpp[p]);
  } else if (algo == A_TM) {
    s->n_out = 1;
    dplane_alloc (m, &s->out[0], w, h, 1);
  } else {
    s->n_out = s->n_in;
    for (p = 0; p < s->n_out; p++)
      dplane_alloc (m, &s->out[p], plane_w (fmt, p, w), plane_h (fmt, p, h),
          fmt->bpp[p]);
  }
  for (p = 0; p < s->n_out; p++)
    s->frame.out[p] = s->out[p].p;

  s->sobel.layout = fmt->layout;
  s->sobel.width = w;
  s->sobel.height = h;
  s->sobel.n_out_planes = 2;
  s->sobel.out_pixel_stride[1] = 2;
  s->sobel_p.threshold = 10;

  s->canny.layout = fmt->layout;
  s->canny.width = w;
  s->canny.height = h;
  s->canny.n_out_planes = 2;
  s->canny.out_pixel_stride[1] = 2;
  s->canny_p.low_threshold = 30;
  s->canny_p.high_threshold = 90;
  s->canny_p.kernel_size = 5;

  s->convolve.width = w;
  s->convolve.height = h;
  s->convolve.n_planes = fmt->n_planes;
  for (p = 0; p < fmt->n_planes; p++) {
    s->convolve.bpp[p] = fmt->bpp[p];
    s->convolve.channels[p] = MIN (fmt->bpp[p], 3);
  }
  s->convolve_p.n_filters = 1;
  s->convolve_p.filters[0] = CV_FILTER_GAUSSIAN;
  s->convolve_p.border_mode = CV_BORDER_REFLECT_101;
  s->convolve_p.ksize = 1;
  s->convolve_p.kernel[0] = 1.0f;
  fail_unless_equals_int (cv_convolve_params_prepare (&s->convolve_p), CV_OK);

  s->nlmeans.layout = fmt->layout;
  s->nlmeans.width = w;
  s->nlmeans.height = h;
  s->nlmeans.n_planes = fmt->n_planes;
  for (p = 1; p < fmt->n_planes; p++) {
    s->nlmeans.row_bytes[p] = (size_t) plane_w (fmt, p, w) * fmt->bpp[p];
    s->nlmeans.rows[p] = plane_h (fmt, p, h);
  }
  s->nlmeans_p.h = 10;
  s->nlmeans_p.patch_size = 3;
  s->nlmeans_p.search_window = 5;

  s->tm.layout = fmt->layout;
  s->tm.width = w;
  s->tm.height = h;
  s->tm.score_map = 8;
  s->tm_p.match.method = CV_TM_CCOEFF_NORMED;
  s->tm_p.match.max_matches = 3;
  s->tm_p.match.threshold = -1;
  for (p = 0; p < 16; p++)
    s->tpix[p] = (guint8) (p * 37);
  s->templ.plane.data = s->tpix;
  s->templ.plane.stride = 4;
  s->templ.plane.width = MIN (4, w);
  s->templ.plane.height = MIN (4, h);
  s->templ.id = 7;
  fail_unless_equals_int (cv_template_stats (&s->templ), CV_OK);
  s->tm_p.templ = &s->templ;

  s->meanshift.layout = fmt->layout;
  s->meanshift.width = w;
  s->meanshift.height = h;
  s->meanshift_p.spatial_radius = 2;
  s->meanshift_p.color_radius = 10;
  s->meanshift_p.kernel = CV_MEANSHIFT_FLAT;
  s->meanshift_p.max_iterations = 3;
  s->meanshift_p.mode = CV_MEANSHIFT_SEGMENT;
  s->meanshift_p.roi_width = w;
  s->meanshift_p.roi_height = h;
  memset (s->meanshift_p.color_max, 255, 3);
}

static void
setup_clear (Setup * s, const Mem * m)
{
  int p;

  for (p = 0; p < s->n_in; p++)
    dplane_free (m, &s->in[p]);
  for (p = 0; p < s->n_out; p++)
    dplane_free (m, &s->out[p]);
}

/* the formats each algorithm takes (one frame format per element format) */
static const int algo_fmts[][4] = {
  {F_GRAY8, F_I420, F_RGB, F_BGRx},     /* sobel */
  {F_GRAY8, F_I420, F_NV12, F_RGBA},    /* convolve */
  {F_GRAY8, F_I420, F_NV12, F_BGR},     /* nlmeans */
  {F_GRAY8, F_NV12, F_RGB, F_xRGB},     /* template matching */
  {F_GRAY8, F_RGB, F_BGRx, F_RGBA},     /* meanshift */
  {F_GRAY8, F_NV12, F_RGB, F_BGRx},     /* canny */
};

static int
submit_once (const CvOps * ops, const void *info, const CvFrame * f,
    const void *params, const Queue * q, const Mem * m)
{
  CvExec ex = { q->stream, 0, NULL };
  void *op = NULL;
  int st = ops->create (info, 1, &op);

  fail_unless_equals_int (st, CV_OK);
  st = ops->submit (op, 0, f, params, &ex);
  queue_sync (m, (Queue *) q);
  ops->destroy (op);
  return st;
}

/* create: good infos, bad infos, NULL pointers */
static void
check_create (const CvOps * ops, int algo)
{
  Setup s;
  Mem host = { FALSE, FALSE };
  void *op;
  int i;

  for (i = 0; i < 4; i++) {
    const void *info;
    int f = algo_fmts[algo][i];

    setup_init (&s, algo, f, 9, 7, &host);
    info = setup_info (&s);
    op = (void *) 1;
    fail_unless_equals_int (ops->create (info, 1, &op), CV_OK);
    fail_unless (op != NULL);
    ops->destroy (op);

    /* NULL info, NULL op */
    op = (void *) 1;
    fail_unless_equals_int (ops->create (NULL, 1, &op),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless (op == NULL);
    fail_unless_equals_int (ops->create (info, 1, NULL),
        CV_ERROR_INVALID_ARGUMENT);
    /* max_slots: 1 .. CV_OP_MAX_SLOTS */
    op = (void *) 1;
    fail_unless_equals_int (ops->create (info, 0, &op),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless (op == NULL);
    op = (void *) 1;
    fail_unless_equals_int (ops->create (info, CV_OP_MAX_SLOTS + 1, &op),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless (op == NULL);
    fail_unless_equals_int (ops->create (info, CV_OP_MAX_SLOTS, &op), CV_OK);
    ops->destroy (op);

#define BAD(field, value) G_STMT_START { \
      Setup b = s; \
      b.field = value; \
      op = (void *) 1; \
      fail_unless_equals_int (ops->create (setup_info (&b), 1, &op), \
          CV_ERROR_INVALID_ARGUMENT); \
      fail_unless (op == NULL, "%s: an operator with " #field " = " #value, \
          ops->name); \
    } G_STMT_END
    switch (algo) {
      case A_SOBEL:
        BAD (sobel.width, 0);
        BAD (sobel.height, -3);
        BAD (sobel.n_out_planes, 0);
        BAD (sobel.n_out_planes, CV_MAX_PLANES + 1);
        BAD (sobel.out_pixel_stride[1], 0);
        BAD (sobel.out_pixel_stride[1], 5);
        BAD (sobel.layout.bpp, 2);
        BAD (sobel.layout.r, s.sobel.layout.bpp);
        BAD (sobel.layout.b, s.sobel.layout.r < 0 ? 0 : -1);
        break;
      case A_CANNY:
        BAD (canny.width, 0);
        BAD (canny.height, -1);
        {
          /* 2^31 pixels or more */
          Setup b = s;
          b.canny.width = 70000;
          b.canny.height = 70000;
          op = (void *) 1;
          fail_unless_equals_int (ops->create (setup_info (&b), 1, &op),
              CV_ERROR_INVALID_ARGUMENT);
          fail_unless (op == NULL);
        }
        BAD (canny.n_out_planes, 0);
        BAD (canny.n_out_planes, CV_MAX_PLANES + 1);
        BAD (canny.out_pixel_stride[1], 5);
        BAD (canny.layout.bpp, 2);
        BAD (canny.layout.r, s.canny.layout.bpp);
        break;
      case A_CONVOLVE:
        BAD (convolve.width, -1);
        BAD (convolve.height, 0);
        BAD (convolve.n_planes, 0);
        BAD (convolve.n_planes, CV_MAX_PLANES + 1);
        BAD (convolve.bpp[0], 5);
        BAD (convolve.channels[0], 4);
        BAD (convolve.channels[0], 0);
        BAD (convolve.bpp[0], 2);
        break;
      case A_NLMEANS:
        BAD (nlmeans.width, 0);
        BAD (nlmeans.height, 0);
        BAD (nlmeans.n_planes, 0);
        BAD (nlmeans.n_planes, 5);
        BAD (nlmeans.layout.bpp, 2);
        BAD (nlmeans.layout.g, 7);
        BAD (nlmeans.rgb_mode, 2);
        BAD (nlmeans.rgb_mode, -1);
        BAD (nlmeans.temporal_window, 2);
        BAD (nlmeans.temporal_window, CV_NLMEANS_MAX_TEMPORAL + 2);
        BAD (nlmeans.temporal_window, -1);
        if (s.nlmeans.n_planes > 1) {
          BAD (nlmeans.row_bytes[1], 0);
          BAD (nlmeans.row_bytes[1], s.nlmeans.row_bytes[1] + 1);
          BAD (nlmeans.rows[1], 0);
          BAD (nlmeans.rows[1], s.nlmeans.rows[1] + 2);
        }
        break;
      case A_TM:
        BAD (tm.width, 0);
        BAD (tm.height, -1);
        BAD (tm.score_map, 4);
        BAD (tm.score_map, 32);
        BAD (tm.layout.bpp, 0);
        BAD (tm.layout.r, 4);
        break;
      default:
        BAD (meanshift.width, 0);
        BAD (meanshift.height, 0);
        BAD (meanshift.layout.bpp, 5);
        BAD (meanshift.layout.r, 5);
        BAD (meanshift.layout.g, s.meanshift.layout.r < 0 ? 0 : -1);
        break;
    }
#undef BAD
    setup_clear (&s, &host);
  }
  /* destroying nothing */
  ops->destroy (NULL);
}

/* submit: the valid frame works; every mismatch with the info is
 * refused */
static void
check_frames (const CvOps * ops, int algo, const Mem * m)
{
  int i;
  Queue q;

  queue_init (m, &q);
  for (i = 0; i < 4; i++) {
    int f = algo_fmts[algo][i];
    Setup s;
    const void *info, *params;
    void *op = NULL;
    CvExec ex = { q.stream, 0, NULL };
    int p;

    setup_init (&s, algo, f, 13, 11, m);
    info = setup_info (&s);
    params = setup_params (&s);
    fail_unless_equals_int (submit_once (ops, info, &s.frame, params, &q, m),
        CV_OK);

    fail_unless_equals_int (ops->create (info, 1, &op), CV_OK);
    fail_unless_equals_int (ops->submit (op, 0, NULL, params, &ex),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless_equals_int (ops->submit (op, 0, &s.frame, NULL, &ex),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless_equals_int (ops->submit (NULL, 0, &s.frame, params, &ex),
        CV_ERROR_INVALID_ARGUMENT);
    /* a slot out of range */
    fail_unless_equals_int (ops->submit (op, 1, &s.frame, params, &ex),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless_equals_int (ops->submit (op, -1, &s.frame, params, &ex),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless (ops->results (op, 1) == NULL);

#define MISMATCH(field, value) G_STMT_START { \
      CvFrame b = s.frame; \
      b.field = value; \
      fail_unless_equals_int (ops->submit (op, 0, &b, params, &ex), \
          CV_ERROR_INVALID_ARGUMENT); \
    } G_STMT_END
    MISMATCH (in[0].width, s.frame.in[0].width + 1);
    MISMATCH (in[0].width, s.frame.in[0].width - 1);
    MISMATCH (in[0].height, s.frame.in[0].height + 1);
    MISMATCH (in[0].data, NULL);
    MISMATCH (in[0].stride, (size_t) s.frame.in[0].width * s.fmt->bpp[0] - 1);
    MISMATCH (out[0].width, s.frame.out[0].width + 1);
    MISMATCH (out[0].height, 0);
    MISMATCH (out[0].data, NULL);
    if (algo == A_SOBEL || algo == A_CANNY) {
      /* the chroma plane: the frame's or its 4:2:0 size */
      MISMATCH (out[1].width, 13 + 1);
      MISMATCH (out[1].height, 5);
      MISMATCH (out[1].data, NULL);
      MISMATCH (out[1].stride, 2 * 7 - 1);
    }
    if ((algo == A_CONVOLVE || algo == A_NLMEANS) && s.n_in > 1) {
      /* in and out of another size, or of different sizes */
      MISMATCH (in[1].width, 13 + 2);
      MISMATCH (out[1].height, 6 + 1);
      MISMATCH (in[1].data, NULL);
      MISMATCH (out[1].data, NULL);
    }
    if (algo == A_NLMEANS && s.n_in > 1)
      MISMATCH (out[1].stride, s.nlmeans.row_bytes[1] - 1);
#undef MISMATCH

    /* parameters out of range are refused too */
    if (algo == A_SOBEL) {
      CvSobelParams b = s.sobel_p;
      b.kernel_size = 4;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
      b.kernel_size = 3;
      b.norm = 2;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
    } else if (algo == A_CANNY) {
      CvCannyParams b = s.canny_p;
      b.kernel_size = 9;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
      b = s.canny_p;
      b.low_threshold = -1;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
      b = s.canny_p;
      b.high_threshold = NAN;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
    } else if (algo == A_NLMEANS) {
      CvNlMeansParams b = s.nlmeans_p;
      b.patch_size = 4;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
    } else if (algo == A_CONVOLVE) {
      CvConvolveParams b = s.convolve_p;
      b.n_filters = 0;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
    } else if (algo == A_MEANSHIFT) {
      CvMeanShiftParams b = s.meanshift_p;
      b.roi_width = 14;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
      fail_unless (ops->results (op, 0) == NULL);
    } else if (algo == A_TM) {
      CvTemplateMatchFrameParams b = s.tm_p;
      CvTemplate big = s.templ;
      big.plane.width = 14;     /* larger than the frame */
      big.plane.stride = 14;
      b.templ = &big;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
      b.templ = &s.templ;
      b.match.max_matches = 0;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &b, &ex),
          CV_ERROR_INVALID_ARGUMENT);
      fail_unless_equals_int (((const CvTemplateMatchResult *)
              ops->results (op, 0))->count, 0);
    }
    /* and the operator still works */
    fail_unless_equals_int (ops->submit (op, 0, &s.frame, params, &ex), CV_OK);
    queue_sync (m, &q);
    ops->destroy (op);
    for (p = 0; p < s.n_out; p++) {
      guint8 *d = dplane_download (m, &s.out[p]);
      g_free (d);
    }
    setup_clear (&s, m);
  }
  queue_free (m, &q);
}

/* results (): NULL without results; template matching's results stay at
 * one place, 0 matches and an all-zero score map without a template;
 * mean shift's segments after a segment-mode frame only */
static void
check_results (const CvOps ** tables, const Mem * m)
{
  Queue q;
  CvExec ex;
  int a;

  queue_init (m, &q);
  ex.stream = q.stream;
  ex.n_threads = 0;
  ex.cancel = NULL;
  for (a = 0; a < (int) G_N_ELEMENTS (algos); a++) {
    const CvOps *ops = tables[a];
    Setup s;
    void *op = NULL;
    GRand *r = g_rand_new_with_seed (case_seed ());
    CvPlane h;
    int p;

    setup_init (&s, a, a == A_MEANSHIFT ? F_RGB : F_GRAY8, 40, 30, m);
    /* blocks: matches and segments */
    h = hplane_new (40, 30, s.fmt->bpp[0], 0);
    hplane_fill (&h, s.fmt->bpp[0], 2, r);
    dplane_upload (m, &s.in[0], &h, s.fmt->bpp[0]);
    fail_unless_equals_int (ops->create (setup_info (&s), 1, &op), CV_OK);
    if (a == A_SOBEL || a == A_CONVOLVE || a == A_NLMEANS || a == A_CANNY) {
      fail_unless (ops->results (op, 0) == NULL);
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, setup_params (&s),
              &ex), CV_OK);
      queue_sync (m, &q);
      fail_unless (ops->results (op, 0) == NULL);
    } else if (a == A_TM) {
      const CvTemplateMatchResult *r0 = ops->results (op, 0), *r1;
      CvTemplateMatchFrameParams none = s.tm_p;
      guint8 *map;
      size_t i;

      fail_unless (r0 != NULL);
      fail_unless_equals_int (r0->count, 0);
      /* a template cut from the frame: found */
      for (p = 0; p < 16; p++)
        s.tpix[p] = h.data[(size_t) (5 + p / 4) * h.stride + 9 + p % 4];
      fail_unless_equals_int (cv_template_stats (&s.templ), CV_OK);
      s.tm_p.match.method = CV_TM_SQDIFF;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &s.tm_p, &ex),
          CV_OK);
      queue_sync (m, &q);
      r1 = ops->results (op, 0);
      fail_unless (r1 == r0);
      fail_unless (r1->count >= 1);
      fail_unless (r1->match[0].score == 0.0);
      /* no template: no matches, the score map all 0 */
      none.templ = NULL;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &none, &ex), CV_OK);
      queue_sync (m, &q);
      fail_unless (ops->results (op, 0) == r0);
      fail_unless_equals_int (r0->count, 0);
      /* two slots: results of their own, each the last submit's into
       * that slot */
      {
        void *op2 = NULL;
        const CvTemplateMatchResult *a0, *a1;

        fail_unless_equals_int (ops->create (setup_info (&s), 2, &op2), CV_OK);
        fail_unless_equals_int (ops->submit (op2, 0, &s.frame, &s.tm_p, &ex),
            CV_OK);
        fail_unless_equals_int (ops->submit (op2, 1, &s.frame, &none, &ex),
            CV_OK);
        queue_sync (m, &q);
        a0 = ops->results (op2, 0);
        a1 = ops->results (op2, 1);
        fail_unless (a0 != NULL && a1 != NULL && a0 != a1);
        fail_unless (a0->count >= 1);
        fail_unless (a0->match[0].score == 0.0);
        fail_unless_equals_int (a1->count, 0);
        fail_unless (ops->results (op2, 2) == NULL);
        ops->destroy (op2);
      }
      map = dplane_download (m, &s.out[0]);
      for (i = 0; i < (size_t) s.out[0].p.height; i++)
        for (p = 0; p < 40; p++)
          if (map[i * s.out[0].p.stride + p] != 0)
            fail ("score map (%d, %d) = %u without a template", p, (int) i,
                map[i * s.out[0].p.stride + p]);
      g_free (map);
    } else {
      const CvMeanShiftSegments *seg;
      guint32 *labels;
      guint32 n = 0;
      size_t i, total = 40 * 30;

      fail_unless (ops->results (op, 0) == NULL);
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &s.meanshift_p,
              &ex), CV_OK);
      queue_sync (m, &q);
      seg = ops->results (op, 0);
      fail_unless (seg != NULL && seg->labels != NULL);
      fail_unless (seg->n_segments >= 1);
      /* labels: the raster index of the segment's first pixel */
      labels = g_memdup2 (seg->labels, total * sizeof (guint32));
      for (i = 0; i < total; i++) {
        if (labels[i] > i || labels[labels[i]] != labels[i])
          fail ("label %u of pixel %u", labels[i], (guint) i);
        n += labels[i] == i;
      }
      fail_unless_equals_int (n, seg->n_segments);
      g_free (labels);
      /* filter mode: no results */
      s.meanshift_p.mode = CV_MEANSHIFT_FILTER;
      fail_unless_equals_int (ops->submit (op, 0, &s.frame, &s.meanshift_p,
              &ex), CV_OK);
      queue_sync (m, &q);
      fail_unless (ops->results (op, 0) == NULL);
    }
    ops->destroy (op);
    hplane_free (&h);
    setup_clear (&s, m);
    g_rand_free (r);
  }
  queue_free (m, &q);
}

/* ---- the CPU suite ---- */

static const CvOps *cpu_tables[] = {
  &cv_sobel_cpu_ops, &cv_convolve_cpu_ops, &cv_nlmeans_cpu_ops,
  &cv_template_match_cpu_ops, &cv_meanshift_cpu_ops, &cv_canny_cpu_ops,
};

#ifdef HAVE_CUDA
static const CvOps *cuda_tables[] = {
  &cv_sobel_cuda_ops, &cv_convolve_cuda_ops, &cv_nlmeans_cuda_ops,
  &cv_template_match_cuda_ops, &cv_meanshift_cuda_ops, &cv_canny_cuda_ops,
};
#endif

/* The one status type: CV_ERROR_CUDA keeps the CUDA error beside it, in
 * the thread that met it only; the strings. */
static gpointer
other_thread_cuda_error (gpointer data)
{
  return GINT_TO_POINTER (cv_status_cuda_error ());
}

GST_START_TEST (test_status)
{
  GThread *t;

  fail_unless_equals_int (cv_status_set_cuda_error (0), CV_OK);
  fail_unless_equals_int (cv_status_set_cuda_error (2), CV_ERROR_CUDA);
  fail_unless_equals_int (cv_status_cuda_error (), 2);
  /* a success keeps the last error */
  fail_unless_equals_int (cv_status_set_cuda_error (0), CV_OK);
  fail_unless_equals_int (cv_status_cuda_error (), 2);
  t = g_thread_new ("status", other_thread_cuda_error, NULL);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (t)), 0);
  fail_unless_equals_int (cv_status_set_cuda_error (700), CV_ERROR_CUDA);
  fail_unless_equals_int (cv_status_cuda_error (), 700);
  fail_unless_equals_string (cv_status_string (CV_OK), "success");
  fail_unless_equals_string (cv_status_string (CV_ERROR_INVALID_ARGUMENT),
      "invalid argument");
  fail_unless_equals_string (cv_status_string (CV_ERROR_NO_MEMORY),
      "out of memory");
  fail_unless_equals_string (cv_status_string (CV_ERROR_CANCELLED),
      "cancelled");
  fail_unless_equals_string (cv_status_string (CV_ERROR_CUDA), "CUDA error");
  fail_unless_equals_string (cv_status_string ((CvStatus) 42),
      "unknown status");
}

GST_END_TEST;

GST_START_TEST (test_tables)
{
  guint a;

  for (a = 0; a < G_N_ELEMENTS (algos); a++) {
    const CvOps *c = algos[a].cuda;

    fail_unless (cv_op_available (algos[a].cpu), "%s", algos[a].name);
    fail_unless (algos[a].cpu->name && algos[a].cpu->results);
#ifdef HAVE_CUDA
    fail_unless (cv_op_available (c), "%s: no CUDA table", algos[a].name);
    fail_unless (c->name && c->results && strcmp (c->name,
            algos[a].cpu->name) != 0);
#else
    /* kernels/nocuda.c: every member NULL */
    fail_unless (!cv_op_available (c), "%s", algos[a].name);
    fail_unless (!c->name && !c->create && !c->submit && !c->results
        && !c->destroy);
#endif
  }
  fail_if (cv_op_available (NULL));
}

GST_END_TEST;

GST_START_TEST (test_create_checks)
{
  guint a;

  for (a = 0; a < G_N_ELEMENTS (algos); a++)
    check_create (algos[a].cpu, a);
}

GST_END_TEST;

GST_START_TEST (test_frame_checks)
{
  Mem host = { FALSE, FALSE };
  guint a;

  for (a = 0; a < G_N_ELEMENTS (algos); a++)
    check_frames (algos[a].cpu, a, &host);
}

GST_END_TEST;

GST_START_TEST (test_results)
{
  Mem host = { FALSE, FALSE };

  check_results (cpu_tables, &host);
}

GST_END_TEST;

/* What the operators do around the algorithm: sobel's output chroma 128,
 * nlmeans' chroma copied, convolve on every plane at its own size. */
GST_START_TEST (test_planes)
{
  static const int ws[] = { 1, 7, 30 }, hs[] = { 1, 5, 17 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (ws); i++) {
    const int w = ws[i], h = hs[i], cw = w - w / 2, ch = h - h / 2;
    GRand *r = g_rand_new_with_seed (case_seed ());
    CvPlane y = hplane_new (w, h, 1, 3), u = hplane_new (cw, ch, 1, 2),
        v = hplane_new (cw, ch, 1, 1), oy = hplane_new (w, h, 1, 2),
        ou = hplane_new (cw, ch, 1, 3), ov = hplane_new (cw, ch, 1, 5),
        uv = hplane_new (cw, ch, 2, 4);
    CvFrame f;
    void *op;
    int row, x;

    hplane_fill (&y, 1, 0, r);
    hplane_fill (&u, 1, 0, r);
    hplane_fill (&v, 1, 0, r);

    /* sobel to I420 and NV12: 128 in the rows of the chroma, the padding
     * untouched */
    {
      CvSobelInfo info = { {1, -1, -1, -1}, w, h, 3, {0, 1, 1, 0} };
      CvSobelParams prm = { 0, 0, 3, CV_SOBEL_NORM_L2 };

      memset (&f, 0, sizeof (f));
      f.in[0] = y;
      f.out[0] = oy;
      f.out[1] = ou;
      f.out[2] = ov;
      fail_unless_equals_int (cv_sobel_cpu_ops.create (&info, 1, &op), CV_OK);
      fail_unless_equals_int (cv_sobel_cpu_ops.submit (op, 0, &f, &prm, NULL),
          CV_OK);
      cv_sobel_cpu_ops.destroy (op);
      for (row = 0; row < ch; row++)
        for (x = 0; x < (int) ou.stride; x++)
          if (ou.data[row * ou.stride + x] != (x < cw ? 128 : POISON)
              || ov.data[row * ov.stride + x] != (x < cw ? 128 : POISON))
            fail ("sobel I420 chroma (%d, %d)", x, row);
      info.n_out_planes = 2;
      info.out_pixel_stride[1] = 2;
      f.out[1] = uv;
      fail_unless_equals_int (cv_sobel_cpu_ops.create (&info, 1, &op), CV_OK);
      fail_unless_equals_int (cv_sobel_cpu_ops.submit (op, 0, &f, &prm, NULL),
          CV_OK);
      cv_sobel_cpu_ops.destroy (op);
      for (row = 0; row < ch; row++)
        for (x = 0; x < (int) uv.stride; x++)
          if (uv.data[row * uv.stride + x] != (x < 2 * cw ? 128 : POISON))
            fail ("sobel NV12 chroma (%d, %d)", x, row);
    }

    /* nlmeans on I420: the chroma copied, row_bytes per row */
    {
      CvNlMeansInfo info = { {1, -1, -1, -1}, w, h, 3, {0, (size_t) cw,
          (size_t) cw, 0}, CV_NLMEANS_RGB_JOINT, 0, {0, ch, ch, 0}
      };
      CvNlMeansParams prm = { 10, 3, 5, 0, 0 };

      memset (ou.data, POISON, ou.stride * ch);
      memset (ov.data, POISON, ov.stride * ch);
      memset (&f, 0, sizeof (f));
      f.in[0] = y;
      f.in[1] = u;
      f.in[2] = v;
      f.out[0] = oy;
      f.out[1] = ou;
      f.out[2] = ov;
      fail_unless_equals_int (cv_nlmeans_cpu_ops.create (&info, 1, &op), CV_OK);
      fail_unless_equals_int (cv_nlmeans_cpu_ops.submit (op, 0, &f, &prm, NULL),
          CV_OK);
      cv_nlmeans_cpu_ops.destroy (op);
      for (row = 0; row < ch; row++)
        for (x = 0; x < (int) ou.stride; x++)
          if (ou.data[row * ou.stride + x] != (x < cw ?
                  u.data[row * u.stride + x] : POISON)
              || ov.data[row * ov.stride + x] != (x < cw ?
                  v.data[row * v.stride + x] : POISON))
            fail ("nlmeans I420 chroma (%d, %d)", x, row);
    }

    /* convolve on I420: each plane as a GRAY8 frame of its own size */
    {
      CvConvolveInfo info = { w, h, 3, {1, 1, 1}, {1, 1, 1}
      };
      CvConvolveInfo gray = { cw, ch, 1, {1}, {1}
      };
      CvConvolveParams prm;
      CvPlane alone = hplane_new (cw, ch, 1, 3);
      CvFrame g;

      memset (&prm, 0, sizeof (prm));
      prm.n_filters = 2;
      prm.filters[0] = CV_FILTER_BLUR;
      prm.filters[1] = CV_FILTER_SHARPEN;
      prm.border_mode = CV_BORDER_REPLICATE;
      prm.ksize = 1;
      fail_unless_equals_int (cv_convolve_params_prepare (&prm), CV_OK);
      fail_unless_equals_int (cv_convolve_cpu_ops.create (&info, 1, &op),
          CV_OK);
      fail_unless_equals_int (cv_convolve_cpu_ops.submit (op, 0, &f, &prm,
              NULL), CV_OK);
      cv_convolve_cpu_ops.destroy (op);
      memset (&g, 0, sizeof (g));
      g.in[0] = v;
      g.out[0] = alone;
      fail_unless_equals_int (cv_convolve_cpu_ops.create (&gray, 1, &op),
          CV_OK);
      fail_unless_equals_int (cv_convolve_cpu_ops.submit (op, 0, &g, &prm,
              NULL), CV_OK);
      cv_convolve_cpu_ops.destroy (op);
      for (row = 0; row < ch; row++)
        fail_unless (memcmp (alone.data + row * alone.stride,
                ov.data + row * ov.stride, cw) == 0);
      hplane_free (&alone);
    }
    hplane_free (&y);
    hplane_free (&u);
    hplane_free (&v);
    hplane_free (&oy);
    hplane_free (&ou);
    hplane_free (&ov);
    hplane_free (&uv);
    g_rand_free (r);
  }
}

GST_END_TEST;

/* A CPU operator run on fresh copies of the outputs with an exec; the
 * outputs and the results' bytes in one buffer. */
static GByteArray *
run_with_exec (int algo, Setup * s, const CvExec * ex, int *status)
{
  const CvOps *ops = algos[algo].cpu;
  GByteArray *out = g_byte_array_new ();
  void *op = NULL;
  const void *res;
  int p;

  for (p = 0; p < s->n_out; p++)
    memset (s->out[p].base, POISON, s->out[p].size);
  fail_unless_equals_int (ops->create (setup_info (s), 1, &op), CV_OK);
  *status = ops->submit (op, 0, &s->frame, setup_params (s), ex);
  for (p = 0; p < s->n_out; p++)
    g_byte_array_append (out, s->out[p].base, s->out[p].size);
  res = ops->results (op, 0);
  if (res && algo == A_TM) {
    const CvTemplateMatchResult *r = res;
    g_byte_array_append (out, res, sizeof (int32_t) * 2 +
        sizeof (CvTemplateMatch) * r->count);
  } else if (res && algo == A_MEANSHIFT) {
    const CvMeanShiftSegments *seg = res;
    g_byte_array_append (out, (const guint8 *) &seg->n_segments, 4);
    g_byte_array_append (out, (const guint8 *) seg->labels,
        (guint) (s->meanshift.width * s->meanshift.height * 4));
  }
  ops->destroy (op);
  return out;
}

/* n_threads 1 and 3 give what OpenMP's default gives */
GST_START_TEST (test_threads)
{
  Mem host = { FALSE, FALSE };
  guint a, i;

  for (a = 0; a < G_N_ELEMENTS (algos); a++)
    for (i = 0; i < 4; i++) {
      GRand *r = g_rand_new_with_seed (case_seed ());
      Setup s;
      CvExec e0 = { NULL, 0, NULL }, e1 = { NULL, 1, NULL };
      CvExec e3 = { NULL, 3, NULL };
      GByteArray *b0, *b1, *b3;
      int st, p;

      setup_init (&s, a, algo_fmts[a][i], 157, 93, &host);
      for (p = 0; p < s.n_in; p++) {
        CvPlane h = hplane_new (s.in[p].p.width, s.in[p].p.height,
            s.fmt->bpp[p], 0);
        hplane_fill (&h, s.fmt->bpp[p], 2, r);
        dplane_upload (&host, &s.in[p], &h, s.fmt->bpp[p]);
        hplane_free (&h);
      }
      if (a == A_NLMEANS) {
        s.nlmeans_p.patch_size = 7;
        s.nlmeans_p.search_window = 21;
        s.nlmeans_p.patch_sigma = 5.0 / 3.0;
      }
      b0 = run_with_exec (a, &s, &e0, &st);
      fail_unless_equals_int (st, CV_OK);
      b1 = run_with_exec (a, &s, &e1, &st);
      fail_unless_equals_int (st, CV_OK);
      b3 = run_with_exec (a, &s, NULL, &st);
      fail_unless_equals_int (st, CV_OK);
      fail_unless (b0->len == b1->len && memcmp (b0->data, b1->data,
              b0->len) == 0, "%s %s: 1 thread differs", algos[a].name,
          s.fmt->name);
      fail_unless (b0->len == b3->len && memcmp (b0->data, b3->data,
              b0->len) == 0, "%s %s: exec NULL differs", algos[a].name,
          s.fmt->name);
      g_byte_array_unref (b1);
      b1 = run_with_exec (a, &s, &e3, &st);
      fail_unless_equals_int (st, CV_OK);
      fail_unless (b0->len == b1->len && memcmp (b0->data, b1->data,
              b0->len) == 0, "%s %s: 3 threads differ", algos[a].name,
          s.fmt->name);
      g_byte_array_unref (b0);
      g_byte_array_unref (b1);
      g_byte_array_unref (b3);
      setup_clear (&s, &host);
      g_rand_free (r);
    }
}

GST_END_TEST;

/* a cancel flag set before the submit: CV_ERROR_CANCELLED, and the
 * operator works again afterwards */
GST_START_TEST (test_cancel)
{
  Mem host = { FALSE, FALSE };
  const int set = 1;
  guint a;

  for (a = 0; a < G_N_ELEMENTS (algos); a++) {
    const CvOps *ops = algos[a].cpu;
    Setup s;
    CvExec ex = { NULL, 0, &set };
    CvExec ok = { NULL, 2, NULL };
    void *op;

    setup_init (&s, a, algo_fmts[a][0], 200, 120, &host);
    fail_unless_equals_int (ops->create (setup_info (&s), 1, &op), CV_OK);
    fail_unless_equals_int (ops->submit (op, 0, &s.frame, setup_params (&s),
            &ex), CV_ERROR_CANCELLED);
    if (a == A_MEANSHIFT)
      fail_unless (ops->results (op, 0) == NULL);
    if (a == A_TM)
      fail_unless_equals_int (((const CvTemplateMatchResult *)
              ops->results (op, 0))->count, 0);
    fail_unless_equals_int (ops->submit (op, 0, &s.frame, setup_params (&s),
            &ok), CV_OK);
    ops->destroy (op);
    setup_clear (&s, &host);
  }
}

GST_END_TEST;

/* The element's former drawing (plugin/gstcudatemplatematch.c's
 * draw_rect), written out on a plain plane: 2-pixel outlines, green in
 * RGB (component offsets r, g, b), 255 in luma, the right and bottom
 * edges clipped to the frame. */
static void
ref_draw_rect (guint8 * d, size_t stride, int w, int h, CvLumaLayout l,
    int x0, int y0, int rw, int rh)
{
  int x, y, x1 = MIN (x0 + rw, w) - 1, y1 = MIN (y0 + rh, h) - 1;

  for (y = y0; y <= y1; y++) {
    gboolean edge_row = y - y0 < 2 || y1 - y < 2;
    for (x = x0; x <= x1; x++) {
      guint8 *px = d + (size_t) y * stride + (size_t) x * l.bpp;
      if (!edge_row && x - x0 >= 2 && x1 - x >= 2)
        continue;
      if (l.r >= 0) {
        px[l.r] = 0;
        px[l.g] = 255;
        px[l.b] = 0;
      } else {
        px[0] = 255;
      }
    }
  }
}

GST_START_TEST (test_draw)
{
  static const int fmts[] = { F_GRAY8, F_I420, F_RGB, F_BGR, F_RGBA,
    F_BGRx, F_xRGB
  };
  const CvRect rects[] = {
    {0, 0, 5, 4}, {10, 3, 12, 9}, {3, 20, 3, 3}, {30, 25, 20, 20},
    {33, 0, 7, 40}, {0, 26, 40, 4}, {12, 12, 1, 1}, {5, 5, 4, 5},
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    const Format *fmt = &formats[fmts[f]];
    GRand *r = g_rand_new_with_seed (case_seed ());
    CvPlane a = hplane_new (37, 29, fmt->bpp[0], 5), b;
    guint i;

    hplane_fill (&a, fmt->bpp[0], 0, r);
    b = a;
    b.data = g_memdup2 (a.data, a.stride * a.height);
    for (i = 0; i < G_N_ELEMENTS (rects); i++)
      ref_draw_rect (b.data, b.stride, 37, 29, fmt->layout, rects[i].x,
          rects[i].y, rects[i].width, rects[i].height);
    fail_unless_equals_int (cv_draw_rectangles (&a, fmt->layout, rects,
            G_N_ELEMENTS (rects), 2), CV_OK);
    fail_unless (memcmp (a.data, b.data, a.stride * a.height) == 0,
        "%s: the rectangles differ", fmt->name);
    /* nothing to draw; bad arguments */
    fail_unless_equals_int (cv_draw_rectangles (&a, fmt->layout, NULL, 0, 2),
        CV_OK);
    fail_unless (memcmp (a.data, b.data, a.stride * a.height) == 0);
    fail_unless_equals_int (cv_draw_rectangles (&a, fmt->layout, NULL, 1, 2),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless_equals_int (cv_draw_rectangles (&a, fmt->layout, rects, 1,
            0), CV_ERROR_INVALID_ARGUMENT);
    fail_unless_equals_int (cv_draw_rectangles (NULL, fmt->layout, rects, 1,
            2), CV_ERROR_INVALID_ARGUMENT);
    hplane_free (&a);
    g_free (b.data);
    g_rand_free (r);
  }
  {
    /* a rectangle leaving the plane on the left or at the top is clipped
     * too (the element's matches never did) */
    CvPlane p = hplane_new (8, 8, 1, 0);
    CvLumaLayout l = { 1, -1, -1, -1 };
    CvRect out = { -3, -2, 6, 5 };
    int x, y;

    memset (p.data, 0, 64);
    fail_unless_equals_int (cv_draw_rectangles (&p, l, &out, 1, 2), CV_OK);
    for (y = 0; y < 8; y++)
      for (x = 0; x < 8; x++)
        if (p.data[y * 8 + x] != (x <= 2 && y <= 2 && (x >= 1 || y >= 1) ?
                255 : 0))
          fail ("clipped rectangle: (%d, %d)", x, y);
    hplane_free (&p);
  }
}

GST_END_TEST;

/* The comparison with the CPU operator on both sides: the second on host
 * planes of other pitches (aligned, odd at odd addresses). */
#define CPU_COMPARE(algo, fn, big) \
GST_START_TEST (test_cpu_ ## algo) \
{ \
  Mem aligned = { FALSE, FALSE }, odd = { FALSE, TRUE }; \
  \
  g_print ("%s, CPU against CPU (aligned pitches):\n", #algo); \
  fn (&aligned, &cv_ ## algo ## _cpu_ops, big); \
  g_print ("%s, CPU against CPU (odd pitches):\n", #algo); \
  fn (&odd, &cv_ ## algo ## _cpu_ops, FALSE); \
} \
GST_END_TEST;

CPU_COMPARE (sobel, compare_sobel, TRUE)
    CPU_COMPARE (convolve, compare_convolve, TRUE)
    CPU_COMPARE (nlmeans, compare_nlmeans, FALSE)
    CPU_COMPARE (template_match, compare_template_match, TRUE)
    CPU_COMPARE (meanshift, compare_meanshift, FALSE)
    CPU_COMPARE (canny, compare_canny, TRUE)
/* ---- the GPU suite ---- */
#ifdef HAVE_CUDA
#define CUDA_COMPARE(algo, fn) \
GST_START_TEST (test_cuda_ ## algo) \
{ \
  Mem aligned = { TRUE, FALSE }, odd = { TRUE, TRUE }; \
  \
  g_print ("%s, CPU against CUDA (cudaMallocPitch):\n", #algo); \
  fn (&aligned, &cv_ ## algo ## _cuda_ops, TRUE); \
  g_print ("%s, CPU against CUDA (odd pitches and addresses):\n", #algo); \
  fn (&odd, &cv_ ## algo ## _cuda_ops, FALSE); \
} \
GST_END_TEST;
    CUDA_COMPARE (sobel, compare_sobel)
    CUDA_COMPARE (convolve, compare_convolve)
    CUDA_COMPARE (nlmeans, compare_nlmeans)
    CUDA_COMPARE (template_match, compare_template_match)
    CUDA_COMPARE (meanshift, compare_meanshift)
    CUDA_COMPARE (canny, compare_canny)
    GST_START_TEST (test_cuda_checks)
{
  Mem dev = { TRUE, FALSE };
  guint a;

  for (a = 0; a < G_N_ELEMENTS (algos); a++) {
    check_create (algos[a].cuda, a);
    check_frames (algos[a].cuda, a, &dev);
  }
  check_results (cuda_tables, &dev);
}

GST_END_TEST;

/* The aperture-3 kernels for aligned GRAY8 and 4-byte planes, every one
 * the benchmark compares (cv_sobel_cuda_variant: 0 shipped, 4 and 8 rows a
 * thread), against the CPU, on sizes that end
 * inside a word, a warp and a block, with and without brightness; and the
 * fast L2 magnitude against the exact floor (sqrt) for every s. */
GST_START_TEST (test_cuda_sobel_kernels)
{
  static const int variants[] = { 0, 4, 8 };
  static const int fmts[] = { F_GRAY8, F_RGBA, F_BGRx, F_xRGB };
  static const struct
  {
    int w, h;
  } sz[] = {
    {1, 1}, {2, 3}, {3, 1}, {5, 2}, {127, 9}, {128, 33}, {129, 65},
    {131, 67}, {257, 31}, {1031, 7}, {3, 301}, {1920, 1080}, {4097, 3},
  };
  static const CvSobelParams prm[] = {
    {0, 0, 3, CV_SOBEL_NORM_L2}, {0, 20, 3, CV_SOBEL_NORM_L2},
    {40, 30, 3, CV_SOBEL_NORM_L2}, {-60, 0, 3, CV_SOBEL_NORM_L1},
    {0, 100, 3, CV_SOBEL_NORM_L1}, {255, 254, 3, CV_SOBEL_NORM_L2},
  };
  Mem dev = { TRUE, FALSE };
  guint v, f, i, k, n = 0;
  int bad = cv_sobel_cuda_mag_check ();

  fail_unless (bad == 0, "fast L2 magnitude: %d of 0 .. 2 * 1020^2 differ "
      "from floor (sqrt)", bad);
  for (i = 0; i < G_N_ELEMENTS (sz); i++)
    for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
      const Format *fmt = &formats[fmts[f]];
      const int w = sz[i].w, h = sz[i].h, bpp = fmt->layout.bpp;
      guint32 seed = case_seed ();
      GRand *r = g_rand_new_with_seed (seed);
      CvPlane in = hplane_new (w, h, bpp, 3), ref = hplane_new (w, h, 1, 0);
      DPlane din, dout;
      guint8 *got;
      int y;

      hplane_fill (&in, bpp, (i + f) % 3, r);
      dplane_alloc (&dev, &din, w, h, bpp);
      dplane_alloc (&dev, &dout, w, h, 1);
      dplane_upload (&dev, &din, &in, bpp);
      for (k = 0; k < G_N_ELEMENTS (prm); k++) {
        fail_unless (cv_sobel_cpu (&in, fmt->layout, &ref, &prm[k], NULL) ==
            CV_OK);
        for (v = 0; v < G_N_ELEMENTS (variants); v++) {
          CUDA_CK (cudaMemset (dout.base, POISON, dout.size));
          fail_unless (cv_sobel_cuda_variant (&din.p, fmt->layout, &dout.p,
                  &prm[k], NULL, variants[v]) == CV_OK);
          CUDA_CK (cudaDeviceSynchronize ());
          got = dplane_download (&dev, &dout);
          /* compared row by row, a pixel reported only on a difference
           * (a check per pixel costs minutes at 1080p) */
          for (y = 0; y < h; y++) {
            const guint8 *a = ref.data + (size_t) y * ref.stride;
            const guint8 *b = got + (size_t) y * dout.p.stride;
            int x = 0, pad = -1;
            if (memcmp (a, b, w) != 0) {
              while (a[x] == b[x])
                x++;
              fail_unless (FALSE, "sobel variant %d %dx%d %s brightness %d "
                  "threshold %d norm %d seed %u: (%d, %d) CPU %u GPU %u",
                  variants[v], w, h, fmt->name, prm[k].brightness,
                  prm[k].threshold, prm[k].norm, seed, x, y, a[x], b[x]);
            }
            /* nothing written past the row */
            for (x = w; y + 1 < h && x < (int) dout.p.stride; x++)
              if (b[x] != POISON && pad < 0)
                pad = x;
            fail_unless (pad < 0, "sobel variant %d %dx%d %s: padding byte "
                "%d of row %d written", variants[v], w, h, fmt->name, pad, y);
          }
          g_free (got);
          n++;
        }
      }
      dplane_free (&dev, &din);
      dplane_free (&dev, &dout);
      hplane_free (&in);
      hplane_free (&ref);
      g_rand_free (r);
    }
  g_print ("sobel aperture-3 kernels: %u cases equal to the CPU\n", n);
}

GST_END_TEST;

/* Frames in flight: one operator with N slots (as the elements make it for
 * pipeline-depth N), frame i in slot i on its own stream, all submitted
 * before any is waited for (as the elements' pipeline depth runs them):
 * the slots' workspaces are their own, so each frame's outputs and
 * results are those of the CPU. */
GST_START_TEST (test_cuda_in_flight)
{
  enum
  { N = 3 };
  Mem dev = { TRUE, FALSE };
  Mem host = { FALSE, FALSE };
  guint a;

  for (a = 0; a < G_N_ELEMENTS (algos); a++) {
    Setup hs[N], ds[N];
    Queue q[N];
    void *hop[N], *dop = NULL;
    int i, p;

    for (i = 0; i < N; i++) {
      GRand *r = g_rand_new_with_seed (case_seed ());
      CvExec ex;

      /* one stream's frames: one format and size, their own pixels */
      setup_init (&hs[i], a, algo_fmts[a][a % N], 336, 192, &host);
      setup_init (&ds[i], a, algo_fmts[a][a % N], 336, 192, &dev);
      for (p = 0; p < hs[i].n_in; p++) {
        CvPlane h = hplane_new (hs[i].in[p].p.width, hs[i].in[p].p.height,
            hs[i].fmt->bpp[p], 0);
        hplane_fill (&h, hs[i].fmt->bpp[p], 2, r);
        dplane_upload (&host, &hs[i].in[p], &h, hs[i].fmt->bpp[p]);
        dplane_upload (&dev, &ds[i].in[p], &h, hs[i].fmt->bpp[p]);
        hplane_free (&h);
      }
      queue_init (&dev, &q[i]);
      fail_unless_equals_int (algos[a].cpu->create (setup_info (&hs[i]), 1,
              &hop[i]), CV_OK);
      fail_unless_equals_int (algos[a].cpu->submit (hop[i], 0, &hs[i].frame,
              setup_params (&hs[i]), NULL), CV_OK);
      if (i == 0)
        fail_unless_equals_int (algos[a].cuda->create (setup_info (&ds[0]), N,
                &dop), CV_OK);
      ex.stream = q[i].stream;
      ex.n_threads = 0;
      ex.cancel = NULL;
      fail_unless_equals_int (algos[a].cuda->submit (dop, i, &ds[i].frame,
              setup_params (&ds[i]), &ex), CV_OK);
      g_rand_free (r);
    }
    for (i = N - 1; i >= 0; i--) {
      Case c;

      queue_sync (&dev, &q[i]);
      memset (&c, 0, sizeof (c));
      c.what = g_strdup_printf ("%s in flight, frame %d", algos[a].name, i);
      c.params = setup_params (&hs[i]);
      c.nlmeans = a == A_NLMEANS;
      c.res = a == A_TM ? RES_TEMPLATE_MATCH : a == A_MEANSHIFT ?
          RES_MEANSHIFT : RES_NONE;
      c.width = hs[i].meanshift.width;
      c.height = hs[i].meanshift.height;
      c.n_out = hs[i].n_out;
      for (p = 0; p < c.n_out; p++) {
        guint8 *got = dplane_download (&dev, &ds[i].out[p]);
        c.out_w[p] = hs[i].out[p].p.width;
        c.out_h[p] = hs[i].out[p].p.height;
        c.out_bpp[p] = a == A_SOBEL || a == A_CANNY ? (p ? 2 : 1) :
            a == A_TM ? 1 : hs[i].fmt->bpp[p];
        compare_rows (&c, p, hs[i].out[p].p.data, hs[i].out[p].p.stride, got,
            ds[i].out[p].p.stride);
        g_free (got);
      }
      compare_results (&c, algos[a].cpu->results (hop[i], 0),
          algos[a].cuda->results (dop, i));
      g_free (c.what);
      algos[a].cpu->destroy (hop[i]);
    }
    /* every slot's stream is idle */
    algos[a].cuda->destroy (dop);
    for (i = 0; i < N; i++) {
      queue_free (&dev, &q[i]);
      setup_clear (&hs[i], &host);
      setup_clear (&ds[i], &dev);
    }
  }
}

GST_END_TEST;
#endif

static Suite *
cvops_suite (gboolean cuda)
{
  Suite *s = suite_create ("cvops");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 900);
  if (!cuda) {
    tcase_add_test (tc, test_tables);
    tcase_add_test (tc, test_status);
    tcase_add_test (tc, test_create_checks);
    tcase_add_test (tc, test_frame_checks);
    tcase_add_test (tc, test_results);
    tcase_add_test (tc, test_planes);
    tcase_add_test (tc, test_threads);
    tcase_add_test (tc, test_cancel);
    tcase_add_test (tc, test_draw);
    tcase_add_test (tc, test_cpu_sobel);
    tcase_add_test (tc, test_cpu_convolve);
    tcase_add_test (tc, test_cpu_nlmeans);
    tcase_add_test (tc, test_cpu_template_match);
    tcase_add_test (tc, test_cpu_meanshift);
    tcase_add_test (tc, test_cpu_canny);
  }
#ifdef HAVE_CUDA
  if (cuda) {
    tcase_add_test (tc, test_tables);
    tcase_add_test (tc, test_status);
    tcase_add_test (tc, test_cuda_checks);
    tcase_add_test (tc, test_cuda_sobel);
    tcase_add_test (tc, test_cuda_sobel_kernels);
    tcase_add_test (tc, test_cuda_convolve);
    tcase_add_test (tc, test_cuda_nlmeans);
    tcase_add_test (tc, test_cuda_template_match);
    tcase_add_test (tc, test_cuda_meanshift);
    tcase_add_test (tc, test_cuda_canny);
    tcase_add_test (tc, test_cuda_in_flight);
  }
#endif
  return s;
}

int
main (int argc, char **argv)
{
  gboolean cuda = backend_is_cuda ();
  const gchar *seed = g_getenv ("CVOPS_SEED");
  SRunner *sr;
  int nf;

  gst_check_init (&argc, &argv);
  next_seed = seed ? (guint32) g_ascii_strtoull (seed, NULL, 10) : 1;
  if (cuda) {
#ifdef HAVE_CUDA
    int n = 0;
    cudaError_t e = cudaGetDeviceCount (&n);

    if (e != cudaSuccess || n < 1) {
      g_print ("SKIP: no CUDA device (%s)\n", e != cudaSuccess ?
          cudaGetErrorString (e) : "none found");
      return 77;
    }
#else
    g_print ("SKIP: built without CUDA\n");
    return 77;
#endif
  }
  g_print ("backend: %s, first seed %u\n", cuda ? "cuda" : "cpu", next_seed);
  sr = srunner_create (cvops_suite (cuda));
  srunner_run_all (sr, CK_NORMAL);
  nf = srunner_ntests_failed (sr);
  srunner_free (sr);
  return nf == 0 ? 0 : 1;
}
