/* gst-cuda-vision: Canny edge detection on the GPU, everything on the
 * device in three kernels, no host round trip and no iteration to a
 * fixpoint (neither global nor per tile):
 *  1. per 32x32 tile (one block): the luma with a K / 2 + 1 halo (border
 *     replicated) into shared memory, the Sobel derivatives and
 *     magnitudes of the tile plus a 1-pixel ring (0 outside the frame),
 *     the non-maximum suppression and the class of each pixel (none, weak,
 *     strong: canny_core.h, as the CPU), then the 8-connected components
 *     of the tile's weak and strong pixels by union-find in shared memory
 *     (atomicMin), each marked when it holds a strong pixel; writes a
 *     byte per pixel (none, candidate of a weak or of a strong tile
 *     component) and, for the candidates, the key of their tile root;
 *  2. the links that cross tile borders only (the tiles' outer rows and
 *     columns), union-find with atomicMin on the global keys; a key
 *     orders the strong tile components before the weak ones, so the
 *     root of every component is strong exactly when it holds a strong
 *     pixel (D. Playne, K. Hawick, "A new algorithm for parallel
 *     connected-component labelling on GPUs", IEEE TPDS 2018: block-based
 *     union-find; O. Kalentev et al., 2011);
 *  3. the output map: 255 on candidates of strong tile components, and
 *     on those of weak ones whose tree reaches a strong key.
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

/* the labelling tile: a block of kBX x kBY threads classifies and labels
 * a kTW x kTH tile, kTH / kBY rows a thread */
constexpr int kTW = 32;
constexpr int kTH = 32;
constexpr int kBX = 32;
constexpr int kBY = 8;
constexpr int kRows = kTH / kBY;
static_assert (kBX == kTW && kTH % kBY == 0, "tile / block shape");

/* the tallest frame accepted (the documented GPU limit, cvcanny.h) */
constexpr int kMaxRows = 524280;

/* the classes map written by the labelling kernel (cls[]):
 * not an edge candidate, a candidate of a tile-local component without a
 * strong pixel, a candidate of a tile-local component with one */
constexpr uint8_t kNone = 0;
constexpr uint8_t kWeakLocal = 1;
constexpr uint8_t kStrongLocal = 2;

/* Labels (global, unsigned, candidates only): the key of the parent.
 * key (n) = n | (0x80000000 when n's tile-local component has no strong
 * pixel); n the pixel index y * w + x (< 2^31 - 1). A root r has
 * labels[r] == key (r). Every tree link goes from a larger key to a
 * smaller one, so a component's root is its smallest key: a strong one
 * (bit 31 clear) exactly when the component holds a strong pixel. */
constexpr unsigned kWeakBit = 0x80000000u;
constexpr unsigned kIndex = 0x7fffffffu;

/* ---- tile-local union-find in shared memory (labels = local indices,
 * the smaller one the root). While unions run, every access to lab[] is
 * atomic (no plain read races an atomicMin). */
__device__ __forceinline__ int
tile_find_atomic (int *lab, int x)
{
  int p = atomicOr (&lab[x], 0);
  while (p != x) {
    x = p;
    p = atomicOr (&lab[x], 0);
  }
  return x;
}

__device__ void
tile_union (int *lab, int a, int b)
{
  for (;;) {
    a = tile_find_atomic (lab, a);
    b = tile_find_atomic (lab, b);
    if (a == b)
      return;
    if (a > b) {
      const int t = a;
      a = b;
      b = t;
    }
    /* link root b under a; if b stopped being a root meanwhile, join a
     * with what b points to now */
    const int old = atomicMin (&lab[b], a);
    if (old == b)
      return;
    b = old;
  }
}

/* after the unions (no writer left): plain reads */
__device__ __forceinline__ int
tile_find (const int *lab, int x)
{
  int p = lab[x];
  while (p != x) {
    x = p;
    p = lab[x];
  }
  return x;
}

/* Pass 1: one block per kTW x kTH tile: the luma with a K / 2 + 1 halo
 * (border replicated) into shared memory, the Sobel derivatives and
 * magnitudes of the tile plus a 1-pixel ring (0 outside the frame), the
 * non-maximum suppression and class of each pixel (canny_core.h, as the
 * CPU); then the 8-connected components of the tile's candidates (weak
 * and strong pixels) by union-find in shared memory, each marked strong
 * when it holds a strong pixel. Writes cls[] (kNone, kWeakLocal,
 * kStrongLocal) for every pixel and labels[] (the key of the tile-local
 * root) for the candidates. */
