/* gst-cuda-vision benchmark: device-resident kernel timings, through the
 * CUDA operators the elements run (cv_*_cuda_ops, one submit per launch).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kbench.h"
#include "cvsobel.h"
#include "cuda-internal.h"
#include "cvcanny.h"
#include "cvtemplatematch.h"
#include "cvconvolve.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <functional>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  snprintf (err, err_size, "%s: %s", #call, cudaGetErrorString (e_)); \
  return 1; } } while (0)

namespace {

struct Plane
{
  CvPlane p;
  Plane (): p () {}
  ~Plane () { if (p.data) cudaFree (p.data); }
};

/* bytes per pixel and luma layout of the packed formats we time */
bool
layout_of (const char *format, CvLumaLayout * l)
{
  if (!strcmp (format, "GRAY8")) { *l = { 1, -1, -1, -1 }; return true; }
  if (!strcmp (format, "RGBA") || !strcmp (format, "RGBx")) { *l = { 4, 0, 1, 2 }; return true; }
  if (!strcmp (format, "BGRA") || !strcmp (format, "BGRx")) { *l = { 4, 2, 1, 0 }; return true; }
  if (!strcmp (format, "RGB")) { *l = { 3, 0, 1, 2 }; return true; }
  if (!strcmp (format, "BGR")) { *l = { 3, 2, 1, 0 }; return true; }
  return false;
}

cudaError_t
alloc_random (Plane & pl, int w, int h, int bpp)
{
  size_t pitch;
  cudaError_t e = cudaMallocPitch ((void **) &pl.p.data, &pitch,
      (size_t) w * bpp, h);
  if (e != cudaSuccess)
    return e;
  pl.p.stride = pitch;
  pl.p.width = w;
  pl.p.height = h;
  std::vector < unsigned char >host ((size_t) w * bpp * h);
  unsigned x = 12345;
  for (auto & v : host) {
    x = x * 1664525u + 1013904223u;
    v = (unsigned char) (x >> 24);
  }
  return cudaMemcpy2D (pl.p.data, pitch, host.data (), (size_t) w * bpp,
      (size_t) w * bpp, h, cudaMemcpyHostToDevice);
}

/* a frame with edges of every strength and long contours, as a camera
 * gives (rather than noise): a smooth wave, blocks and a little noise */
cudaError_t
alloc_pattern (Plane & pl, int w, int h, int bpp)
{
  size_t pitch;
  cudaError_t e = cudaMallocPitch ((void **) &pl.p.data, &pitch,
      (size_t) w * bpp, h);
  if (e != cudaSuccess)
    return e;
  pl.p.stride = pitch;
  pl.p.width = w;
  pl.p.height = h;
  std::vector < unsigned char >host ((size_t) w * bpp * h);
  unsigned r = 4242;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      r = r * 1664525u + 1013904223u;
      double v = 128 + 70 * sin (x * 0.031 + y * 0.017) * cos (y * 0.023) +
          ((x / 97 + y / 61) % 3 == 0 ? 40 : 0) + (int) (r >> 29) - 4;
      unsigned char c = (unsigned char) std::min (255.0, std::max (0.0, v));
      for (int b = 0; b < bpp; b++)
        host[((size_t) y * w + x) * bpp + b] = c;
    }
  return cudaMemcpy2D (pl.p.data, pitch, host.data (), (size_t) w * bpp,
      (size_t) w * bpp, h, cudaMemcpyHostToDevice);
}

/* the practical floor at a size: read every byte of a plane once and write
 * it once, 16 bytes per thread */
__global__ void
copy_kernel (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int row_bytes, int h)
{
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= row_bytes || y >= h)
    return;
  if (x + 16 <= row_bytes)
    *reinterpret_cast < uint4 * >(dst + (size_t) y * dstride + x) =
        __ldg (reinterpret_cast < const uint4 * >(src + (size_t) y * sstride +
            x));
  else
    for (int i = x; i < row_bytes; i++)
      dst[(size_t) y * dstride + i] = src[(size_t) y * sstride + i];
}

}                               /* namespace */

