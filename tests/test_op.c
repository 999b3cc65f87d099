/* test_op: what the operators of every algorithm share, through their
 * generic tables (kernels/cvop.h) as the elements drive them; the
 * algorithms themselves are tests/test_op_<algorithm>.c (optest.h).
 *
 * op-cpu (CUDAVISION_TEST_BACKEND=cpu, suite cpu): both tables of every
 * algorithm are there (cv_op_available; the CUDA ones only in a CUDA
 * build, else kernels/nocuda.c's with every member NULL), the one status
 * type, cv_draw_rectangles against the element's former drawing.
 *
 * op-cuda (CUDAVISION_TEST_BACKEND=cuda, suite gpu, CK_FORK=no; exit 77,
 * skipped, without a GPU): the tables and the status again, and frames in
 * flight: one CUDA operator per algorithm with several slots, a frame in
 * each on its own stream, each the CPU's.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"
#include "cvdraw.h"

#include <string.h>

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
    GRand *r = g_rand_new_with_seed (op_seed ());
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

#ifdef HAVE_CUDA
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
      GRand *r = g_rand_new_with_seed (op_seed ());
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
op_suite (gboolean cuda)
{
  TCase *tc;
  Suite *s = op_suite_new ("op", &tc);

  tcase_add_test (tc, test_tables);
  tcase_add_test (tc, test_status);
  if (!cuda)
    tcase_add_test (tc, test_draw);
#ifdef HAVE_CUDA
  if (cuda)
    tcase_add_test (tc, test_cuda_in_flight);
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return op_test_main (argc, argv, op_suite);
}
