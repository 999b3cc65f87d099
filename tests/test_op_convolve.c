/* test_op_convolve: the filter-chain operator (kernels/cvconvolve.h)
 * through its typed functions on both backends (optest.h).
 *
 * op-convolve-cpu (suite cpu): create and its info checks, submit and its
 * frame and parameter checks, no results, n_threads, cancellation, every
 * plane of I420 filtered at its own size, and the comparison below with
 * the CPU operator on both sides.
 *
 * op-convolve-cuda (suite gpu; exit 77, skipped, without a GPU): the same
 * checks on the CUDA operator; the CPU operator against the CUDA one on
 * random planes of every size and format, named filters, their chains,
 * custom kernels 2-D and separable, chains whose halo does not fit in
 * shared memory, every border mode, byte for byte; one operator's two
 * slots through changes of the custom weights (test_cuda_weights_change).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"

#include <string.h>

/* one backend's typed functions and the table made from them */
OP_API (ConvolveApi, CvConvolveOp, CvConvolveInfo, CvConvolveParams, void);

static const ConvolveApi cpu = OP_API_OF (cv_convolve_cpu, NULL);
#ifdef HAVE_CUDA
static const ConvolveApi cuda = OP_API_OF (cv_convolve_cuda, NULL);
#endif

/* ---- the comparison ---- */

OP_CASE (convolve_case, ConvolveApi, CvConvolveOp, CvConvolveInfo,
    CvConvolveParams);

/* the chains compared: named filters and their chains, custom kernels 2-D
 * and separable, chains whose halo does not fit in shared memory */
#define N_CHAINS 14
static const char *chain_names[N_CHAINS] = {
  "blur", "gaussian", "sharpen", "edge-detect", "blur,edge-detect",
  "gaussian,sharpen,blur", "custom 5x5", "custom 7x7 separable",
  "custom 31x31", "blur,custom 3x3,edge-detect", "8 x custom 31x31",
  "8 x custom 9x9 separable", "custom 1x1", "custom 15x15 dyadic",
};

static const int border_modes[] = { CV_BORDER_CONSTANT,
  CV_BORDER_REPLICATE, CV_BORDER_REFLECT_101
};

/* the k x k weights of a custom kernel: multiples of 2^-12 of at most 8
 * significant bits (dyadic: every product with a byte is exact, the GPU
 * takes its fused multiply-add variant) or random floats */
