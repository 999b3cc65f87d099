/* gst-cuda-vision: mean-shift filtering and segmentation on the GPU.
 *
 * Filter: one thread per ROI pixel runs all its iterations in registers
 * (no global writes between iterations). A 16x16 block first loads a
 * shared-memory tile of the packed ROI image covering its pixels plus a
 * halo of hs + 8 (when that fits in 40 KiB); a window that has drifted
 * outside the tile reads the image from global memory (L1/read-only cache)
 * instead, with the same result. The per-pixel math is meanshift_core.h,
 * the very code the CPU fallback runs.
 *
 * Segment: all on the GPU, no host round trip: union-find over the
 * 4-neighbour graph of joined attractors (atomicMin hooking of the larger
 * root under the smaller one, then path compression), so that every label
 * is the smallest ROI index of its component, exactly as the CPU's
 * sequential union-find; then CV_MEANSHIFT_MERGE_ROUNDS rounds of
 * small-segment merging (per-segment statistics with run-aggregated 64-bit
 * atomics, best neighbour by a 64-bit atomicMin on (distance, label),
 * union, compression), a round being skipped on the device once a previous
 * one joined nothing; then painting and the label map / segment count are
 * copied into pinned host memory. The operator (cv_meanshift_cuda_ops, at
 * the end) owns the workspace.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <cuda_runtime.h>
#include <string.h>

#include "cuda-internal.h"
#include "meanshift_core.h"
#include "cvop-internal.h"

#define BLOCK 16
#define TILE_MARGIN 8
#define TILE_MAX_BYTES (40 * 1024)
#define THREADS 256
#define STATS_RUN 16

typedef struct
{
  size_t cap_roi;               /* pixels of the ROI arrays */
  size_t cap_seg;               /* pixels of the segment arrays */
  size_t cap_frame;             /* pixels of the label map */
  uint32_t *img, *filt;
  CvMsPos *pos;
  uint32_t *L, *cnt;
  unsigned long long *sum, *best;
  int *active;                  /* CV_MEANSHIFT_MERGE_ROUNDS + 1 flags */
  uint32_t *nseg;
  uint32_t *labframe;
  uint32_t *h_labels;           /* pinned */
  uint32_t *h_nseg;             /* pinned */
} Work;

/* ---- pack, filter, write ------------------------------------------------ */

__global__ void
k_pack (const uint8_t * __restrict__ src, size_t stride, CvLumaLayout l,
    int roi_x, int roi_y, int rw, int rh, uchar3 cmin, uchar3 cmax,
    uint32_t * __restrict__ img)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const uint8_t *px;
  int r, g, b, in;

  if (x >= rw || y >= rh)
    return;
  px = src + (size_t) (roi_y + y) * stride + (size_t) (roi_x + x) * l.bpp;
  if (l.r < 0) {
    r = px[0];
    g = b = 0;
    in = r >= cmin.x && r <= cmax.x;
  } else {
    r = px[l.r];
    g = px[l.g];
    b = px[l.b];
    in = r >= cmin.x && r <= cmax.x && g >= cmin.y && g <= cmax.y
        && b >= cmin.z && b <= cmax.z;
  }
  img[(size_t) y * rw + x] = CV_MS_PACK (r, g, b, in);
}