extern "C" int
cv_bench_kernel (const char *name, const char *format, int width, int height,
    int iters, double *us, double *bytes, char *err, int err_size)
{
  cudaStream_t s;
  std::function < int (cudaStream_t) > launch;
  Plane in, out, out2;
  CvSobelParams sp = { 0, 20, 3, CV_SOBEL_NORM_L2 };
  CvCannyParams kp = { 50, 150, 3, 0 };
  CvLumaLayout l;
  /* the operator of the kernel timed, its frame and exec */
  const CvOps *ops = NULL;
  void *op = NULL;
  CvFrame frame = { };
  CvExec ex = { };
  /* templatematch64 / templatematch200 */
  std::vector < unsigned char >tpix;
  CvTemplate tm = { };
  CvTemplateMatchFrameParams tp = { {CV_TM_CCOEFF_NORMED, 1, -1.0, 0},
  &tm, 1
  };
  CvConvolveParams cp;
  int cchannels = 1;

  if (!layout_of (format, &l)) {
    snprintf (err, err_size, "format %s not timed here", format);
    return 1;
  }
  CK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  if (!strcmp (name, "copy")) {
    CK (alloc_random (in, width, height, l.bpp));
    CK (alloc_random (out, width, height, l.bpp));
    *bytes = (double) width * height * l.bpp * 2;
    launch = [&](cudaStream_t st) {
      const int rb = width * l.bpp;
      dim3 block (32, 8), grid ((rb / 16 + 32) / 32, (height + 7) / 8);
      copy_kernel <<<grid, block, 0, st>>> (in.p.data, in.p.stride,
          out.p.data, out.p.stride, rb, height);
      return (int) cudaGetLastError ();
    };
  } else if (!strcmp (name, "canny") || !strcmp (name, "canny-noise")
      || !strcmp (name, "canny-noise-weak")) {
    /* cudacanny's defaults (50, 150, aperture 3, L1); canny: a camera-like
     * frame; canny-noise: random bytes, the worst case (edges everywhere,
     * the most union-find work); canny-noise-weak: random bytes with
     * thresholds 10 and 1100 (about 14 % edges): components of weak pixels
     * across many tiles with few strong seeds, the longest tree walks of
     * the output pass. With -w 3840 -h 2160 for the 4K figures; the floor
     * printed beside is one read of the input and one write of the edge
     * map at the device-copy bandwidth. */
    if (!strcmp (name, "canny-noise-weak")) {
      kp.low_threshold = 10;
      kp.high_threshold = 1100;
    }
    if (!strcmp (name, "canny"))
      CK (alloc_pattern (in, width, height, l.bpp));
    else
      CK (alloc_random (in, width, height, l.bpp));
    CK (alloc_random (out, width, height, 1));
    *bytes = (double) width * height * (l.bpp + 1);
    CvCannyInfo info = { };
    info.layout = l;
    info.width = width;
    info.height = height;
    info.n_out_planes = 1;
    ops = &cv_canny_cuda_ops;
    if (ops->create (&info, 1, &op) != CV_OK) {
      snprintf (err, err_size, "canny operator: create failed");
      return 1;
    }
    frame.in[0] = in.p;
    frame.out[0] = out.p;
    launch = [&](cudaStream_t st) {
      ex.stream = st;
      return ops->submit (op, 0, &frame, &kp, &ex);
    };
  } else if (!strcmp (name, "sobel-r4") || !strcmp (name, "sobel-r8")) {
    /* the shuffle kernel with 4 or 8 rows a thread (cv_sobel_cuda_variant);
     * the shipped choice is "sobel" */
    const int variant = name[7] - '0';
    CK (alloc_random (in, width, height, l.bpp));
    CK (alloc_random (out, width, height, 1));
    *bytes = (double) width * height * (l.bpp + 1);
    launch = [&, variant](cudaStream_t st) {
      return cv_sobel_cuda_variant (&in.p, l, &out.p, &sp, st, variant);
    };
  } else if (!strcmp (name, "sobel") || !strcmp (name, "sobel5")
      || !strcmp (name, "sobel7") || !strcmp (name, "sobel-nv12")) {
    /* sobel5, sobel7: kernel-size 5, 7 (sobel_sep_kernel), e.g. -k sobel7
     * -f GRAY8 -w 1920 -h 1080 or -f RGBA -w 3840 -h 2160 (matrix.txt);
     * sobel-nv12: cudasobel's NV12 frame (-f GRAY8: the luma's layout),
     * the Sobel of the Y plane and the neutral chroma of the UV plane, as
     * the element runs it on NV12 in CUDA memory (the kernel-bound rate
     * of the stream tables, docs/benchmarks.md). The floor printed
     * beside: one read of the input and one write of the output planes
     * at the device-copy bandwidth */
    const bool nv12 = !strcmp (name, "sobel-nv12");
    sp.kernel_size = !nv12 && name[5] ? name[5] - '0' : 3;
    CK (alloc_random (in, width, height, l.bpp));
    CK (alloc_random (out, width, height, 1));
    *bytes = (double) width * height * (l.bpp + 1);
    if (nv12) {
      CK (alloc_random (out2, (width + 1) / 2, (height + 1) / 2, 2));
      *bytes += 2.0 * ((width + 1) / 2) * ((height + 1) / 2);
    }
    CvSobelInfo info = { };
    info.layout = l;
    info.width = width;
    info.height = height;
    info.n_out_planes = nv12 ? 2 : 1;
    info.out_pixel_stride[1] = 2;
    ops = &cv_sobel_cuda_ops;
    if (ops->create (&info, 1, &op) != CV_OK) {
      snprintf (err, err_size, "sobel operator: bad info");
      return 1;
    }
    frame.in[0] = in.p;
    frame.out[0] = out.p;
    frame.out[1] = out2.p;
    launch = [&](cudaStream_t st) {
      ex.stream = st;
      return ops->submit (op, 0, &frame, &sp, &ex);
    };
  } else if (!strcmp (name, "templatematch64")
      || !strcmp (name, "templatematch200")) {
    /* ccoeff-normed, best match: luma, integral images, correlation (path
     * chosen as the element does; CUDAVISION_TM_PATH=direct|gemm|gemm3
     * overrides), best-match search, result copied to pinned memory */
    const int tw = name[13] == '6' ? 64 : 200, th = tw == 64 ? 64 : 150;
    if (width < tw || height < th) {
      snprintf (err, err_size, "frame smaller than the %dx%d template", tw,
          th);
      return 1;
    }
    CK (alloc_random (in, width, height, l.bpp));
    tpix.resize ((size_t) tw * th);
    unsigned x = 777;
    for (auto & v : tpix) {
      x = x * 1664525u + 1013904223u;
      v = (unsigned char) (x >> 24);
    }
    tm.plane.data = tpix.data ();
    tm.plane.stride = tw;
    tm.plane.width = tw;
    tm.plane.height = th;
    for (unsigned char v : tpix) {
      tm.sum += v;
      tm.sumsq += (int64_t) v * v;
    }
    tm.flat = 0;
    tm.id = 1;
    *bytes = (double) width * height * l.bpp;
    CvTemplateMatchInfo info = { };
    info.layout = l;
    info.width = width;
    info.height = height;
    info.score_map = 0;
    /* the result in the operator's pinned memory */
    ops = &cv_template_match_cuda_ops;
    if (ops->create (&info, 1, &op) != CV_OK) {
      snprintf (err, err_size, "template matching operator: create failed");
      return 1;
    }
    frame.in[0] = in.p;
    launch = [&](cudaStream_t st) {
      ex.stream = st;
      return ops->submit (op, 0, &frame, &tp, &ex);
    };
  } else if (!strncmp (name, "convolve-", 9)) {
    /* as cudaconvolve prepares them: named chains or one random
     * (non-separable) custom kernel, default border reflect-101; RGBA-like
     * formats filter 3 of their 4 bytes */
    const char *c = name + 9;
    memset (&cp, 0, sizeof (cp));
    cp.border_mode = CV_BORDER_REFLECT_101;
    cp.ksize = 1;
    cp.kernel[0] = 1.0f;
    cp.n_filters = 1;
    if (!strcmp (c, "blur")) {
      cp.filters[0] = CV_FILTER_BLUR;
    } else if (!strcmp (c, "edge")) {
      cp.filters[0] = CV_FILTER_EDGE_DETECT;
    } else if (!strcmp (c, "blur-edge")) {
      cp.n_filters = 2;
      cp.filters[0] = CV_FILTER_BLUR;
      cp.filters[1] = CV_FILTER_EDGE_DETECT;
    } else if (!strcmp (c, "custom7") || !strcmp (c, "custom15")
        || !strcmp (c, "custom31") || !strcmp (c, "custom15-dyadic")
        || !strcmp (c, "custom31-dyadic")) {
      /* custom7 (e.g. -f RGB, beside CV-CUDA's conv2d), custom15,
       * custom31: random weights of 24 significant bits (multiply + add
       * per tap); -dyadic: random multiples of 2^-12 (8 significant bits,
       * every product with a byte exact: one fused multiply-add per tap,
       * same results) */
      const bool dyadic = strstr (c, "-dyadic") != NULL;
      unsigned x = 777;
      cp.filters[0] = CV_FILTER_CUSTOM;
      cp.ksize = atoi (c + 6);
      for (int i = 0; i < cp.ksize * cp.ksize; i++) {
        x = x * 1664525u + 1013904223u;
        cp.kernel[i] = dyadic ? (float) ((int) (x >> 24) - 128) / 4096.0f :
            ((float) (x >> 8) / 16777216.0f - 0.5f) / (float) cp.ksize;
      }
    } else {
      snprintf (err, err_size, "unknown kernel %s", name);
      return 1;
    }
    if (cv_convolve_params_prepare (&cp) != CV_OK) {
      snprintf (err, err_size, "bad convolve parameters");
      return 1;
    }
    cchannels = l.bpp == 4 ? 3 : l.bpp;
    CK (alloc_random (in, width, height, l.bpp));
    CK (alloc_random (out, width, height, l.bpp));
    *bytes = (double) width * height * l.bpp * 2;
    CvConvolveInfo info = { };
    info.width = width;
    info.height = height;
    info.n_planes = 1;
    info.bpp[0] = l.bpp;
    info.channels[0] = cchannels;
    /* the scratch of long chains in the operator */
    ops = &cv_convolve_cuda_ops;
    if (ops->create (&info, 1, &op) != CV_OK) {
      snprintf (err, err_size, "convolve operator: bad info");
      return 1;
    }
    frame.in[0] = in.p;
    frame.out[0] = out.p;
    launch = [&](cudaStream_t st) {
      ex.stream = st;
      return ops->submit (op, 0, &frame, &cp, &ex);
    };
  } else {
    snprintf (err, err_size, "unknown kernel %s", name);
    return 1;
  }

  /* warm up, then capture iters launches in a graph */
  for (int i = 0; i < 10; i++)
    if (launch (s) != 0) {
      snprintf (err, err_size, "launch failed");
      return 1;
    }
  CK (cudaStreamSynchronize (s));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK (cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < iters; i++)
    launch (s);
  CK (cudaStreamEndCapture (s, &graph));
  CK (cudaGraphInstantiate (&exec, graph, 0));
  cudaEvent_t a, b;
  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  std::vector < double >t;
  for (int r = 0; r < 6; r++) {
    float ms;
    CK (cudaEventRecord (a, s));
    CK (cudaGraphLaunch (exec, s));
    CK (cudaEventRecord (b, s));
    CK (cudaEventSynchronize (b));
    CK (cudaEventElapsedTime (&ms, a, b));
    if (r > 0)
      t.push_back (ms * 1000.0 / iters);
  }
  std::sort (t.begin (), t.end ());
  *us = t[t.size () / 2];
  cudaGraphExecDestroy (exec);
  cudaGraphDestroy (graph);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  cudaStreamDestroy (s);
  if (op)
    ops->destroy (op);
  return 0;
}
