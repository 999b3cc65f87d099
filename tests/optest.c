/* gst-cuda-vision: what the operator test programs share (optest.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static guint32 next_seed;

guint32
op_seed (void)
{
  return next_seed++;
}

static gboolean
backend_is_cuda (void)
{
  const gchar *b = g_getenv ("CUDAVISION_TEST_BACKEND");

  return b && g_str_equal (b, "cuda");
}

/* ---- host planes ---- */

CvPlane
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

void
hplane_free (CvPlane * p)
{
  g_free (p->data);
  p->data = NULL;
}

void
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

/* ---- the memory of the operator under test ---- */

void
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

void
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

guint8 *
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

void
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

void
queue_init (const Mem * m, Queue * q)
{
  q->stream = NULL;
#ifdef HAVE_CUDA
  if (m->cuda) {
    cudaStream_t s;
    CUDA_CK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
    q->stream = s;
  }
#else
  (void) m;
#endif
}

void
queue_sync (const Mem * m, Queue * q)
{
#ifdef HAVE_CUDA
  if (m->cuda) {
    CUDA_CK (cudaStreamSynchronize ((cudaStream_t) q->stream));
    CUDA_CK (cudaGetLastError ());
  }
#else
  (void) m;
  (void) q;
#endif
}

void
queue_free (const Mem * m, Queue * q)
{
#ifdef HAVE_CUDA
  if (m->cuda && q->stream)
    CUDA_CK (cudaStreamDestroy ((cudaStream_t) q->stream));
#else
  (void) m;
#endif
  q->stream = NULL;
}

/* ---- formats and sizes ---- */

const Format formats[] = {
  {"GRAY8", {1, -1, -1, -1}, 1, {1}, {FALSE}},
  {"I420", {1, -1, -1, -1}, 3, {1, 1, 1}, {FALSE, TRUE, TRUE}},
  {"NV12", {1, -1, -1, -1}, 2, {1, 2}, {FALSE, TRUE}},
  {"RGB", {3, 0, 1, 2}, 1, {3}, {FALSE}},
  {"BGR", {3, 2, 1, 0}, 1, {3}, {FALSE}},
  {"RGBA", {4, 0, 1, 2}, 1, {4}, {FALSE}},
  {"BGRx", {4, 2, 1, 0}, 1, {4}, {FALSE}},
  {"xRGB", {4, 1, 2, 3}, 1, {4}, {FALSE}},
};

int
plane_w (const Format * f, int p, int w)
{
  return f->sub[p] ? w - w / 2 : w;
}

int
plane_h (const Format * f, int p, int h)
{
  return f->sub[p] ? h - h / 2 : h;
}

const Size sizes[] = {
  {1, 1, FALSE}, {2, 3, FALSE}, {37, 23, FALSE}, {1031, 7, FALSE},
  {5, 301, FALSE}, {161, 119, FALSE}, {1920, 1080, TRUE},
};

const guint n_sizes = G_N_ELEMENTS (sizes);

gboolean
size_skipped (const Size * s, gboolean big)
{
  static gint small = -1;

  if (small < 0) {
    const gchar *e = g_getenv ("CVOPS_SMALL");

    small = !e ? 0 : g_str_equal (e, "racecheck") ? 2 : 1;
  }
  if (small == 2 && s->w * s->h > 2048)
    return TRUE;
  return s->big && (!big || small);
}

gboolean
op_case_sharded_out (void)
{
  static gint shard = -1, n_shards = 1;
  static guint n_cases;
  gboolean out;

  if (shard < 0) {
    const gchar *e = g_getenv ("CVOPS_SHARD");

    shard = 0;
    if (e && sscanf (e, "%d/%d", &shard, &n_shards) != 2)
      g_error ("CVOPS_SHARD=%s: expected I/N", e);
    if (n_shards < 1 || shard < 0 || shard >= n_shards)
      g_error ("CVOPS_SHARD=%s: expected 0 <= I < N", e);
  }
  out = n_cases % n_shards != (guint) shard;
  n_cases++;
  return out;
}

/* ---- one comparison case ---- */

void
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

void
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

void
case_clear (Case * c)
{
  int p;

  for (p = 0; p < c->n_in; p++)
    hplane_free (&c->in[p]);
  g_free (c->what);
  memset (c, 0, sizeof (*c));
}

static size_t nlmeans_total_off, nlmeans_total_n;