template < int K, bool L2 >
__global__ void __launch_bounds__ (kBX * kBY)
canny_tile_kernel (const uint8_t * __restrict__ src, size_t sstride,
    int bpp, int ro, int go, int bo, int w, int h, int low, int high,
    uint8_t * __restrict__ cls, unsigned *__restrict__ labels)
{
  constexpr int R = K / 2;
  constexpr int RH = R + 1;     /* luma halo: the gradients' ring too */
  constexpr int LW = kTW + 2 * RH, LH = kTH + 2 * RH;
  constexpr int GW = kTW + 2, GH = kTH + 2;     /* gradients, 1-pixel ring */
  constexpr int kThreads = kBX * kBY;
  __shared__ int16_t lum[LH][LW];
  __shared__ int16_t sdx[GH][GW], sdy[GH][GW];
  __shared__ int smag[GH][GW];
  /* the vertical sums, dead once the gradients are made, then the
   * labelling's arrays */
  __shared__ union
  {
    struct
    {
      int vs[GH][LW], vd[GH][LW];
    } g;
    struct
    {
      int lab[kTH * kTW];       /* local parent, -1: not a candidate */
      int strong[kTH * kTW];    /* at local roots: holds a strong pixel */
      uint8_t c[kTH * kTW];     /* class */
    } u;
  } sh;

  const int bx = blockIdx.x * kTW, by = blockIdx.y * kTH;
  const int tid = threadIdx.y * kBX + threadIdx.x;

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
    sh.g.vs[ty][tx] = s;
    sh.g.vd[ty][tx] = d;
  }
  __syncthreads ();
  for (int i = tid; i < GH * GW; i += kThreads) {
    const int ty = i / GW, tx = i % GW;
    const int gy = by - 1 + ty, gx = bx - 1 + tx;
    int dx = 0, dy = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
      dx += cv_sobel_deriv_coeff (K, k) * sh.g.vs[ty][tx + k];
      dy += cv_sobel_smooth_coeff (K, k) * sh.g.vd[ty][tx + k];
    }
    dx = cv_canny_scale_deriv (dx, K);
    dy = cv_canny_scale_deriv (dy, K);
    /* |dx|, |dy| <= 12240 (aperture 5), 2040 (3), 10200 (7 / 16) */
    sdx[ty][tx] = (int16_t) dx;
    sdy[ty][tx] = (int16_t) dy;
    smag[ty][tx] = (gx >= 0 && gx < w && gy >= 0 && gy < h) ?
        cv_canny_magnitude (dx, dy, L2) : 0;
  }
  __syncthreads ();             /* vs, vd dead from here: sh.u */

  const int lx = threadIdx.x;
  const int x = bx + lx;
  int cl[kRows], first[kRows];
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, y = by + ly;
    const int tx = lx + 1, ty = ly + 1, j = ly * kTW + lx;
    int c = CV_CANNY_NONE;
    if (x < w && y < h)
      c = cv_canny_class (smag[ty][tx], sdx[ty][tx], sdy[ty][tx],
          smag[ty - 1][tx - 1], smag[ty - 1][tx], smag[ty - 1][tx + 1],
          smag[ty][tx - 1], smag[ty][tx + 1],
          smag[ty + 1][tx - 1], smag[ty + 1][tx], smag[ty + 1][tx + 1],
          low, high);
    /* a warp is a tile row: the candidates of this row, and the first
     * pixel of this one's run of candidates, its parent */
    const unsigned run = __ballot_sync (0xffffffffu, c != CV_CANNY_NONE);
    const unsigned gaps = ~run & ((1u << lx) - 1u);
    const int start = gaps ? 32 - __clz (gaps) : 0;
    cl[r] = c;
    first[r] = ly * kTW + start;
    sh.u.c[j] = (uint8_t) c;
    sh.u.lab[j] = c != CV_CANNY_NONE ? first[r] : -1;
    sh.u.strong[j] = 0;
  }
  __syncthreads ();
  /* the west links are the runs (a run's pixels point at its first);
   * each candidate joins its north, north-west and north-east candidates
   * of the tile unless the link is implied by others made here: N and NW
   * when W is a candidate (W's N link, or W's NE link when NW is not a
   * candidate; W's N link in turn implied or made, down to the run's
   * first pixel), NW and NE when N is (one run above) */
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, j = ly * kTW + lx;
    if (cl[r] == CV_CANNY_NONE || ly == 0)
      continue;
    const bool wc = lx > 0 && sh.u.c[j - 1] != CV_CANNY_NONE;
    const bool nwc = lx > 0 && sh.u.c[j - kTW - 1] != CV_CANNY_NONE;
    /* j's set is that of its run's first pixel (its parent at start) */
    if (sh.u.c[j - kTW] != CV_CANNY_NONE) {
      if (!wc)
        tile_union (sh.u.lab, first[r], j - kTW);
    } else {
      if (nwc && !wc)
        tile_union (sh.u.lab, first[r], j - kTW - 1);
      if (lx + 1 < kTW && sh.u.c[j - kTW + 1] != CV_CANNY_NONE)
        tile_union (sh.u.lab, first[r], j - kTW + 1);
    }
  }
  __syncthreads ();
  int root[kRows];
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, j = ly * kTW + lx;
    root[r] = cl[r] != CV_CANNY_NONE ? tile_find (sh.u.lab, j) : -1;
    if (cl[r] == CV_CANNY_STRONG)
      atomicOr (&sh.u.strong[root[r]], 1);
  }
  __syncthreads ();
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, y = by + ly;
    if (x >= w || y >= h)
      continue;
    const int i = y * w + x;
    if (cl[r] == CV_CANNY_NONE) {
      cls[i] = kNone;
    } else {
      const int rt = root[r];
      const bool st = sh.u.strong[rt] != 0;
      const unsigned ri = (unsigned) ((by + rt / kTW) * w + bx + rt % kTW);
      cls[i] = st ? kStrongLocal : kWeakLocal;
      labels[i] = st ? ri : ri | kWeakBit;
    }
  }
}

