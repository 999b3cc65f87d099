/* test_op_nlmeans: the non-local-means operator (kernels/cvnlmeans.h)
 * through its typed functions on both backends (optest.h).
 *
 * op-nlmeans-cpu (suite cpu): create and its info checks, submit and its
 * frame and parameter checks, no results, n_threads, cancellation, the
 * chroma of I420 copied, a temporal window in the operator's ring, and
 * the comparison below with the CPU operator on both sides.
 *
 * op-nlmeans-cuda (suite gpu; exit 77, skipped, without a GPU): the same
 * checks on the CUDA operator; the CPU operator against the CUDA one on
 * random planes of every size and format (as test_nlmeans compares the
 * backends: at most 0.1 % of the components differ, none by more than 2),
 * spatial and with a temporal window whose frames are stored from
 * different streams.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"

#include <string.h>

/* one backend's typed functions and the table made from them */
OP_API (NlMeansApi, CvNlMeansOp, CvNlMeansInfo, CvNlMeansParams, void);

static const NlMeansApi cpu = OP_API_OF (cv_nlmeans_cpu, NULL);
#ifdef HAVE_CUDA
static const NlMeansApi cuda = OP_API_OF (cv_nlmeans_cuda, NULL);
#endif

/* ---- the comparison ---- */

OP_CASE (nlmeans_case, NlMeansApi, CvNlMeansOp, CvNlMeansInfo, CvNlMeansParams);

/* the info of frames of format fmt, w x h, as the element fills it */
static void
nlmeans_info (CvNlMeansInfo * info, const Format * fmt, int w, int h)
{
  int p;

  memset (info, 0, sizeof (*info));
  info->layout = fmt->layout;
  info->width = w;
  info->height = h;
  info->n_planes = fmt->n_planes;
  for (p = 1; p < fmt->n_planes; p++) {
    info->row_bytes[p] = (size_t) plane_w (fmt, p, w) * fmt->bpp[p];
    info->rows[p] = plane_h (fmt, p, h);
  }
}

static void
compare_nlmeans (const Mem * m, const NlMeansApi * test, gboolean big)
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

  nlmeans_total_reset ();
  for (s = 0; s < n_sizes; s++) {
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
        seed = op_seed ();
        r = g_rand_new_with_seed (seed);
        memset (&c, 0, sizeof (c));
        case_inputs (&c, fmt, w, h, (s + i + f) % 3, r);
        case_outputs_like_inputs (&c);
        nlmeans_info (&info, fmt, w, h);
        c.nlmeans = TRUE;
        c.what = g_strdup_printf ("nlmeans %dx%d %s h %g patch %d search %d "
            "patch-sigma %g sigma %g, seed %u", w, h, fmt->name, prm->h,
            prm->patch_size, prm->search_window, prm->patch_sigma,
            prm->sigma, seed);
        nlmeans_case (&c, m, test, &info, prm);
        case_clear (&c);
        g_rand_free (r);
      }
  }
  nlmeans_total_check ();
}

/* A temporal window of 3 in the operator's ring (made at create; two
 * slots, each frame's submission on a stream of its own): frame k stored
 * by the k-th submit, which denoises frame k - 1 with its neighbours
 * (frame 0 alone) into that submit's output, equal to the CPU operator's
 * as compare_nlmeans has it (grey, I420 with its chroma kept, BGRx as
 * YCrCb with Cr and Cb denoised);
 * then a window frame not stored yet, a radius beyond the window and a
 * frame the ring has overwritten are refused. */
static void
check_temporal (const NlMeansApi * test, const Mem * m)
{
  static const int fmts[] = { F_GRAY8, F_I420, F_BGRx };
  enum
  { N = 10 };
  guint f;

  nlmeans_total_reset ();
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    const Format *fmt = &formats[fmts[f]];
    const int w = 37, h = 23;
    CvNlMeansParams prm = { 10, 3, 7, 0, 0 };
    CvNlMeansInfo info;
    CvNlMeansOp *ref = NULL, *op = NULL;
    int k;

    nlmeans_info (&info, fmt, w, h);
    info.temporal_window = 3;
    /* YCrCb: Cr and Cb denoised too (compared in plane 0, within the
     * tolerance); I420: the chroma copied through the ring (compared
     * exactly) */
    if (fmt->layout.r >= 0) {
      info.rgb_mode = CV_NLMEANS_RGB_YCRCB;
      prm.h_color = 8;
    }
    fail_unless_equals_int (cv_nlmeans_cpu_create (&info, 1, &ref), CV_OK);
    fail_unless_equals_int (test->create (&info, 2, &op), CV_OK);
    for (k = 0; k < N; k++) {
      guint32 seed = op_seed ();
      GRand *r = g_rand_new_with_seed (seed);
      OpRun run;
      Case c;

      memset (&c, 0, sizeof (c));
      case_inputs (&c, fmt, w, h, 1 + k % 2, r);
      case_outputs_like_inputs (&c);
      c.nlmeans = TRUE;
      c.what = g_strdup_printf ("nlmeans temporal-window 3 %dx%d %s frame %d, "
          "seed %u", w, h, fmt->name, k, seed);
      prm.store = k;
      prm.centre = k - 1;
      prm.radius = k >= 2 ? 1 : 0;
      op_run_begin (&c, m, &run);
      op_ok (&c, "CPU submit", cv_nlmeans_cpu_submit (ref, 0, &run.host, &prm,
              NULL));
      op_ok (&c, "submit", test->submit (op, k % 2, &run.dev, &prm, &run.exec));
      op_run_sync (m, &run);
      if (k == N - 1) {
        CvNlMeansParams b = prm;

        /* frame N not stored yet */
        b.store = -1;
        b.centre = N - 1;
        b.radius = 1;
        fail_unless_equals_int (test->submit (op, 0, &run.dev, &b, &run.exec),
            CV_ERROR_INVALID_ARGUMENT);
        /* beyond the window */
        b.centre = N - 3;
        b.radius = 2;
        fail_unless_equals_int (test->submit (op, 0, &run.dev, &b, &run.exec),
            CV_ERROR_INVALID_ARGUMENT);
        /* frame 0 overwritten (the ring holds the window and 5 more) */
        b.centre = 1;
        b.radius = 1;
        fail_unless_equals_int (test->submit (op, 0, &run.dev, &b, &run.exec),
            CV_ERROR_INVALID_ARGUMENT);
        op_run_sync (m, &run);
      }
      op_run_end (&c, m, &run, NULL, NULL);
      case_clear (&c);
      g_rand_free (r);
    }
    cv_nlmeans_cpu_destroy (ref);
    test->destroy (op);
  }
  nlmeans_total_check ();
}

