/* gst-cuda-vision: template matching on the GPU.
 *
 * Per frame, all on the frame's stream:
 *  1. (RGB formats) BT.601 luma into a GRAY8 buffer.
 *  2. Window statistics: for templates larger than 8x8, integral images of
 *     the luma and of its square ((W+1) x (H+1)) in uint32_t, modulo 2^32,
 *     when every template reading them has at most 66051 pixels (its
 *     window sums are then below 2^32, and the modular window sums are
 *     the exact ones: see integral_rows), else in 64-bit integers; row
 *     scans with warp shuffles, then column scans through 32x32 tiles in
 *     shared memory, in segments of rows scanned in parallel from the
 *     segments' column totals (integral_seg_totals); for templates up to
 *     8x8 the window sums come from the correlation kernel's shared tile
 *     (cheaper than the integral images' memory traffic). All give the
 *     same exact integers.
 *  3. Correlation, exact integers on every path, four kernels:
 *     small (templates up to 8x8): corr_kernel, scalar, window sums from
 *       its tile;
 *     direct: corr_dp4a_kernel, __dp4a on 4 template bytes, each thread 8
 *       windows x 4 rows;
 *     gemm: corr_mma_kernel, 8-bit tensor cores (mma.sync m16n8k32, sm_80+
 *       code only) on an implicit GEMM (see the kernel);
 *     gemm3: corr_mma3_kernel, the same GEMM with 32 x 32 windows a warp
 *       and many more warps an SM: the template packed for 16-byte
 *       cp.async copies, template chunks of up to 160 rows staying in
 *       shared memory while the image rows stream past them through a
 *       cp.async ring, and a coalesced epilogue through shared memory (see
 *       the kernel).
 *     Automatic choice: small up to 8x8; for templates at least 16x16
 *     where sm_80+ code runs, gemm3 up to kGemmMaxExact (32768) pixels
 *     (measured faster than gemm at every size timed, choose_path), gemm
 *     above; else direct. CUDAVISION_TM_PATH=direct, gemm or gemm3 forces
 *     one for every size (read when the workspace is made).
 *     Split-K (gemm, gemm3; issue #25): where the frame's windows
 *     make less than half a wave of blocks (1080p, 200x150 on gemm: 450
 *     blocks for 1056 resident), the template is cut into bands (rows x
 *     32-column k-steps, split_band), one per blockIdx.z: each block
 *     correlates its band with the image shifted by the band's offset
 *     into a partial plane of exact integers (kWinRaw32 / kWinRaw), and
 *     split_sum_kernel adds
 *     the planes of each window (integers: any order, the same sum) and
 *     scores it as the unsplit kernel would (choose_split;
 *     CUDAVISION_TM_SPLITK=0, N or CxR overrides).
 *     The score (cvtemplatematch-score.h, double, no FMA contraction) is
 *     stored as float in a score map of (W-tw+1) x (H-th+1).
 *  4. Best matches: per match, a grid-stride block reduction over the
 *     score map (key, raster index) skipping NaN and windows suppressed by
 *     the matches found so far, then a one-block final reduction that
 *     applies the threshold and appends the match. Only the result struct
 *     (count + matches) is copied back, to the caller's pinned memory.
 *  5. (optional) the score map as GRAY8/GRAY16 of the frame's size.
 * No FFT (float results would break the exact sums).
 * The operator (cv_template_match_cuda_ops, at the end) owns the
 * workspace and the pinned result.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda-internal.h"
#include "cvop-internal.h"
#include "cvtemplatematch-score.h"

#include <cuda_runtime.h>
#include <algorithm>
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

struct Workspace
{
  uint8_t *luma;
  size_t luma_pitch;
  size_t luma_bytes;            /* capacity: pitch * rows */
  int luma_w, luma_h;
  /* the templates (and masks), uploaded when their id changes */
  uint8_t *tmpl[CV_TEMPLATE_MATCH_MAX_SCALES];
  size_t tmpl_cap[CV_TEMPLATE_MATCH_MAX_SCALES];
  uint64_t tmpl_id[CV_TEMPLATE_MATCH_MAX_SCALES];
  int tmpl_w[CV_TEMPLATE_MATCH_MAX_SCALES], tmpl_h[CV_TEMPLATE_MATCH_MAX_SCALES];
  uint8_t *mask[CV_TEMPLATE_MATCH_MAX_SCALES];
  size_t mask_cap[CV_TEMPLATE_MATCH_MAX_SCALES];
  /* masked templates: the luma's square as bytes, the masked sums */
  uint8_t *sqhi, *sqlo;
  size_t sq_pitch;
  int sq_w, sq_h;
  long long *ms, *mq;
  size_t ms_cap, mq_cap;
  float *map;
  size_t map_cap;               /* elements */
  /* the integral images and the column scans' segment totals, as
   * unsigned long long or (templates up to kIntegral32MaxPixels) uint32_t
   * (integral_rows): room counted in 8-byte elements */
  unsigned long long *isum, *isq, *itot;
  size_t isum_cap, isq_cap, itot_cap;
  float *pkey;
  long long *pidx;
  CvTemplateMatchResult *res;
  int path_env;                 /* CUDAVISION_TM_PATH: 0 auto, 1 direct,
                                 * 2 gemm, 5 gemm3 (read when the
                                 * workspace is made) */
  bool gemm_ok;                 /* the tensor-core kernels run as sm_80+
                                 * code on this device (found when the
                                 * workspace is made: workspace_probe) */
  /* the template packed for corr_mma3_kernel (tm_pack_kernel) */
  uint8_t *tpack;
  size_t tpack_cap;
  /* split-K (choose_split): CUDAVISION_TM_SPLITK, read when the workspace
   * is made: split_n -1 automatic, 0 or 1 none, N at least N bands;
   * "CxR": split_si x split_sj bands (else 0) */
  int split_n, split_si, split_sj;
  /* blocks of corr_mma_kernel and corr_mma3_kernel (<false>, <true>)
   * resident on the device at once, one wave (0: unknown, no automatic
   * split); found when the workspace is made */
  int wave_gemm[2], wave_gemm3[2];
  /* the bands' partial planes (bytes) */
  uint8_t *part;
  size_t part_cap;
};

constexpr int kRedThreads = 256;
constexpr int kRedBlocks = 1024;

/* Where a correlation kernel's window sums come from, or where its raw
 * correlation goes (masked templates: the mask's correlations first, then
 * the template's with these as the window sums; split-K: each band's
 * partial correlation, then the sum scored by split_sum_kernel):
 *   kWinIntegral: S, Q are the integral images ((W+1) x (H+1)), unsigned
 *                 long long;
 *   kWinIntegral32: the same in uint32_t, modulo 2^32 (templates of at
 *                 most kIntegral32MaxPixels pixels: see integral_rows);
 *   kWinArrays:   S, Q hold each window's sums (rw x rh, long long);
 *   kWinRaw:      raw[y * rw + x] = C (no score; raw as long long);
 *   kWinRawAcc:   raw[y * rw + x] = 256 raw[y * rw + x] + C (the square of
 *                 the luma as high byte then low byte; long long);
 *   kWinRaw32:    raw[y * rw + x] = C as uint32_t (split-K partial planes
 *                 of templates whose sums stay below 2^32). */
enum
{ kWinIntegral = 0, kWinArrays = 1, kWinRaw = 2, kWinRawAcc = 3,
  kWinIntegral32 = 4, kWinRaw32 = 5
};

struct WinSums
{
  const void *S, *Q;            /* element type by mode (above) */
  void *raw;                    /* element type by mode (above) */
  int mode;
};

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
  dst[(size_t) y * dstride + x] = (uint8_t) cv_luma (p[ro], p[go], p[bo]);
}

/* ---- 2. integral images ------------------------------------------------ */

/* Element type T of the integral images: uint32_t where every template
 * that reads them has N = tw * th <= kIntegral32MaxPixels pixels, else
 * unsigned long long. In 32 bits the tables wrap around: every operation
 * that makes them is an addition, so each entry is the exact integral
 * modulo 2^32, and a window sum S(x2,y2) - S(x1,y2) - S(x2,y1) + S(x1,y1)
 * evaluated in uint32_t (modular) is the exact window sum modulo 2^32,
 * i.e. the exact window sum itself when that lies in [0, 2^32): for the
 * squares Q <= N * 255^2 <= 66051 * 65025 = 4294966275 < 2^32, and
 * S <= Q. Same integers as the 64-bit tables, half their traffic, and
 * 32-bit adds and shuffles (one instruction each instead of two). */
constexpr long long kIntegral32MaxPixels = 66051;
static_assert (kIntegral32MaxPixels * 255 * 255 < (1LL << 32)
    && (kIntegral32MaxPixels + 1) * 255 * 255 >= (1LL << 32),
    "largest N whose window sum of squares fits 32 bits");

/* The column scans run in segments of rows scanned in parallel, each
 * segment starting from the column sums of the segments above it
 * (integral_seg_totals): segments of at least kIntSegRows rows (whole
 * 32-row tiles), at most kIntMaxSegs of them (the carry of a segment sums
 * the totals of those above it; int_seg_rows ()). */
constexpr int kIntSegRows = 128, kIntMaxSegs = 16;
static_assert (kIntSegRows % 32 == 0, "whole 32-row tiles");

/* rows per segment for a frame of h rows (a multiple of 32) */
__host__ __device__ inline int
int_seg_rows (int h)
{
  const int r = ((h + kIntMaxSegs - 1) / kIntMaxSegs + 31) / 32 * 32;
  return r > kIntSegRows ? r : kIntSegRows;
}

/* Row prefix sums: table[(y+1)(w+1) + x+1] = sum_{x' <= x} L(x', y),
 * table[(y+1)(w+1)] = 0. One 256-thread block per row. */
