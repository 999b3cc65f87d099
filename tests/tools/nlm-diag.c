/* nlm-diag: cv_nlmeans_cuda against cv_nlmeans_cpu, the internal entry
 * points below the operators (kernels/cuda-internal.h,
 * cpu-fallback/cpu-internal.h: no GStreamer, no base class, the scratch
 * memory the tool's own), on random frames with padded strides.
 * For every case: max |GPU - CPU|, % of components that differ, % that
 * differ by more than 1, the first component off by more than 1, and the
 * kernel time (cudaEvent around cv_nlmeans_cuda, second run). The device
 * output is poisoned (0xA5) before each run so that pixels the GPU never
 * writes show up. Exit status 1 when a case has more than 0.1 % of its
 * components off by more than 1 (or a CUDA/argument error), else 0.
 * Usage: nlm-diag [-q]  (-q: skip the big cases: 1080p, 4K and the
 * whole-frame ones over 256x256 / 300x200). Not a test, not installed: a
 * tool for the GPU machine (build/tests/tools/nlm-diag).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda-internal.h"
#include "cpu-internal.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the CvNlMeansParams tables below give the spatial fields only: h_color 0
 * (chroma copied) and no temporal window */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct
{
  int w, h, bpp, big;
  CvNlMeansParams p;
} Case;

#define PS (5.0 / 3.0)
static const Case cases[] = {
  /* GRAY8, small frames (one tile or two: the offsets split over z) */
  {24, 19, 1, 0, {60, 7, 21, PS, 0}}, {24, 19, 1, 0, {10, 7, 21, PS, 0}},
  {24, 19, 1, 0, {0.01, 5, 7, 0, 0}}, {24, 19, 1, 0, {60, 3, 3, 0, 0}},
  {24, 19, 1, 0, {60, 11, 0, 0, 15}}, {24, 19, 1, 0, {10.5, 7, 21, PS, 15}},
  {2, 1, 1, 0, {20, 11, 21, PS, 0}}, {2, 1, 1, 0, {0.01, 3, 3, 0, 0}},
  {2, 1, 1, 0, {60, 11, 0, 0, 0}},
  {40, 40, 1, 0, {0.01, 5, 7, 0, 0}}, {40, 40, 1, 0, {10, 7, 21, PS, 0}},
  {40, 40, 1, 0, {60, 9, 21, 2, 0}}, {40, 40, 1, 0, {60, 5, 0, PS, 0}},
  {40, 30, 1, 0, {0.001, 5, 7, 0, 0}},
  {256, 256, 1, 0, {10.5, 7, 21, PS, 15}}, {256, 256, 1, 0, {60, 7, 21, PS, 0}},
  {256, 256, 1, 0, {0.01, 7, 21, PS, 0}}, {256, 256, 1, 1, {60, 7, 0, PS, 0}},
  /* frames that fill the GPU (z = 1: the offsets are not split; the small
   * frames above split every Z-th offset, the whole-frame 256x256 and
   * 300x200 cases whole offset groups) */
  {3840, 2160, 1, 1, {10, 7, 21, PS, 0}},
  {1920, 1080, 1, 1, {10, 7, 21, PS, 0}},
  {1920, 1080, 1, 1, {60, 7, 21, PS, 0}},
  {1920, 1080, 1, 1, {0.01, 3, 3, 0, 0}},
  /* colour: RGB (3 bytes) and RGBx (4 bytes) */
  {24, 19, 3, 0, {60, 7, 21, PS, 0}}, {97, 61, 3, 0, {60, 5, 0, 0, 0}},
  {97, 61, 3, 0, {0.01, 7, 21, PS, 0}}, {640, 480, 4, 0, {10, 7, 21, PS, 0}},
  {640, 480, 4, 0, {60, 3, 21, 0, 15}},
  {300, 200, 3, 1, {60, 5, 0, PS, 0}},  /* z split by whole offset groups */
  {1920, 1080, 3, 1, {10, 7, 21, PS, 0}},
  {3840, 2160, 4, 1, {10, 5, 21, PS, 0}},
};

static unsigned int rng = 12345;

static unsigned int
next_rand (void)
{
  rng = rng * 1664525u + 1013904223u;
  return rng >> 24;
}

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf ("  CUDA error %s at %s\n", cudaGetErrorString (e_), #call); \
    return -1; } } while (0)

