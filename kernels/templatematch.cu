/* gst-cuda-vision: template matching on the GPU.
 *
 * Per frame, all on the frame's stream:
 *  1. (RGB formats) BT.601 luma into a GRAY8 buffer.
 *  2. Window statistics: for templates larger than 8x8, integral images of
 *     the luma and of its square in 64-bit integers ((W+1) x (H+1), row
 *     scans with warp shuffles, then column scans through 32x32 tiles in
 *     shared memory); for templates up to 8x8 the window sums come from
 *     the correlation kernel's shared tile (cheaper than the integral
 *     images' memory traffic). Both give the same exact integers.
 *  3. Direct correlation tiled in shared memory: a 256-thread block
 *     computes 64 x 16 windows (4 rows per thread); template and image are
 *     walked in chunks (8x8 or 32x16 template pixels) staged in shared
 *     memory, exact unsigned 32-bit sums per chunk added into 64-bit ones.
 *     The score (cvtemplatematch-score.h, double, no FMA contraction) is
 *     stored as float in a score map of (W-tw+1) x (H-th+1).
 *  4. Best matches: per match, a grid-stride block reduction over the
 *     score map (key, raster index) skipping NaN and windows suppressed by
 *     the matches found so far, then a one-block final reduction that
 *     applies the threshold and appends the match. Only the result struct
 *     (count + matches) is copied back, to the caller's pinned memory.
 *  5. (optional) the score map as GRAY8/GRAY16 of the frame's size.
 * There is no FFT/GEMM path: large templates use the same tiled direct
 * correlation (O(W H tw th)).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvtemplatematch.h"
#include "cvtemplatematch-score.h"

#include <cuda_runtime.h>
#include <new>

namespace {

struct Workspace
{
  uint8_t *luma;
  size_t luma_pitch;
  size_t luma_bytes;            /* capacity: pitch * rows */
  int luma_w, luma_h;
  uint8_t *tmpl;
  size_t tmpl_cap;
  uint64_t tmpl_id;
  int tmpl_w, tmpl_h;
  float *map;
  size_t map_cap;               /* elements */
  long long *isum, *isq;
  size_t isum_cap, isq_cap;     /* elements */
  float *pkey;
  long long *pidx;
  CvTemplateMatchResult *res;
};

constexpr int kRedThreads = 256;
constexpr int kRedBlocks = 1024;

/* ---- 1. luma ----------------------------------------------------------- */

template < int BPP >
__global__ void
luma_kernel (const uint8_t * __restrict__ src, size_t sstride, int ro, int go,
    int bo, uint8_t * __restrict__ dst, size_t dstride, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const uint8_t *p = src + (size_t) y * sstride + (size_t) x * BPP;
  dst[(size_t) y * dstride + x] = (uint8_t) ((CV_LUMA_R * p[ro] +
          CV_LUMA_G * p[go] + CV_LUMA_B * p[bo] + 128) >> 8);
}

/* ---- 2. integral images ------------------------------------------------ */

/* Row prefix sums: table[(y+1)(w+1) + x+1] = sum_{x' <= x} L(x', y),
 * table[(y+1)(w+1)] = 0. One 256-thread block per row. */
__global__ void __launch_bounds__ (256)
integral_rows (const uint8_t * __restrict__ lum, size_t ls, int w, int h,
    long long *__restrict__ S, long long *__restrict__ Q)
{
  __shared__ long long ws[8], wq[8];
  const int y = blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint8_t *row = lum + (size_t) y * ls;
  long long *srow = S + (size_t) (y + 1) * (w + 1);
  long long *qrow = Q + (size_t) (y + 1) * (w + 1);
  long long carry_s = 0, carry_q = 0;

  if (y >= h)
    return;
  if (threadIdx.x == 0) {
    srow[0] = 0;
    qrow[0] = 0;
  }
  for (int x0 = 0; x0 < w; x0 += 256) {
    const int x = x0 + threadIdx.x;
    const long long v = x < w ? row[x] : 0;
    long long s = v, q = v * v;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const long long ns = __shfl_up_sync (0xffffffffu, s, off);
      const long long nq = __shfl_up_sync (0xffffffffu, q, off);
      if (lane >= off) {
        s += ns;
        q += nq;
      }
    }
    if (lane == 31) {
      ws[warp] = s;
      wq[warp] = q;
    }
    __syncthreads ();
    long long ps = 0, pq = 0, ts = 0, tq = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
      if (i < warp) {
        ps += ws[i];
        pq += wq[i];
      }
      ts += ws[i];
      tq += wq[i];
    }
    if (x < w) {
      srow[x + 1] = carry_s + ps + s;
      qrow[x + 1] = carry_q + pq + q;
    }
    carry_s += ts;
    carry_q += tq;
    __syncthreads ();           /* ws/wq are rewritten next round */
  }
}