/* ---- the merge across tiles, union-find on the global keys; loads
 * through L2 (__ldcg), where the atomics are (a stale L1 line would still
 * hold an ancestor's key: the union retries until its atomicMin lands on
 * a root) */

/* the key of the root of pixel idx's tree */
__device__ __forceinline__ unsigned
global_find (const unsigned *labels, unsigned idx)
{
  unsigned k = __ldcg (labels + idx);
  while ((k & kIndex) != idx) {
    idx = k & kIndex;
    k = __ldcg (labels + idx);
  }
  return k;
}

/* join the trees of pixels a and b: the larger root key points at the
 * smaller one */
__device__ void
global_union (unsigned *labels, unsigned a, unsigned b)
{
  unsigned ka = global_find (labels, a), kb = global_find (labels, b);

  for (;;) {
    if (ka == kb)
      return;
    if (ka > kb) {
      const unsigned t = ka;
      ka = kb;
      kb = t;
    }
    const unsigned old = atomicMin (&labels[kb & kIndex], ka);
    if (old == kb)
      return;
    /* kb was no longer a root: join ka's tree with old's */
    kb = global_find (labels, old & kIndex);
    ka = global_find (labels, ka & kIndex);
  }
}

/* Pass 2: the 8-connected links that cross a tile border, one block of
 * 32 x 3 threads per tile: y = 0 its left column (links to the west,
 * north-west, north and north-east tiles), y = 1 its top row, y = 2 its
 * right column (the north-east link into the next tile column). Each
 * candidate joins its W, NW, N, NE candidates that lie in another tile,
 * NW skipped when W is a candidate and NW, NE when N is (the implied links
 * W-NW, N-NW, N-NE are made, inside a tile by pass 1 or across by this
 * pass: a W or N link is never skipped). */