void
nlmeans_total_reset (void)
{
  nlmeans_total_off = nlmeans_total_n = 0;
}

void
nlmeans_total_check (void)
{
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

void
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

void
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

void
op_ok (const Case * c, const char *call, CvStatus st)
{
  fail_unless (st == CV_OK, "%s: %s returned %d", c->what, call, st);
}

void
op_run_begin (Case * c, const Mem * m, OpRun * r)
{
  int p;

  g_print ("  %s\n", c->what);
  memset (r, 0, sizeof (*r));
  queue_init (m, &r->q);
  r->exec.stream = r->q.stream;

  /* the reference: the CPU operator on the host planes */
  for (p = 0; p < c->n_in; p++)
    r->host.in[p] = c->in[p];
  for (p = 0; p < c->n_out; p++) {
    r->hout[p] = hplane_new (c->out_w[p], c->out_h[p], c->out_bpp[p], 3);
    r->host.out[p] = r->hout[p];
  }
  /* the operator under test on copies of the planes */
  for (p = 0; p < c->n_in; p++) {
    dplane_alloc (m, &r->din[p], c->in[p].width, c->in[p].height, c->in_bpp[p]);
    dplane_upload (m, &r->din[p], &c->in[p], c->in_bpp[p]);
    r->dev.in[p] = r->din[p].p;
  }
  for (p = 0; p < c->n_out; p++) {
    dplane_alloc (m, &r->dout[p], c->out_w[p], c->out_h[p], c->out_bpp[p]);
    r->dev.out[p] = r->dout[p].p;
  }
}

void
op_run_sync (const Mem * m, OpRun * r)
{
  queue_sync (m, &r->q);
}

void
op_run_end (const Case * c, const Mem * m, OpRun * r,
    const void *ref_results, const void *test_results)
{
  int p;

  for (p = 0; p < c->n_out; p++) {
    guint8 *got = dplane_download (m, &r->dout[p]);

    compare_rows (c, p, r->hout[p].data, r->hout[p].stride, got,
        r->dout[p].p.stride);
    check_padding (c, p, r->hout[p].data, r->hout[p].stride, "the CPU");
    check_padding (c, p, got, r->dout[p].p.stride, "the other");
    g_free (got);
  }
  compare_results (c, ref_results, test_results);
  for (p = 0; p < c->n_in; p++)
    dplane_free (m, &r->din[p]);
  for (p = 0; p < c->n_out; p++) {
    dplane_free (m, &r->dout[p]);
    hplane_free (&r->hout[p]);
  }
  queue_free (m, &r->q);
}

/* ---- the outputs of the edge-map operators ---- */

const EdgeOut edge_outs[] = {
  {"GRAY8", 1, {1}}, {"NV12", 2, {1, 2}}, {"I420", 3, {1, 1, 1}},
};

const guint n_edge_outs = G_N_ELEMENTS (edge_outs);

void
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
}

/* ---- the algorithms ---- */

const Algo algos[N_ALGOS] = {
  {"sobel", &cv_sobel_cpu_ops, &cv_sobel_cuda_ops},
  {"convolve", &cv_convolve_cpu_ops, &cv_convolve_cuda_ops},
  {"nlmeans", &cv_nlmeans_cpu_ops, &cv_nlmeans_cuda_ops},
  {"template match", &cv_template_match_cpu_ops, &cv_template_match_cuda_ops},
  {"meanshift", &cv_meanshift_cpu_ops, &cv_meanshift_cuda_ops},
  {"canny", &cv_canny_cpu_ops, &cv_canny_cuda_ops},
};

const int algo_fmts[N_ALGOS][4] = {
  {F_GRAY8, F_I420, F_RGB, F_BGRx},     /* sobel */
  {F_GRAY8, F_I420, F_NV12, F_RGBA},    /* convolve */
  {F_GRAY8, F_I420, F_NV12, F_BGR},     /* nlmeans */
  {F_GRAY8, F_NV12, F_RGB, F_xRGB},     /* template matching */
  {F_GRAY8, F_RGB, F_BGRx, F_RGBA},     /* meanshift */
  {F_GRAY8, F_NV12, F_RGB, F_BGRx},     /* canny */
};

const void *
setup_info (const Setup * s)
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

const void *
setup_params (const Setup * s)
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

void
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

void
setup_clear (Setup * s, const Mem * m)
{
  int p;

  for (p = 0; p < s->n_in; p++)
    dplane_free (m, &s->in[p]);
  for (p = 0; p < s->n_out; p++)
    dplane_free (m, &s->out[p]);
}