/* Column prefix sums over rows 1..h of both tables (row 0 is zero), w + 1
 * columns. A 32x32 block owns 32 columns and walks down the rows in
 * 32-row tiles: coalesced loads into shared memory, one warp scans one
 * column with shuffles, coalesced stores. */
__global__ void __launch_bounds__ (1024)
integral_cols (long long *__restrict__ S, long long *__restrict__ Q, int w,
    int h)
{
  __shared__ long long ts[32][33], tq[32][33];
  __shared__ long long cs[32], cq[32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx;
  const int cols = w + 1;

  if (ty == 0) {
    cs[tx] = 0;
    cq[tx] = 0;
  }
  for (int y0 = 1; y0 <= h; y0 += 32) {
    const int y = y0 + ty;
    __syncthreads ();
    if (x < cols && y <= h) {
      ts[ty][tx] = S[(size_t) y * cols + x];
      tq[ty][tx] = Q[(size_t) y * cols + x];
    } else {
      ts[ty][tx] = 0;
      tq[ty][tx] = 0;
    }
    __syncthreads ();
    /* warp ty scans column ty of the tile: lane = row */
    {
      long long s = ts[tx][ty], q = tq[tx][ty];
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const long long ns = __shfl_up_sync (0xffffffffu, s, off);
        const long long nq = __shfl_up_sync (0xffffffffu, q, off);
        if (tx >= off) {
          s += ns;
          q += nq;
        }
      }
      s += cs[ty];
      q += cq[ty];
      ts[tx][ty] = s;
      tq[tx][ty] = q;
      __syncwarp ();
      if (tx == 31) {
        cs[ty] = s;
        cq[ty] = q;
      }
    }
    __syncthreads ();
    if (x < cols && y <= h) {
      S[(size_t) y * cols + x] = ts[ty][tx];
      Q[(size_t) y * cols + x] = tq[ty][tx];
    }
  }
}

/* ---- 3. correlation and scores ----------------------------------------- */

constexpr int kCorrTX = 64;     /* windows per block, x */
constexpr int kCorrThreadsY = 4;
constexpr int kCorrR = 4;       /* rows per thread */
constexpr int kCorrTY = kCorrThreadsY * kCorrR; /* 16 */

template < int CI, int CJ, bool STATS >
__global__ void __launch_bounds__ (kCorrTX * kCorrThreadsY)
corr_kernel (const uint8_t * __restrict__ lum, size_t ls, int w, int h,
    const uint8_t * __restrict__ tmpl, int tw, int th,
    const long long *__restrict__ S, const long long *__restrict__ Q,
    float *__restrict__ map, int rw, int rh, CvTmScoreConst k)
{
  constexpr int IW = kCorrTX + CI - 1;
  constexpr int IH = kCorrTY + CJ - 1;
  __shared__ uint8_t sI[IH][IW + 1];
  __shared__ uint32_t sT[CJ][CI];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * kCorrTX + tx;
  const int bx = blockIdx.x * kCorrTX, by = blockIdx.y * kCorrTY;
  const int ox = bx + tx, oy0 = by + ty * kCorrR;

  unsigned long long c[kCorrR];
  uint32_t s[kCorrR], q[kCorrR];
#pragma unroll
  for (int r = 0; r < kCorrR; r++) {
    c[r] = 0;
    s[r] = 0;
    q[r] = 0;
  }

  for (int j0 = 0; j0 < th; j0 += CJ) {
    const int cj = min (CJ, th - j0);
    for (int i0 = 0; i0 < tw; i0 += CI) {
      const int ci = min (CI, tw - i0);
      __syncthreads ();         /* previous chunk fully consumed */
      for (int idx = tid; idx < CJ * CI; idx += kCorrTX * kCorrThreadsY) {
        const int jj = idx / CI, ii = idx % CI;
        sT[jj][ii] = (jj < cj && ii < ci) ?
            tmpl[(size_t) (j0 + jj) * tw + i0 + ii] : 0u;
      }
      for (int idx = tid; idx < IH * IW; idx += kCorrTX * kCorrThreadsY) {
        const int r = idx / IW, cc = idx % IW;
        const int gy = by + j0 + r, gx = bx + i0 + cc;
        sI[r][cc] = (gy < h && gx < w) ? lum[(size_t) gy * ls + gx] : 0;
      }
      __syncthreads ();
      uint32_t acc[kCorrR];
#pragma unroll
      for (int r = 0; r < kCorrR; r++)
        acc[r] = 0;
      for (int jj = 0; jj < cj; jj++) {
        for (int ii = 0; ii < ci; ii++) {
          const uint32_t t = sT[jj][ii];
#pragma unroll
          for (int r = 0; r < kCorrR; r++) {
            const uint32_t v = sI[ty * kCorrR + r + jj][tx + ii];
            acc[r] += t * v;
            if (STATS) {
              s[r] += v;
              q[r] += v * v;
            }
          }
        }
      }
      /* <= CI * CJ <= 512 products of 8-bit values: no overflow */
#pragma unroll
      for (int r = 0; r < kCorrR; r++)
        c[r] += acc[r];
    }
  }

  if (ox >= rw)
    return;
#pragma unroll
  for (int r = 0; r < kCorrR; r++) {
    const int y = oy0 + r;
    if (y >= rh)
      break;
    long long ws, wq;
    if (STATS) {
      ws = s[r];
      wq = q[r];
    } else {
      const size_t cols = (size_t) w + 1;
      const size_t a = (size_t) y * cols + ox, b = a + tw;
      const size_t cidx = (size_t) (y + th) * cols + ox, d = cidx + tw;
      ws = S[d] - S[b] - S[cidx] + S[a];
      wq = Q[d] - Q[b] - Q[cidx] + Q[a];
    }
    map[(size_t) y * rw + ox] = cvtm_score (&k, (long long) c[r], ws, wq);
  }
}