template < int KERNEL > __global__ void
k_filter (const uint32_t * __restrict__ img, CvMsCore k, int halo,
    uint32_t * __restrict__ filt, CvMsPos * __restrict__ pos)
{
  extern __shared__ uint32_t tile[];
  const int rw = k.rw, rh = k.rh;
  int x = blockIdx.x * BLOCK + threadIdx.x;
  int y = blockIdx.y * BLOCK + threadIdx.y;
  CvMsSrc s;

  s.img.p = img;
  s.img.stride = (size_t) rw;
  s.img.ox = s.img.oy = 0;
  s.has_tile = halo >= 0;
  s.tile.p = tile;
  s.tx0 = s.ty0 = s.tx1 = s.ty1 = 0;
  s.tile.stride = 0;
  s.tile.ox = s.tile.oy = 0;
  if (halo >= 0) {
    const int T = BLOCK + 2 * halo;
    const int tx0 = blockIdx.x * BLOCK - halo, ty0 = blockIdx.y * BLOCK - halo;
    int i;

    for (i = threadIdx.y * BLOCK + threadIdx.x; i < T * T; i += BLOCK * BLOCK) {
      int gx = tx0 + i % T, gy = ty0 + i / T;
      if (gx >= 0 && gx < rw && gy >= 0 && gy < rh)
        tile[i] = img[(size_t) gy * rw + gx];
    }
    s.tile.stride = (size_t) T;
    s.tile.ox = tx0;
    s.tile.oy = ty0;
    s.tx0 = tx0;
    s.ty0 = ty0;
    s.tx1 = tx0 + T - 1;
    s.ty1 = ty0 + T - 1;
    __syncthreads ();
  }
  if (x < rw && y < rh) {
    size_t i = (size_t) y * rw + x;
    uint32_t v = img[i], out;
    CvMsPos p;

    if (!CV_MS_IN (v)) {
      out = v;
      p.x = (float) x;
      p.y = (float) y;
    } else if (KERNEL == CV_MEANSHIFT_FLAT) {
      out = cv_ms_flat (&s, &k, x, y, v, &p);
    } else {
      out = cv_ms_profile (&s, &k, KERNEL, x, y, v, &p);
    }
    filt[i] = out;
    if (pos)
      pos[i] = p;
  }
}

/* dst(ROI pixel) = packed colour, for the pixels taking part */
__global__ void
k_write (const uint32_t * __restrict__ filt, int roi_x, int roi_y, int rw,
    int rh, CvLumaLayout l, uint8_t * __restrict__ dst, size_t stride)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  uint32_t v;
  uint8_t *px;

  if (x >= rw || y >= rh)
    return;
  v = filt[(size_t) y * rw + x];
  if (!CV_MS_IN (v))
    return;
  px = dst + (size_t) (roi_y + y) * stride + (size_t) (roi_x + x) * l.bpp;
  if (l.r < 0) {
    px[0] = (uint8_t) CV_MS_R (v);
  } else {
    px[l.r] = (uint8_t) CV_MS_R (v);
    px[l.g] = (uint8_t) CV_MS_G (v);
    px[l.b] = (uint8_t) CV_MS_B (v);
  }
}

/* ---- union-find --------------------------------------------------------- */

__device__ __forceinline__ uint32_t
d_find (const uint32_t * L, uint32_t a)
{
  const volatile uint32_t *vl = L;
  uint32_t p = vl[a];

  while (p != a) {
    a = p;
    p = vl[a];
  }
  return a;
}

/* join the sets of a and b: the larger root is hooked under the smaller one
 * with atomicMin, retried until the hook lands on a root */
