/* gst-cuda-vision: what the operator test programs share (tests/test_op.c
 * and tests/test_op_<algorithm>.c): the operators' C interface itself
 * (kernels/cvop.h), as CV-CUDA tests its operators, with no GStreamer
 * element.
 *
 * Each program runs once per backend (CUDAVISION_TEST_BACKEND): cpu (suite
 * cpu) and cuda (suite gpu, CK_FORK=no; exit 77, skipped, without a GPU or
 * in a build without CUDA). The per-algorithm programs call the
 * algorithm's typed functions (cv_<algo>_{cpu,cuda}_create, _submit,
 * _results, _destroy) for everything of the algorithm's own types (its
 * infos, parameters, results, the comparisons), and its generic tables
 * (cv_<algo>_{cpu,cuda}_ops, made from the typed functions, as the
 * elements drive them) for the checks every operator shares (NULL
 * arguments, slots, plane 0 of the frames, threads, cancellation).
 *
 * The comparisons: the CPU operator on host planes against the operator
 * under test (the CUDA one on the same planes copied to device memory of
 * other pitches: aligned by cudaMallocPitch, and odd pitches at odd
 * addresses, 2-byte pixels 16-bit aligned; or, in the cpu suite, the CPU
 * operator again on host planes of other pitches and addresses, which
 * checks the comparison itself and that the CPU operators do not depend
 * on the layout of their memory), byte for byte (nlmeans: at most 0.1 %
 * of the components differ, none by more than 2, as test_nlmeans compares
 * the backends), the results identical (matches with their scores bit for
 * bit, segment counts and labels), the row padding of every output
 * untouched. Random planes are seeded, the seed printed with each case.
 *
 * CVOPS_SEED (environment): the first seed (default 1). CVOPS_SMALL=1
 * (tests/device-run.sh sanitize: compute-sanitizer makes every access
 * slow) leaves out the 1080p size everywhere; CVOPS_SMALL=racecheck also
 * every frame of more than 2 048 pixels (racecheck's hazards are those
 * between the threads of one block: frames of a few blocks, partial ones
 * at the edges, run every path of the kernels' shared memory; a 31 x 31
 * convolution of 161 x 119 took minutes). CVOPS_SHARD=I/N runs every N-th
 * comparison case from the I-th (op_case_sharded_out).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_OPTEST_H
#define CV_OPTEST_H

#include <gst/check/gstcheck.h>

#include "cvsobel.h"
#include "cvcanny.h"
#include "cvconvolve.h"
#include "cvnlmeans.h"
#include "cvtemplatematch.h"
#include "cvmeanshift.h"

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* the infos and parameter tables give the fields a case sets */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

G_BEGIN_DECLS
/* What every output byte not written by an operator holds. */
#define POISON 0xA5
/* The next case's seed (CVOPS_SEED, then one more per case). */
    guint32 op_seed (void);

/* ---- host planes ---- */

/* A host plane w x h of pixels of bpp bytes, rows padded by pad bytes
 * (rounded up to even for 2-byte pixels: GRAY16 rows are 16-bit aligned,
 * as GStreamer's), every byte POISON. */
CvPlane hplane_new (int w, int h, int bpp, int pad);
void hplane_free (CvPlane * p);
/* Content of a plane (padding included): 0 noise, 1 smooth gradients with
 * a little noise, 2 flat 16x16 blocks with a little noise (segments,
 * template matches, flat windows). */
void hplane_fill (CvPlane * p, int bpp, int kind, GRand * r);

/* ---- the memory of the operator under test ----
 * cuda: device memory, aligned (cudaMallocPitch) or at odd addresses with
 * odd pitches; host: the CPU operator on host planes of other pitches and
 * addresses than the reference's. */
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

/* A plane of m, every byte POISON (device planes: written before any
 * operator runs). */
void dplane_alloc (const Mem * m, DPlane * d, int w, int h, int bpp);
/* the rows (w * bpp bytes) of host plane src into d */
void dplane_upload (const Mem * m, DPlane * d, const CvPlane * src, int bpp);
/* the whole of d (rows and padding, pitch * height bytes) in host memory
 * (g_free) */