/* ---- 4. best matches ---------------------------------------------------- */

__device__ __forceinline__ void
block_best (float &key, long long &idx, float *sk, long long *si)
{
  const int tid = threadIdx.x;
  sk[tid] = key;
  si[tid] = idx;
  __syncthreads ();
  for (int n = kRedThreads / 2; n > 0; n >>= 1) {
    if (tid < n && cvtm_better (sk[tid + n], si[tid + n], sk[tid], si[tid])) {
      sk[tid] = sk[tid + n];
      si[tid] = si[tid + n];
    }
    __syncthreads ();
  }
  key = sk[0];
  idx = si[0];
}

__global__ void __launch_bounds__ (kRedThreads)
reduce_partial (const float *__restrict__ map, int rw, int rh, int method,
    const CvTemplateMatchResult * res, int m, int tw, int th,
    float *__restrict__ pkey, long long *__restrict__ pidx)
{
  __shared__ CvTemplateMatch found[CV_TEMPLATE_MATCH_MAX_MATCHES];
  __shared__ float sk[kRedThreads];
  __shared__ long long si[kRedThreads];

  /* the previous round found nothing: the search is over */
  if (m > 0 && res->count < m) {
    if (threadIdx.x == 0)
      pidx[blockIdx.x] = -1;
    return;
  }
  for (int i = threadIdx.x; i < m; i += kRedThreads)
    found[i] = res->match[i];
  __syncthreads ();

  float bk = 0.0f;
  long long bi = -1;
  for (int y = blockIdx.x; y < rh; y += gridDim.x) {
    const float *row = map + (size_t) y * rw;
    for (int x = threadIdx.x; x < rw; x += kRedThreads) {
      const float r = row[x];
      if (r != r)
        continue;
      const float key = cvtm_key (method, r);
      const long long idx = (long long) y * rw + x;
      if (!cvtm_better (key, idx, bk, bi))
        continue;
      if (m > 0 && cvtm_suppressed (found, m, x, y, tw, th))
        continue;
      bk = key;
      bi = idx;
    }
  }
  block_best (bk, bi, sk, si);
  if (threadIdx.x == 0) {
    pkey[blockIdx.x] = bk;
    pidx[blockIdx.x] = bi;
  }
}

__global__ void __launch_bounds__ (kRedThreads)
reduce_final (const float *__restrict__ pkey,
    const long long *__restrict__ pidx, int nb,
    const float *__restrict__ map, int rw, int method, double threshold,
    CvTemplateMatchResult * res, int m)
{
  __shared__ float sk[kRedThreads];
  __shared__ long long si[kRedThreads];

  if (m > 0 && res->count < m)
    return;
  float bk = 0.0f;
  long long bi = -1;
  for (int i = threadIdx.x; i < nb; i += kRedThreads)
    if (cvtm_better (pkey[i], pidx[i], bk, bi)) {
      bk = pkey[i];
      bi = pidx[i];
    }
  block_best (bk, bi, sk, si);
  if (threadIdx.x == 0 && bi >= 0) {
    const float r = map[bi];
    if (cvtm_passes (method, threshold, r)) {
      res->match[m].x = (int32_t) (bi % rw);
      res->match[m].y = (int32_t) (bi / rw);
      res->match[m].score = r;
      res->count = m + 1;
    }
  }
}

