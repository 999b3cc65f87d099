/* apicost: the host CPU one call of each kind costs (thread CPU time per
 * call, best of 5 loops of 20 000; the stream synchronised every 256
 * calls, outside the timing): a system call, a futex wake without a
 * waiter, cudaEventRecord / Query, kernel launches (<<<>>>,
 * cudaLaunchKernel, cuLaunchKernel of a cached CUfunction, with another
 * thread polling an event), cudaMemset2DAsync of a 1080p NV12 UV plane,
 * a context push + pop, nanosleep of 1-64 us. What issue #24's host path
 * is made of (docs/benchmarks.md, seventh session). A diagnostic tool for
 * the GPU machine, not built by meson (it needs the driver's libcuda):
 *   nvcc -O2 -arch=sm_90 -o apicost tests/tools/apicost.cu -lcuda
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <sys/prctl.h>
static double cpu_us () { timespec t; clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static double wall_us () { timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
__global__ void empty () {}
struct Fill { unsigned char *d[2]; size_t s[2]; int rb[2]; int r[2]; int n; unsigned char v; };
__global__ void params (const unsigned char *a, size_t as, int x, int y, int z, unsigned char *b, size_t bs, int w, int h, int br, int th, const Fill f) { if (f.n == 99) b[0] = a[0]; }
#include <pthread.h>
static volatile int stop_poll;
static cudaEvent_t poll_ev;
static void *poller (void *) { cudaSetDevice (0); while (!stop_poll) { cudaEventQuery (poll_ev); timespec t = { 0, 20000 }; nanosleep (&t, 0); } return 0; }
__global__ void spin (long long ns) { long long s = clock64 (); while (clock64 () - s < ns * 2) ; }
#define N 20000
#define RUN(name, setup, ...) do { double best = 1e9, bw = 0; for (int rep = 0; rep < 5; rep++) { setup; double c0 = cpu_us (), w0 = wall_us (); for (int i = 0; i < N; i++) { __VA_ARGS__; if ((i & 255) == 255) { double c1 = cpu_us (); cudaStreamSynchronize (s); c0 += cpu_us () - c1; } } double c = (cpu_us () - c0) / N, w = (wall_us () - w0) / N; if (c < best) { best = c; bw = w; } } printf ("%-40s cpu %7.3f us/call  wall %7.3f\n", name, best, bw); } while (0)
int main () {
  prctl (PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  cudaStream_t s; cudaSetDevice (0); cudaFree (0);
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  cudaEvent_t e, e2; cudaEventCreateWithFlags (&e, cudaEventDisableTiming); cudaEventCreateWithFlags (&e2, cudaEventDisableTiming);
  unsigned char *d; size_t pitch; cudaMallocPitch ((void **) &d, &pitch, 1920, 540);
  unsigned char *dt; cudaMalloc ((void **) &dt, 1920 * 540);
  CUcontext ctx; cuCtxGetCurrent (&ctx);
  int fut = 0;
  RUN ("getppid (a syscall)", , syscall (SYS_getppid));
  RUN ("futex wake, no waiter", , syscall (SYS_futex, &fut, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0));
  RUN ("cudaEventRecord", , cudaEventRecord (e, s));
  RUN ("cudaEventQuery (done)", cudaEventRecord (e, s); cudaStreamSynchronize (s), cudaEventQuery (e));
  RUN ("cudaStreamQuery (idle)", , cudaStreamQuery (s));
  RUN ("empty kernel <<<1,32>>>", , empty <<< 1, 32, 0, s >>> ());
  RUN ("empty kernel <<<(60,135),(32,8)>>>", , empty <<< dim3 (60, 135), dim3 (32, 8), 0, s >>> ());
  Fill F = { };
  RUN ("params kernel <<<(15,34),(32,8)>>>", , params <<< dim3 (15, 34), dim3 (32, 8), 0, s >>> (d, 1920, 0, 0, 0, dt, 1920, 1920, 1080, 0, 0, F));
  {
    void *args[] = { &d, &pitch, &fut, &fut, &fut, &dt, &pitch, &fut, &fut, &fut, &fut, &F };
    RUN ("cudaLaunchKernel params", , cudaLaunchKernel ((const void *) params, dim3 (15, 34), dim3 (32, 8), args, 0, s));
    cudaFunction_t fn; cudaGetFuncBySymbol (&fn, (const void *) params);
    RUN ("cuLaunchKernel params (cached CUfunction)", , cuLaunchKernel ((CUfunction) fn, 15, 34, 1, 32, 8, 1, 0, (CUstream) s, args, 0));
    cudaFunction_t fe; cudaGetFuncBySymbol (&fe, (const void *) empty);
    RUN ("cuLaunchKernel empty (cached CUfunction)", , cuLaunchKernel ((CUfunction) fe, 1, 1, 1, 32, 1, 1, 0, (CUstream) s, 0, 0));
    cudaEventCreateWithFlags (&poll_ev, cudaEventDisableTiming);
    spin <<< 1, 1, 0, s >>> (1000); cudaEventRecord (poll_ev, s);
    pthread_t th; pthread_create (&th, 0, poller, 0);
    RUN ("params kernel, another thread polling", , params <<< dim3 (15, 34), dim3 (32, 8), 0, s >>> (d, 1920, 0, 0, 0, dt, 1920, 1920, 1080, 0, 0, F));
    stop_poll = 1; pthread_join (th, 0);
  }
  RUN ("cudaMemset2DAsync 1920x540 pitched", , cudaMemset2DAsync (d, pitch, 128, 1920, 540, s));
  RUN ("cudaMemset2DAsync 1920x540 tight", , cudaMemset2DAsync (dt, 1920, 128, 1920, 540, s));
  RUN ("cudaMemsetAsync 1920*540", , cudaMemsetAsync (dt, 128, 1920 * 540, s));
  RUN ("cuCtxPushCurrent+Pop", , { cuCtxPushCurrent (ctx); CUcontext p; cuCtxPopCurrent (&p); });
  RUN ("cudaGetLastError", , cudaGetLastError ());
  {
    // query of a pending event
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      spin <<< 1, 1, 0, s >>> (20000000); cudaEventRecord (e, s);
      double c0 = cpu_us (); int n = 0; for (; n < 2000; n++) cudaEventQuery (e); double c = (cpu_us () - c0) / n;
      cudaStreamSynchronize (s); if (c < best) best = c;
    }
    printf ("%-40s cpu %7.3f us/call\n", "cudaEventQuery (pending)", best);
  }
  for (int us = 1; us <= 64; us *= 4) {
    double c0 = cpu_us (), w0 = wall_us (); int n = 2000;
    for (int i = 0; i < n; i++) { timespec t = { 0, us * 1000 }; nanosleep (&t, 0); }
    printf ("nanosleep %2d us: cpu %7.3f us/call wall %7.3f\n", us, (cpu_us () - c0) / n, (wall_us () - w0) / n);
  }
  return 0;
}