__device__ void
d_union (uint32_t * L, uint32_t a, uint32_t b)
{
  bool done;

  do {
    a = d_find (L, a);
    b = d_find (L, b);
    if (a < b) {
      uint32_t old = atomicMin (&L[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      uint32_t old = atomicMin (&L[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

__device__ __forceinline__ bool
round_off (const int *active, int round)
{
  return round > 0 && !*(const volatile int *) &active[round];
}

__global__ void
k_init_labels (uint32_t * L, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    L[i] = (uint32_t) i;
}

__global__ void
k_join (const uint32_t * __restrict__ filt, const CvMsPos * __restrict__ pos,
    CvMsCore k, uint32_t * L)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t a;

  if (x >= k.rw || y >= k.rh)
    return;
  a = (size_t) y * k.rw + x;
  if (!CV_MS_IN (filt[a]))
    return;
  if (x + 1 < k.rw && CV_MS_IN (filt[a + 1])
      && cv_ms_joined (&k, pos[a], filt[a], pos[a + 1], filt[a + 1]))
    d_union (L, (uint32_t) a, (uint32_t) (a + 1));
  if (y + 1 < k.rh && CV_MS_IN (filt[a + k.rw])
      && cv_ms_joined (&k, pos[a], filt[a], pos[a + k.rw], filt[a + k.rw]))
    d_union (L, (uint32_t) a, (uint32_t) (a + k.rw));
}

__global__ void
k_compress (uint32_t * L, size_t n, const int *active, int round)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= n || round_off (active, round))
    return;
  L[i] = d_find (L, (uint32_t) i);
}

__global__ void
k_clear_stats (uint32_t * cnt, unsigned long long *sum,
    unsigned long long *best, size_t n, const int *active, int round)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= n || round_off (active, round))
    return;
  cnt[i] = 0;
  sum[3 * i] = sum[3 * i + 1] = sum[3 * i + 2] = 0;
  best[i] = ~0ull;
}

/* per-segment counts and colour sums at the root; each thread sums a run
 * of STATS_RUN consecutive pixels and flushes when the label changes */
__global__ void
k_stats (const uint32_t * __restrict__ filt, const uint32_t * __restrict__ L,
    size_t n, uint32_t * cnt, unsigned long long *sum, const int *active,
    int round)
{
  size_t i0 = ((size_t) blockIdx.x * blockDim.x + threadIdx.x) * STATS_RUN;
  size_t i, end;
  uint32_t cur = 0xFFFFFFFFu, c = 0;
  unsigned long long s0 = 0, s1 = 0, s2 = 0;

  if (i0 >= n || round_off (active, round))
    return;
  end = i0 + STATS_RUN < n ? i0 + STATS_RUN : n;
  for (i = i0; i < end; i++) {
    uint32_t v = filt[i], r;

    if (!CV_MS_IN (v))
      continue;
    r = L[i];
    if (r != cur) {
      if (c) {
        atomicAdd (&cnt[cur], c);
        atomicAdd (&sum[3 * (size_t) cur], s0);
        atomicAdd (&sum[3 * (size_t) cur + 1], s1);
        atomicAdd (&sum[3 * (size_t) cur + 2], s2);
      }
      cur = r;
      c = 0;
      s0 = s1 = s2 = 0;
    }
    c++;
    s0 += CV_MS_R (v);
    s1 += CV_MS_G (v);
    s2 += CV_MS_B (v);
  }
  if (c) {
    atomicAdd (&cnt[cur], c);
    atomicAdd (&sum[3 * (size_t) cur], s0);
    atomicAdd (&sum[3 * (size_t) cur + 1], s1);
    atomicAdd (&sum[3 * (size_t) cur + 2], s2);
  }
}

/* every pixel of a small segment offers its 4-neighbours of other segments */
__global__ void
k_best (const uint32_t * __restrict__ filt, const uint32_t * __restrict__ L,
    const uint32_t * __restrict__ cnt,
    const unsigned long long *__restrict__ sum, int rw, int rh,
    uint32_t minsize, unsigned long long *best, const int *active, int round)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t a;
  uint32_t la;
  int d;

  if (x >= rw || y >= rh || round_off (active, round))
    return;
  a = (size_t) y * rw + x;
  if (!CV_MS_IN (filt[a]))
    return;
  la = L[a];
  if (cnt[la] >= minsize)
    return;
  for (d = 0; d < 4; d++) {
    int qx = x + (d == 0 ? -1 : d == 1 ? 1 : 0);
    int qy = y + (d == 2 ? -1 : d == 3 ? 1 : 0);
    size_t q;
    uint32_t lb;

    if (qx < 0 || qy < 0 || qx >= rw || qy >= rh)
      continue;
    q = (size_t) qy * rw + qx;
    lb = L[q];
    if (!CV_MS_IN (filt[q]) || lb == la)
      continue;
    atomicMin (&best[la], cv_ms_merge_key (cnt[la], sum + 3 * (size_t) la,
            cnt[lb], sum + 3 * (size_t) lb, lb));
  }
}

/* the roots of the round's start are the indices with cnt > 0 */
__global__ void
k_union_small (const uint32_t * __restrict__ cnt,
    const unsigned long long *__restrict__ best, size_t n, uint32_t minsize,
    uint32_t * L, int *active, int round)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= n || round_off (active, round))
    return;
  if (cnt[i] > 0 && cnt[i] < minsize && best[i] != ~0ull) {
    d_union (L, (uint32_t) i, (uint32_t) (best[i] & 0xFFFFFFFFu));
    active[round + 1] = 1;
  }
}