/* ---- 5. score map output ------------------------------------------------ */

__global__ void
score_map_kernel (const float *__restrict__ map, int rw, int rh, int w,
    int h, int method, double n, uint8_t * __restrict__ out, size_t ostride,
    int bits)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float u = 0.0f;
  if (x < rw && y < rh)
    u = cvtm_map_unit (method, n, map[(size_t) y * rw + x]);
  uint8_t *o = out + (size_t) y * ostride;
  if (bits == 8)
    o[x] = cvtm_map8 (u);
  else
    reinterpret_cast < uint16_t * >(o)[x] = cvtm_map16 (u);
}

/* ---- host side ---------------------------------------------------------- */

template < typename T > cudaError_t
ensure (T ** p, size_t * cap, size_t n)
{
  if (*p && *cap >= n)
    return cudaSuccess;
  if (*p)
    cudaFree (*p);
  *p = NULL;
  *cap = 0;
  cudaError_t e = cudaMalloc ((void **) p, n * sizeof (T));
  if (e == cudaSuccess)
    *cap = n;
  return e;
}

}                               /* namespace */

extern "C" void
cv_template_match_cuda_free (void *workspace)
{
  Workspace *ws = (Workspace *) workspace;
  if (!ws)
    return;
  cudaFree (ws->luma);
  cudaFree (ws->tmpl);
  cudaFree (ws->map);
  cudaFree (ws->isum);
  cudaFree (ws->isq);
  cudaFree (ws->pkey);
  cudaFree (ws->pidx);
  cudaFree (ws->res);
  delete ws;
}

#define TRY(call) do { cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) return (int) e_; } while (0)

