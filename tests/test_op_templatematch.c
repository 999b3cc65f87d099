/* test_op_templatematch: the template matching operator
 * (kernels/cvtemplatematch.h) through its typed functions on both backends
 * (optest.h).
 *
 * op-templatematch-cpu (suite cpu): create and its info checks, submit and
 * its frame and parameter checks, the results (each slot's its own, 0
 * matches and an all-zero score map without a template), n_threads,
 * cancellation, and the comparison below with the CPU operator on both
 * sides.
 *
 * op-templatematch-cuda (suite gpu; exit 77, skipped, without a GPU): the
 * same checks on the CUDA operator; the CPU operator against the CUDA one
 * on random planes of every size and layout, every method, template sizes
 * from 1x1 to the frame's, masked templates and several templates searched
 * together: the score maps byte for byte, the matches with their scores
 * bit for bit.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "optest.h"

#include <string.h>

/* one backend's typed functions and the table made from them */
OP_API (TemplateMatchApi, CvTemplateMatchOp, CvTemplateMatchInfo,
    CvTemplateMatchFrameParams, CvTemplateMatchResult);

static const TemplateMatchApi cpu =
OP_API_OF (cv_template_match_cpu, cv_template_match_cpu_results);
#ifdef HAVE_CUDA
static const TemplateMatchApi cuda =
OP_API_OF (cv_template_match_cuda, cv_template_match_cuda_results);
#endif

/* ---- the comparison ---- */

OP_CASE (tm_case, TemplateMatchApi, CvTemplateMatchOp, CvTemplateMatchInfo,
    CvTemplateMatchFrameParams);

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
compare_template_match_masked (const Mem * m, const TemplateMatchApi * test,
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
    tm_case (&c, m, test, info, &prm);
    case_clear (&c);
  }
  g_free (tcopy);
  g_free (mask);
}