guint8 *dplane_download (const Mem * m, const DPlane * d);
void dplane_free (const Mem * m, DPlane * d);

/* The stream of the operator under test (CUDA: a non-blocking stream;
 * host: none). */
typedef struct
{
  void *stream;
} Queue;

void queue_init (const Mem * m, Queue * q);
/* its work complete (and no CUDA error pending) */
void queue_sync (const Mem * m, Queue * q);
void queue_free (const Mem * m, Queue * q);

/* ---- formats and sizes ---- */

typedef struct
{
  const char *name;
  CvLumaLayout layout;          /* of plane 0 */
  int n_planes;
  int bpp[CV_MAX_PLANES];
  gboolean sub[CV_MAX_PLANES];  /* 4:2:0 chroma plane */
} Format;

extern const Format formats[];

#define F_GRAY8 0
#define F_I420 1
#define F_NV12 2
#define F_RGB 3
#define F_BGR 4
#define F_RGBA 5
#define F_BGRx 6
#define F_xRGB 7

/* the width and height of plane p of a w x h frame of format f */
int plane_w (const Format * f, int p, int w);
int plane_h (const Format * f, int p, int h);

typedef struct
{
  int w, h;
  gboolean big;                 /* 1080p-ish: the GPU run only for the
                                 * costly algorithms */
} Size;

/* 1x1, odd, wide, tall, 1080p-ish */
extern const Size sizes[];
extern const guint n_sizes;

/* the size is left out: a big one without big, or with CVOPS_SMALL; with
 * CVOPS_SMALL=racecheck also every frame of more than 2 048 pixels */
gboolean size_skipped (const Size * s, gboolean big);

/* CVOPS_SHARD=I/N (tests/device-run.sh sanitize: racecheck is too slow to
 * run every case of an algorithm in one process): TRUE for the cases this
 * process leaves out, every case whose number (in the order OP_CASE meets
 * them, from 0) is not I modulo N; N processes with I = 0 .. N - 1 run
 * all of them. Unset: FALSE. */
gboolean op_case_sharded_out (void);

/* ---- one comparison case ---- */

typedef enum
{
  RES_NONE,
  RES_TEMPLATE_MATCH,
  RES_MEANSHIFT,
} ResKind;

typedef struct
{
  gchar *what;
  const void *params;           /* mean shift: whether segments are due */
  int n_in, n_out;
  CvPlane in[CV_MAX_PLANES];    /* host planes (filled) */
  int in_bpp[CV_MAX_PLANES];
  int out_w[CV_MAX_PLANES], out_h[CV_MAX_PLANES], out_bpp[CV_MAX_PLANES];
  gboolean nlmeans;             /* compare as test_nlmeans does */
  ResKind res;
  int width, height;            /* of the label map */
} Case;

/* the input planes of a frame of format f (random, padded rows) */
void case_inputs (Case * c, const Format * f, int w, int h, int kind,
    GRand * r);
/* outputs of the same shapes as the inputs */
void case_outputs_like_inputs (Case * c);
/* frees the inputs and what, clears the case */
void case_clear (Case * c);

/* The planes of one run of a case: the reference's (host) and the
 * operator under test's (dev, in the memory m), the latter's exec. */
typedef struct
{
  CvFrame host, dev;
  CvExec exec;
  CvPlane hout[CV_MAX_PLANES];
  DPlane din[CV_MAX_PLANES], dout[CV_MAX_PLANES];
  Queue q;
} OpRun;

/* A run of c (its what printed): the reference's output planes, the
 * inputs copied into m, the outputs there, a queue. The caller then makes
 * both operators with their typed create, submits r->host to the CPU
 * one (exec NULL) and r->dev to the one under test (exec &r->exec),
 * checking each status with op_ok; then op_run_sync, op_run_end with
 * both results, and destroys both operators. */
void op_run_begin (Case * c, const Mem * m, OpRun * r);
void op_run_sync (const Mem * m, OpRun * r);
/* Every output plane equal (padding untouched on both sides), the results
 * equal (as c->res says); the planes freed. */