template < typename T >
__global__ void __launch_bounds__ (256)
integral_rows (const uint8_t * __restrict__ lum, size_t ls, int w, int h,
    T * __restrict__ S, T * __restrict__ Q)
{
  __shared__ T ws[8], wq[8];
  const int y = blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint8_t *row = lum + (size_t) y * ls;
  T *srow = S + (size_t) (y + 1) * (w + 1);
  T *qrow = Q + (size_t) (y + 1) * (w + 1);
  T carry_s = 0, carry_q = 0;

  if (y >= h)
    return;
  if (threadIdx.x == 0) {
    srow[0] = 0;
    qrow[0] = 0;
  }
  for (int x0 = 0; x0 < w; x0 += 256) {
    const int x = x0 + threadIdx.x;
    const T v = x < w ? row[x] : 0;
    T s = v, q = v * v;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const T ns = __shfl_up_sync (0xffffffffu, s, off);
      const T nq = __shfl_up_sync (0xffffffffu, q, off);
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
    T ps = 0, pq = 0, ts = 0, tq = 0;
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

/* Segment totals for the column scans: after integral_rows, tot[s][x] =
 * the sum of column x of both tables over the rows of segment s (rows
 * 1 + s * seg .. + seg - 1, seg = int_seg_rows (h)), for the segments but
 * the last; tot holds the S totals (nseg x (w + 1)) then the Q totals. Read
 * only (the tables are not written until integral_cols, which runs after
 * this kernel on the same stream). A 32x8 block sums 32 columns of one
 * segment: each thread every 8th row, then the 8 partial sums in shared
 * memory. */
template < typename T >
__global__ void __launch_bounds__ (256)
integral_seg_totals (const T * __restrict__ S, const T * __restrict__ Q,
    int w, int h, T * __restrict__ tot, int seg, int nseg)
{
  __shared__ T ps[8][32], pq[8][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx;
  const int cols = w + 1;
  const int s = blockIdx.y;
  const int y0 = 1 + s * seg;
  const int y1 = min (h + 1, y0 + seg);
  T as = 0, aq = 0;

  if (x < cols) {
#pragma unroll 4
    for (int y = y0 + ty; y < y1; y += 8) {
      as += S[(size_t) y * cols + x];
      aq += Q[(size_t) y * cols + x];
    }
  }
  ps[ty][tx] = as;
  pq[ty][tx] = aq;
  __syncthreads ();
  if (ty == 0 && x < cols) {
#pragma unroll
    for (int i = 1; i < 8; i++) {
      as += ps[i][tx];
      aq += pq[i][tx];
    }
    tot[(size_t) s * cols + x] = as;
    tot[((size_t) nseg + s) * cols + x] = aq;
  }
}

/* Column prefix sums over rows 1..h of both tables (row 0 is zero), w + 1
 * columns. Block (bx, s) owns 32 columns and segment s of the rows
 * (seg rows, blockIdx.y = s), which it walks down in 32-row tiles:
 * coalesced loads into shared memory, one warp scans one column with
 * shuffles, coalesced stores. The carry of each column starts at the sum
 * of the segment totals above (tot, integral_seg_totals), so the
 * segments are scanned in parallel (61 x 9 blocks at 1080p instead of 61
 * walking 34 tiles each). The next tile's values are loaded into
 * registers before the current tile is scanned. */
template < typename T >
__global__ void __launch_bounds__ (1024)
integral_cols (T * __restrict__ S, T * __restrict__ Q, int w, int h,
    const T * __restrict__ tot, int seg, int nseg)
{
  __shared__ T ts[32][33], tq[32][33];
  __shared__ T cs[32], cq[32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx;
  const int cols = w + 1;
  const int s0 = blockIdx.y;
  const int ybeg = 1 + s0 * seg;
  const int yend = min (h, ybeg + seg - 1);     /* last row */
  T ns = 0, nq = 0;             /* the next tile's values */

  if (ty == 0) {
    /* the column sums of the rows above the segment */
    T c0 = 0, c1 = 0;
    if (x < cols)
#pragma unroll 4
      for (int s = 0; s < s0; s++) {
        c0 += tot[(size_t) s * cols + x];
        c1 += tot[((size_t) nseg + s) * cols + x];
      }
    cs[tx] = c0;
    cq[tx] = c1;
  }
  if (x < cols && ybeg + ty <= yend) {
    ns = S[(size_t) (ybeg + ty) * cols + x];
    nq = Q[(size_t) (ybeg + ty) * cols + x];
  }
  for (int y0 = ybeg; y0 <= yend; y0 += 32) {
    const int y = y0 + ty;
    __syncthreads ();           /* the previous tile stored; cs set */
    ts[ty][tx] = ns;
    tq[ty][tx] = nq;
    ns = 0;
    nq = 0;
    if (x < cols && y + 32 <= yend) {
      ns = S[(size_t) (y + 32) * cols + x];
      nq = Q[(size_t) (y + 32) * cols + x];
    }
    __syncthreads ();
    /* warp ty scans column ty of the tile: lane = row */
    {
      T s = ts[tx][ty], q = tq[tx][ty];
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const T us = __shfl_up_sync (0xffffffffu, s, off);
        const T uq = __shfl_up_sync (0xffffffffu, q, off);
        if (tx >= off) {
          s += us;
          q += uq;
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
    if (x < cols && y <= yend) {
      S[(size_t) y * cols + x] = ts[ty][tx];
      Q[(size_t) y * cols + x] = tq[ty][tx];
    }
  }
}

/* ---- 3. correlation and scores ----------------------------------------- */

/* Score of window (x, y) from its correlation c and the integral images
 * (out of line: the callers unroll over many windows). */
__device__ __noinline__ void
store_score (const CvTmScoreConst * k, long long c, int x, int y, int w,
    int tw, int th, const WinSums & win, float *__restrict__ map, int rw)
{
  const size_t o = (size_t) y * rw + x;
  long long ws, wq;

  if (win.mode == kWinRaw) {
    static_cast < long long *>(win.raw)[o] = c;
    return;
  }
  if (win.mode == kWinRawAcc) {
    long long *raw = static_cast < long long *>(win.raw);
    raw[o] = raw[o] * 256 + c;
    return;
  }
  if (win.mode == kWinRaw32) {
    static_cast < uint32_t * >(win.raw)[o] = (uint32_t) c;
    return;
  }
  if (win.mode == kWinArrays) {
    ws = static_cast < const long long *>(win.S)[o];
    wq = static_cast < const long long *>(win.Q)[o];
  } else {
    const size_t cols = (size_t) w + 1;
    const size_t a = (size_t) y * cols + x, b = a + tw;
    const size_t cc = (size_t) (y + th) * cols + x, d = cc + tw;
    if (win.mode == kWinIntegral32) {
      /* modulo 2^32 (unsigned arithmetic): the exact sums, which are
       * below 2^32 for these templates */
      const uint32_t *__restrict__ S = static_cast < const uint32_t *>(win.S);
      const uint32_t *__restrict__ Q = static_cast < const uint32_t *>(win.Q);
      ws = (long long) (uint32_t) (S[d] - S[b] - S[cc] + S[a]);
      wq = (long long) (uint32_t) (Q[d] - Q[b] - Q[cc] + Q[a]);
    } else {
      const unsigned long long *__restrict__ S =
          static_cast < const unsigned long long *>(win.S);
      const unsigned long long *__restrict__ Q =
          static_cast < const unsigned long long *>(win.Q);
      ws = (long long) (S[d] - S[b] - S[cc] + S[a]);
      wq = (long long) (Q[d] - Q[b] - Q[cc] + Q[a]);
    }
  }
  map[o] = cvtm_score (k, c, ws, wq);
}

constexpr int kCorrTX = 64;     /* windows per block, x */
constexpr int kCorrThreadsY = 4;
constexpr int kCorrR = 4;       /* rows per thread */
constexpr int kCorrTY = kCorrThreadsY * kCorrR; /* 16 */

template < int CI, int CJ, bool STATS >
__global__ void __launch_bounds__ (kCorrTX * kCorrThreadsY)
corr_kernel (const uint8_t * __restrict__ lum, size_t ls, int w, int h,
    const uint8_t * __restrict__ tmpl, int tw, int th,
    WinSums win, float *__restrict__ map, int rw, int rh, CvTmScoreConst k)
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
    if (STATS)
      map[(size_t) y * rw + ox] = cvtm_score (&k, (long long) c[r], s[r],
          q[r]);
    else
      store_score (&k, (long long) c[r], ox, y, w, tw, th, win, map, rw);
  }
}

/* ---- 3b. direct correlation with __dp4a -------------------------------- */

/* A 128-thread block (16 x 8) computes 128 x 32 windows; each thread 8
 * consecutive windows along x times kDirR = 4 rows. The template is walked
 * in chunks of kDirCJ rows x kDirCI columns (zero-padded to whole 16-byte
 * groups) staged in shared memory with the image rows they meet. The loop
 * runs over image rows: an image word (4 bytes), byte-shifted with
 * __byte_perm for the 8 windows, meets the template row j = ir - o of each
 * of the thread's output rows o: 4 products per __dp4a, exact in unsigned
 * 32 bits (N <= 65536 template pixels: 65536 * 255^2 < 2^32); WIDE adds
 * the per-chunk sums into 64-bit ones for larger templates. */
constexpr int kDirTX = 16, kDirTY = 8;  /* threads */
constexpr int kDirW = 8;        /* windows per thread along x */
constexpr int kDirR = 4;        /* rows per thread */
constexpr int kDirBX = kDirTX * kDirW;  /* 128 windows */
constexpr int kDirBY = kDirTY * kDirR;  /* 32 rows */
constexpr int kDirCI = 64, kDirCJ = 16; /* template chunk */
constexpr int kDirIH = kDirBY + kDirCJ - 1;     /* 47 image rows */
constexpr int kDirIWW = (kDirBX + kDirCI) / 4 + 2;      /* 50 words */

template < bool WIDE >
__global__ void __launch_bounds__ (kDirTX * kDirTY)
corr_dp4a_kernel (const uint8_t * __restrict__ lum, size_t ls, int w, int h,
    const uint8_t * __restrict__ tmpl, int tw, int th,
    WinSums win, float *__restrict__ map, int rw, int rh, CvTmScoreConst k)
{
  __shared__ __align__ (16) uint32_t sI[kDirIH][kDirIWW];
  __shared__ __align__ (16) uint4 sT[kDirCJ][kDirCI / 16];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * kDirTX + tx;
  const int bx = blockIdx.x * kDirBX, by = blockIdx.y * kDirBY;

  uint32_t acc[kDirR][kDirW];
  unsigned long long c64[WIDE ? kDirR : 1][WIDE ? kDirW : 1];
#pragma unroll
  for (int o = 0; o < kDirR; o++)
#pragma unroll
    for (int s = 0; s < kDirW; s++) {
      acc[o][s] = 0;
      if (WIDE)
        c64[WIDE ? o : 0][WIDE ? s : 0] = 0;
    }

  for (int j0 = 0; j0 < th; j0 += kDirCJ) {
    const int cj = min (kDirCJ, th - j0);
    for (int i0 = 0; i0 < tw; i0 += kDirCI) {
      const int ci = min (kDirCI, tw - i0);
      __syncthreads ();         /* previous chunk fully consumed */
      {
        uint32_t *t32 = reinterpret_cast < uint32_t * >(&sT[0][0]);
        for (int idx = tid; idx < kDirCJ * kDirCI / 4;
            idx += kDirTX * kDirTY) {
          const int jj = idx / (kDirCI / 4), ii = (idx % (kDirCI / 4)) * 4;
          uint32_t v = 0;
          if (jj < cj) {
            const uint8_t *tr = tmpl + (size_t) (j0 + jj) * tw + i0;
#pragma unroll
            for (int b = 0; b < 4; b++)
              if (ii + b < ci)
                v |= (uint32_t) tr[ii + b] << (8 * b);
          }
          t32[idx] = v;
        }
      }
      for (int idx = tid; idx < kDirIH * kDirIWW; idx += kDirTX * kDirTY) {
        const int r = idx / kDirIWW, wd = idx % kDirIWW;
        const int gy = by + j0 + r, gx = bx + i0 + wd * 4;
        uint32_t v = 0;
        if (gy < h) {
          const uint8_t *row = lum + (size_t) gy * ls;
#pragma unroll
          for (int b = 0; b < 4; b++)
            if (gx + b < w)
              v |= (uint32_t) row[gx + b] << (8 * b);
        }
        sI[r][wd] = v;
      }
      __syncthreads ();

      const int nq4 = (ci + 15) / 16;
      for (int ir = 0; ir < kDirR + cj - 1; ir++) {
        const uint32_t *row = &sI[ty * kDirR + ir][tx * 2];
        for (int q4 = 0; q4 < nq4; q4++) {
          uint32_t W[6];
#pragma unroll
          for (int p = 0; p < 3; p++) {
            const uint2 v = *reinterpret_cast < const uint2 * >(row + q4 * 4
                + 2 * p);
            W[2 * p] = v.x;
            W[2 * p + 1] = v.y;
          }
          uint4 t[kDirR];
#pragma unroll
          for (int o = 0; o < kDirR; o++) {
            const int j = ir - o;
            t[o] = sT[(j >= 0 && j < cj) ? j : 0][q4];
          }
#pragma unroll
          for (int st = 0; st < 4; st++) {
            uint32_t a[kDirW];
            a[0] = W[st];
            a[1] = __byte_perm (W[st], W[st + 1], 0x4321);
            a[2] = __byte_perm (W[st], W[st + 1], 0x5432);
            a[3] = __byte_perm (W[st], W[st + 1], 0x6543);
            a[4] = W[st + 1];
            a[5] = __byte_perm (W[st + 1], W[st + 2], 0x4321);
            a[6] = __byte_perm (W[st + 1], W[st + 2], 0x5432);
            a[7] = __byte_perm (W[st + 1], W[st + 2], 0x6543);
#pragma unroll
            for (int o = 0; o < kDirR; o++) {
              const int j = ir - o;
              if (j < 0 || j >= cj)
                continue;
              const uint32_t tv = st == 0 ? t[o].x : st == 1 ? t[o].y :
                  st == 2 ? t[o].z : t[o].w;
#pragma unroll
              for (int s = 0; s < kDirW; s++)
                acc[o][s] = __dp4a (a[s], tv, acc[o][s]);
            }
          }
        }
      }
      if (WIDE) {
        /* <= 1024 products per chunk: exact, flush into 64 bits */
#pragma unroll
        for (int o = 0; o < kDirR; o++)
#pragma unroll
          for (int s = 0; s < kDirW; s++) {
            c64[WIDE ? o : 0][WIDE ? s : 0] += acc[o][s];
            acc[o][s] = 0;
          }
      }
    }
  }

#pragma unroll
  for (int o = 0; o < kDirR; o++) {
    const int y = by + ty * kDirR + o;
    if (y >= rh)
      break;
#pragma unroll
    for (int s = 0; s < kDirW; s++) {
      const int x = bx + tx * kDirW + s;
      if (x >= rw)
        break;
      const long long cv = WIDE ? (long long) c64[WIDE ? o : 0][WIDE ? s : 0]
          : (long long) acc[o][s];
      store_score (&k, cv, x, y, w, tw, th, win, map, rw);
    }
  }
}

/* ---- 3c. split-K of the tensor-core correlations ----------------------- */

/* The correlation of window (x, y), sum_j sum_i T(j, i) I(y + j, x + i),
 * split over bands of the template: rows j in [y0, y0 + h), columns i in
 * [x0, x0 + w). A band's part is the correlation of the band (a template
 * of its own, rows of the whole template's stride) with the image shifted
 * by (x0, y0) (the window grid is the same: x + x0 + i stays below W for
 * every window and band column); the parts are exact integers, so their
 * sum, in any order, is the whole correlation. si column bands of whole
 * 32-column k-steps (as even as they go: the MMAs' k-steps stay whole)
 * times sj even row bands; band z = blockIdx.z is column band z % si, row
 * band z / si. si <= the k-steps, sj <= th (no empty band). The kernels
 * take the split as a template parameter (SPLIT): unsplit, they are the
 * kernels as they were. */
struct TmSplit
{
  int si, sj;
};

struct TmBand
{
  int x0, y0, w, h;
};

__device__ inline TmBand
split_band (TmSplit sp, int z, int tw, int th)
{
  const int bi = z % sp.si, bj = z / sp.si;
  const int nks = (tw + 31) / 32;
  const int x1 = 32 * ((bi + 1) * nks / sp.si);
  TmBand b;

  b.x0 = 32 * (bi * nks / sp.si);
  b.y0 = bj * th / sp.sj;
  b.w = (x1 < tw ? x1 : tw) - b.x0;
  b.h = (bj + 1) * th / sp.sj - b.y0;
  return b;
}

/* Where this block's band writes its part: plane blockIdx.z of rw x rh
 * windows of the raw modes (kWinRaw32, kWinRaw). */
__device__ inline WinSums
split_plane (WinSums win, int rw, int rh)
{
  const size_t off = (size_t) blockIdx.z * rw * rh;

  if (win.mode == kWinRaw32)
    win.raw = static_cast < uint32_t * >(win.raw) + off;
  else if (win.mode == kWinRaw)
    win.raw = static_cast < long long *>(win.raw) + off;
  return win;
}

/* The sum of the n parts of each window (planes of rw x rh elements T:
 * uint32_t where the whole template's sums stay below 2^32, else long
 * long), stored as win says: the score, as the unsplit kernel
 * stores it, or the raw correlation of a masked template's pass. */
template < typename T >
__global__ void
split_sum_kernel (const T * __restrict__ part, int n, int w, int tw, int th,
    WinSums win, float *__restrict__ map, int rw, int rh, CvTmScoreConst k)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= rw || y >= rh)
    return;
  const size_t plane = (size_t) rw * rh, o = (size_t) y * rw + x;
  unsigned long long c = 0;
  for (int z = 0; z < n; z++)
    c += part[z * plane + o];
  store_score (&k, (long long) c, x, y, w, tw, th, win, map, rw);
}

/* ---- 3d. correlation on 8-bit tensor cores (implicit GEMM) ------------ */

/* The correlation as a sum of GEMMs D[m][n] += A[m][k] B[k][n] with
 * mma.sync.m16n8k32 (u8 x u8 -> s32, exact; sm_80+):
 *   m: output row y0 + m (16 per m-tile),
 *   n: window column x = xs + s + 4 n (8 per n-tile; the 4 n-tiles
 *      s = 0..3 of a warp cover 32 consecutive windows, so that the 4
 *      tiles share aligned image words and differ by a byte shift),
 *   k: 32 template columns i0 + k,
 * and for each image row r (relative to y0 + j0):
 *   A_r[m][k] = T(j0 + r - m, i0 + k)   (zero outside the template chunk:
 *               the chunk is staged with 15 zero rows above and below),
 *   B_r[k][n] = I(y0 + j0 + r, x_n + i0 + k).
 * Summing over r gives sum_j sum_k T(j, i0 + k) I(y0 + m + j, x_n + i0 + k),
 * the correlation over the chunk. A (template rows in reverse order) is
 * loaded with ldmatrix, B from 32-bit words with __byte_perm. A block is 4
 * warps side by side, 128 x 32 windows; a warp 32 x 32 (2 m-tiles x 4
 * n-tiles). Template chunks: kGemmCJ rows x kGemmCI columns. s32 sums are
 * exact up to N <= 33025 template pixels (33025 * 255^2 < 2^31); WIDE
 * (larger templates) adds each chunk's sums (<= 64*64*255^2) into 64-bit
 * ones. */
/* The tensor-core kernels' pieces (corr_mma_kernel, corr_mma3_kernel). */

/* B of a k-step for the warp's 4 n-tiles (s = 0..3, windows x + s + 4 n):
 * from the lane's image words row[0], row[1] (bytes k 0..7 of its window)
 * and row[4], row[5] (k 16..23), shifted one byte an n-tile */
__device__ __forceinline__ void
mma_b_frags (const uint32_t * row, uint32_t b[4][2])
{
  const uint32_t w0 = row[0], w1 = row[1];
  const uint32_t w4 = row[4], w5 = row[5];
  b[0][0] = w0;
  b[1][0] = __byte_perm (w0, w1, 0x4321);
  b[2][0] = __byte_perm (w0, w1, 0x5432);
  b[3][0] = __byte_perm (w0, w1, 0x6543);
  b[0][1] = w4;
  b[1][1] = __byte_perm (w4, w5, 0x4321);
  b[2][1] = __byte_perm (w4, w5, 0x5432);
  b[3][1] = __byte_perm (w4, w5, 0x6543);
}

/* d += A B for the warp's 4 n-tiles: m16n8k32, u8 x u8 -> s32 (exact) */
__device__ __forceinline__ void
mma_u8_x4 (int d[4][4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
    const uint32_t b[4][2])
{
#pragma unroll
  for (int s = 0; s < 4; s++)
    asm ("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};":"+r" (d[s][0]), "+r" (d[s][1]), "+r" (d[s][2]),
        "+r" (d[s][3]):"r" (a0), "r" (a1), "r" (a2), "r" (a3),
        "r" (b[s][0]), "r" (b[s][1]));
}

/* the warp's sums (s32, and WIDE's 64-bit ones) at 0 */
template < int MT, bool WIDE >
__device__ __forceinline__ void
mma_zero (int acc[][4][4], unsigned long long c64[][WIDE ? 4 : 1][WIDE ?
        4 : 1])
{
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        acc[mt][s][e] = 0;
        if (WIDE)
          c64[WIDE ? mt : 0][WIDE ? s : 0][WIDE ? e : 0] = 0;
      }
}

/* WIDE: a chunk's s32 sums added into the 64-bit ones, then cleared */
template < int MT, bool WIDE >
__device__ __forceinline__ void
mma_fold_wide (int acc[][4][4], unsigned long long c64[][WIDE ? 4 : 1][WIDE ?
        4 : 1])
{
  if (WIDE) {
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
      for (int s = 0; s < 4; s++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
          c64[WIDE ? mt : 0][WIDE ? s : 0][WIDE ? e : 0] +=
              (uint32_t) acc[mt][s][e];
          acc[mt][s][e] = 0;
        }
  }
}

/* The epilogue of corr_mma3_kernel, first half: the warp's sums into a
 * 16 MT x BX tile of smem (x = wx + s + 4 n, y = 16 mt + m; rows of CS
 * words), which the block then scores row by row (coalesced window-sum
 * reads and score stores). D fragment: e = 0:
 * (m = g, n = 2t), 1: (g, 2t + 1), 2: (g + 8, 2t), 3: (g + 8, 2t + 1). */
template < int MT, bool WIDE, int CS >
__device__ __forceinline__ void
mma_tile_store (uint8_t * smem, const int acc[][4][4],
    const unsigned long long c64[][WIDE ? 4 : 1][WIDE ? 4 : 1], int wx,
    int g, int t)
{
  uint32_t *sC32 = reinterpret_cast < uint32_t * >(smem);
  unsigned long long *sC64 = reinterpret_cast < unsigned long long *>(smem);
#pragma unroll
  for (int mt = 0; mt < MT; mt++)
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const int y = mt * 16 + g + (e >> 1) * 8;
#pragma unroll
      for (int s = 0; s < 4; s++) {
        const int x = wx + s + 4 * (2 * t + (e & 1));
        if (WIDE)
          sC64[y * CS + x] = c64[WIDE ? mt : 0][WIDE ? s : 0][WIDE ? e : 0];
        else
          sC32[y * CS + x] = (uint32_t) acc[mt][s][e];
      }
    }
}

constexpr int kGemmWarps = 4;
constexpr int kGemmBX = 32 * kGemmWarps;        /* 128 windows */
constexpr int kGemmBY = 32;     /* rows */
constexpr int kGemmCJ = 64, kGemmCI = 64;       /* template chunk */

template < bool WIDE, bool SPLIT >
__global__ void __launch_bounds__ (32 * kGemmWarps)
corr_mma_kernel (const uint8_t * __restrict__ lum, size_t ls, int w, int h,
    const uint8_t * __restrict__ tmpl, int tw, int th, TmSplit sp,
    WinSums win, float *__restrict__ map, int rw, int rh, CvTmScoreConst k)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int kGemmTRows = kGemmCJ + 30;      /* 15 zero rows each side */
  constexpr int kGemmTStride = kGemmCI + 16;    /* 80 bytes: no ldmatrix
                                                 * bank conflicts */
  constexpr int kGemmIH = kGemmBY + kGemmCJ - 1;        /* 95 image rows */
  constexpr int kGemmIWW = (kGemmBX + kGemmCI) / 4;     /* 48 words */
  __shared__ __align__ (16) uint8_t sT[kGemmTRows][kGemmTStride];
  __shared__ __align__ (16) uint32_t sI[kGemmIH][kGemmIWW];

  const int tid = threadIdx.x;
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int bx = blockIdx.x * kGemmBX, by = blockIdx.y * kGemmBY;
  const int wx = warp * 32;     /* the warp's windows in the block */
  /* split-K (SPLIT): the block's band of the template (rows of stride
   * tw) and the image shifted by its offset, iw x ih (its part goes into
   * plane blockIdx.z: split_plane); else the whole template (the split's
   * offsets take 8 registers: 7 blocks an SM instead of 8) */
  const TmBand band = SPLIT ? split_band (sp, blockIdx.z, tw, th) :
      TmBand { 0, 0, tw, th };
  const uint8_t *__restrict__ bt = tmpl + (size_t) band.y0 * tw + band.x0;
  const uint8_t *__restrict__ bl = lum + (size_t) band.y0 * ls + band.x0;
  const int iw = w - band.x0, ih = h - band.y0;

  int acc[2][4][4];
  unsigned long long c64[WIDE ? 2 : 1][WIDE ? 4 : 1][WIDE ? 4 : 1];
#pragma unroll
  for (int mt = 0; mt < 2; mt++)
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        acc[mt][s][e] = 0;
        if (WIDE)
          c64[WIDE ? mt : 0][WIDE ? s : 0][WIDE ? e : 0] = 0;
      }

  /* ldmatrix row of this lane: matrix lane >> 3 (0: rows 0-7, bytes
   * 0-15; 1: rows 8-15, bytes 0-15; 2: rows 0-7, bytes 16-31; 3: rows
   * 8-15, bytes 16-31), row lane & 7 */
  const int lm_m = (lane & 7) + ((lane >> 3) & 1) * 8;
  const int lm_col = (lane >> 4) * 16;
  const uint32_t sT_base = (uint32_t) __cvta_generic_to_shared (&sT[0][0]);

  for (int j0 = 0; j0 < band.h; j0 += kGemmCJ) {
    const int cj = min (kGemmCJ, band.h - j0);
    for (int i0 = 0; i0 < band.w; i0 += kGemmCI) {
      const int ci = min (kGemmCI, band.w - i0);
      __syncthreads ();         /* previous chunk fully consumed */
      {
        uint32_t *t32 = reinterpret_cast < uint32_t * >(&sT[0][0]);
        constexpr int tww = kGemmTStride / 4;
        for (int idx = tid; idx < kGemmTRows * tww; idx += 32 * kGemmWarps) {
          const int jj = idx / tww - 15, ii = (idx % tww) * 4;
          uint32_t v = 0;
          if (jj >= 0 && jj < cj) {
            const uint8_t *tr = bt + (size_t) (j0 + jj) * tw + i0;
#pragma unroll
            for (int b = 0; b < 4; b++)
              if (ii + b < ci)
                v |= (uint32_t) tr[ii + b] << (8 * b);
          }
          t32[idx] = v;
        }
      }
      for (int idx = tid; idx < kGemmIH * kGemmIWW; idx += 32 * kGemmWarps) {
        const int r = idx / kGemmIWW, wd = idx % kGemmIWW;
        const int gy = by + j0 + r, gx = bx + i0 + wd * 4;
        uint32_t v = 0;
        if (gy < ih) {
          const uint8_t *row = bl + (size_t) gy * ls;
#pragma unroll
          for (int b = 0; b < 4; b++)
            if (gx + b < iw)
              v |= (uint32_t) row[gx + b] << (8 * b);
        }
        sI[r][wd] = v;
      }
      __syncthreads ();

      const int nk = (ci + 31) / 32;    /* 1 or 2 k-steps of 32 */
      for (int r = 0; r < kGemmBY + cj - 1; r++) {
        const uint32_t *row = &sI[r][wx / 4 + g + t];
#pragma unroll
        for (int kk = 0; kk < 2; kk++) {
          if (kk >= nk)
            break;
          uint32_t b[4][2];
          mma_b_frags (row + kk * 8, b);
#pragma unroll
          for (int mt = 0; mt < 2; mt++) {
            const int rr = r - mt * 16;   /* rows of this m-tile: rr - m */
            if (rr < 0 || rr > cj + 14)
              continue;
            uint32_t a0, a1, a2, a3;
            const uint32_t addr = sT_base + (uint32_t) ((rr - lm_m + 15) *
                kGemmTStride + kk * 32 + lm_col);
            asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                "{%0, %1, %2, %3}, [%4];":"=r" (a0), "=r" (a1), "=r" (a2),
                "=r" (a3):"r" (addr):"memory");
            mma_u8_x4 (acc[mt], a0, a1, a2, a3, b);
          }
        }
      }
      mma_fold_wide < 2, WIDE > (acc, c64);
    }
  }

  /* D fragment: e = 0: (m = g, n = 2t), 1: (g, 2t + 1), 2: (g + 8, 2t),
   * 3: (g + 8, 2t + 1); window x = bx + wx + s + 4 n */
  const WinSums out = SPLIT ? split_plane (win, rw, rh) : win;