/* returns 1 when the case fails, 0 when it passes, -1 on an error */
static int
run_case (const Case * c)
{
  const int w = c->w, h = c->h, bpp = c->bpp;
  const size_t row = (size_t) w * bpp, hstride = row + 3;
  CvLumaLayout l = { 1, -1, -1, -1 };
  uint8_t *in = malloc (hstride * h), *cpu = calloc (hstride * h, 1);
  uint8_t *gpu = calloc (hstride * h, 1), *d_in, *d_out;
  CvCudaScratch scratch = { NULL, 0 };
  size_t dpitch, opitch, ssize, ndiff = 0, nbad = 0, n, i;
  int x, y, k, maxd = 0, fx = -1, fy = -1, fk = -1, st, run;
  float ms = 0;
  cudaStream_t stream;
  cudaEvent_t e0, e1;

  if (bpp == 3) {
    l.bpp = 3;
    l.r = 0;
    l.g = 1;
    l.b = 2;
  } else if (bpp == 4) {
    l.bpp = 4;
    l.r = 2;
    l.g = 1;
    l.b = 0;                    /* BGRx */
  }
  for (i = 0; i < hstride * h; i++)
    in[i] = (uint8_t) next_rand ();
  CK (cudaMallocPitch ((void **) &d_in, &dpitch, row, h));
  CK (cudaMallocPitch ((void **) &d_out, &opitch, row, h));
  CK (cudaMemcpy2D (d_in, dpitch, in, hstride, row, h, cudaMemcpyHostToDevice));
  ssize = cv_nlmeans_cuda_scratch_size (w, h, l, &c->p);
  if (ssize) {
    /* reserved now (cv_nlmeans_cuda finds it large enough) to fill it */
    if (cv_cuda_scratch_reserve (&scratch, ssize) != CV_OK)
      return -1;
    CK (cudaMemset (scratch.ptr, 0x7f, ssize)); /* NaN-ish garbage */
  }
  CK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  for (run = 0; run < 2; run++) {
    CvPlane s = { d_in, dpitch, w, h }, d = { d_out, opitch, w, h };
    CK (cudaMemset2D (d_out, opitch, 0xA5, row, h));
    CK (cudaDeviceSynchronize ());
    CK (cudaEventRecord (e0, stream));
    st = cv_nlmeans_cuda (&s, l, &d, &c->p, &scratch, stream);
    CK (cudaEventRecord (e1, stream));
    CK (cudaStreamSynchronize (stream));
    CK (cudaGetLastError ());
    if (st != CV_OK) {
      printf ("  cv_nlmeans_cuda returned %d\n", st);
      return -1;
    }
    CK (cudaEventElapsedTime (&ms, e0, e1));
  }
  CK (cudaMemcpy2D (gpu, hstride, d_out, opitch, row, h,
          cudaMemcpyDeviceToHost));
  {
    CvPlane s = { in, hstride, w, h }, d = { cpu, hstride, w, h };
    st = cv_nlmeans_cpu (&s, l, &d, &c->p, NULL);
    if (st != CV_OK) {
      printf ("  cv_nlmeans_cpu returned %d\n", st);
      return -1;
    }
  }
  n = (size_t) w *h * bpp;
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (k = 0; k < bpp; k++) {
        size_t o = (size_t) y * hstride + (size_t) x * bpp + k;
        int dd = abs ((int) gpu[o] - (int) cpu[o]);
        if (dd > maxd)
          maxd = dd;
        ndiff += dd > 0;
        if (dd > 1 && nbad++ == 0) {
          fx = x;
          fy = y;
          fk = k;
        }
      }
  printf ("%4dx%-4d bpp %d h %-5g patch %2d search %2d psig %.3g sigma %-3g "
      "scratch %8zu: max %3d, differ %6.2f %%, >1 %6.2f %%, kernel %8.3f ms",
      w, h, bpp, c->p.h, c->p.patch_size, c->p.search_window,
      c->p.patch_sigma, c->p.sigma, ssize, maxd, 100.0 * ndiff / n,
      100.0 * nbad / n, ms);
  if (nbad) {
    size_t o = (size_t) fy * hstride + (size_t) fx * bpp + fk;
    printf ("\n    first >1 at x %d y %d comp %d: GPU %d CPU %d input %d", fx,
        fy, fk, gpu[o], cpu[o], in[o]);
  }
  printf ("%s\n", nbad * 1000 > n ? "  FAIL" : "");
  cudaEventDestroy (e0);
  cudaEventDestroy (e1);
  cudaStreamDestroy (stream);
  cudaFree (d_in);
  cudaFree (d_out);
  cv_cuda_scratch_free (&scratch);
  free (in);
  free (cpu);
  free (gpu);
  return nbad * 1000 > n;
}

int
main (int argc, char **argv)
{
  int quick = argc > 1 && strcmp (argv[1], "-q") == 0, fails = 0, errors = 0;
  struct cudaDeviceProp prop;
  size_t i;

  if (cudaGetDeviceProperties (&prop, 0) != cudaSuccess) {
    printf ("no CUDA device\n");
    return 2;
  }
  printf ("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
    int r;
    if (quick && cases[i].big)
      continue;
    r = run_case (&cases[i]);
    if (r < 0)
      errors++;
    else
      fails += r;
  }
  printf ("%d case(s) failed, %d error(s)\n", fails, errors);
  return fails || errors ? 1 : 0;
}