/* ---- the checks ---- */

static void
bad_infos (const Setup * s, gconstpointer data)
{
  const NlMeansApi *api = data;

#define BAD(field, value) \
  OP_BAD_INFO (CvNlMeansOp, CvNlMeansInfo, api->create, s->nlmeans, field, \
      value)
  BAD (width, 0);
  BAD (height, 0);
  BAD (n_planes, 0);
  BAD (n_planes, 5);
  BAD (layout.bpp, 2);
  BAD (layout.g, 7);
  BAD (rgb_mode, 2);
  BAD (rgb_mode, -1);
  BAD (temporal_window, 2);
  BAD (temporal_window, CV_NLMEANS_MAX_TEMPORAL + 2);
  BAD (temporal_window, -1);
  if (s->nlmeans.n_planes > 1) {
    BAD (row_bytes[1], 0);
    BAD (row_bytes[1], s->nlmeans.row_bytes[1] + 1);
    BAD (rows[1], 0);
    BAD (rows[1], s->nlmeans.rows[1] + 2);
  }
#undef BAD
}

static void
bad_frames (const Setup * s, void *op, const CvExec * ex, gconstpointer data)
{
  const NlMeansApi *api = data;
  CvNlMeansParams b = s->nlmeans_p;

  /* parameters out of range are refused too */
  b.patch_size = 4;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
}

OP_NO_RESULTS (NlMeansApi, A_NLMEANS);

OP_CHECK_TESTS (A_NLMEANS);

/* nlmeans on I420: the chroma copied, row_bytes per row */
GST_START_TEST (test_planes)
{
  guint i;

  for (i = 0; i < OP_PLANES_SIZES; i++) {
    OpPlanes pl;
    CvNlMeansInfo info;
    CvNlMeansParams prm = { 10, 3, 5, 0, 0 };
    CvNlMeansOp *op;
    CvFrame f;
    int row, x;

    op_planes_new (&pl, i);
    nlmeans_info (&info, &formats[F_I420], pl.w, pl.h);
    memset (&f, 0, sizeof (f));
    f.in[0] = pl.y;
    f.in[1] = pl.u;
    f.in[2] = pl.v;
    f.out[0] = pl.oy;
    f.out[1] = pl.ou;
    f.out[2] = pl.ov;
    fail_unless_equals_int (cv_nlmeans_cpu_create (&info, 1, &op), CV_OK);
    fail_unless_equals_int (cv_nlmeans_cpu_submit (op, 0, &f, &prm, NULL),
        CV_OK);
    cv_nlmeans_cpu_destroy (op);
    for (row = 0; row < pl.ch; row++)
      for (x = 0; x < (int) pl.ou.stride; x++)
        if (pl.ou.data[row * pl.ou.stride + x] != (x < pl.cw ?
                pl.u.data[row * pl.u.stride + x] : POISON)
            || pl.ov.data[row * pl.ov.stride + x] != (x < pl.cw ?
                pl.v.data[row * pl.v.stride + x] : POISON))
          fail ("nlmeans I420 chroma (%d, %d)", x, row);
    op_planes_free (&pl);
  }
}

GST_END_TEST;

GST_START_TEST (test_temporal)
{
  Mem odd = { FALSE, TRUE };

  check_temporal (&cpu, &odd);
}

GST_END_TEST;

OP_CPU_COMPARE_TEST (nlmeans, compare_nlmeans, FALSE);

#ifdef HAVE_CUDA
OP_CUDA_TESTS (A_NLMEANS, nlmeans, compare_nlmeans);

GST_START_TEST (test_cuda_temporal)
{
  Mem dev = { TRUE, FALSE };

  check_temporal (&cuda, &dev);
}

GST_END_TEST;
#endif

static Suite *
nlmeans_suite (gboolean with_cuda)
{
  TCase *tc;
  Suite *s = op_suite_new ("op-nlmeans", &tc);

  if (!with_cuda) {
    OP_ADD_CHECK_TESTS (tc);
    tcase_add_test (tc, test_planes);
    tcase_add_test (tc, test_temporal);
    tcase_add_test (tc, test_cpu_nlmeans);
  }
#ifdef HAVE_CUDA
  if (with_cuda) {
    tcase_add_test (tc, test_cuda_checks);
    tcase_add_test (tc, test_cuda_nlmeans);
    tcase_add_test (tc, test_cuda_temporal);
  }
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return op_test_main (argc, argv, nlmeans_suite);
}