#pragma unroll
  for (int mt = 0; mt < 2; mt++)
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const int y = by + mt * 16 + g + (e >> 1) * 8;
      if (y >= rh)
        continue;
#pragma unroll
      for (int s = 0; s < 4; s++) {
        const int x = bx + wx + s + 4 * (2 * t + (e & 1));
        if (x >= rw)
          continue;
        const long long cv = WIDE ?
            (long long) c64[WIDE ? mt : 0][WIDE ? s : 0][WIDE ? e : 0] :
            (long long) (uint32_t) acc[mt][s][e];
        store_score (&k, cv, x, y, w, tw, th, out, map, rw);
      }
    }
#endif
}

/* ---- 3e. tensor cores, image rows streamed past a resident template ---- */

/* gemm3 (corr_mma3_kernel): the GEMM of corr_mma_kernel again (the same
 * m16n8k32 u8 x u8 -> s32 MMAs, A the template from ldmatrix, B the image
 * from 32-bit words and __byte_perm, the same exact s32 or 64-bit sums),
 * arranged for occupancy and for fewer padding MMAs:
 *  - a warp owns 32 output rows x 32 windows (2 m-tiles x 4 n-tiles, 32
 *    accumulator registers; WIDE: 1 m-tile), a block 4 warps side by side
 *    (128 x 32 windows, WIDE 128 x 16) and 27 KiB of static shared memory:
 *    at 1080p, 64x64, 480 blocks of which 4 or more fit an SM (gemm2, a
 *    kernel of 64 rows x 32 windows a warp since removed, made 240 blocks
 *    under 2 an SM: 11 % occupancy, latency-bound);
 *  - the template is packed once per correlation (tm_pack_kernel) into
 *    rows of a multiple of 64 zero-padded bytes, 16-byte aligned, so that
 *    every template chunk is staged with 16-byte cp.async copies;
 *  - the template chunk is up to kG3CJ (160) rows x 64 columns and stays
 *    in shared memory while the image rows stream past it: a template of
 *    up to 160 rows is one row chunk, so each m-tile pays its 15 rows of
 *    Toeplitz padding once, not once per 64 rows (200x150: 165 rows of
 *    MMAs an m-tile instead of gemm's 195);
 *  - the m-tiles are indexed by q = image row - 16 mt (the template row
 *    of output row m is q - m): every q in [0, cj + 15) feeds both
 *    m-tiles, with the same template fragment (one ldmatrix for the
 *    warp's 8 MMAs of a k-step) and each m-tile its own image row (q and
 *    q + 16), so no iteration has an idle m-tile or a branch on it;
 *  - the image rows (128 windows + 64 template columns = 192 bytes) go
 *    through a ring of kG3NS stages of kG3G rows (64 rows), filled by
 *    16-byte cp.async copies (32-bit words built from bytes where the
 *    plane is not 16-byte aligned, zero beyond the frame) kG3NS - 4 stages
 *    ahead of the three the current group of kG3G iterations reads; one
 *    barrier a group (kG3G iterations, 128 MMAs a warp);
 *  - iterations of a whole group are unrolled, so the compiler can issue
 *    the next iteration's shared loads under the current MMAs;
 *  - the epilogue goes through shared memory (mma_tile_store): the
 *    accumulators are stored as a BY x 128 tile, then consecutive threads
 *    score consecutive windows of a row, so that the window-sum reads and
 *    the score stores are coalesced (the fragment order touched 16 lines
 *    a warp access).
 * Chunks (row chunk outer, 64-column chunk inner) are each loaded and
 * drained on their own: the template chunk by cp.async with the ring's
 * first stages, the ring restarted at the chunk's first image row.
 * Exactness as gemm: s32 sums exact up to kGemmMaxExact pixels; WIDE adds
 * each chunk's sums (at most 160 x 64 x 255^2 < 2^31) into 64-bit ones. */