void
setup_fill (Setup * s, const Mem * m, int kind, GRand * r)
{
  int p;

  for (p = 0; p < s->n_in; p++) {
    CvPlane h = hplane_new (s->in[p].p.width, s->in[p].p.height,
        s->fmt->bpp[p], 0);
    hplane_fill (&h, s->fmt->bpp[p], kind, r);
    dplane_upload (m, &s->in[p], &h, s->fmt->bpp[p]);
    hplane_free (&h);
  }
}

/* ---- test_planes ---- */

void
op_planes_new (OpPlanes * pl, guint i)
{
  static const int ws[OP_PLANES_SIZES] = { 1, 7, 30 };
  static const int hs[OP_PLANES_SIZES] = { 1, 5, 17 };
  GRand *r = g_rand_new_with_seed (op_seed ());

  pl->w = ws[i];
  pl->h = hs[i];
  pl->cw = pl->w - pl->w / 2;
  pl->ch = pl->h - pl->h / 2;
  pl->y = hplane_new (pl->w, pl->h, 1, 3);
  pl->u = hplane_new (pl->cw, pl->ch, 1, 2);
  pl->v = hplane_new (pl->cw, pl->ch, 1, 1);
  pl->oy = hplane_new (pl->w, pl->h, 1, 2);
  pl->ou = hplane_new (pl->cw, pl->ch, 1, 3);
  pl->ov = hplane_new (pl->cw, pl->ch, 1, 5);
  pl->uv = hplane_new (pl->cw, pl->ch, 2, 4);
  hplane_fill (&pl->y, 1, 0, r);
  hplane_fill (&pl->u, 1, 0, r);
  hplane_fill (&pl->v, 1, 0, r);
  g_rand_free (r);
}

void
op_planes_free (OpPlanes * pl)
{
  hplane_free (&pl->y);
  hplane_free (&pl->u);
  hplane_free (&pl->v);
  hplane_free (&pl->oy);
  hplane_free (&pl->ou);
  hplane_free (&pl->ov);
  hplane_free (&pl->uv);
}

/* ---- the checks every operator shares ---- */

void
op_check_create (const CvOps * ops, int algo, OpInfoCheck bad_infos,
    gconstpointer api)
{
  Mem host = { FALSE, FALSE };
  void *op;
  int i;

  for (i = 0; i < 4; i++) {
    Setup s;
    const void *info;

    setup_init (&s, algo, algo_fmts[algo][i], 9, 7, &host);
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
    bad_infos (&s, api);
    setup_clear (&s, &host);
  }
  /* destroying nothing */
  ops->destroy (NULL);
}