__global__ void
k_paint (const uint32_t * __restrict__ filt, const uint32_t * __restrict__ L,
    const uint32_t * __restrict__ cnt,
    const unsigned long long *__restrict__ sum, int roi_x, int roi_y, int rw,
    int rh, int frame_width, CvLumaLayout l, uint8_t * __restrict__ dst,
    size_t stride, uint32_t * __restrict__ labframe, uint32_t * nseg)
{
  size_t n = (size_t) rw * rh;
  size_t a = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  int is_root = 0, roots;

  if (a < n && CV_MS_IN (filt[a])) {
    uint32_t r = L[a];
    int x = (int) (a % rw), y = (int) (a / rw);
    uint32_t v = cv_ms_mean_color (cnt[r], sum + 3 * (size_t) r);
    uint8_t *px = dst + (size_t) (roi_y + y) * stride +
        (size_t) (roi_x + x) * l.bpp;

    is_root = r == a;
    if (l.r < 0) {
      px[0] = (uint8_t) CV_MS_R (v);
    } else {
      px[l.r] = (uint8_t) CV_MS_R (v);
      px[l.g] = (uint8_t) CV_MS_G (v);
      px[l.b] = (uint8_t) CV_MS_B (v);
    }
    labframe[(size_t) (roi_y + y) * frame_width + roi_x + x] =
        (uint32_t) ((roi_y + r / rw) * (size_t) frame_width + roi_x + r % rw);
  }
  roots = __syncthreads_count (is_root);
  if (threadIdx.x == 0 && roots)
    atomicAdd (nseg, (uint32_t) roots);
}

/* ---- host side ---------------------------------------------------------- */

static unsigned int
blocks_1d (size_t n)
{
  return (unsigned int) ((n + THREADS - 1) / THREADS);
}

static CvStatus
grow (Work * w, size_t n, size_t frame, int segment_mode)
{
  if (n > w->cap_roi) {
    cudaFree (w->img);
    cudaFree (w->filt);
    w->img = w->filt = NULL;
    w->cap_roi = 0;
    CV_CUDA_TRY (cudaMalloc ((void **) &w->img, n * sizeof (uint32_t)));
    CV_CUDA_TRY (cudaMalloc ((void **) &w->filt, n * sizeof (uint32_t)));
    w->cap_roi = n;
  }
  if (!segment_mode)
    return CV_OK;
  if (!w->active) {
    CV_CUDA_TRY (cudaMalloc ((void **) &w->active,
            (CV_MEANSHIFT_MERGE_ROUNDS + 1) * sizeof (int)));
    CV_CUDA_TRY (cudaMalloc ((void **) &w->nseg, sizeof (uint32_t)));
    CV_CUDA_TRY (cudaHostAlloc ((void **) &w->h_nseg, sizeof (uint32_t),
            cudaHostAllocPortable));
    *w->h_nseg = 0;
  }
  if (n > w->cap_seg) {
    cudaFree (w->pos);
    cudaFree (w->L);
    cudaFree (w->cnt);
    cudaFree (w->sum);
    cudaFree (w->best);
    w->pos = NULL;
    w->L = w->cnt = NULL;
    w->sum = w->best = NULL;
    w->cap_seg = 0;
    CV_CUDA_TRY (cudaMalloc ((void **) &w->pos, n * sizeof (CvMsPos)));
    CV_CUDA_TRY (cudaMalloc ((void **) &w->L, n * sizeof (uint32_t)));
    CV_CUDA_TRY (cudaMalloc ((void **) &w->cnt, n * sizeof (uint32_t)));
    CV_CUDA_TRY (cudaMalloc ((void **) &w->sum,
            3 * n * sizeof (unsigned long long)));
    CV_CUDA_TRY (cudaMalloc ((void **) &w->best,
            n * sizeof (unsigned long long)));
    w->cap_seg = n;
  }
  if (frame > w->cap_frame) {
    cudaFree (w->labframe);
    cudaFreeHost (w->h_labels);
    w->labframe = w->h_labels = NULL;
    w->cap_frame = 0;
    CV_CUDA_TRY (cudaMalloc ((void **) &w->labframe,
            frame * sizeof (uint32_t)));
    CV_CUDA_TRY (cudaHostAlloc ((void **) &w->h_labels,
            frame * sizeof (uint32_t), cudaHostAllocPortable));
    w->cap_frame = frame;
  }
  return CV_OK;
}