constexpr int kG3Warps = 4;
constexpr int kG3BX = 32 * kG3Warps;    /* 128 windows */
constexpr int kG3CJ = 160, kG3CI = 64;  /* template chunk, at most */
constexpr int kG3TRows = kG3CJ + 30;    /* 15 zero rows each side */
constexpr int kG3TStride = kG3CI + 16;  /* 80 bytes: no ldmatrix conflicts */
constexpr int kG3TBytes = kG3TRows * kG3TStride;        /* 15200 */
constexpr int kG3IWW = (kG3BX + kG3CI) / 4;     /* 48 words a ring row */
constexpr int kG3G = 8;         /* ring rows a stage, iterations a group */
constexpr int kG3NS = 8;        /* ring stages */
constexpr int kG3Ring = kG3G * kG3NS;   /* 64 rows */
constexpr int kG3IBytes = kG3Ring * kG3IWW * 4; /* 12288 */
constexpr int kG3Smem = kG3TBytes + kG3IBytes;  /* 27488 */
constexpr int kG3CStride = kG3BX + 1;   /* epilogue tile: no bank conflicts */

static_assert ((kG3Ring & (kG3Ring - 1)) == 0, "ring rows: a power of 2");
static_assert (kG3TBytes % 16 == 0, "16-byte aligned ring");
static_assert (kG3Smem <= 48 * 1024, "static shared memory");
static_assert (kG3CJ * kG3CI * 255LL * 255 < (1LL << 31),
    "WIDE: a chunk's s32 sums exact");

/* The packed template: row j of tw bytes at p[j * pw], pw = tw rounded up
 * to 64, zero in the padding. */
__global__ void
tm_pack_kernel (const uint8_t * __restrict__ t, int tw, int th,
    uint8_t * __restrict__ p, int pw)
{
  const size_t n = (size_t) pw * th;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x) {
    const int y = (int) (i / pw), x = (int) (i % pw);
    p[i] = x < tw ? t[(size_t) y * tw + x] : 0;
  }
}

__device__ __forceinline__ void
cp_async16 (uint32_t saddr, const void *g)
{
  asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"::"r" (saddr),
      "l" (g));
}

__host__ __device__ constexpr int
g3_mtiles (bool wide)
{
  return wide ? 1 : 2;
}

__host__ __device__ constexpr int
g3_by (bool wide)
{
  return 16 * g3_mtiles (wide);
}

/* stages of the ring a group of iterations reads: rows q0 .. q0 + kG3G - 1
 * + 16 (MT - 1) */
__host__ __device__ constexpr int
g3_live (bool wide)
{
  return 1 + (kG3G - 1 + 16 * (g3_mtiles (wide) - 1)) / kG3G;
}

static_assert (g3_live (false) == 3 && g3_live (true) == 1, "live stages");
static_assert (kG3NS - g3_live (false) - 1 >= 1, "a stage in flight");
static_assert (g3_by (false) * kG3CStride * 4 <= kG3Smem
    && g3_by (true) * kG3CStride * 8 <= kG3Smem, "epilogue tile fits");

/* rows of each row chunk of a band of th rows: as even as they go, at most
 * kG3CJ */
__device__ __forceinline__ int
g3_row_chunks (int th)
{
  return (th + kG3CJ - 1) / kG3CJ;
}

/* Stage t of the ring: image rows t kG3G .. + kG3G - 1 of the chunk (those
 * below nrows), relative to image row by + j0, columns bx + i0 .. + 191,
 * into ring rows (row mod kG3Ring); one cp.async group, empty past nrows. */
__device__ __forceinline__ void
g3_stage_image (uint8_t * sI, int t, int nrows,
    const uint8_t * __restrict__ lum, size_t ls, int w, int h, bool vec,
    int j0, int i0, int bx, int by)
{
  constexpr int P = kG3IWW / 4; /* 12 pieces of 16 bytes a row */
  for (int idx = threadIdx.x; idx < kG3G * P; idx += 32 * kG3Warps) {
    const int r = t * kG3G + idx / P, p = idx % P;
    if (r >= nrows)
      break;
    const int gy = by + j0 + r, gx = bx + i0 + p * 16;
    uint8_t *d = sI + (r & (kG3Ring - 1)) * (kG3IWW * 4) + p * 16;
    if (gy < h && vec && gx + 16 <= w) {
      cp_async16 ((uint32_t) __cvta_generic_to_shared (d),
          lum + (size_t) gy * ls + gx);
    } else {
      uint32_t v[4] = { 0, 0, 0, 0 };
      if (gy < h) {
        const uint8_t *row = lum + (size_t) gy * ls;
#pragma unroll
        for (int q = 0; q < 16; q++)
          if (gx + q < w)
            v[q >> 2] |= (uint32_t) row[gx + q] << (8 * (q & 3));
      }
      *reinterpret_cast < uint4 * >(d) = make_uint4 (v[0], v[1], v[2], v[3]);
    }
  }
  asm volatile ("cp.async.commit_group;"::);
}