static void
compare_template_match (const Mem * m, const TemplateMatchApi * test,
    gboolean big)
{
  static const int fmts[] = { F_GRAY8, F_I420, F_RGB, F_BGRx, F_xRGB };
  static const int tsizes[][2] = {
    {1, 1}, {5, 4}, {17, 16}, {64, 64}, {3, 40}, {-1, -1},      /* frame */
    {0, 0},                     /* no template */
  };
  guint s, f, t;
  int method;

  for (s = 0; s < n_sizes; s++) {
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
          seed = op_seed ();
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
          tm_case (&c, m, test, &info, &prm);
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

/* ---- the checks ---- */

static void
bad_infos (const Setup * s, gconstpointer data)
{
  const TemplateMatchApi *api = data;

#define BAD(field, value) \
  OP_BAD_INFO (CvTemplateMatchOp, CvTemplateMatchInfo, api->create, s->tm, \
      field, value)
  BAD (width, 0);
  BAD (height, -1);
  BAD (score_map, 4);
  BAD (score_map, 32);
  BAD (layout.bpp, 0);
  BAD (layout.r, 4);
#undef BAD
}

static void
bad_frames (const Setup * s, void *op, const CvExec * ex, gconstpointer data)
{
  const TemplateMatchApi *api = data;
  CvTemplateMatchFrameParams b = s->tm_p;
  CvTemplate big = s->templ;

  /* parameters out of range are refused too */
  big.plane.width = 14;         /* larger than the frame */
  big.plane.stride = 14;
  b.templ = &big;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
  b.templ = &s->templ;
  b.match.max_matches = 0;
  fail_unless_equals_int (api->submit (op, 0, &s->frame, &b, ex),
      CV_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (api->results (op, 0)->count, 0);
}

/* results (): at one place per slot, 0 matches and an all-zero score map
 * without a template */
static void
check_results (const TemplateMatchApi * api, const Mem * m)
{
  GRand *r = g_rand_new_with_seed (op_seed ());
  const CvTemplateMatchResult *r0, *r1;
  CvTemplateMatchFrameParams none;
  CvTemplateMatchOp *op = NULL;
  CvExec ex = { NULL, 0, NULL };
  Queue q;
  Setup s;
  CvPlane h;
  guint8 *map;
  size_t i;
  int p;

  queue_init (m, &q);
  ex.stream = q.stream;
  setup_init (&s, A_TM, F_GRAY8, 40, 30, m);
  /* blocks: matches */
  h = hplane_new (40, 30, s.fmt->bpp[0], 0);
  hplane_fill (&h, s.fmt->bpp[0], 2, r);
  dplane_upload (m, &s.in[0], &h, s.fmt->bpp[0]);
  none = s.tm_p;
  fail_unless_equals_int (api->create (&s.tm, 1, &op), CV_OK);
  r0 = api->results (op, 0);
  fail_unless (r0 != NULL);
  fail_unless_equals_int (r0->count, 0);
  /* a template cut from the frame: found */
  for (p = 0; p < 16; p++)
    s.tpix[p] = h.data[(size_t) (5 + p / 4) * h.stride + 9 + p % 4];
  fail_unless_equals_int (cv_template_stats (&s.templ), CV_OK);
  s.tm_p.match.method = CV_TM_SQDIFF;
  fail_unless_equals_int (api->submit (op, 0, &s.frame, &s.tm_p, &ex), CV_OK);
  queue_sync (m, &q);
  r1 = api->results (op, 0);
  fail_unless (r1 == r0);
  fail_unless (r1->count >= 1);
  fail_unless (r1->match[0].score == 0.0);
  /* no template: no matches, the score map all 0 */
  none.templ = NULL;
  fail_unless_equals_int (api->submit (op, 0, &s.frame, &none, &ex), CV_OK);
  queue_sync (m, &q);
  fail_unless (api->results (op, 0) == r0);
  fail_unless_equals_int (r0->count, 0);
  /* two slots: results of their own, each the last submit's into that
   * slot */
  {
    CvTemplateMatchOp *op2 = NULL;
    const CvTemplateMatchResult *a0, *a1;

    fail_unless_equals_int (api->create (&s.tm, 2, &op2), CV_OK);
    fail_unless_equals_int (api->submit (op2, 0, &s.frame, &s.tm_p, &ex),
        CV_OK);
    fail_unless_equals_int (api->submit (op2, 1, &s.frame, &none, &ex), CV_OK);
    queue_sync (m, &q);
    a0 = api->results (op2, 0);
    a1 = api->results (op2, 1);
    fail_unless (a0 != NULL && a1 != NULL && a0 != a1);
    fail_unless (a0->count >= 1);
    fail_unless (a0->match[0].score == 0.0);
    fail_unless_equals_int (a1->count, 0);
    fail_unless (api->results (op2, 2) == NULL);
    api->destroy (op2);
  }
  map = dplane_download (m, &s.out[0]);
  for (i = 0; i < (size_t) s.out[0].p.height; i++)
    for (p = 0; p < 40; p++)
      if (map[i * s.out[0].p.stride + p] != 0)
        fail ("score map (%d, %d) = %u without a template", p, (int) i,
            map[i * s.out[0].p.stride + p]);
  g_free (map);
  api->destroy (op);
  hplane_free (&h);
  setup_clear (&s, m);
  queue_free (m, &q);
  g_rand_free (r);
}

OP_CHECK_TESTS (A_TM);

OP_CPU_COMPARE_TEST (template_match, compare_template_match, TRUE);

#ifdef HAVE_CUDA
OP_CUDA_TESTS (A_TM, template_match, compare_template_match);
#endif

static Suite *
template_match_suite (gboolean with_cuda)
{
  TCase *tc;
  Suite *s = op_suite_new ("op-templatematch", &tc);

  if (!with_cuda) {
    OP_ADD_CHECK_TESTS (tc);
    tcase_add_test (tc, test_cpu_template_match);
  }
#ifdef HAVE_CUDA
  if (with_cuda) {
    tcase_add_test (tc, test_cuda_checks);
    tcase_add_test (tc, test_cuda_template_match);
  }
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return op_test_main (argc, argv, template_match_suite);
}
