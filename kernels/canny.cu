/* gst-cuda-vision: Canny edge detection on the GPU, everything on the
 * device (no host round trip, no host-dependent iteration count):
 *  1. classes: one block per 32x8 tile reads its luma with a K / 2 + 1
 *     halo (border replicated) into shared memory, computes the Sobel
 *     derivatives and magnitudes of the tile plus a 1-pixel ring (0
 *     outside the frame), then the non-maximum suppression and the class
 *     of each pixel (none, weak, strong: canny_core.h, as the CPU);
 *  2. union-find over the weak and strong pixels, 8-connectivity, each
 *     pixel joining its west, north-west, north and north-east neighbours
 *     with atomicMin on the labels (O. Kalentev et al., "Connected
 *     component labeling on a 2D grid using CUDA", 2011; D. Playne,
 *     K. Hawick, "A new algorithm for parallel connected-component
 *     labelling on GPUs", IEEE TPDS 2018);
 *  3. each label compressed to its root; roots of components holding a
 *     strong pixel marked;
 *  4. the output map: 255 where a pixel's root is marked.
 * The same edges as the CPU's stack hysteresis (cpu-fallback/canny.c):
 * the components of weak and strong pixels that contain a strong one.
 * The operator (cv_canny_cuda_ops) at the end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda-internal.h"
#include "cvop-internal.h"
#include "canny_core.h"

#include <cuda_runtime.h>
#include <stdlib.h>

namespace {

constexpr int kTX = 32;
constexpr int kTY = 8;

template < int K, bool L2 >
__global__ void __launch_bounds__ (kTX * kTY)
canny_class_kernel (const uint8_t * __restrict__ src, size_t sstride,
    int bpp, int ro, int go, int bo, int w, int h, int low, int high,
    uint8_t * __restrict__ cls, int *__restrict__ labels)
{
  constexpr int R = K / 2;
  constexpr int RH = R + 1;     /* luma halo: the gradients' ring too */
  constexpr int LW = kTX + 2 * RH, LH = kTY + 2 * RH;
  constexpr int GW = kTX + 2, GH = kTY + 2;     /* gradients, 1-pixel ring */
  __shared__ int16_t lum[LH][LW];
  __shared__ int vs[GH][LW], vd[GH][LW];
  __shared__ int sdx[GH][GW], sdy[GH][GW], smag[GH][GW];

  const int bx = blockIdx.x * kTX, by = blockIdx.y * kTY;
  const int tid = threadIdx.y * kTX + threadIdx.x;
  constexpr int kThreads = kTX * kTY;

  for (int i = tid; i < LH * LW; i += kThreads) {
    const int ty = i / LW, tx = i % LW;
    const int gy = cv_border_replicate (by - RH + ty, h);
    const int gx = cv_border_replicate (bx - RH + tx, w);
    const uint8_t *p = src + (size_t) gy * sstride + (size_t) gx * bpp;
    lum[ty][tx] = (int16_t) (ro < 0 ? __ldg (p) :
        cv_luma (__ldg (p + ro), __ldg (p + go), __ldg (p + bo)));
  }
  __syncthreads ();
  /* vertical passes: gradient row g is centred on luma row g + R */
  for (int i = tid; i < GH * LW; i += kThreads) {
    const int ty = i / LW, tx = i % LW;
    int s = 0, d = 0;
#pragma unroll
    for (int j = 0; j < K; j++) {
      s += cv_sobel_smooth_coeff (K, j) * lum[ty + j][tx];
      d += cv_sobel_deriv_coeff (K, j) * lum[ty + j][tx];
    }
    vs[ty][tx] = s;
    vd[ty][tx] = d;
  }
  __syncthreads ();
  for (int i = tid; i < GH * GW; i += kThreads) {
    const int ty = i / GW, tx = i % GW;
    const int gy = by - 1 + ty, gx = bx - 1 + tx;
    int dx = 0, dy = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
      dx += cv_sobel_deriv_coeff (K, k) * vs[ty][tx + k];
      dy += cv_sobel_smooth_coeff (K, k) * vd[ty][tx + k];
    }
    dx = cv_canny_scale_deriv (dx, K);
    dy = cv_canny_scale_deriv (dy, K);
    sdx[ty][tx] = dx;
    sdy[ty][tx] = dy;
    smag[ty][tx] = (gx >= 0 && gx < w && gy >= 0 && gy < h) ?
        cv_canny_magnitude (dx, dy, L2) : 0;
  }
  __syncthreads ();

  const int x = bx + threadIdx.x, y = by + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  const int c = cv_canny_class (smag[ty][tx], sdx[ty][tx], sdy[ty][tx],
      smag[ty - 1][tx - 1], smag[ty - 1][tx], smag[ty - 1][tx + 1],
      smag[ty][tx - 1], smag[ty][tx + 1],
      smag[ty + 1][tx - 1], smag[ty + 1][tx], smag[ty + 1][tx + 1],
      low, high);
  const int idx = y * w + x;
  cls[idx] = (uint8_t) c;
  labels[idx] = c != CV_CANNY_NONE ? idx : -1;
}