static CvStatus
launch_filter (const Work * w, const CvMsCore * k, int segment_mode,
    cudaStream_t st)
{
  dim3 block (BLOCK, BLOCK);
  dim3 grid (cv_div_up (k->rw, BLOCK), cv_div_up (k->rh, BLOCK));
  int halo = k->hs + TILE_MARGIN;
  size_t T = BLOCK + 2 * (size_t) halo;
  size_t smem = T * T * sizeof (uint32_t);
  CvMsPos *pos = segment_mode ? w->pos : NULL;   /* attractor positions */

  if (smem > TILE_MAX_BYTES) {
    halo = -1;
    smem = 0;
  }
  switch (k->kernel) {
    case CV_MEANSHIFT_UNIFORM:
      k_filter < CV_MEANSHIFT_UNIFORM > <<<grid, block, smem, st>>> (w->img,
          *k, halo, w->filt, pos);
      break;
    case CV_MEANSHIFT_TRIANGULAR:
      k_filter < CV_MEANSHIFT_TRIANGULAR > <<<grid, block, smem, st>>> (w->img,
          *k, halo, w->filt, pos);
      break;
    case CV_MEANSHIFT_EPANECHNIKOV:
      k_filter < CV_MEANSHIFT_EPANECHNIKOV > <<<grid, block, smem, st>>>
          (w->img, *k, halo, w->filt, pos);
      break;
    default:
      k_filter < CV_MEANSHIFT_FLAT > <<<grid, block, smem, st>>> (w->img, *k,
          halo, w->filt, pos);
      break;
  }
  return cv_cuda_status (cudaGetLastError ());
}

static CvStatus
launch_segment (Work * w, const CvMsCore * k, const CvMeanShiftParams * p,
    const CvPlane * dst, CvLumaLayout l, cudaStream_t st)
{
  const size_t n = (size_t) k->rw * k->rh;
  const size_t frame = (size_t) dst->width * dst->height;
  const uint32_t minsize = (uint32_t) p->min_segment_size;
  dim3 block2 (32, 8);
  dim3 grid2 (cv_div_up (k->rw, 32), cv_div_up (k->rh, 8));
  unsigned int gs = blocks_1d ((n + STATS_RUN - 1) / STATS_RUN);
  int round;

  CV_CUDA_TRY (cudaMemsetAsync (w->active, 0,
          (CV_MEANSHIFT_MERGE_ROUNDS + 1) * sizeof (int), st));
  CV_CUDA_TRY (cudaMemsetAsync (w->nseg, 0, sizeof (uint32_t), st));
  k_init_labels <<<blocks_1d (n), THREADS, 0, st>>> (w->L, n);
  k_join <<<grid2, block2, 0, st>>> (w->filt, w->pos, *k, w->L);
  k_compress <<<blocks_1d (n), THREADS, 0, st>>> (w->L, n, w->active, 0);
  CV_CUDA_TRY (cudaGetLastError ());

  for (round = 0; minsize > 1 && round < CV_MEANSHIFT_MERGE_ROUNDS; round++) {
    k_clear_stats <<<blocks_1d (n), THREADS, 0, st>>> (w->cnt, w->sum,
        w->best, n, w->active, round);
    k_stats <<<gs, THREADS, 0, st>>> (w->filt, w->L, n, w->cnt, w->sum,
        w->active, round);
    k_best <<<grid2, block2, 0, st>>> (w->filt, w->L, w->cnt, w->sum, k->rw,
        k->rh, minsize, w->best, w->active, round);
    k_union_small <<<blocks_1d (n), THREADS, 0, st>>> (w->cnt, w->best, n,
        minsize, w->L, w->active, round);
    /* compress only when this round joined something */
    k_compress <<<blocks_1d (n), THREADS, 0, st>>> (w->L, n, w->active,
        round + 1);
    CV_CUDA_TRY (cudaGetLastError ());
  }

  /* final statistics (always), paint, labels, count */
  k_clear_stats <<<blocks_1d (n), THREADS, 0, st>>> (w->cnt, w->sum, w->best,
      n, w->active, 0);
  k_stats <<<gs, THREADS, 0, st>>> (w->filt, w->L, n, w->cnt, w->sum,
      w->active, 0);
  CV_CUDA_TRY (cudaMemsetAsync (w->labframe, 0xFF,
          frame * sizeof (uint32_t), st));
  k_paint <<<blocks_1d (n), THREADS, 0, st>>> (w->filt, w->L, w->cnt, w->sum,
      p->roi_x, p->roi_y, k->rw, k->rh, dst->width, l, dst->data, dst->stride,
      w->labframe, w->nseg);
  CV_CUDA_TRY (cudaGetLastError ());
  CV_CUDA_TRY (cudaMemcpyAsync (w->h_labels, w->labframe,
          frame * sizeof (uint32_t), cudaMemcpyDeviceToHost, st));
  CV_CUDA_TRY (cudaMemcpyAsync (w->h_nseg, w->nseg, sizeof (uint32_t),
          cudaMemcpyDeviceToHost, st));
  return CV_OK;
}