/* The template chunk (j0, i0), cj x ci, into sT: row jj + 15 holds template
 * row j0 + jj for jj in [-15, cj + 15), zero outside [0, cj) and in the
 * 16-byte pieces that start at or past ci (a split's band ends inside the
 * packed row, whose next bytes are another band's or beyond the last
 * row); one cp.async group. */
__device__ __forceinline__ void
g3_stage_tmpl (uint8_t * sT, const uint8_t * __restrict__ tp, int pw,
    int j0, int i0, int cj, int ci)
{
  for (int idx = threadIdx.x; idx < (cj + 30) * 4; idx += 32 * kG3Warps) {
    const int q = idx >> 2, p = idx & 3, jj = q - 15;
    uint8_t *d = sT + q * kG3TStride + p * 16;
    if (jj >= 0 && jj < cj && p * 16 < ci)
      cp_async16 ((uint32_t) __cvta_generic_to_shared (d),
          tp + (size_t) (j0 + jj) * pw + i0 + p * 16);
    else
      *reinterpret_cast < uint4 * >(d) = make_uint4 (0, 0, 0, 0);
  }
  asm volatile ("cp.async.commit_group;"::);
}

/* One iteration q of a chunk: image rows q + 16 mt of the ring against
 * template rows q - m (the ldmatrix rows q - m + 15 of sT), nk k-steps. */
template < int MT >
__device__ __forceinline__ void
g3_step (int acc[][4][4], int q, int nk, uint32_t sT_lane,
    const uint32_t * sI_lane)
{
#pragma unroll
  for (int kk = 0; kk < 2; kk++) {
    if (kk >= nk)
      break;
    uint32_t a0, a1, a2, a3;
    asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
        "{%0, %1, %2, %3}, [%4];":"=r" (a0), "=r" (a1), "=r" (a2),
        "=r" (a3):"r" (sT_lane + (uint32_t) (q * kG3TStride + kk * 32)));
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
      const uint32_t *row = sI_lane + ((q + 16 * mt) & (kG3Ring - 1)) *
          kG3IWW + kk * 8;
      const uint32_t w0 = row[0], w1 = row[1];
      const uint32_t w4 = row[4], w5 = row[5];
      uint32_t bf[4][2];
      bf[0][0] = w0;
      bf[1][0] = __byte_perm (w0, w1, 0x4321);
      bf[2][0] = __byte_perm (w0, w1, 0x5432);
      bf[3][0] = __byte_perm (w0, w1, 0x6543);
      bf[0][1] = w4;
      bf[1][1] = __byte_perm (w4, w5, 0x4321);
      bf[2][1] = __byte_perm (w4, w5, 0x5432);
      bf[3][1] = __byte_perm (w4, w5, 0x6543);
      mma_u8_x4 (acc[mt], a0, a1, a2, a3, bf);
    }
  }
}

template < bool WIDE, bool SPLIT >
__global__ void __launch_bounds__ (32 * kG3Warps, 4)
corr_mma3_kernel (const uint8_t * __restrict__ lum, size_t ls, int w, int h,
    int vec, const uint8_t * __restrict__ tp, int pw, int tw, int th,
    TmSplit sp, WinSums win, float *__restrict__ map, int rw, int rh,
    CvTmScoreConst k)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int MT = g3_mtiles (WIDE);
  constexpr int BY = g3_by (WIDE);
  constexpr int LS = g3_live (WIDE);
  __shared__ __align__ (16) uint8_t smem[kG3Smem];
  uint8_t *const sT = smem;
  uint8_t *const sI = smem + kG3TBytes;

  const int tid = threadIdx.x;
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int bx = blockIdx.x * kG3BX, by = blockIdx.y * BY;
  const int wx = warp * 32;     /* the warp's windows in the block */
  /* split-K (SPLIT): the block's band of the packed template (rows of
   * stride pw; x0 a multiple of 32 keeps the 16-byte copies aligned) and
   * the image shifted by its offset, iw x ih (its part goes into plane
   * blockIdx.z: split_plane); else the whole template */
  const TmBand band = SPLIT ? split_band (sp, blockIdx.z, tw, th) :
      TmBand { 0, 0, tw, th };
  const uint8_t *__restrict__ bt = tp + (size_t) band.y0 * pw + band.x0;
  const uint8_t *__restrict__ bl = lum + (size_t) band.y0 * ls + band.x0;
  const int iw = w - band.x0, ih = h - band.y0;
  const bool v16 = vec != 0;

  int acc[MT][4][4];
  unsigned long long c64[WIDE ? MT : 1][WIDE ? 4 : 1][WIDE ? 4 : 1];
  mma_zero < MT, WIDE > (acc, c64);

  /* this lane's ldmatrix row (as corr_mma_kernel: row m = lm_m of the
   * m-tile, bytes lm_col ..; iteration q reads sT row q - lm_m + 15) and
   * its image words (word wx / 4 + g + t of a ring row: the 4 n-tiles'
   * words, as corr_mma_kernel's) */
  const int lm_m = (lane & 7) + ((lane >> 3) & 1) * 8;
  const int lm_col = (lane >> 4) * 16;
  const uint32_t sT_lane = (uint32_t) __cvta_generic_to_shared (sT) +
      (uint32_t) ((15 - lm_m) * kG3TStride + lm_col);
  const uint32_t *const sI_lane = reinterpret_cast < const uint32_t * >(sI)
      + wx / 4 + g + t;

  /* the band's chunks: row chunks of as even a height as they go (at most
   * kG3CJ), each cut into 64-column chunks */
  const int nrc = g3_row_chunks (band.h);
  for (int rc = 0; rc < nrc; rc++) {
    const int j0 = rc * band.h / nrc, cj = (rc + 1) * band.h / nrc - j0;
    for (int i0 = 0; i0 < band.w; i0 += kG3CI) {
      const int ci = min (kG3CI, band.w - i0);
      const int nk = (ci + 31) / 32;    /* 1 or 2 k-steps of 32 */
      const int nq = cj + 15;   /* iterations: template rows q - m */
      const int nrows = nq + 16 * (MT - 1);     /* = BY + cj - 1 */
      const int ng = (nq + kG3G - 1) / kG3G;

      /* the previous chunk's reads are done (its last barrier, the
       * drain below); the template, then kG3NS - 1 stages of the ring */
      g3_stage_tmpl (sT, bt, pw, j0, i0, cj, ci);
#pragma unroll 1
      for (int s = 0; s < kG3NS - 1; s++)
        g3_stage_image (sI, s, nrows, bl, ls, iw, ih, v16, j0, i0, bx, by);

#pragma unroll 1
      for (int gq = 0; gq < ng; gq++) {
        /* groups committed: the template, stages 0 .. gq + kG3NS - 2;
         * this group reads stages gq .. gq + LS - 1 */
        asm volatile ("cp.async.wait_group %0;"::"n" (kG3NS - LS - 1));
        /* every thread's copies and zeros of those stages are visible;
         * every warp is past group gq - 1, the last to read stage
         * gq - 1, whose ring rows the next stage takes */
        __syncthreads ();
        g3_stage_image (sI, gq + kG3NS - 1, nrows, bl, ls, iw, ih, v16, j0,
            i0, bx, by);
        const int q0 = gq * kG3G;
        if (q0 + kG3G <= nq) {
#pragma unroll
          for (int u = 0; u < kG3G; u++)
            g3_step < MT > (acc, q0 + u, nk, sT_lane, sI_lane);
        } else {
#pragma unroll 1
          for (int q = q0; q < nq; q++)
            g3_step < MT > (acc, q, nk, sT_lane, sI_lane);
        }
      }
      mma_fold_wide < MT, WIDE > (acc, c64);
      /* drain (the groups past the last stage are empty) and let every
       * warp finish before the next chunk or the epilogue overwrites */
      asm volatile ("cp.async.wait_group 0;"::);
      __syncthreads ();
    }
  }

  /* the sums into the BY x 128 tile, then scored row by row */
  mma_tile_store < MT, WIDE, kG3CStride > (smem, acc, c64, wx, g, t);
  __syncthreads ();
  const uint32_t *sC32 = reinterpret_cast < const uint32_t * >(smem);
  const unsigned long long *sC64 =
      reinterpret_cast < const unsigned long long *>(smem);
  const WinSums out = SPLIT ? split_plane (win, rw, rh) : win;
  for (int idx = tid; idx < BY * kG3BX; idx += 32 * kG3Warps) {
    const int yy = idx / kG3BX, xx = idx % kG3BX;
    const int x = bx + xx, y = by + yy;
    if (x >= rw || y >= rh)
      continue;
    const long long cv = WIDE ? (long long) sC64[yy * kG3CStride + xx] :
        (long long) sC32[yy * kG3CStride + xx];
    store_score (&k, cv, x, y, w, tw, th, out, map, rw);
  }
#endif
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

/* The templates searched together: template t's score image is
 * map[off[t] ..], rw x rh windows of a tw x th template; multi: keys among
 * several templates (cvtm_multi_key), n their pixel counts. */
struct ScaleTable
{
  int ns;
  int multi;
  long long off[CV_TEMPLATE_MATCH_MAX_SCALES];
  int rw[CV_TEMPLATE_MATCH_MAX_SCALES], rh[CV_TEMPLATE_MATCH_MAX_SCALES];
  int tw[CV_TEMPLATE_MATCH_MAX_SCALES], th[CV_TEMPLATE_MATCH_MAX_SCALES];
  float n[CV_TEMPLATE_MATCH_MAX_SCALES];
};

__global__ void __launch_bounds__ (kRedThreads)
reduce_partial (const float *__restrict__ map, ScaleTable tab, int method,
    const CvTemplateMatchResult * res, int m,
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
  for (int t = 0; t < tab.ns; t++) {
    const int rw = tab.rw[t], rh = tab.rh[t], tw = tab.tw[t], th = tab.th[t];
    const float n = tab.n[t];
    const float *tmap = map + tab.off[t];
    for (int y = blockIdx.x; y < rh; y += gridDim.x) {
      const float *row = tmap + (size_t) y * rw;
      for (int x = threadIdx.x; x < rw; x += kRedThreads) {
        const float r = row[x];
        if (r != r)
          continue;
        const float key = cvtm_multi_key (method, tab.multi, n, r);
        const long long idx = tab.off[t] + (long long) y * rw + x;
        if (!cvtm_better (key, idx, bk, bi))
          continue;
        if (m > 0 && cvtm_suppressed (found, m, x, y, tw, th))
          continue;
        bk = key;
        bi = idx;
      }
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
    const float *__restrict__ map, ScaleTable tab, int method,
    double threshold, CvTemplateMatchResult * res, int m)
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
    int t = 0;
    while (t + 1 < tab.ns && bi >= tab.off[t + 1])
      t++;
    const long long idx = bi - tab.off[t];
    const int rw = tab.rw[t];
    const float r = map[bi];
    if (cvtm_passes (method, threshold, r)) {
      res->match[m].x = (int32_t) (idx % rw);
      res->match[m].y = (int32_t) (idx / rw);
      res->match[m].score = r;
      res->match[m].scale = t;
      res->match[m].w = tab.tw[t];
      res->match[m].h = tab.th[t];
      /* the scores around it, for the sub-pixel estimate */
      cvtm_fill_around (&res->match[m], map + tab.off[t], rw, tab.rh[t]);
      res->count = m + 1;
    }
  }
}

/* The luma's square as two GRAY8 images, high and low byte (for the
 * masked window sums Q = 256 corr (hi, M) + corr (lo, M)). */
__global__ void
square_bytes_kernel (const uint8_t * __restrict__ lum, size_t ls, int w,
    int h, uint8_t * __restrict__ hi, uint8_t * __restrict__ lo, size_t ps)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const unsigned v = lum[(size_t) y * ls + x], q = v * v;
  hi[(size_t) y * ps + x] = (uint8_t) (q >> 8);
  lo[(size_t) y * ps + x] = (uint8_t) (q & 255);
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

/* Correlation paths. kPathSmall: corr_kernel with the window sums from its
 * tile (templates up to 8x8); kPathDirect: corr_dp4a_kernel; kPathGemm:
 * corr_mma_kernel (sm_80+ code only); kPathGemm3: corr_mma3_kernel (sm_80+
 * code only). (4 was gemm2, corr_mma2_kernel, since removed.) */