/* the root of x; loads through L2 (__ldcg), where the atomics are, never
 * from a stale L1 line (a stale label would still be an ancestor: the
 * union below retries until its atomicMin lands on a root) */
__device__ __forceinline__ int
uf_find (int *labels, int x)
{
  int p = __ldcg (labels + x);
  while (p != x) {
    x = p;
    p = __ldcg (labels + x);
  }
  return x;
}

/* join the sets of a and b: the larger root points at the smaller one */
__device__ void
uf_union (int *labels, int a, int b)
{
  bool done;

  do {
    a = uf_find (labels, a);
    b = uf_find (labels, b);
    if (a < b) {
      const int old = atomicMin (&labels[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const int old = atomicMin (&labels[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

__global__ void
canny_union_kernel (const uint8_t * __restrict__ cls, int *labels, int w,
    int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const int i = y * w + x;
  if (cls[i] == CV_CANNY_NONE)
    return;
  if (x > 0 && cls[i - 1] != CV_CANNY_NONE)
    uf_union (labels, i, i - 1);
  if (y > 0) {
    const int n = i - w;
    if (x > 0 && cls[n - 1] != CV_CANNY_NONE)
      uf_union (labels, i, n - 1);
    if (cls[n] != CV_CANNY_NONE)
      uf_union (labels, i, n);
    if (x + 1 < w && cls[n + 1] != CV_CANNY_NONE)
      uf_union (labels, i, n + 1);
  }
}

/* every label to its root; roots of components with a strong pixel
 * marked */
__global__ void
canny_compress_kernel (const uint8_t * __restrict__ cls, int *labels,
    uint8_t * __restrict__ strong_root, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || cls[i] == CV_CANNY_NONE)
    return;
  const int root = uf_find (labels, i);
  labels[i] = root;
  if (cls[i] == CV_CANNY_STRONG)
    strong_root[root] = 1;
}

__global__ void
canny_output_kernel (const uint8_t * __restrict__ cls,
    const int *__restrict__ labels, const uint8_t * __restrict__ strong_root,
    uint8_t * __restrict__ dst, size_t dstride, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const int i = y * w + x;
  dst[(size_t) y * dstride + x] = (uint8_t) (cls[i] != CV_CANNY_NONE
      && strong_root[labels[i]] ? 255 : 0);
}

template < int K >
void
launch_class (const CvPlane * src, CvLumaLayout l, bool l2, int low,
    int high, uint8_t * cls, int *labels, cudaStream_t s)
{
  dim3 block (kTX, kTY);
  dim3 grid (cv_div_up (src->width, kTX), cv_div_up (src->height, kTY));
  if (l2)
    canny_class_kernel < K, true > <<<grid, block, 0, s>>> (src->data,
        src->stride, l.bpp, l.r, l.g, l.b, src->width, src->height, low,
        high, cls, labels);
  else
    canny_class_kernel < K, false > <<<grid, block, 0, s>>> (src->data,
        src->stride, l.bpp, l.r, l.g, l.b, src->width, src->height, low,
        high, cls, labels);
}

/* ---- the operator (cvcanny.h) ---- */

struct CannyOp
{
  CvCannyInfo info;
  uint8_t *cls;                 /* w x h classes */
  int *labels;                  /* w x h union-find labels */
  uint8_t *strong_root;         /* w x h: 1 at roots holding a strong pixel */
};

void
canny_destroy (void *op)
{
  CannyOp *o = (CannyOp *) op;

  if (!o)
    return;
  cudaFree (o->cls);
  cudaFree (o->labels);
  cudaFree (o->strong_root);
  free (o);
}

int
canny_create (const void *info, void **op)
{
  CannyOp *o;
  size_t n;
  cudaError_t e;

  if (!op)
    return CV_ERROR_INVALID_ARGUMENT;
  *op = NULL;
  if (!cv_edge_map_info_valid ((const CvEdgeMapInfo *) info))
    return CV_ERROR_INVALID_ARGUMENT;
  o = (CannyOp *) calloc (1, sizeof (CannyOp));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *(const CvCannyInfo *) info;
  n = (size_t) o->info.width * o->info.height;
  e = cudaMalloc (&o->cls, n);
  if (e == cudaSuccess)
    e = cudaMalloc (&o->labels, n * sizeof (int));
  if (e == cudaSuccess)
    e = cudaMalloc (&o->strong_root, n);
  if (e != cudaSuccess) {
    canny_destroy (o);
    return e == cudaErrorMemoryAllocation ? CV_ERROR_NO_MEMORY : (int) e;
  }
  *op = o;
  return CV_OK;
}

int
canny_submit (void *op, const CvFrame * frame, const void *params,
    const CvExec * exec)
{
  CannyOp *o = (CannyOp *) op;
  const CvCannyParams *p = (const CvCannyParams *) params;
  cudaStream_t s = (cudaStream_t) cv_exec_stream (exec);
  int low, high, k;

  if (!o || !p || !cv_edge_map_frame_valid (&o->info, frame)
      || !cv_canny_params_valid (p))
    return CV_ERROR_INVALID_ARGUMENT;
  const int w = o->info.width, h = o->info.height;
  if (h > 65535 * kTY)
    return CV_ERROR_INVALID_ARGUMENT;
  k = p->kernel_size == 0 ? 3 : p->kernel_size;
  cv_canny_thresholds (p, &low, &high);
  const bool l2 = p->l2_gradient != 0;
  const CvPlane *src = &frame->in[0];

  if (k == 3)
    launch_class < 3 > (src, o->info.layout, l2, low, high, o->cls,
        o->labels, s);
  else if (k == 5)
    launch_class < 5 > (src, o->info.layout, l2, low, high, o->cls,
        o->labels, s);
  else
    launch_class < 7 > (src, o->info.layout, l2, low, high, o->cls,
        o->labels, s);
  CV_CUDA_TRY (cudaGetLastError ());
  CV_CUDA_TRY (cudaMemsetAsync (o->strong_root, 0, (size_t) w * h, s));
  {
    dim3 block (32, 8);
    dim3 grid (cv_div_up (w, 32), cv_div_up (h, 8));
    const int n = w * h;
    canny_union_kernel <<<grid, block, 0, s>>> (o->cls, o->labels, w, h);
    canny_compress_kernel <<<cv_div_up (n, 256), 256, 0, s>>> (o->cls,
        o->labels, o->strong_root, n);
    canny_output_kernel <<<grid, block, 0, s>>> (o->cls, o->labels,
        o->strong_root, frame->out[0].data, frame->out[0].stride, w, h);
    CV_CUDA_TRY (cudaGetLastError ());
  }
  /* neutral chroma of NV12 / I420 output */
  for (int i = 1; i < o->info.n_out_planes; i++) {
    CvPlane pl = frame->out[i];
    int status = cv_fill_plane_cuda (&pl, o->info.out_pixel_stride[i], 128,
        s);
    if (status != CV_OK)
      return status;
  }
  return CV_OK;
}

const void *
canny_results (void *op)
{
  (void) op;
  return NULL;
}

}                               /* namespace */

extern "C" const CvOps cv_canny_cuda_ops = {
  "canny-cuda", canny_create, canny_submit, canny_results, canny_destroy
};