/* One frame with the slot's workspace w (grown for segment mode and ROIs
 * larger than it holds; the slot's previous frame is complete). */
static CvStatus
meanshift_run (Work * w, const CvPlane * src, CvLumaLayout layout,
    CvPlane * dst, const CvMeanShiftParams * p, cudaStream_t st)
{
  CvMsCore k;
  size_t n, frame;
  CvStatus ret;
  int segment_mode;

  ret = cv_ms_validate (src, layout, dst, p, 0);
  if (ret != CV_OK)
    return ret;
  segment_mode = p->mode == CV_MEANSHIFT_SEGMENT;
  n = (size_t) p->roi_width * p->roi_height;
  frame = (size_t) src->width * src->height;
  ret = grow (w, n > 0 ? n : 1, frame, segment_mode);
  if (ret != CV_OK)
    return ret;

  /* outside the ROI and non-colour bytes: the input */
  CV_CUDA_TRY (cudaMemcpy2DAsync (dst->data, dst->stride, src->data,
          src->stride, (size_t) src->width * layout.bpp, src->height,
          cudaMemcpyDeviceToDevice, st));
  if (n == 0) {
    if (segment_mode) {
      CV_CUDA_TRY (cudaMemsetAsync (w->labframe, 0xFF,
              frame * sizeof (uint32_t), st));
      CV_CUDA_TRY (cudaMemsetAsync (w->nseg, 0, sizeof (uint32_t), st));
      CV_CUDA_TRY (cudaMemcpyAsync (w->h_labels, w->labframe,
              frame * sizeof (uint32_t), cudaMemcpyDeviceToHost, st));
      CV_CUDA_TRY (cudaMemcpyAsync (w->h_nseg, w->nseg, sizeof (uint32_t),
              cudaMemcpyDeviceToHost, st));
    }
    return CV_OK;
  }

  cv_ms_core_init (&k, p);
  {
    dim3 block (32, 8);
    dim3 grid (cv_div_up (p->roi_width, 32), cv_div_up (p->roi_height, 8));
    uchar3 cmin = make_uchar3 (p->color_min[0], p->color_min[1],
        p->color_min[2]);
    uchar3 cmax = make_uchar3 (p->color_max[0], p->color_max[1],
        p->color_max[2]);

    k_pack <<<grid, block, 0, st>>> (src->data, src->stride, layout,
        p->roi_x, p->roi_y, p->roi_width, p->roi_height, cmin, cmax, w->img);
    CV_CUDA_TRY (cudaGetLastError ());
    ret = launch_filter (w, &k, segment_mode, st);
    if (ret != CV_OK)
      return ret;
    if (!segment_mode) {
      k_write <<<grid, block, 0, st>>> (w->filt, p->roi_x, p->roi_y,
          p->roi_width, p->roi_height, layout, dst->data, dst->stride);
      return cv_cuda_status (cudaGetLastError ());
    }
  }
  return launch_segment (w, &k, p, dst, layout, st);
}