void op_run_end (const Case * c, const Mem * m, OpRun * r,
    const void *ref_results, const void *test_results);
/* a call of case c returned CV_OK */
void op_ok (const Case * c, const char *call, CvStatus st);

/* plane p of the reference (a, stride as) and of the other (b, bs) equal
 * (nlmeans: within its tolerance, below) */
void compare_rows (const Case * c, int p, const guint8 * a, size_t as,
    const guint8 * b, size_t bs);
/* the results of a case equal (RES_NONE: both NULL) */
void compare_results (const Case * c, const void *ra, const void *rb);

/* nlmeans: the backends agree within 1 LSB (never more than 2 apart) on
 * at least 99.9 % of the components over all the frames of a comparison
 * (checked by nlmeans_total_check); one frame may have up to 1 % (small
 * random frames: 7 of 3404 bytes, 0.2 %, were seen on the H100 with a
 * 37x23 RGBA frame) */
void nlmeans_total_reset (void);
void nlmeans_total_check (void);

/* ---- the outputs of the edge-map operators (sobel, canny) ---- */

typedef struct
{
  const char *name;
  int n, ps[CV_MAX_PLANES];
} EdgeOut;

/* GRAY8, NV12, I420 */
extern const EdgeOut edge_outs[];
extern const guint n_edge_outs;

/* an edge-map case: random inputs of fmt, the info and output planes of
 * edge_outs[o] */
void edge_map_case (Case * c, CvEdgeMapInfo * info, const Format * fmt,
    guint o, int w, int h, int pad_kind, GRand * r);

/* ---- the algorithms ---- */

typedef struct
{
  const char *name;
  const CvOps *cpu, *cuda;
} Algo;

#define A_SOBEL 0
#define A_CONVOLVE 1
#define A_NLMEANS 2
#define A_TM 3
#define A_MEANSHIFT 4
#define A_CANNY 5
#define N_ALGOS 6

/* every algorithm's name and generic tables */
extern const Algo algos[N_ALGOS];

/* the formats each algorithm takes (one frame format per element
 * format) */
extern const int algo_fmts[N_ALGOS][4];

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

/* sobel and canny: format f in, NV12 out (two output planes); the
 * others: f in and out (template matching: a GRAY8 score map) */
void setup_init (Setup * s, int algo, int f, int w, int h, const Mem * m);
void setup_clear (Setup * s, const Mem * m);
/* the setup's info and parameters of its algorithm */
const void *setup_info (const Setup * s);
const void *setup_params (const Setup * s);
/* the input planes of s filled (kind as hplane_fill) */
void setup_fill (Setup * s, const Mem * m, int kind, GRand * r);

/* ---- test_planes: what the operators do around the algorithm ---- */

/* The frames of test_planes' size i (0 .. OP_PLANES_SIZES - 1: 1x1, 7x5,
 * 30x17): random I420 input planes y, u, v (cw x ch chroma) and
 * POISONed output planes oy, ou, ov and uv (NV12's chroma), each padded
 * differently. */
typedef struct
{
  int w, h, cw, ch;
  CvPlane y, u, v, oy, ou, ov, uv;
} OpPlanes;

#define OP_PLANES_SIZES 3

void op_planes_new (OpPlanes * pl, guint i);
void op_planes_free (OpPlanes * pl);

/* ---- the checks every operator shares (through its generic table) ---- */

/* The algorithm's own checks of a setup (api: its typed functions, of
 * the backend under test). */
typedef void (*OpInfoCheck) (const Setup * s, gconstpointer api);
typedef void (*OpFrameCheck) (const Setup * s, void *op, const CvExec * ex,
    gconstpointer api);

/* create, for every format of algo (9 x 7): a good info makes an
 * operator; NULL info, NULL op, max_slots 0 and CV_OP_MAX_SLOTS + 1 are
 * refused (*op NULL), CV_OP_MAX_SLOTS works; then bad_infos (s, api).
 * destroy (NULL) does nothing. */
void op_check_create (const CvOps * ops, int algo, OpInfoCheck bad_infos,
    gconstpointer api);