__global__ void __launch_bounds__ (96)
canny_merge_kernel (const uint8_t * __restrict__ cls, unsigned *labels,
    int w, int h)
{
  const int bx = blockIdx.x * kTW, by = blockIdx.y * kTH;
  const int lane = threadIdx.x;
  int x, y;

  if (threadIdx.y == 0) {
    x = bx;
    y = by + lane;
    if (bx == 0)
      return;
  } else if (threadIdx.y == 1) {
    x = bx + lane;
    y = by;
    if (by == 0)
      return;
  } else {
    x = bx + kTW - 1;
    y = by + lane;
    if (x + 1 >= w || y == 0)
      return;
  }
  if (x >= w || y >= h)
    return;
  const int i = y * w + x;
  if (cls[i] == kNone)
    return;
  const int tx = x / kTW, ty = y / kTH;
  const bool wc = x > 0 && cls[i - 1] != kNone;
  if (wc && (x - 1) / kTW != tx)
    global_union (labels, i, i - 1);
  if (y > 0) {
    const int n = i - w;
    const bool ny = (y - 1) / kTH != ty;  /* the row above: another tile */
    if (cls[n] != kNone) {
      if (ny)
        global_union (labels, i, n);
    } else {
      if (!wc && x > 0 && cls[n - 1] != kNone
          && (ny || (x - 1) / kTW != tx))
        global_union (labels, i, n - 1);
      if (x + 1 < w && cls[n + 1] != kNone && (ny || (x + 1) / kTW != tx))
        global_union (labels, i, n + 1);
    }
  }
}

/* whether candidate i (class c) is an edge: a strong tile component is;
 * a weak one walks up its tree until a strong key (every key above it is
 * smaller: the root is strong) or its root, then points its tile root at
 * the key found (path compression: any ancestor's key is a valid parent,
 * the trees no longer change) */
__device__ __forceinline__ bool
canny_is_edge (unsigned *labels, int i, uint8_t c)
{
  if (c != kWeakLocal)
    return c == kStrongLocal;
  /* hop 1 reaches the tile root (or, for that root itself, its parent):
   * the pointer compressed when the walk goes further */
  unsigned idx = (unsigned) i, k = labels[i];
  const unsigned first = k & kIndex;
  int steps = 0;
  while ((k & kWeakBit) && (k & kIndex) != idx) {
    idx = k & kIndex;
    k = labels[idx];
    steps++;
  }
  if (steps > 1)
    labels[first] = k;
  return (k & kWeakBit) == 0;
}

/* Pass 3: the output map, 255 on the candidates of a component with a
 * strong pixel; 4 pixels of a row a thread */
