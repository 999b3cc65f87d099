/* test_op_sobel: the Sobel operator (kernels/cvsobel.h) through its typed
 * functions on both backends (optest.h).
 *
 * op-sobel-cpu (suite cpu): create and its info checks, submit and its
 * frame and parameter checks, no results, n_threads, cancellation, the
 * output chroma (128) of I420 and NV12, and the comparison below with the
 * CPU operator on both sides.
 *
 * op-sobel-cuda (suite gpu; exit 77, skipped, without a GPU): the same
 * checks on the CUDA operator; the CPU operator against the CUDA one on
 * random planes of every size, input layout and output format, byte for
 * byte; the aperture-3 kernels the benchmark compares and the fast L2
 * magnitude.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"

#include <string.h>

#ifdef HAVE_CUDA
#include "cuda-internal.h"
#include "cpu-internal.h"
#endif

/* one backend's typed functions and the table made from them */
OP_API (SobelApi, CvSobelOp, CvSobelInfo, CvSobelParams, void);

static const SobelApi cpu = OP_API_OF (cv_sobel_cpu, NULL);
#ifdef HAVE_CUDA
static const SobelApi cuda = OP_API_OF (cv_sobel_cuda, NULL);
#endif

/* ---- the comparison ---- */

OP_CASE (sobel_case, SobelApi, CvSobelOp, CvSobelInfo, CvSobelParams);

static void
compare_sobel (const Mem * m, const SobelApi * test, gboolean big)
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

  for (s = 0; s < n_sizes; s++) {
    if (size_skipped (&sizes[s], big))
      continue;
    for (f = 0; f < G_N_ELEMENTS (in_fmts); f++)
      for (o = 0; o < n_edge_outs; o++) {
        const Format *fmt = &formats[in_fmts[f]];
        const CvSobelParams *prm = &params[(s + f + o) % G_N_ELEMENTS (params)];
        const int w = sizes[s].w, h = sizes[s].h;
        guint32 seed = op_seed ();
        GRand *r = g_rand_new_with_seed (seed);
        CvEdgeMapInfo info;
        Case c;

        edge_map_case (&c, &info, fmt, o, w, h, (s + f) % 3, r);
        c.what = g_strdup_printf ("sobel %dx%d %s -> %s brightness %d "
            "threshold %d kernel-size %d norm %d, seed %u", w, h, fmt->name,
            edge_outs[o].name, prm->brightness, prm->threshold,
            prm->kernel_size, prm->norm, seed);
        sobel_case (&c, m, test, &info, prm);
        case_clear (&c);
        g_rand_free (r);
      }
  }
}

/* ---- the checks ---- */

static void
bad_infos (const Setup * s, gconstpointer data)
{
  const SobelApi *api = data;

#define BAD(field, value) \
  OP_BAD_INFO (CvSobelOp, CvSobelInfo, api->create, s->sobel, field, value)
  BAD (width, 0);
  BAD (height, -3);
  BAD (n_out_planes, 0);
  BAD (n_out_planes, CV_MAX_PLANES + 1);
  BAD (out_pixel_stride[1], 0);
  BAD (out_pixel_stride[1], 5);
  BAD (layout.bpp, 2);
  BAD (layout.r, s->sobel.layout.bpp);
  BAD (layout.b, s->sobel.layout.r < 0 ? 0 : -1);
#undef BAD
}

static void
bad_frames (const Setup * s, void *op, const CvExec * ex, gconstpointer data)
{
  const SobelApi *api = data;
  CvSobelParams b = s->sobel_p;

  /* parameters out of range are refused too */
  b.kernel_size = 4;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
  b.kernel_size = 3;
  b.norm = 2;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
}

OP_NO_RESULTS (SobelApi, A_SOBEL);

OP_CHECK_TESTS (A_SOBEL);

/* sobel to I420 and NV12: 128 in the rows of the chroma, the padding
 * untouched */
GST_START_TEST (test_planes)
{
  guint i;

  for (i = 0; i < OP_PLANES_SIZES; i++) {
    OpPlanes pl;
    CvSobelInfo info = { {1, -1, -1, -1}, 0, 0, 3, {0, 1, 1, 0}
    };
    CvSobelParams prm = { 0, 0, 3, CV_SOBEL_NORM_L2 };
    CvSobelOp *op;
    CvFrame f;
    int row, x;

    op_planes_new (&pl, i);
    info.width = pl.w;
    info.height = pl.h;
    memset (&f, 0, sizeof (f));
    f.in[0] = pl.y;
    f.out[0] = pl.oy;
    f.out[1] = pl.ou;
    f.out[2] = pl.ov;
    fail_unless_equals_int (cv_sobel_cpu_create (&info, 1, &op), CV_OK);
    fail_unless_equals_int (cv_sobel_cpu_submit (op, 0, &f, &prm, NULL), CV_OK);
    cv_sobel_cpu_destroy (op);
    for (row = 0; row < pl.ch; row++)
      for (x = 0; x < (int) pl.ou.stride; x++)
        if (pl.ou.data[row * pl.ou.stride + x] != (x < pl.cw ? 128 : POISON)
            || pl.ov.data[row * pl.ov.stride + x] != (x < pl.cw ? 128 : POISON))
          fail ("sobel I420 chroma (%d, %d)", x, row);
    info.n_out_planes = 2;
    info.out_pixel_stride[1] = 2;
    f.out[1] = pl.uv;
    fail_unless_equals_int (cv_sobel_cpu_create (&info, 1, &op), CV_OK);
    fail_unless_equals_int (cv_sobel_cpu_submit (op, 0, &f, &prm, NULL), CV_OK);
    cv_sobel_cpu_destroy (op);
    for (row = 0; row < pl.ch; row++)
      for (x = 0; x < (int) pl.uv.stride; x++)
        if (pl.uv.data[row * pl.uv.stride + x] !=
            (x < 2 * pl.cw ? 128 : POISON))
          fail ("sobel NV12 chroma (%d, %d)", x, row);
    op_planes_free (&pl);
  }
}

GST_END_TEST;

OP_CPU_COMPARE_TEST (sobel, compare_sobel, TRUE);

#ifdef HAVE_CUDA
OP_CUDA_TESTS (A_SOBEL, sobel, compare_sobel);

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
      guint32 seed = op_seed ();
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
#endif

static Suite *
sobel_suite (gboolean with_cuda)
{
  TCase *tc;
  Suite *s = op_suite_new ("op-sobel", &tc);

  if (!with_cuda) {
    OP_ADD_CHECK_TESTS (tc);
    tcase_add_test (tc, test_planes);
    tcase_add_test (tc, test_cpu_sobel);
  }
#ifdef HAVE_CUDA
  if (with_cuda) {
    tcase_add_test (tc, test_cuda_checks);
    tcase_add_test (tc, test_cuda_sobel);
    tcase_add_test (tc, test_cuda_sobel_kernels);
  }
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return op_test_main (argc, argv, sobel_suite);
}