static void
fill_kernel (float *kernel, int k, gboolean dyadic, GRand * r)
{
  int a;

  for (a = 0; a < k * k; a++)
    kernel[a] = dyadic ? (float) g_rand_int_range (r, -40, 100) / 4096.0f :
        (float) g_rand_double_range (r, -0.6, 1.0) / (k * k) * 2.0f;
  kernel[(k / 2) * k + k / 2] += 0.5f;
}

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
    case 13:
      k = 15;
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
    fill_kernel (p->kernel, k, i == 13, r);
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
compare_convolve (const Mem * m, const ConvolveApi * test, gboolean big)
{
  static const int fmts[] = { F_GRAY8, F_I420, F_NV12, F_RGB, F_BGR, F_RGBA,
    F_BGRx
  };
  guint s, f, i;

  for (s = 0; s < n_sizes; s++) {
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
        seed = op_seed ();
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
        convolve_case (&c, m, test, &info, &prm);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

/* ---- the checks ---- */

static void
bad_infos (const Setup * s, gconstpointer data)
{
  const ConvolveApi *api = data;

#define BAD(field, value) \
  OP_BAD_INFO (CvConvolveOp, CvConvolveInfo, api->create, s->convolve, field, \
      value)
  BAD (width, -1);
  BAD (height, 0);
  BAD (n_planes, 0);
  BAD (n_planes, CV_MAX_PLANES + 1);
  BAD (bpp[0], 5);
  BAD (channels[0], 4);
  BAD (channels[0], 0);
  BAD (bpp[0], 2);
#undef BAD
}

static void
bad_frames (const Setup * s, void *op, const CvExec * ex, gconstpointer data)
{
  const ConvolveApi *api = data;
  CvConvolveParams b = s->convolve_p;

  /* parameters out of range are refused too */
  b.n_filters = 0;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
}

OP_NO_RESULTS (ConvolveApi, A_CONVOLVE);

OP_CHECK_TESTS (A_CONVOLVE);

/* convolve on I420: each plane as a GRAY8 frame of its own size */
GST_START_TEST (test_planes)
{
  guint i;

  for (i = 0; i < OP_PLANES_SIZES; i++) {
    OpPlanes pl;
    CvConvolveInfo info = { 0, 0, 3, {1, 1, 1}, {1, 1, 1}
    };
    CvConvolveInfo gray = { 0, 0, 1, {1}, {1}
    };
    CvConvolveParams prm;
    CvPlane alone;
    CvConvolveOp *op;
    CvFrame f, g;
    int row;

    op_planes_new (&pl, i);
    info.width = pl.w;
    info.height = pl.h;
    gray.width = pl.cw;
    gray.height = pl.ch;
    alone = hplane_new (pl.cw, pl.ch, 1, 3);
    memset (&prm, 0, sizeof (prm));
    prm.n_filters = 2;
    prm.filters[0] = CV_FILTER_BLUR;
    prm.filters[1] = CV_FILTER_SHARPEN;
    prm.border_mode = CV_BORDER_REPLICATE;
    prm.ksize = 1;
    fail_unless_equals_int (cv_convolve_params_prepare (&prm), CV_OK);
    memset (&f, 0, sizeof (f));
    f.in[0] = pl.y;
    f.in[1] = pl.u;
    f.in[2] = pl.v;
    f.out[0] = pl.oy;
    f.out[1] = pl.ou;
    f.out[2] = pl.ov;
    fail_unless_equals_int (cv_convolve_cpu_create (&info, 1, &op), CV_OK);
    fail_unless_equals_int (cv_convolve_cpu_submit (op, 0, &f, &prm, NULL),
        CV_OK);
    cv_convolve_cpu_destroy (op);
    memset (&g, 0, sizeof (g));
    g.in[0] = pl.v;
    g.out[0] = alone;
    fail_unless_equals_int (cv_convolve_cpu_create (&gray, 1, &op), CV_OK);
    fail_unless_equals_int (cv_convolve_cpu_submit (op, 0, &g, &prm, NULL),
        CV_OK);
    cv_convolve_cpu_destroy (op);
    for (row = 0; row < pl.ch; row++)
      fail_unless (memcmp (alone.data + row * alone.stride,
              pl.ov.data + row * pl.ov.stride, pl.cw) == 0);
    hplane_free (&alone);
    op_planes_free (&pl);
  }
}

GST_END_TEST;

OP_CPU_COMPARE_TEST (convolve, compare_convolve, TRUE);

#ifdef HAVE_CUDA
OP_CUDA_TESTS (A_CONVOLVE, convolve, compare_convolve);

/* The CUDA operator decides whether the custom weights' products are
 * exact (its fused multiply-add variant) once per slot when they change,
 * not per frame (kernels/convolve-custom2d.cu): one operator of two slots
 * runs frames whose weights go from dyadic to random and back, at two
 * sizes (each slot sees every kind of change, slot 0 a repeat too), every
 * frame against the CPU. The random kernels carry a pair of large
 * opposite weights: where their two pixels are equal, the multiply and
 * add cancel them exactly while the FMA keeps the first product's
 * rounding error (up to 1), so the FMA kept past a change to them gives
 * other bytes (about 1 pixel in 900: some 330 a frame). */
GST_START_TEST (test_cuda_weights_change)
{
  /* frame i into slot i % 2: kernel seq[i] (A, C dyadic; B, D random) */
  static const int seq[] = { 0, 0, 1, 1, 1, 0, 2, 2, 3, 3, 2, 0 };
  static const int kern_k[] = { 15, 15, 7, 7 };
  Mem dev = { TRUE, FALSE };
  const Format *fmt = &formats[F_GRAY8];
  CvConvolveParams prm[4];
  CvConvolveInfo info = { 640, 480, 1, {1}, {1}
  };
  CvConvolveOp *ref = NULL, *op = NULL;
  guint32 seed = op_seed ();
  GRand *r = g_rand_new_with_seed (seed);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (prm); i++) {
    memset (&prm[i], 0, sizeof (prm[i]));
    prm[i].n_filters = 1;
    prm[i].filters[0] = CV_FILTER_CUSTOM;
    prm[i].border_mode = CV_BORDER_REFLECT_101;
    prm[i].ksize = kern_k[i];
    fill_kernel (prm[i].kernel, kern_k[i], i % 2 == 0, r);
    if (i % 2 == 1) {
      prm[i].kernel[0] += 100003.3f;
      prm[i].kernel[1] -= 100003.3f;
    }
    fail_unless_equals_int (cv_convolve_params_prepare (&prm[i]), CV_OK);
    fail_if (prm[i].separable);
  }
  fail_unless_equals_int (cv_convolve_cpu_create (&info, 1, &ref), CV_OK);
  fail_unless_equals_int (cuda.create (&info, 2, &op), CV_OK);
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    Case c;
    OpRun run;

    memset (&c, 0, sizeof (c));
    case_inputs (&c, fmt, info.width, info.height, i % 3, r);
    case_outputs_like_inputs (&c);
    c.what = g_strdup_printf ("convolve 640x480 GRAY8, frame %u into slot "
        "%u: custom %dx%d %s, seed %u", i, i % 2, kern_k[seq[i]],
        kern_k[seq[i]], seq[i] % 2 == 0 ? "dyadic" : "random", seed);
    op_run_begin (&c, &dev, &run);
    op_ok (&c, "CPU submit", cv_convolve_cpu_submit (ref, 0, &run.host,
            &prm[seq[i]], NULL));
    op_ok (&c, "submit", cuda.submit (op, (int) (i % 2), &run.dev,
            &prm[seq[i]], &run.exec));
    op_run_sync (&dev, &run);
    op_run_end (&c, &dev, &run, NULL, NULL);
    case_clear (&c);
  }
  cv_convolve_cpu_destroy (ref);
  cuda.destroy (op);
  g_rand_free (r);
}

GST_END_TEST;
#endif

static Suite *
convolve_suite (gboolean with_cuda)
{
  TCase *tc;
  Suite *s = op_suite_new ("op-convolve", &tc);

  if (!with_cuda) {
    OP_ADD_CHECK_TESTS (tc);
    tcase_add_test (tc, test_planes);
    tcase_add_test (tc, test_cpu_convolve);
  }
#ifdef HAVE_CUDA
  if (with_cuda) {
    tcase_add_test (tc, test_cuda_checks);
    tcase_add_test (tc, test_cuda_convolve);
    tcase_add_test (tc, test_cuda_weights_change);
  }
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return op_test_main (argc, argv, convolve_suite);
}