enum
{ kPathAuto = 0, kPathDirect = 1, kPathGemm = 2, kPathSmall = 3,
  kPathGemm3 = 5
};

/* Automatic switch to the tensor-core path: templates at least this wide
 * and tall (reasoned from instruction counts, to be confirmed by
 * measurement: docs/cudatemplatematch.md). */
constexpr int kGemmMinTW = 16, kGemmMinTH = 16;
/* Largest template (pixels) whose correlation fits the kernels' 32-bit
 * sums: s32 mma (33025 * 255^2 < 2^31) and u32 __dp4a
 * (66051 * 255^2 < 2^32); larger ones use the WIDE variants. */
constexpr long long kGemmMaxExact = 32768, kDirMaxExact = 65536;

/* the packed template's row length and size for corr_mma3_kernel (rows of
 * a multiple of its kG3CI = 64 bytes, as tm_pack_kernel says) */
int
tm_pack_width (int tw)
{
  static_assert (kG3CI == 64, "tm_pack_kernel: rows of a multiple of 64");
  return (tw + kG3CI - 1) / kG3CI * kG3CI;
}

size_t
tm_pack_bytes (int tw, int th)
{
  return (size_t) tm_pack_width (tw) * th;
}

/* CUDAVISION_TM_PATH=direct|gemm|gemm3|auto (debug/benchmark override;
 * gemm and gemm3 the two tensor-core kernels, see choose_path for the
 * automatic one; anything else, gemm2 included since its kernel was
 * removed, the automatic choice). */
int
path_from_env (void)
{
  const char *e = getenv ("CUDAVISION_TM_PATH");
  if (!e)
    return kPathAuto;
  if (!strcmp (e, "direct"))
    return kPathDirect;
  if (!strcmp (e, "gemm"))
    return kPathGemm;
  if (!strcmp (e, "gemm3"))
    return kPathGemm3;
  return kPathAuto;
}

/* CUDAVISION_TM_SPLITK (debug/benchmark override of choose_split): unset,
 * "auto" or anything else the automatic choice; "0" or "1" no split; "N"
 * at least N bands, shaped as the automatic ones (split_shape); "CxR" C
 * column bands times R row bands (at most the template's k-steps and
 * rows). */
void
split_from_env (Workspace * ws)
{
  const char *e = getenv ("CUDAVISION_TM_SPLITK");
  int a, b;
  char extra;

  ws->split_n = -1;
  ws->split_si = ws->split_sj = 0;
  if (!e)
    return;
  if (sscanf (e, "%dx%d%c", &a, &b, &extra) == 2 && a >= 1 && b >= 1) {
    ws->split_si = a;
    ws->split_sj = b;
  } else if (sscanf (e, "%d%c", &a, &extra) == 1 && a >= 0) {
    ws->split_n = a;
  }
}

/* Split-K (3c, choose_split): where the windows make less than half a
 * wave of blocks, bands for about kSplitWaves waves, at most kSplitMaxBands
 * of them, row bands of at least kSplitMinRows rows beyond the template's
 * 64-row chunks; none where the partial planes would take more than
 * kSplitMaxBytes. */
constexpr int kSplitWaves = 2, kSplitMaxBands = 16, kSplitMinRows = 32;
constexpr size_t kSplitMaxBytes = (size_t) 64 << 20;

/* bytes of an element of a split's partial planes: uint32_t where the
 * whole template's sums stay below 2^32 (at most kIntegral32MaxPixels
 * pixels: N 255^2 < 2^32; a band's sums are at most the whole's), else
 * long long */
size_t
split_elem (int tw, int th)
{
  return (long long) tw * th <= kIntegral32MaxPixels ? sizeof (uint32_t) :
      sizeof (long long);
}

/* The bands of about want parts of a tw x th template, added where they
 * cost least: (1) row bands up to the template's 64-row chunks (even
 * bands of at most 64 rows: no more chunks than unsplit, so no more
 * MMAs), (2) column bands up to its 32-column k-steps (no more MMAs; a
 * band narrower than a chunk stages a chunk of its own), (3) row bands
 * again, of at least min_rows rows (each chunk adds 15 rows of MMAs per
 * m-tile, the m-tile's padding). The count is rounded up to whole rows of
 * bands. E.g. 64x64: 2 x 2 for 4; 200x150: 2 x 3 for 6. */
TmSplit
split_shape (int want, int tw, int th, int min_rows)
{
  static_assert (kGemmCJ == 64, "gemm's 64-row chunks");
  const int ncj = cv_div_up (th, kGemmCJ), nks = cv_div_up (tw, 32);
  const int rows_max = std::max (ncj, th / min_rows);
  TmSplit sp;

  sp.sj = std::min (want, ncj);
  sp.si = std::min (cv_div_up (want, sp.sj), nks);
  sp.sj = std::max (sp.sj, std::min (cv_div_up (want, sp.si), rows_max));
  return sp;
}

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

/* frees what the workspace holds */
void
workspace_clear (Workspace * ws)
{
  cudaFree (ws->luma);
  for (int i = 0; i < CV_TEMPLATE_MATCH_MAX_SCALES; i++) {
    cudaFree (ws->tmpl[i]);
    cudaFree (ws->mask[i]);
  }
  cudaFree (ws->sqhi);
  cudaFree (ws->sqlo);
  cudaFree (ws->ms);
  cudaFree (ws->mq);
  cudaFree (ws->map);
  cudaFree (ws->isum);
  cudaFree (ws->isq);
  cudaFree (ws->itot);
  cudaFree (ws->pkey);
  cudaFree (ws->pidx);
  cudaFree (ws->res);
  cudaFree (ws->tpack);
  cudaFree (ws->part);
  memset (ws, 0, sizeof (*ws));
}

/* the luma of RGB frames, w x h */
CvStatus
ensure_luma (Workspace * ws, int w, int h)
{
  if (ws->luma && ws->luma_w >= w && ws->luma_h >= h)
    return CV_OK;
  cudaFree (ws->luma);
  ws->luma = NULL;
  ws->luma_w = ws->luma_h = 0;
  CV_CUDA_TRY (cudaMallocPitch ((void **) &ws->luma, &ws->luma_pitch, w, h));
  ws->luma_w = w;
  ws->luma_h = h;
  return CV_OK;
}

/* what every frame uses whatever its template: the reductions' partial
 * results and the device result */
CvStatus
ensure_fixed (Workspace * ws)
{
  if (!ws->pkey)
    CV_CUDA_TRY (cudaMalloc ((void **) &ws->pkey,
            kRedBlocks * sizeof (float)));
  if (!ws->pidx)
    CV_CUDA_TRY (cudaMalloc ((void **) &ws->pidx,
            kRedBlocks * sizeof (long long)));
  if (!ws->res)
    CV_CUDA_TRY (cudaMalloc ((void **) &ws->res,
            sizeof (CvTemplateMatchResult)));
  return CV_OK;
}

/* blocks of kernel f (128 threads, smem bytes of dynamic shared memory)
 * resident on one SM at once, 0 when the runtime cannot tell */
int
blocks_per_sm (const void *f, int smem)
{
  int n = 0;

  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&n, f, 128, smem)
      != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  return n;
}

/* What the device runs, once per workspace: whether the tensor-core
 * kernels run as sm_80+ code (gemm_ok), and a wave of each unsplit kernel
 * (wave_gemm, wave_gemm3 when gemm_ok: its resident blocks times the SMs)
 * for the automatic split. */
CvStatus
workspace_probe (Workspace * ws)
{
  static_assert (32 * kGemmWarps == 128 && 32 * kG3Warps == 128,
      "blocks_per_sm: 128 threads");
  cudaFuncAttributes fa;
  int dev, sms;

  CV_CUDA_TRY (cudaFuncGetAttributes (&fa,
          corr_mma_kernel < false, false >));
  ws->gemm_ok = fa.binaryVersion >= 80;
  if (!ws->gemm_ok || cudaGetDevice (&dev) != cudaSuccess
      || cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev)
      != cudaSuccess) {
    (void) cudaGetLastError ();         /* no automatic split */
    return CV_OK;
  }
  ws->wave_gemm[0] = sms * blocks_per_sm ((const void *)
      corr_mma_kernel < false, false >, 0);
  ws->wave_gemm[1] = sms * blocks_per_sm ((const void *)
      corr_mma_kernel < true, false >, 0);
  /* static shared memory only */
  ws->wave_gemm3[0] = sms * blocks_per_sm ((const void *)
      corr_mma3_kernel < false, false >, 0);
  ws->wave_gemm3[1] = sms * blocks_per_sm ((const void *)
      corr_mma3_kernel < true, false >, 0);
  return CV_OK;
}

/* The correlation path of a tw x th template (see the top of this file). */
int
choose_path (const Workspace * ws, int tw, int th)
{
  if (ws->path_env == kPathDirect)
    return kPathDirect;
  if (ws->path_env == kPathGemm)
    return ws->gemm_ok ? kPathGemm : kPathDirect;
  if (ws->path_env == kPathGemm3)
    return ws->gemm_ok ? kPathGemm3 : kPathDirect;
  if (tw <= 8 && th <= 8)
    return kPathSmall;
  if (ws->gemm_ok && tw >= kGemmMinTW && th >= kGemmMinTH) {
    const long long npix = (long long) tw * th;
    /* gemm3 up to the s32 sums' limit: faster than gemm and gemm2 (a
     * kernel since removed) at every size timed (NVIDIA H100, 2026-11-28,
     * cudavision-bench -k, graph replay, median of 5: 1080p 64x64 145.1 us
     * against gemm2's 186.5; 1080p 200x150 329.8 against gemm's 503.7 and
     * gemm2's 640.6; 720p 64x64 112.2 against 146.4, 200x150 193.7
     * against 262.5; 4K 64x64 460.3 against 633.7; docs/benchmarks.md) */
    if (npix <= kGemmMaxExact)
      return kPathGemm3;
    return kPathGemm;
  }
  return kPathDirect;
}

/* The integral images of the luma lum (w x h) in T (integral_rows) into
 * S and Q ((w + 1) x (h + 1)), with the column scans' segment totals in
 * tot (2 x nseg x (w + 1)). */
template < typename T > cudaError_t
launch_integral (const uint8_t * lum, size_t ls, int w, int h, T * S, T * Q,
    T * tot, cudaStream_t st)
{
  const int seg = int_seg_rows (h), nseg = cv_div_up (h, seg);
  const int gx = cv_div_up (w + 1, 32);
  cudaError_t e;

  /* row 0 */
  e = cudaMemsetAsync (S, 0, ((size_t) w + 1) * sizeof (T), st);
  if (e == cudaSuccess)
    e = cudaMemsetAsync (Q, 0, ((size_t) w + 1) * sizeof (T), st);
  if (e != cudaSuccess)
    return e;
  integral_rows < T > <<<h, 256, 0, st>>> (lum, ls, w, h, S, Q);
  if (nseg > 1)
    integral_seg_totals < T > <<<dim3 (gx, nseg - 1), dim3 (32, 8), 0, st>>>
        (S, Q, w, h, tot, seg, nseg);
  integral_cols < T > <<<dim3 (gx, nseg), dim3 (32, 32), 0, st>>> (S, Q, w,
      h, tot, seg, nseg);
  return cudaGetLastError ();
}

/* The blocks of a tensor-core path's kernel over rw x rh windows (wide:
 * the kernel's 64-bit variant, templates above kGemmMaxExact pixels);
 * blockIdx.z, the split's bands, is set by the caller. */
dim3
mma_grid (int path, bool wide, int rw, int rh)
{
  if (path == kPathGemm3)
    return dim3 (cv_div_up (rw, kG3BX), cv_div_up (rh, g3_by (wide)));
  return dim3 (cv_div_up (rw, kGemmBX), cv_div_up (rh, kGemmBY));
}