/* frees what the workspace holds */
static void
work_clear (Work * w)
{
  cudaFree (w->img);
  cudaFree (w->filt);
  cudaFree (w->pos);
  cudaFree (w->L);
  cudaFree (w->cnt);
  cudaFree (w->sum);
  cudaFree (w->best);
  cudaFree (w->active);
  cudaFree (w->nseg);
  cudaFree (w->labframe);
  cudaFreeHost (w->h_labels);
  cudaFreeHost (w->h_nseg);
  memset (w, 0, sizeof (*w));
}

/* ---- the operator (cvmeanshift.h) ---- */

typedef struct
{
  CvMeanShiftInfo info;
  Work work;                    /* the filter's for the whole frame made at
                                 * create, segment mode's at its first
                                 * frame */
  CvMeanShiftSegments seg;
  int segmented;                /* the last submit succeeded in segment
                                 * mode */
} MeanShiftSlot;

static void
meanshift_slot_destroy (MeanShiftSlot * o)
{
  if (!o)
    return;
  work_clear (&o->work);
  free (o);
}

/* every kernel a frame can launch (each kernel shape: a parameter),
 * loaded at create (cv_cuda_preload, issue #24) */
static CvStatus
meanshift_preload (void)
{
  const void *k[] = {
    (const void *) k_pack, (const void *) k_write,
    (const void *) k_filter < CV_MEANSHIFT_UNIFORM >,
    (const void *) k_filter < CV_MEANSHIFT_TRIANGULAR >,
    (const void *) k_filter < CV_MEANSHIFT_EPANECHNIKOV >,
    (const void *) k_filter < CV_MEANSHIFT_FLAT >,
    (const void *) k_init_labels, (const void *) k_join,
    (const void *) k_compress, (const void *) k_clear_stats,
    (const void *) k_stats, (const void *) k_best,
    (const void *) k_union_small, (const void *) k_paint,
  };
  return cv_cuda_preload (k, (int) (sizeof (k) / sizeof (k[0])));
}

static CvStatus
meanshift_slot_create (const CvMeanShiftInfo * info, MeanShiftSlot ** slot)
{
  MeanShiftSlot *o;
  CvStatus st;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_meanshift_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  st = meanshift_preload ();
  if (st != CV_OK)
    return st;
  o = (MeanShiftSlot *) calloc (1, sizeof (MeanShiftSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  st = grow (&o->work, (size_t) info->width * info->height, 0, 0);
  if (st != CV_OK) {
    meanshift_slot_destroy (o);
    return st;
  }
  *slot = o;
  return CV_OK;
}

static CvStatus
meanshift_slot_submit (MeanShiftSlot * o, const CvFrame * frame,
    const CvMeanShiftParams * p, const CvExec * exec)
{
  CvFrame f;
  CvStatus status;

  o->segmented = 0;
  if (!p || !cv_meanshift_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  status = meanshift_run (&o->work, &f.in[0], o->info.layout, &f.out[0], p,
      (cudaStream_t) cv_exec_stream (exec));
  o->segmented = status == CV_OK && p->mode == CV_MEANSHIFT_SEGMENT;
  return status;
}

static const CvMeanShiftSegments *
meanshift_slot_results (MeanShiftSlot * o)
{
  if (!o->segmented)
    return NULL;
  /* the pinned labels and count, complete once the frame's work is */
  o->seg.labels = o->work.h_labels;
  o->seg.n_segments = *o->work.h_nseg;
  return &o->seg;
}

CV_SLOT_OP_FUNCTIONS (cv_meanshift_cuda, meanshift_slot, MeanShiftSlot,
    CvMeanShiftOp, CvMeanShiftInfo, CvMeanShiftParams);
CV_SLOT_OP_RESULTS (cv_meanshift_cuda, meanshift_slot, MeanShiftSlot,
    CvMeanShiftOp, CvMeanShiftSegments);
CV_OPS_TABLE (cv_meanshift_cuda_ops, "meanshift-cuda", cv_meanshift_cuda,
    CvMeanShiftOp, CvMeanShiftInfo, CvMeanShiftParams,
    cv_meanshift_cuda_results);
