/* test_op_meanshift: the mean-shift operator (kernels/cvmeanshift.h)
 * through its typed functions on both backends (optest.h).
 *
 * op-meanshift-cpu (suite cpu): create and its info checks, submit and its
 * frame and parameter checks, the segments (after a segment-mode frame
 * only, canonical labels), n_threads, cancellation, and the comparison
 * below with the CPU operator on both sides.
 *
 * op-meanshift-cuda (suite gpu; exit 77, skipped, without a GPU): the same
 * checks on the CUDA operator; the CPU operator against the CUDA one on
 * random planes of every size and layout, every kernel, filter and segment
 * mode, regions, colour ranges: the frames byte for byte, the same
 * segment counts and labels.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"

#include <string.h>

/* one backend's typed functions and the table made from them */
OP_API (MeanShiftApi, CvMeanShiftOp, CvMeanShiftInfo, CvMeanShiftParams,
    CvMeanShiftSegments);

static const MeanShiftApi cpu =
OP_API_OF (cv_meanshift_cpu, cv_meanshift_cpu_results);
#ifdef HAVE_CUDA
static const MeanShiftApi cuda =
OP_API_OF (cv_meanshift_cuda, cv_meanshift_cuda_results);
#endif

/* ---- the comparison ---- */

OP_CASE (meanshift_case, MeanShiftApi, CvMeanShiftOp, CvMeanShiftInfo,
    CvMeanShiftParams);

static void
compare_meanshift (const Mem * m, const MeanShiftApi * test, gboolean big)
{
  static const int fmts[] = { F_GRAY8, F_RGB, F_BGRx, F_RGBA, F_xRGB };
  guint s, f;
  int i;

  for (s = 0; s < n_sizes; s++) {
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
        seed = op_seed ();
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
        c.params = &prm;
        meanshift_case (&c, m, test, &info, &prm);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

/* ---- the checks ---- */

static void
bad_infos (const Setup * s, gconstpointer data)
{
  const MeanShiftApi *api = data;

#define BAD(field, value) \
  OP_BAD_INFO (CvMeanShiftOp, CvMeanShiftInfo, api->create, s->meanshift, \
      field, value)
  BAD (width, 0);
  BAD (height, 0);
  BAD (layout.bpp, 5);
  BAD (layout.r, 5);
  BAD (layout.g, s->meanshift.layout.r < 0 ? 0 : -1);
#undef BAD
}

static void
bad_frames (const Setup * s, void *op, const CvExec * ex, gconstpointer data)
{
  const MeanShiftApi *api = data;
  CvMeanShiftParams b = s->meanshift_p;

  /* parameters out of range are refused too */
  b.roi_width = 14;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
  fail_unless (api->results (op, 0) == NULL);
}

/* results (): the segments after a segment-mode frame only */
static void
check_results (const MeanShiftApi * api, const Mem * m)
{
  GRand *r = g_rand_new_with_seed (op_seed ());
  const CvMeanShiftSegments *seg;
  CvMeanShiftOp *op = NULL;
  CvExec ex = { NULL, 0, NULL };
  guint32 *labels;
  guint32 n = 0;
  size_t i, total = 40 * 30;
  Queue q;
  Setup s;

  queue_init (m, &q);
  ex.stream = q.stream;
  setup_init (&s, A_MEANSHIFT, F_RGB, 40, 30, m);
  /* blocks: segments */
  setup_fill (&s, m, 2, r);
  fail_unless_equals_int (api->create (&s.meanshift, 1, &op), CV_OK);
  fail_unless (api->results (op, 0) == NULL);
  fail_unless_equals_int (api->submit (op, 0, &s.frame, &s.meanshift_p, &ex),
      CV_OK);
  queue_sync (m, &q);
  seg = api->results (op, 0);
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
  fail_unless_equals_int (api->submit (op, 0, &s.frame, &s.meanshift_p, &ex),
      CV_OK);
  queue_sync (m, &q);
  fail_unless (api->results (op, 0) == NULL);
  api->destroy (op);
  setup_clear (&s, m);
  queue_free (m, &q);
  g_rand_free (r);
}

OP_CHECK_TESTS (A_MEANSHIFT);

OP_CPU_COMPARE_TEST (meanshift, compare_meanshift, FALSE);

#ifdef HAVE_CUDA
OP_CUDA_TESTS (A_MEANSHIFT, meanshift, compare_meanshift);
#endif

static Suite *
meanshift_suite (gboolean with_cuda)
{
  TCase *tc;
  Suite *s = op_suite_new ("op-meanshift", &tc);

  if (!with_cuda) {
    OP_ADD_CHECK_TESTS (tc);
    tcase_add_test (tc, test_cpu_meanshift);
  }
#ifdef HAVE_CUDA
  if (with_cuda) {
    tcase_add_test (tc, test_cuda_checks);
    tcase_add_test (tc, test_cuda_meanshift);
  }
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return op_test_main (argc, argv, meanshift_suite);
}