__global__ void
canny_output_kernel (const uint8_t * __restrict__ cls, unsigned *labels,
    uint8_t * __restrict__ dst, size_t dstride, int w, int h)
{
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const int i = y * w + x;
  const bool whole = x + 4 <= w;
  uint8_t c[4];
  if (whole && (i & 3) == 0) {
    const uchar4 v = *reinterpret_cast < const uchar4 * >(cls + i);
    c[0] = v.x;
    c[1] = v.y;
    c[2] = v.z;
    c[3] = v.w;
  } else {
#pragma unroll
    for (int k = 0; k < 4; k++)
      c[k] = x + k < w ? cls[i + k] : kNone;
  }
  uint8_t o[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    o[k] = canny_is_edge (labels, i + k, c[k]) ? 255 : 0;
  uint8_t *d = dst + (size_t) y * dstride + x;
  if (whole && ((uintptr_t) d & 3) == 0) {
    *reinterpret_cast < uchar4 * >(d) = make_uchar4 (o[0], o[1], o[2], o[3]);
  } else {
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (x + k < w)
        d[k] = o[k];
  }
}

template < int K >
void
launch_tile (const CvPlane * src, CvLumaLayout l, bool l2, int low,
    int high, uint8_t * cls, unsigned *labels, cudaStream_t s)
{
  dim3 block (kBX, kBY);
  dim3 grid (cv_div_up (src->width, kTW), cv_div_up (src->height, kTH));
  if (l2)
    canny_tile_kernel < K, true > <<<grid, block, 0, s>>> (src->data,
        src->stride, l.bpp, l.r, l.g, l.b, src->width, src->height, low,
        high, cls, labels);
  else
    canny_tile_kernel < K, false > <<<grid, block, 0, s>>> (src->data,
        src->stride, l.bpp, l.r, l.g, l.b, src->width, src->height, low,
        high, cls, labels);
}

/* ---- the operator (cvcanny.h) ---- */

struct CannySlot
{
  CvCannyInfo info;
  uint8_t *cls;                 /* w x h: kNone, kWeakLocal, kStrongLocal */
  unsigned *labels;             /* w x h union-find keys (candidates) */
};

void
canny_slot_destroy (CannySlot * o)
{
  if (!o)
    return;
  cudaFree (o->cls);
  cudaFree (o->labels);
  free (o);
}

/* every kernel a frame can launch (any aperture, either norm), loaded at
 * create (cv_cuda_preload, issue #24) */
CvStatus
canny_preload (void)
{
  const void *k[] = {
    (const void *) canny_tile_kernel < 3, false >,
    (const void *) canny_tile_kernel < 3, true >,
    (const void *) canny_tile_kernel < 5, false >,
    (const void *) canny_tile_kernel < 5, true >,
    (const void *) canny_tile_kernel < 7, false >,
    (const void *) canny_tile_kernel < 7, true >,
    (const void *) canny_merge_kernel,
    (const void *) canny_output_kernel,
  };
  return cv_cuda_preload (k, (int) (sizeof (k) / sizeof (k[0])));
}

CvStatus
canny_slot_create (const CvCannyInfo * info, CannySlot ** slot)
{
  CannySlot *o;
  size_t n;
  cudaError_t e;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_edge_map_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  if (canny_preload () != CV_OK)
    return CV_ERROR_CUDA;
  o = (CannySlot *) calloc (1, sizeof (CannySlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  n = (size_t) o->info.width * o->info.height;
  e = cudaMalloc (&o->cls, n);
  if (e == cudaSuccess)
    e = cudaMalloc (&o->labels, n * sizeof (unsigned));
  if (e != cudaSuccess) {
    canny_slot_destroy (o);
    return e == cudaErrorMemoryAllocation ? CV_ERROR_NO_MEMORY :
        cv_cuda_status (e);
  }
  *slot = o;
  return CV_OK;
}

CvStatus
canny_slot_submit (CannySlot * o, const CvFrame * frame,
    const CvCannyParams * p, const CvExec * exec)
{
  cudaStream_t s = (cudaStream_t) cv_exec_stream (exec);
  int low, high, k;

  if (!p || !cv_edge_map_frame_valid (&o->info, frame)
      || !cv_canny_params_valid (p))
    return CV_ERROR_INVALID_ARGUMENT;
  const int w = o->info.width, h = o->info.height;
  if (h > kMaxRows)
    return CV_ERROR_INVALID_ARGUMENT;
  k = p->kernel_size == 0 ? 3 : p->kernel_size;
  cv_canny_thresholds (p, &low, &high);
  const bool l2 = p->l2_gradient != 0;
  const CvPlane *src = &frame->in[0];

  /* 1. classes and tile-local components */
  if (k == 3)
    launch_tile < 3 > (src, o->info.layout, l2, low, high, o->cls,
        o->labels, s);
  else if (k == 5)
    launch_tile < 5 > (src, o->info.layout, l2, low, high, o->cls,
        o->labels, s);
  else
    launch_tile < 7 > (src, o->info.layout, l2, low, high, o->cls,
        o->labels, s);
  CV_CUDA_TRY (cudaGetLastError ());
  {
    /* 2. the links across tile borders; 3. the output map */
    dim3 tiles (cv_div_up (w, kTW), cv_div_up (h, kTH));
    canny_merge_kernel <<<tiles, dim3 (32, 3), 0, s>>> (o->cls, o->labels,
        w, h);
    dim3 block (32, 8);
    dim3 grid (cv_div_up (cv_div_up (w, 4), 32), cv_div_up (h, 8));
    canny_output_kernel <<<grid, block, 0, s>>> (o->cls, o->labels,
        frame->out[0].data, frame->out[0].stride, w, h);
    CV_CUDA_TRY (cudaGetLastError ());
  }
  /* neutral chroma of NV12 / I420 output */
  for (int i = 1; i < o->info.n_out_planes; i++) {
    CvPlane pl = frame->out[i];
    CvStatus status = cv_fill_plane_cuda (&pl, o->info.out_pixel_stride[i], 128,
        s);
    if (status != CV_OK)
      return status;
  }
  return CV_OK;
}

}                               /* namespace */

CV_SLOT_OP_FUNCTIONS (cv_canny_cuda, canny_slot, CannySlot, CvCannyOp,
    CvCannyInfo, CvCannyParams);
CV_OPS_TABLE (cv_canny_cuda_ops, "canny-cuda", cv_canny_cuda, CvCannyOp,
    CvCannyInfo, CvCannyParams, cv_op_no_results);