/* The split of a tw x th template's correlation on path over rw x rh
 * windows (3c): none but on the tensor-core paths. Automatic: where the
 * windows make fewer blocks than half a wave of the kernel on this device
 * (wave_gemm, wave_gemm3), enough bands for about kSplitWaves waves (at most
 * kSplitMaxBands), shaped by split_shape with rows of at least
 * kSplitMinRows: none for frames that fill the device, or templates of
 * one k-step (32 columns) and fewer than 2 kSplitMinRows rows.
 * Measured on an H200 (cudavision-bench -k, docs/benchmarks.md): 1080p,
 * 200x150 on gemm: 450 blocks for a wave of 1056, split 2 x 3: 611 ->
 * 483 us; 640x480, 64x64 on gemm2 (a kernel since removed): 142 -> 81 us;
 * but 1080p, 64x64 on gemm2 (240 blocks for a wave of 396) got slower
 * with every split tried (186 us unsplit, 215-290 us split: its bands
 * shrink to one pipelined chunk each), hence half a wave.
 * CUDAVISION_TM_SPLITK sets the count or the shape instead (rows down to
 * 1). None where the partial planes would take more than kSplitMaxBytes.
 * A function of the workspace's settings and the sizes only: the same for
 * the allocation and the launches. */
TmSplit
choose_split (const Workspace * ws, int path, int tw, int th, int rw, int rh)
{
  const TmSplit none = { 1, 1 };
  TmSplit sp;

  if (path != kPathGemm && path != kPathGemm3)
    return none;
  if (ws->split_si > 0) {
    sp.si = std::min (ws->split_si, cv_div_up (tw, 32));
    sp.sj = std::min (ws->split_sj, th);
  } else if (ws->split_n >= 0) {
    if (ws->split_n < 2)
      return none;
    sp = split_shape (ws->split_n, tw, th, 1);
  } else {
    const bool wide = (long long) tw * th > kGemmMaxExact;
    const dim3 g = mma_grid (path, wide, rw, rh);
    const long long blocks = (long long) g.x * g.y;
    const long long wave = path == kPathGemm3 ? ws->wave_gemm3[wide] :
        ws->wave_gemm[wide];
    if (2 * blocks >= wave)
      return none;
    const long long want = (kSplitWaves * wave + blocks - 1) / blocks;
    sp = split_shape ((int) std::min (want, (long long) kSplitMaxBands), tw,
        th, kSplitMinRows);
  }
  if ((size_t) sp.si * sp.sj * rw * rh * split_elem (tw, th) > kSplitMaxBytes)
    return none;
  return sp;
}

/* One correlation of image img (w x h) with the device template t
 * (tw x th) on path, the window sums or raw output as win says; from the
 * workspace: room for the packed template of kPathGemm3 (tpack,
 * tm_pack_bytes) and for the split's partial planes (part,
 * choose_split). */
void
launch_corr (const Workspace * ws, int path, const uint8_t * img, size_t ls,
    int w, int h, const uint8_t * t, int tw, int th, const WinSums & win,
    float *map, int rw, int rh, const CvTmScoreConst & k, cudaStream_t st)
{
  const long long npix = (long long) tw * th;

  if (path == kPathSmall) {
    dim3 cb (kCorrTX, kCorrThreadsY);
    dim3 cg (cv_div_up (rw, kCorrTX), cv_div_up (rh, kCorrTY));
    /* unmasked: the window sums from the tile (no integral images are
     * made for this path) */
    if (win.mode == kWinIntegral || win.mode == kWinIntegral32)
      corr_kernel < 8, 8, true > <<<cg, cb, 0, st>>> (img, ls, w, h, t, tw,
          th, win, map, rw, rh, k);
    else
      corr_kernel < 8, 8, false > <<<cg, cb, 0, st>>> (img, ls, w, h, t, tw,
          th, win, map, rw, rh, k);
    return;
  }
  if (path == kPathDirect) {
    dim3 b (kDirTX, kDirTY);
    dim3 g (cv_div_up (rw, kDirBX), cv_div_up (rh, kDirBY));
    if (npix > kDirMaxExact)
      corr_dp4a_kernel < true > <<<g, b, 0, st>>> (img, ls, w, h, t, tw, th,
          win, map, rw, rh, k);
    else
      corr_dp4a_kernel < false > <<<g, b, 0, st>>> (img, ls, w, h, t, tw,
          th, win, map, rw, rh, k);
    return;
  }

  /* tensor cores: unsplit, the kernel stores as win says; split, each
   * band (blockIdx.z) stores its part into its plane, then
   * split_sum_kernel stores their sums as win says */
  const TmSplit sp = choose_split (ws, path, tw, th, rw, rh);
  const int nz = sp.si * sp.sj;
  const bool wide = npix > kGemmMaxExact;
  WinSums out = win;
  if (nz > 1) {
    out.S = out.Q = NULL;
    out.raw = ws->part;
    out.mode = split_elem (tw, th) == sizeof (uint32_t) ? kWinRaw32 : kWinRaw;
  }
  dim3 g = mma_grid (path, wide, rw, rh);
  g.z = nz;
  if (path == kPathGemm3) {
    /* the template in rows of a multiple of 64 bytes (stream-ordered:
     * one buffer serves every correlation of the frame) */
    const int pw = tm_pack_width (tw);
    const size_t pn = tm_pack_bytes (tw, th);
    tm_pack_kernel <<<(unsigned) (pn / 256 < 1024 ? pn / 256 + 1 : 1024),
        256, 0, st>>> (t, tw, th, ws->tpack, pw);
    const int vec = ((uintptr_t) img % 16 == 0) && (ls % 16 == 0);
    const auto kern3 = wide ? (nz > 1 ? corr_mma3_kernel < true, true > :
        corr_mma3_kernel < true, false >) : (nz > 1 ?
        corr_mma3_kernel < false, true > :
        corr_mma3_kernel < false, false >);
    kern3 <<<g, 32 * kG3Warps, 0, st>>> (img, ls, w, h, vec, ws->tpack, pw,
        tw, th, sp, out, map, rw, rh, k);
  } else {
    const auto kern = wide ? (nz > 1 ? corr_mma_kernel < true, true > :
        corr_mma_kernel < true, false >) : (nz > 1 ?
        corr_mma_kernel < false, true > : corr_mma_kernel < false, false >);
    kern <<<g, 32 * kGemmWarps, 0, st>>> (img, ls, w, h, t, tw, th, sp, out,
        map, rw, rh, k);
  }
  if (nz > 1) {
    dim3 b (32, 8), sg (cv_div_up (rw, 32), cv_div_up (rh, 8));
    if (out.mode == kWinRaw32)
      split_sum_kernel < uint32_t > <<<sg, b, 0, st>>>
          (static_cast < const uint32_t * >(out.raw), nz, w, tw, th, win,
          map, rw, rh, k);
    else
      split_sum_kernel < long long > <<<sg, b, 0, st>>>
          (static_cast < const long long *>(out.raw), nz, w, tw, th, win,
          map, rw, rh, k);
  }
}

/* Template matching of templ[0 .. n_templ - 1] in src with the slot's
 * workspace ws (grown for the templates; the slot's previous frame is
 * complete): the matches into result (pinned host memory, written by an
 * asynchronous copy at the end of the work queued on st), the score map
 * if any. */