static void
frame_args (const CvOps * ops, const Setup * s, const Mem * m, Queue * q,
    OpFrameCheck bad_frames, gconstpointer api)
{
  const void *info = setup_info (s), *params = setup_params (s);
  CvExec ex = { q->stream, 0, NULL };
  void *op = NULL;
  int p;

  /* the valid frame, once */
  fail_unless_equals_int (ops->create (info, 1, &op), CV_OK);
  fail_unless_equals_int (ops->submit (op, 0, &s->frame, params, &ex), CV_OK);
  queue_sync (m, q);
  ops->destroy (op);

  fail_unless_equals_int (ops->create (info, 1, &op), CV_OK);
  fail_unless_equals_int (ops->submit (op, 0, NULL, params, &ex),
      CV_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (ops->submit (op, 0, &s->frame, NULL, &ex),
      CV_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (ops->submit (NULL, 0, &s->frame, params, &ex),
      CV_ERROR_INVALID_ARGUMENT);
  /* a slot out of range */
  fail_unless_equals_int (ops->submit (op, 1, &s->frame, params, &ex),
      CV_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (ops->submit (op, -1, &s->frame, params, &ex),
      CV_ERROR_INVALID_ARGUMENT);
  fail_unless (ops->results (op, 1) == NULL);

#define MISMATCH(field, value) G_STMT_START { \
    CvFrame b = s->frame; \
    b.field = value; \
    fail_unless_equals_int (ops->submit (op, 0, &b, params, &ex), \
        CV_ERROR_INVALID_ARGUMENT); \
  } G_STMT_END
  MISMATCH (in[0].width, s->frame.in[0].width + 1);
  MISMATCH (in[0].width, s->frame.in[0].width - 1);
  MISMATCH (in[0].height, s->frame.in[0].height + 1);
  MISMATCH (in[0].data, NULL);
  MISMATCH (in[0].stride, (size_t) s->frame.in[0].width * s->fmt->bpp[0] - 1);
  MISMATCH (out[0].width, s->frame.out[0].width + 1);
  MISMATCH (out[0].height, 0);
  MISMATCH (out[0].data, NULL);
  if (s->algo == A_SOBEL || s->algo == A_CANNY) {
    /* the chroma plane: the frame's or its 4:2:0 size */
    MISMATCH (out[1].width, 13 + 1);
    MISMATCH (out[1].height, 5);
    MISMATCH (out[1].data, NULL);
    MISMATCH (out[1].stride, 2 * 7 - 1);
  }
  if ((s->algo == A_CONVOLVE || s->algo == A_NLMEANS) && s->n_in > 1) {
    /* in and out of another size, or of different sizes */
    MISMATCH (in[1].width, 13 + 2);
    MISMATCH (out[1].height, 6 + 1);
    MISMATCH (in[1].data, NULL);
    MISMATCH (out[1].data, NULL);
  }
  if (s->algo == A_NLMEANS && s->n_in > 1)
    MISMATCH (out[1].stride, s->nlmeans.row_bytes[1] - 1);
#undef MISMATCH
  bad_frames (s, op, &ex, api);

  /* and the operator still works */
  fail_unless_equals_int (ops->submit (op, 0, &s->frame, params, &ex), CV_OK);
  queue_sync (m, q);
  ops->destroy (op);
  for (p = 0; p < s->n_out; p++) {
    guint8 *d = dplane_download (m, &s->out[p]);
    g_free (d);
  }
}

void
op_check_frames (const CvOps * ops, int algo, const Mem * m,
    OpFrameCheck bad_frames, gconstpointer api)
{
  Queue q;
  int i;

  queue_init (m, &q);
  for (i = 0; i < 4; i++) {
    Setup s;

    setup_init (&s, algo, algo_fmts[algo][i], 13, 11, m);
    frame_args (ops, &s, m, &q, bad_frames, api);
    setup_clear (&s, m);
  }
  queue_free (m, &q);
}

void
op_check_no_results (const CvOps * ops, int algo, const Mem * m)
{
  GRand *r = g_rand_new_with_seed (op_seed ());
  Queue q;
  CvExec ex = { NULL, 0, NULL };
  Setup s;
  void *op = NULL;

  queue_init (m, &q);
  ex.stream = q.stream;
  setup_init (&s, algo, F_GRAY8, 40, 30, m);
  /* blocks */
  setup_fill (&s, m, 2, r);
  fail_unless_equals_int (ops->create (setup_info (&s), 1, &op), CV_OK);
  fail_unless (ops->results (op, 0) == NULL);
  fail_unless_equals_int (ops->submit (op, 0, &s.frame, setup_params (&s),
          &ex), CV_OK);
  queue_sync (m, &q);
  fail_unless (ops->results (op, 0) == NULL);
  ops->destroy (op);
  setup_clear (&s, m);
  queue_free (m, &q);
  g_rand_free (r);
}

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

void
op_check_threads (int a)
{
  Mem host = { FALSE, FALSE };
  guint i;

  for (i = 0; i < 4; i++) {
    GRand *r = g_rand_new_with_seed (op_seed ());
    Setup s;
    CvExec e0 = { NULL, 0, NULL }, e1 = { NULL, 1, NULL };
    CvExec e3 = { NULL, 3, NULL };
    GByteArray *b0, *b1, *b3;
    int st;

    setup_init (&s, a, algo_fmts[a][i], 157, 93, &host);
    setup_fill (&s, &host, 2, r);
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

void
op_check_cancel (int a)
{
  Mem host = { FALSE, FALSE };
  const int set = 1;
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

/* ---- the programs ---- */

Suite *
op_suite_new (const char *name, TCase ** tc)
{
  Suite *s = suite_create (name);

  *tc = tcase_create ("general");
  suite_add_tcase (s, *tc);
  tcase_set_timeout (*tc, 900);
  return s;
}

int
op_test_main (int argc, char **argv, Suite * (*suite) (gboolean cuda))
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
  sr = srunner_create (suite (cuda));
  srunner_run_all (sr, CK_NORMAL);
  nf = srunner_ntests_failed (sr);
  srunner_free (sr);
  return nf == 0 ? 0 : 1;
}