extern "C" int
cv_template_match_cuda (const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, const CvTemplateMatchParams * p,
    CvPlane * score_map, CvTemplateMatchResult * result, void **workspace,
    void *stream)
{
  if (!src || !templ || !p || !result || !workspace || !src->data
      || !templ->plane.data || src->width < 1 || src->height < 1
      || layout.bpp < 1)
    return CV_ERROR_INVALID_ARGUMENT;
  const int w = src->width, h = src->height;
  const int tw = templ->plane.width, th = templ->plane.height;
  if (tw < 1 || th < 1 || tw > w || th > h)
    return CV_ERROR_INVALID_ARGUMENT;
  if (p->method < CV_TM_SQDIFF || p->method > CV_TM_CCOEFF_NORMED
      || p->max_matches < 1 || p->max_matches > CV_TEMPLATE_MATCH_MAX_MATCHES)
    return CV_ERROR_INVALID_ARGUMENT;
  if (score_map && (!score_map->data || score_map->width != w
          || score_map->height != h || (p->score_map != 8
              && p->score_map != 16)))
    return CV_ERROR_INVALID_ARGUMENT;
  const int rw = w - tw + 1, rh = h - th + 1;
  /* grid limits: y blocks of the 2D kernels */
  if ((rh + kCorrTY - 1) / kCorrTY > 65535 || (h + 7) / 8 > 65535)
    return CV_ERROR_INVALID_ARGUMENT;

  cudaStream_t st = (cudaStream_t) stream;
  Workspace *ws = (Workspace *) * workspace;
  if (!ws) {
    ws = new (std::nothrow) Workspace ();
    if (!ws)
      return CV_ERROR_NO_MEMORY;
    *workspace = ws;
  }

  /* luma */
  const uint8_t *lum = src->data;
  size_t ls = src->stride;
  if (!(layout.r < 0 && layout.bpp == 1)) {
    if (layout.r < 0 || (layout.bpp != 3 && layout.bpp != 4))
      return CV_ERROR_INVALID_ARGUMENT;
    if (!ws->luma || ws->luma_w < w || ws->luma_h < h) {
      cudaFree (ws->luma);
      ws->luma = NULL;
      ws->luma_w = ws->luma_h = 0;
      TRY (cudaMallocPitch ((void **) &ws->luma, &ws->luma_pitch, w, h));
      ws->luma_w = w;
      ws->luma_h = h;
    }
    dim3 b (32, 8), g ((w + 31) / 32, (h + 7) / 8);
    if (layout.bpp == 3)
      luma_kernel < 3 > <<<g, b, 0, st>>> (src->data, src->stride, layout.r,
          layout.g, layout.b, ws->luma, ws->luma_pitch, w, h);
    else
      luma_kernel < 4 > <<<g, b, 0, st>>> (src->data, src->stride, layout.r,
          layout.g, layout.b, ws->luma, ws->luma_pitch, w, h);
    TRY (cudaGetLastError ());
    lum = ws->luma;
    ls = ws->luma_pitch;
  }

  /* template (host memory, uploaded when it changed) */
  if (templ->id == 0 || templ->id != ws->tmpl_id || tw != ws->tmpl_w
      || th != ws->tmpl_h) {
    ws->tmpl_id = 0;
    TRY (ensure (&ws->tmpl, &ws->tmpl_cap, (size_t) tw * th));
    TRY (cudaMemcpy2DAsync (ws->tmpl, tw, templ->plane.data,
            templ->plane.stride, tw, th, cudaMemcpyHostToDevice, st));
    ws->tmpl_id = templ->id;
    ws->tmpl_w = tw;
    ws->tmpl_h = th;
  }

  TRY (ensure (&ws->map, &ws->map_cap, (size_t) rw * rh));
  if (!ws->pkey)
    TRY (cudaMalloc ((void **) &ws->pkey, kRedBlocks * sizeof (float)));
  if (!ws->pidx)
    TRY (cudaMalloc ((void **) &ws->pidx, kRedBlocks * sizeof (long long)));
  if (!ws->res)
    TRY (cudaMalloc ((void **) &ws->res, sizeof (CvTemplateMatchResult)));

  const CvTmScoreConst k = cvtm_score_const (p->method, tw, th, templ->sum,
      templ->sumsq, templ->flat);
  dim3 cb (kCorrTX, kCorrThreadsY);
  dim3 cg ((rw + kCorrTX - 1) / kCorrTX, (rh + kCorrTY - 1) / kCorrTY);

  if (tw <= 8 && th <= 8) {
    corr_kernel < 8, 8, true > <<<cg, cb, 0, st>>> (lum, ls, w, h, ws->tmpl,
        tw, th, NULL, NULL, ws->map, rw, rh, k);
  } else {
    const size_t n = ((size_t) w + 1) * ((size_t) h + 1);
    TRY (ensure (&ws->isum, &ws->isum_cap, n));
    TRY (ensure (&ws->isq, &ws->isq_cap, n));
    TRY (cudaMemsetAsync (ws->isum, 0, ((size_t) w + 1) * sizeof (long long),
            st));
    TRY (cudaMemsetAsync (ws->isq, 0, ((size_t) w + 1) * sizeof (long long),
            st));
    integral_rows <<<h, 256, 0, st>>> (lum, ls, w, h, ws->isum, ws->isq);
    integral_cols <<<(w + 1 + 31) / 32, dim3 (32, 32), 0, st>>> (ws->isum,
        ws->isq, w, h);
    corr_kernel < 32, 16, false > <<<cg, cb, 0, st>>> (lum, ls, w, h,
        ws->tmpl, tw, th, ws->isum, ws->isq, ws->map, rw, rh, k);
  }
  TRY (cudaGetLastError ());

  /* best matches */
  TRY (cudaMemsetAsync (ws->res, 0, 2 * sizeof (int32_t), st));
  const int nb = rh < kRedBlocks ? rh : kRedBlocks;
  for (int m = 0; m < p->max_matches; m++) {
    reduce_partial <<<nb, kRedThreads, 0, st>>> (ws->map, rw, rh, p->method,
        ws->res, m, tw, th, ws->pkey, ws->pidx);
    reduce_final <<<1, kRedThreads, 0, st>>> (ws->pkey, ws->pidx, nb,
        ws->map, rw, p->method, p->threshold, ws->res, m);
  }
  TRY (cudaGetLastError ());

  if (score_map) {
    dim3 b (32, 8), g ((w + 31) / 32, (h + 7) / 8);
    score_map_kernel <<<g, b, 0, st>>> (ws->map, rw, rh, w, h, p->method,
        k.n, score_map->data, score_map->stride, p->score_map);
    TRY (cudaGetLastError ());
  }

  TRY (cudaMemcpyAsync (result, ws->res, sizeof (CvTemplateMatchResult),
          cudaMemcpyDeviceToHost, st));
  return CV_OK;
}