CvStatus
template_match_run (Workspace * ws, const CvPlane * src, CvLumaLayout layout,
    const CvTemplate * templ, int n_templ, const CvTemplateMatchParams * p,
    CvPlane * score_map, CvTemplateMatchResult * result, cudaStream_t st)
{
  if (!src || !templ || !p || !result || !src->data
      || src->width < 1 || src->height < 1 || layout.bpp < 1
      || n_templ < 1 || n_templ > CV_TEMPLATE_MATCH_MAX_SCALES)
    return CV_ERROR_INVALID_ARGUMENT;
  const int w = src->width, h = src->height;
  if (!cvtm_method_valid (p->method)
      || p->max_matches < 1 || p->max_matches > CV_TEMPLATE_MATCH_MAX_MATCHES)
    return CV_ERROR_INVALID_ARGUMENT;
  if (score_map && (!score_map->data || score_map->width != w
          || score_map->height != h || (p->score_map != 8
              && p->score_map != 16)))
    return CV_ERROR_INVALID_ARGUMENT;
  ScaleTable tab;
  bool any_mask = false, any_integral = false;
  long long total = 0;
  int max_rh = 0;
  tab.ns = n_templ;
  tab.multi = n_templ > 1;
  for (int t = 0; t < n_templ; t++) {
    const int tw = templ[t].plane.width, th = templ[t].plane.height;
    if (!templ[t].plane.data || tw < 1 || th < 1 || tw > w || th > h)
      return CV_ERROR_INVALID_ARGUMENT;
    if (templ[t].mask.data && (templ[t].mask.width != tw
            || templ[t].mask.height != th))
      return CV_ERROR_INVALID_ARGUMENT;
    tab.off[t] = total;
    tab.rw[t] = w - tw + 1;
    tab.rh[t] = h - th + 1;
    tab.tw[t] = tw;
    tab.th[t] = th;
    total += (long long) tab.rw[t] * tab.rh[t];
    if (tab.rh[t] > max_rh)
      max_rh = tab.rh[t];
    if (templ[t].mask.data)
      any_mask = true;
  }
  /* grid limits: y blocks of the 2D kernels */
  if (cv_div_up (max_rh, kCorrTY) > 65535 || cv_div_up (h, 8) > 65535)
    return CV_ERROR_INVALID_ARGUMENT;

  /* luma */
  const uint8_t *lum = src->data;
  size_t ls = src->stride;
  if (!(layout.r < 0 && layout.bpp == 1)) {
    if (layout.r < 0 || (layout.bpp != 3 && layout.bpp != 4))
      return CV_ERROR_INVALID_ARGUMENT;
    CvStatus lst = ensure_luma (ws, w, h);
    if (lst != CV_OK)
      return lst;
    dim3 b (32, 8), g (cv_div_up (w, 32), cv_div_up (h, 8));
    if (layout.bpp == 3)
      luma_kernel < 3 > <<<g, b, 0, st>>> (src->data, src->stride, layout.r,
          layout.g, layout.b, ws->luma, ws->luma_pitch, w, h);
    else
      luma_kernel < 4 > <<<g, b, 0, st>>> (src->data, src->stride, layout.r,
          layout.g, layout.b, ws->luma, ws->luma_pitch, w, h);
    CV_CUDA_TRY (cudaGetLastError ());
    lum = ws->luma;
    ls = ws->luma_pitch;
  }

  /* templates and masks (host memory, uploaded when they changed) */
  for (int t = 0; t < n_templ; t++) {
    const CvTemplate *tp = &templ[t];
    const int tw = tp->plane.width, th = tp->plane.height;
    if (tp->id == 0 || tp->id != ws->tmpl_id[t] || tw != ws->tmpl_w[t]
        || th != ws->tmpl_h[t]) {
      ws->tmpl_id[t] = 0;
      CV_CUDA_TRY (ensure (&ws->tmpl[t], &ws->tmpl_cap[t], (size_t) tw * th));
      CV_CUDA_TRY (cudaMemcpy2DAsync (ws->tmpl[t], tw, tp->plane.data,
              tp->plane.stride, tw, th, cudaMemcpyHostToDevice, st));
      if (tp->mask.data) {
        CV_CUDA_TRY (ensure (&ws->mask[t], &ws->mask_cap[t],
                (size_t) tw * th));
        CV_CUDA_TRY (cudaMemcpy2DAsync (ws->mask[t], tw, tp->mask.data,
                tp->mask.stride, tw, th, cudaMemcpyHostToDevice, st));
      }
      ws->tmpl_id[t] = tp->id;
      ws->tmpl_w[t] = tw;
      ws->tmpl_h[t] = th;
    }
  }

  CV_CUDA_TRY (ensure (&ws->map, &ws->map_cap, (size_t) total));
  CvStatus fst = ensure_fixed (ws);
  if (fst != CV_OK)
    return fst;

  /* room for the largest packed template of kPathGemm3 and the largest
   * split's partial planes */
  {
    size_t pb = 0, sb = 0;
    for (int t = 0; t < n_templ; t++) {
      const int tw = tab.tw[t], th = tab.th[t];
      const int path = choose_path (ws, tw, th);
      const TmSplit sp = choose_split (ws, path, tw, th, tab.rw[t], tab.rh[t]);
      if (path == kPathGemm3)
        pb = std::max (pb, tm_pack_bytes (tw, th));
      if (sp.si * sp.sj > 1)
        sb = std::max (sb, (size_t) sp.si * sp.sj * tab.rw[t] * tab.rh[t] *
            split_elem (tw, th));
    }
    if (pb)
      CV_CUDA_TRY (ensure (&ws->tpack, &ws->tpack_cap, pb));
    if (sb)
      CV_CUDA_TRY (ensure (&ws->part, &ws->part_cap, sb));
  }
  /* unmasked templates on the direct and tensor-core paths read the
   * window sums from the integral images (the small path sums its windows
   * itself; CUDAVISION_TM_PATH may force small templates off it); in
   * uint32_t when every one of them has at most kIntegral32MaxPixels
   * pixels (their window sums below 2^32), else in 64 bits for all */
  bool int32 = true;
  for (int t = 0; t < n_templ; t++)
    if (!templ[t].mask.data
        && choose_path (ws, tab.tw[t], tab.th[t]) != kPathSmall) {
      any_integral = true;
      if ((long long) tab.tw[t] * tab.th[t] > kIntegral32MaxPixels)
        int32 = false;
    }

  /* window statistics: integral images (unmasked templates above 8x8),
   * the luma's square as bytes (masked templates) */
  if (any_integral) {
    const size_t n = ((size_t) w + 1) * ((size_t) h + 1);
    const size_t nt = 2 * (size_t) cv_div_up (h, int_seg_rows (h)) * (w + 1);
    /* 8-byte elements */
    CV_CUDA_TRY (ensure (&ws->isum, &ws->isum_cap, int32 ? (n + 1) / 2 : n));
    CV_CUDA_TRY (ensure (&ws->isq, &ws->isq_cap, int32 ? (n + 1) / 2 : n));
    CV_CUDA_TRY (ensure (&ws->itot, &ws->itot_cap,
            int32 ? (nt + 1) / 2 : nt));
    if (int32)
      CV_CUDA_TRY (launch_integral (lum, ls, w, h,
              reinterpret_cast < uint32_t * >(ws->isum),
              reinterpret_cast < uint32_t * >(ws->isq),
              reinterpret_cast < uint32_t * >(ws->itot), st));
    else
      CV_CUDA_TRY (launch_integral (lum, ls, w, h, ws->isum, ws->isq,
              ws->itot, st));
  }
  if (any_mask) {
    if (!ws->sqhi || ws->sq_w < w || ws->sq_h < h) {
      cudaFree (ws->sqhi);
      cudaFree (ws->sqlo);
      ws->sqhi = ws->sqlo = NULL;
      ws->sq_w = ws->sq_h = 0;
      size_t p2;
      CV_CUDA_TRY (cudaMallocPitch ((void **) &ws->sqhi, &ws->sq_pitch, w,
              h));
      CV_CUDA_TRY (cudaMallocPitch ((void **) &ws->sqlo, &p2, w, h));
      if (p2 != ws->sq_pitch)
        return CV_ERROR_INVALID_ARGUMENT;
      ws->sq_w = w;
      ws->sq_h = h;
    }
    dim3 b (32, 8), g (cv_div_up (w, 32), cv_div_up (h, 8));
    square_bytes_kernel <<<g, b, 0, st>>> (lum, ls, w, h, ws->sqhi,
        ws->sqlo, ws->sq_pitch);
  }

  /* the correlations and scores of every template */
  for (int t = 0; t < n_templ; t++) {
    const CvTemplate *tp = &templ[t];
    const int tw = tab.tw[t], th = tab.th[t], rw = tab.rw[t], rh = tab.rh[t];
    const CvTmScoreConst k = cvtm_template_const (p->method, tp);
    const int path = choose_path (ws, tw, th);
    float *map = ws->map + tab.off[t];
    WinSums win = { ws->isum, ws->isq, NULL,
      int32 ? kWinIntegral32 : kWinIntegral
    };

    tab.n[t] = (float) k.n;
    if (tp->mask.data) {
      /* S = corr (luma, M), Q = 256 corr (hi, M) + corr (lo, M) */
      const size_t nw = (size_t) rw * rh;
      CV_CUDA_TRY (ensure (&ws->ms, &ws->ms_cap, nw));
      CV_CUDA_TRY (ensure (&ws->mq, &ws->mq_cap, nw));
      WinSums raw = { NULL, NULL, ws->ms, kWinRaw };
      launch_corr (ws, path, lum, ls, w, h, ws->mask[t], tw, th, raw, map,
          rw, rh, k, st);
      raw.raw = ws->mq;
      launch_corr (ws, path, ws->sqhi, ws->sq_pitch, w, h, ws->mask[t], tw,
          th, raw, map, rw, rh, k, st);
      raw.mode = kWinRawAcc;
      launch_corr (ws, path, ws->sqlo, ws->sq_pitch, w, h, ws->mask[t], tw,
          th, raw, map, rw, rh, k, st);
      win.S = ws->ms;
      win.Q = ws->mq;
      win.mode = kWinArrays;
    }
    launch_corr (ws, path, lum, ls, w, h, ws->tmpl[t], tw, th, win, map, rw,
        rh, k, st);
    CV_CUDA_TRY (cudaGetLastError ());
  }

  /* best matches */
  CV_CUDA_TRY (cudaMemsetAsync (ws->res, 0, 2 * sizeof (int32_t), st));
  const int nb = max_rh < kRedBlocks ? max_rh : kRedBlocks;
  for (int m = 0; m < p->max_matches; m++) {
    reduce_partial <<<nb, kRedThreads, 0, st>>> (ws->map, tab, p->method,
        ws->res, m, ws->pkey, ws->pidx);
    reduce_final <<<1, kRedThreads, 0, st>>> (ws->pkey, ws->pidx, nb,
        ws->map, tab, p->method, p->threshold, ws->res, m);
  }
  CV_CUDA_TRY (cudaGetLastError ());

  if (score_map) {
    /* the first template's */
    dim3 b (32, 8), g (cv_div_up (w, 32), cv_div_up (h, 8));
    score_map_kernel <<<g, b, 0, st>>> (ws->map, tab.rw[0], tab.rh[0], w, h,
        p->method, (double) cvtm_template_const (p->method, &templ[0]).n,
        score_map->data, score_map->stride, p->score_map);
    CV_CUDA_TRY (cudaGetLastError ());
  }

  CV_CUDA_TRY (cudaMemcpyAsync (result, ws->res,
          sizeof (CvTemplateMatchResult), cudaMemcpyDeviceToHost, st));
  return CV_OK;
}

/* ---- the operator (cvtemplatematch.h) ---- */

struct TemplateMatchSlot
{
  CvTemplateMatchInfo info;
  Workspace ws;                 /* what the info fixes made at create, the
                                 * templates' at a submit */
  CvTemplateMatchResult *result;        /* pinned */
};

void
template_match_slot_destroy (TemplateMatchSlot * o)
{
  if (!o)
    return;
  workspace_clear (&o->ws);
  if (o->result)
    cudaFreeHost (o->result);
  free (o);
}

/* the slot's workspace for the info (the luma of RGB frames, the
 * reductions, the results, what the device runs), its pinned result */
CvStatus
template_match_slot_make (TemplateMatchSlot * o)
{
  const CvLumaLayout l = o->info.layout;
  CvStatus st;

  o->ws.path_env = path_from_env ();
  split_from_env (&o->ws);
  st = workspace_probe (&o->ws);
  if (st == CV_OK && !(l.r < 0 && l.bpp == 1))
    st = ensure_luma (&o->ws, o->info.width, o->info.height);
  if (st == CV_OK)
    st = ensure_fixed (&o->ws);
  if (st != CV_OK)
    return st;
  /* the results: written by an asynchronous copy at the end of a frame */
  st = cv_cuda_status (cudaHostAlloc ((void **) &o->result,
          sizeof (CvTemplateMatchResult), cudaHostAllocPortable));
  if (st != CV_OK) {
    o->result = NULL;           /* not freed by the slot's destroy */
    return st;
  }
  memset (o->result, 0, sizeof (CvTemplateMatchResult));
  return CV_OK;
}

/* every kernel a frame can launch (the method and the templates change
 * per frame), loaded at create (cv_cuda_preload, issue #24) */
CvStatus
template_match_preload (void)
{
  const void *k[] = {
    (const void *) luma_kernel < 3 >, (const void *) luma_kernel < 4 >,
    (const void *) integral_rows < uint32_t >,
    (const void *) integral_rows < unsigned long long >,
    (const void *) integral_seg_totals < uint32_t >,
    (const void *) integral_seg_totals < unsigned long long >,
    (const void *) integral_cols < uint32_t >,
    (const void *) integral_cols < unsigned long long >,
    (const void *) corr_kernel < 8, 8, true >,
    (const void *) corr_kernel < 8, 8, false >,
    (const void *) corr_dp4a_kernel < true >,
    (const void *) corr_dp4a_kernel < false >,
    (const void *) corr_mma_kernel < true, false >,
    (const void *) corr_mma_kernel < false, false >,
    (const void *) corr_mma_kernel < true, true >,
    (const void *) corr_mma_kernel < false, true >,
    (const void *) corr_mma3_kernel < true, false >,
    (const void *) corr_mma3_kernel < false, false >,
    (const void *) corr_mma3_kernel < true, true >,
    (const void *) corr_mma3_kernel < false, true >,
    (const void *) tm_pack_kernel,
    (const void *) split_sum_kernel < uint32_t >,
    (const void *) split_sum_kernel < long long >,
    (const void *) reduce_partial, (const void *) reduce_final,
    (const void *) square_bytes_kernel, (const void *) score_map_kernel,
  };
  return cv_cuda_preload (k, (int) (sizeof (k) / sizeof (k[0])));
}

CvStatus
template_match_slot_create (const CvTemplateMatchInfo * info,
    TemplateMatchSlot ** slot)
{
  TemplateMatchSlot *o;
  CvStatus st;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_template_match_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  st = template_match_preload ();
  if (st != CV_OK)
    return st;
  o = (TemplateMatchSlot *) calloc (1, sizeof (TemplateMatchSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  st = template_match_slot_make (o);
  if (st != CV_OK) {
    template_match_slot_destroy (o);
    return st;
  }
  *slot = o;
  return CV_OK;
}

CvStatus
template_match_slot_submit (TemplateMatchSlot * o, const CvFrame * frame,
    const CvTemplateMatchFrameParams * fp, const CvExec * exec)
{
  cudaStream_t stream = (cudaStream_t) cv_exec_stream (exec);
  CvTemplateMatchParams p;
  CvFrame f;
  CvPlane *map;

  /* this slot's previous frame has completed (a slot takes a frame only
   * then): nothing writes the result now */
  o->result->count = 0;
  if (!fp || !cv_template_match_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  map = o->info.score_map ? &f.out[0] : NULL;
  if (!fp->templ) {
    /* no template: no matches, an empty score map */
    return map ? cv_fill_plane_cuda (map, o->info.score_map / 8, 0, stream) :
        CV_OK;
  }
  p = fp->match;
  p.score_map = o->info.score_map;
  return template_match_run (&o->ws, &f.in[0], o->info.layout, fp->templ,
      fp->n_templ > 1 ? fp->n_templ : 1, &p, map, o->result, stream);
}

const CvTemplateMatchResult *
template_match_slot_results (TemplateMatchSlot * o)
{
  return o->result;
}

}                               /* namespace */

CV_SLOT_OP_FUNCTIONS (cv_template_match_cuda, template_match_slot,
    TemplateMatchSlot, CvTemplateMatchOp, CvTemplateMatchInfo,
    CvTemplateMatchFrameParams);
CV_SLOT_OP_RESULTS (cv_template_match_cuda, template_match_slot,
    TemplateMatchSlot, CvTemplateMatchOp, CvTemplateMatchResult);
CV_OPS_TABLE (cv_template_match_cuda_ops, "template-match-cuda",
    cv_template_match_cuda, CvTemplateMatchOp, CvTemplateMatchInfo,
    CvTemplateMatchFrameParams, cv_template_match_cuda_results);
