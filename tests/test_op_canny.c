/* test_op_canny: the Canny operator (kernels/cvcanny.h) through its typed
 * functions on both backends (optest.h).
 *
 * op-canny-cpu (suite cpu): create and its info checks, submit and its
 * frame and parameter checks, no results, n_threads, cancellation, and the
 * comparison below with the CPU operator on both sides.
 *
 * op-canny-cuda (suite gpu; exit 77, skipped, without a GPU): the same
 * checks on the CUDA operator; the CPU operator against the CUDA one on
 * random planes of every size, input layout and output format, every
 * aperture and norm, byte for byte.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"

#include <math.h>

/* one backend's typed functions and the table made from them */
OP_API (CannyApi, CvCannyOp, CvCannyInfo, CvCannyParams, void);

static const CannyApi cpu = OP_API_OF (cv_canny_cpu, NULL);
#ifdef HAVE_CUDA
static const CannyApi cuda = OP_API_OF (cv_canny_cuda, NULL);
#endif

/* ---- the comparison ---- */

OP_CASE (canny_case, CannyApi, CvCannyOp, CvCannyInfo, CvCannyParams);

static void
compare_canny (const Mem * m, const CannyApi * test, gboolean big)
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
  /* shapes at the edges of the CUDA kernels' 32 x 32 tiles and grids (a
   * tile, a pixel more or less, one row or column of tiles, 64 Ki +- 1
   * wide, very tall), GRAY8, every parameter set; the large ones only
   * against the CUDA operator */
  static const Size shapes[] = {
    {32, 32, FALSE}, {33, 33, FALSE}, {31, 65, FALSE}, {64, 1, FALSE},
    {1, 97, FALSE}, {97, 31, FALSE}, {65535, 3, TRUE}, {65537, 2, TRUE},
    {3, 65537, TRUE}, {1, 100003, TRUE},
  };
  guint s, f, o, i;

  for (s = 0; s < G_N_ELEMENTS (shapes); s++) {
    if (size_skipped (&shapes[s], big) || (shapes[s].big && test == &cpu))
      continue;
    for (i = 0; i < G_N_ELEMENTS (params); i++) {
      const int w = shapes[s].w, h = shapes[s].h;
      guint32 seed = op_seed ();
      GRand *r = g_rand_new_with_seed (seed);
      CvEdgeMapInfo info;
      Case c;

      edge_map_case (&c, &info, &formats[F_GRAY8], 0, w, h, (s + i) % 3, r);
      c.what = g_strdup_printf ("canny %dx%d GRAY8 thresholds %g %g "
          "kernel-size %d l2 %d, seed %u", w, h, params[i].low_threshold,
          params[i].high_threshold, params[i].kernel_size,
          params[i].l2_gradient, seed);
      canny_case (&c, m, test, &info, &params[i]);
      case_clear (&c);
      g_rand_free (r);
    }
  }
  for (s = 0; s < n_sizes; s++) {
    if (size_skipped (&sizes[s], big))
      continue;
    for (f = 0; f < G_N_ELEMENTS (in_fmts); f++)
      for (o = 0; o < n_edge_outs; o++) {
        const Format *fmt = &formats[in_fmts[f]];
        const CvCannyParams *prm = &params[(s + 2 * f + o) %
            G_N_ELEMENTS (params)];
        const int w = sizes[s].w, h = sizes[s].h;
        guint32 seed = op_seed ();
        GRand *r = g_rand_new_with_seed (seed);
        CvEdgeMapInfo info;
        Case c;

        edge_map_case (&c, &info, fmt, o, w, h, (s + f) % 3, r);
        c.what = g_strdup_printf ("canny %dx%d %s -> %s thresholds %g %g "
            "kernel-size %d l2 %d, seed %u", w, h, fmt->name, edge_outs[o].name,
            prm->low_threshold, prm->high_threshold, prm->kernel_size,
            prm->l2_gradient, seed);
        canny_case (&c, m, test, &info, prm);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

/* ---- the checks ---- */

static void
bad_infos (const Setup * s, gconstpointer data)
{
  const CannyApi *api = data;

#define BAD(field, value) \
  OP_BAD_INFO (CvCannyOp, CvCannyInfo, api->create, s->canny, field, value)
  BAD (width, 0);
  BAD (height, -1);
  /* 2^31 pixels or more */
  {
    CvCannyInfo b = s->canny;
    CvCannyOp *op = (CvCannyOp *) 1;

    b.width = 70000;
    b.height = 70000;
    fail_unless_equals_int (api->create (&b, 1, &op),
        CV_ERROR_INVALID_ARGUMENT);
    fail_unless (op == NULL);
  }
  BAD (n_out_planes, 0);
  BAD (n_out_planes, CV_MAX_PLANES + 1);
  BAD (out_pixel_stride[1], 5);
  BAD (layout.bpp, 2);
  BAD (layout.r, s->canny.layout.bpp);
#undef BAD
}

static void
bad_frames (const Setup * s, void *op, const CvExec * ex, gconstpointer data)
{
  const CannyApi *api = data;
  CvCannyParams b = s->canny_p;

  /* parameters out of range are refused too */
  b.kernel_size = 9;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
  b = s->canny_p;
  b.low_threshold = -1;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
  b = s->canny_p;
  b.high_threshold = NAN;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
}

OP_NO_RESULTS (CannyApi, A_CANNY);

OP_CHECK_TESTS (A_CANNY);

OP_CPU_COMPARE_TEST (canny, compare_canny, TRUE);

#ifdef HAVE_CUDA
OP_CUDA_TESTS (A_CANNY, canny, compare_canny);
#endif

static Suite *
canny_suite (gboolean with_cuda)
{
  TCase *tc;
  Suite *s = op_suite_new ("op-canny", &tc);

  if (!with_cuda) {
    OP_ADD_CHECK_TESTS (tc);
    tcase_add_test (tc, test_cpu_canny);
  }
#ifdef HAVE_CUDA
  if (with_cuda) {
    tcase_add_test (tc, test_cuda_checks);
    tcase_add_test (tc, test_cuda_canny);
  }
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return op_test_main (argc, argv, canny_suite);
}