/* submit, for every format of algo (13 x 11 frames in m): the valid
 * frame works once; NULL frame, params and operator, slots 1 and -1 are
 * refused, results () of slot 1 is NULL; plane 0 of another size, without
 * data or with a short stride is refused, and so are the chroma planes of
 * another size (sobel, canny: the output's; convolve, nlmeans: the input's
 * and the output's) or without data; bad_frames (s, op, ex, api) with
 * the operator (made by the table: the typed functions' operator, for
 * api's typed submit) and the exec; then the operator works again. */
void op_check_frames (const CvOps * ops, int algo, const Mem * m,
    OpFrameCheck bad_frames, gconstpointer api);
/* results () is NULL before and after a frame (algorithms without
 * results), 40 x 30 GRAY8 */
void op_check_no_results (const CvOps * ops, int algo, const Mem * m);
/* n_threads 1 and 3 and exec NULL give what OpenMP's default gives (CPU
 * operators, every format of algo, 157 x 93 blocks) */
void op_check_threads (int algo);
/* a cancel flag set before the submit: CV_ERROR_CANCELLED, and the
 * operator works again afterwards (CPU operators, 200 x 120) */
void op_check_cancel (int algo);

/* ---- the programs ---- */

/* The program's main: gst_check_init, the seed, the backend (the cuda run
 * exits 77 without a GPU or CUDA build), suite (cuda) run. */
int op_test_main (int argc, char **argv, Suite * (*suite) (gboolean cuda));

/* A suite of one test case, "general", with the 900 s timeout of the
 * comparisons. */
Suite *op_suite_new (const char *name, TCase ** tc);

/* The info field `field` of a copy of `base` (an Info) set to `value` is
 * refused by create (typed, Op the operator type):
 * CV_ERROR_INVALID_ARGUMENT and no operator. */
#define OP_BAD_INFO(Op, Info, create, base, field, value) G_STMT_START { \
    Info b_ = (base); \
    Op *op_ = (Op *) 1; \
    b_.field = (value); \
    fail_unless_equals_int ((create) (&b_, 1, &op_), \
        CV_ERROR_INVALID_ARGUMENT); \
    fail_unless (op_ == NULL, "an operator with " #field " = " #value); \
  } G_STMT_END


/* ---- the tests of a per-algorithm program ----
 * Its typed functions of both backends in static const structs `cpu` and
 * `cuda` (OP_API, OP_API_OF), its checks bad_infos (OpInfoCheck),
 * bad_frames (OpFrameCheck) and check_results (api, mem), its comparison
 * compare (mem, api, big). */

/* Api: one backend's typed functions of an algorithm (Op, Info, Params;
 * Results its results type, void without results) and the generic table
 * made from them (ops) */
#define OP_API(Api, Op, Info, Params, Results) \
typedef struct \
{ \
  const CvOps *ops; \
  CvStatus (*create) (const Info * info, int max_slots, Op ** op); \
  CvStatus (*submit) (Op * op, int slot, const CvFrame * frame, \
      const Params * params, const CvExec * exec); \
  const Results *(*results) (Op * op, int slot); \
  void (*destroy) (Op * op); \
} Api

/* the Api of the typed functions prefix_* (results: prefix_results, or
 * NULL without results) */
#define OP_API_OF(prefix, results) { &prefix ## _ops, prefix ## _create, \
  prefix ## _submit, results, prefix ## _destroy }

/* static void name (Case *c, const Mem *m, const Api *test,
 *     const Info *info, const Params *params): the CPU operator (`cpu`) on
 * c's host planes against test's on copies in m, each made for info with
 * one slot, one frame submitted, through their typed functions
 * (op_run_begin ... op_run_end: the outputs and the results equal) */
#define OP_CASE(name, Api, Op, Info, Params) \
static void \
name (Case * c, const Mem * m, const Api * test, const Info * info, \
    const Params * params) \
{ \
  Op *ref = NULL, *op = NULL; \
  OpRun r; \
  if (op_case_sharded_out ()) \
    return; \
  op_run_begin (c, m, &r); \
  op_ok (c, "CPU create", cpu.create (info, 1, &ref)); \
  op_ok (c, "CPU submit", cpu.submit (ref, 0, &r.host, params, NULL)); \
  op_ok (c, "create", test->create (info, 1, &op)); \
  op_ok (c, "submit", test->submit (op, 0, &r.dev, params, &r.exec)); \
  op_run_sync (m, &r); \
  op_run_end (c, m, &r, cpu.results ? cpu.results (ref, 0) : NULL, \
      test->results ? test->results (op, 0) : NULL); \
  cpu.destroy (ref); \
  test->destroy (op); \
}


/* test_create_checks, test_frame_checks, test_results, test_threads and
 * test_cancel of algorithm algo (A_*) on the CPU operator */
/* check_results of an algorithm without results */
#define OP_NO_RESULTS(Api, algo) \
static void \
check_results (const Api * api, const Mem * m) \
{ \
  op_check_no_results (api->ops, algo, m); \
}

#define OP_CHECK_TESTS(algo) \
GST_START_TEST (test_create_checks) \
{ \
  op_check_create (cpu.ops, algo, bad_infos, &cpu); \
} \
GST_END_TEST; \
GST_START_TEST (test_frame_checks) \
{ \
  Mem host = { FALSE, FALSE }; \
  op_check_frames (cpu.ops, algo, &host, bad_frames, &cpu); \
} \
GST_END_TEST; \
GST_START_TEST (test_results) \
{ \
  Mem host = { FALSE, FALSE }; \
  check_results (&cpu, &host); \
} \
GST_END_TEST; \
GST_START_TEST (test_threads) \
{ \
  op_check_threads (algo); \
} \
GST_END_TEST; \
GST_START_TEST (test_cancel) \
{ \
  op_check_cancel (algo); \
} \
GST_END_TEST

#define OP_ADD_CHECK_TESTS(tc) G_STMT_START { \
    tcase_add_test (tc, test_create_checks); \
    tcase_add_test (tc, test_frame_checks); \
    tcase_add_test (tc, test_results); \
    tcase_add_test (tc, test_threads); \
    tcase_add_test (tc, test_cancel); \
  } G_STMT_END

/* test_cpu_<name>: the comparison with the CPU operator on both sides,
 * the second on host planes of other pitches (aligned with the big sizes
 * where big says, odd at odd addresses) */
#define OP_CPU_COMPARE_TEST(name, compare, big) \
GST_START_TEST (test_cpu_ ## name) \
{ \
  Mem aligned = { FALSE, FALSE }, odd = { FALSE, TRUE }; \
  g_print ("%s, CPU against CPU (aligned pitches):\n", #name); \
  compare (&aligned, &cpu, big); \
  g_print ("%s, CPU against CPU (odd pitches):\n", #name); \
  compare (&odd, &cpu, FALSE); \
} \
GST_END_TEST

/* test_cuda_checks: the checks above on the CUDA operator; test_cuda_<name>:
 * the CPU operator against the CUDA one (cudaMallocPitch with the big
 * sizes, odd pitches and addresses) */
#define OP_CUDA_TESTS(algo, name, compare) \
GST_START_TEST (test_cuda_checks) \
{ \
  Mem dev = { TRUE, FALSE }; \
  op_check_create (cuda.ops, algo, bad_infos, &cuda); \
  op_check_frames (cuda.ops, algo, &dev, bad_frames, &cuda); \
  check_results (&cuda, &dev); \
} \
GST_END_TEST; \
GST_START_TEST (test_cuda_ ## name) \
{ \
  Mem aligned = { TRUE, FALSE }, odd = { TRUE, TRUE }; \
  g_print ("%s, CPU against CUDA (cudaMallocPitch):\n", #name); \
  compare (&aligned, &cuda, TRUE); \
  g_print ("%s, CPU against CUDA (odd pitches and addresses):\n", #name); \
  compare (&odd, &cuda, FALSE); \
} \
GST_END_TEST

G_END_DECLS
#endif /* CV_OPTEST_H */
