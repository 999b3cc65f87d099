/* gst-cuda-vision: Canny edge detection on the GPU, everything on the
 * device in three kernels, no host round trip and no iteration to a
 * fixpoint (neither global nor per tile):
 *  1. per 32x32 tile (one block, canny_runs_kernel): the luma with a
 *     K / 2 + 1 halo (border replicated) read by column bands straight
 *     into the vertical sums, the Sobel derivatives and magnitudes of the
 *     tile plus a 1-pixel ring (0 outside the frame), the non-maximum
 *     suppression and the class of each pixel (none, weak, strong:
 *     canny_core.h, as the CPU), then the 8-connected components of the
 *     tile's weak and strong pixels: a warp is a tile row, whose
 *     __ballot_sync mask gives its runs of candidates; each run is one set
 *     from the start, and only the runs' first pixels take part in a
 *     union-find in shared memory (atomicMin), one union per pair of
 *     touching runs of adjacent rows; each set is marked when it holds a
 *     strong pixel. Writes a byte per pixel (none, candidate of a weak or
 *     of a strong tile component) and, for the candidates the later
 *     passes look up, the key of their tile root;
 *  2. the links that cross tile borders only (canny_merge_runs_kernel):
 *     a warp per tile border takes the two lines of pixels on either side
 *     as two rows of runs and joins each pair of touching runs, plus the
 *     two diagonal links across each tile corner; union-find with
 *     atomicMin on the global keys, each union from the keys pass 1 left
 *     at the two run starts (no find unless that node was joined
 *     already); a key orders the strong tile
 *     components before the weak ones, so the root of every component is
 *     strong exactly when it holds a strong pixel (D. Playne, K. Hawick,
 *     "A new algorithm for parallel connected-component labelling on
 *     GPUs", IEEE TPDS 2018: block-based union-find; O. Kalentev et al.,
 *     2011);
 *  3. the output map: 255 on candidates of strong tile components, and
 *     on those of weak ones whose tree reaches a strong key.
 * The same edges as the CPU's stack hysteresis (cpu-fallback/canny.c):
 * the components of weak and strong pixels that contain a strong one;
 * any labelling with the same components gives the same edges.
 * (The per-pixel passes 1 and 2 that the run-based ones replaced, kept
 * for A/B runs behind CUDAVISION_CANNY_PATH, are gone: docs/benchmarks.md,
 * issue #25, fifth session.) The operator (cv_canny_cuda_ops) at the end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda-internal.h"
#include "cvop-internal.h"
#include "canny_core.h"
#include "fill.cuh"

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

/* ---- runs of candidates in a warp's 32-lane masks (bit l: lane l a
 * candidate): a run is a maximal set of consecutive set lanes */

/* whether lane l starts a run of m */
__device__ __forceinline__ bool
run_start (unsigned m, int l)
{
  return ((m & ~(m << 1)) >> l & 1u) != 0;
}

/* the lowest clear lane of m among the lanes of above (~0u << l, l set)
 * as a one-bit mask: the lane after the end of the run of m that holds
 * lane l; 0 when that run reaches lane 31. Its run from l: the lanes of
 * m & above & (end - 1) (end - 1 is ~0u when end is 0). */
__device__ __forceinline__ unsigned
run_end_bit (unsigned m, unsigned above)
{
  const unsigned z = ~m & above;
  return z & (0u - z);
}

/* the lanes up to and including end (run_end_bit's), all lanes when end
 * is 0 or lane 31's bit: a run's window stops at the lane after it */
__device__ __forceinline__ unsigned
run_window_top (unsigned end)
{
  return (end << 1) - 1u;
}

/* the first lane of the run of m holding lane l (l set): above the
 * highest clear lane below l, else 0 */
__device__ __forceinline__ int
run_first (unsigned m, int l)
{
  const unsigned gaps = ~m & ((1u << l) - 1u);
  return gaps ? 32 - __clz (gaps) : 0;
}

/* the first lanes of the runs of m that hold a lane of the window win
 * (consecutive lanes): those that start there, and the one holding the
 * window's first set lane when it starts left of the window */
__device__ __forceinline__ unsigned
runs_touching (unsigned m, unsigned win)
{
  const unsigned hits = m & win;
  if (!hits)
    return 0;
  return (m & ~(m << 1) & win) | (1u << run_first (m, __ffs (hits) - 1));
}


/* Pass 1, run-based: one block per kTW x kTH tile; writes cls[] (kNone,
 * kWeakLocal, kStrongLocal) for every pixel and labels[] (the key of the
 * tile-local root) wherever a later pass reads it:
 *  a. the luma and the vertical sums in one step: each thread owns one
 *     luma column of a band of NB gradient rows, reads the NB + K - 1
 *     luma rows it needs straight from global memory (border replicated:
 *     the column clamped once, the row pointer moved on by a stride while
 *     the replicated row moves; one loop for one-byte luma, another for
 *     RGB, chosen once) into registers and writes the band's vertical
 *     sums; no luma tile, no index division per item;
 *  b. the horizontal sums: each thread keeps dx, dy of its own 4 pixels
 *     (the pixels it classifies next) in registers and writes only their
 *     magnitudes; threads 0 .. 131 do the 1-pixel ring (magnitude only);
 *  c. the classes (cv_canny_nms_offset picks the two neighbours compared,
 *     the only ones read, without branches); a warp is a tile row:
 *     __ballot_sync gives the row's candidate mask (kept in shared memory
 *     for the row below) and its strong mask. Only the first pixel of each
 *     run of candidates (a run start, its lane in the mask:
 *     cm & ~(cm << 1)) takes part in the union-find: its run is one set
 *     from the start; its lanes and window come from its end bit
 *     (run_end_bit), without lengths;
 *  d. each run start joins, from the masks alone, every run of the row
 *     above that overlaps [first - 1, last + 1] (its 8-connected
 *     neighbours): one union per pair of touching runs, on run starts only
 *     (the roots are always run starts: the smallest index of a set made
 *     of whole runs);
 *  e. each run start finds its root and, when its run holds a strong
 *     pixel (the strong mask under the run's bits), marks the root; the
 *     root and the mark then go to the run's other pixels by
 *     __shfl_sync from the start's lane (rows without a candidate, the
 *     same for the whole warp, only write their class bytes).
 * labels[] is written where the merge and output passes read it: weak
 * tile components (the output's walks), the tile's outer rows and
 * columns (the merge's finds) and the tile roots (the trees' tops); the
 * interior pixels of strong tile components are never read (the output
 * pass decides on their class byte alone). */
/* 8 blocks an SM (32 registers a thread, no spills on sm_90; 40
 * unbounded): whole waves of 8 blocks */
constexpr int kRunsBlocksPerSM = 8;

template < int K, bool L2 >
__global__ void __launch_bounds__ (kBX * kBY, kRunsBlocksPerSM)
canny_runs_kernel (const uint8_t * __restrict__ src, size_t sstride,
    int bpp, int ro, int go, int bo, int w, int h, int low, int high,
    uint8_t * __restrict__ cls, unsigned *__restrict__ labels)
{
  constexpr int R = K / 2;
  constexpr int RH = R + 1;     /* luma halo: the gradients' ring too */
  constexpr int LW = kTW + 2 * RH;
  constexpr int GW = kTW + 2, GH = kTH + 2;     /* gradients, 1-pixel ring */
  constexpr int kThreads = kBX * kBY;
  /* a.: LW columns x kBands bands of kNB gradient rows */
  constexpr int kBands = kThreads / LW;
  constexpr int kNB = (GH + kBands - 1) / kBands;
  constexpr int kLumRows = kNB + K - 1;
  constexpr int kRing = 2 * GW + 2 * kTH;       /* the ring's cells */
  static_assert (kBands * kNB >= GH && kRing <= kThreads, "band shape");
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
      int lab[kTH * kTW];       /* at run starts: local parent */
      int strong[kTH * kTW];    /* at run starts: a strong pixel in the
                                 * run; at roots: in the set */
      unsigned cand[kTH];       /* each row's candidate mask */
    } u;
  } sh;

  const int bx = blockIdx.x * kTW, by = blockIdx.y * kTH;
  const int tid = threadIdx.y * kBX + threadIdx.x;

  /* a. luma column c of the gradient rows g0 .. g0 + kNB - 1: luma rows
   * g0 .. g0 + kLumRows - 1 (gradient row g is centred on luma row
   * g + R); rows past the tile are read clamped to the frame and unused */
  {
    const int c = tid % LW, band = tid / LW;
    if (band < kBands) {
      const int g0 = band * kNB;
      const int gx = cv_border_replicate (bx - RH + c, w);
      const int y0 = by - RH + g0;
      /* row t's pointer from row t - 1's: one row further while the
       * replicated row index moves, i.e. while y0 + t is in 1 .. h - 1 */
      const uint8_t *p = src + (size_t) gx * bpp
          + (size_t) cv_border_replicate (y0, h) * sstride;
      int v[kLumRows];
      if (ro < 0) {
#pragma unroll
        for (int t = 0; t < kLumRows; t++) {
          if (t > 0 && (unsigned) (y0 + t - 1) < (unsigned) (h - 1))
            p += sstride;
          v[t] = __ldg (p);
        }
      } else {
#pragma unroll
        for (int t = 0; t < kLumRows; t++) {
          if (t > 0 && (unsigned) (y0 + t - 1) < (unsigned) (h - 1))
            p += sstride;
          v[t] = cv_luma (__ldg (p + ro), __ldg (p + go), __ldg (p + bo));
        }
      }
#pragma unroll
      for (int t = 0; t < kNB; t++) {
        if (g0 + t < GH) {
          int s = 0, d = 0;
#pragma unroll
          for (int j = 0; j < K; j++) {
            s += cv_sobel_smooth_coeff (K, j) * v[t + j];
            d += cv_sobel_deriv_coeff (K, j) * v[t + j];
          }
          sh.g.vs[g0 + t][c] = s;
          sh.g.vd[g0 + t][c] = d;
        }
      }
    }
  }
  __syncthreads ();

  /* b. the horizontal sums: this thread's pixels (column lx, rows
   * threadIdx.y + r * kBY) keep dx, dy; the ring only its magnitude */
  const int lx = threadIdx.x;
  const int x = bx + lx;
  int dxr[kRows], dyr[kRows];
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, y = by + ly;
    int dx = 0, dy = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
      dx += cv_sobel_deriv_coeff (K, k) * sh.g.vs[ly + 1][lx + 1 + k];
      dy += cv_sobel_smooth_coeff (K, k) * sh.g.vd[ly + 1][lx + 1 + k];
    }
    dx = cv_canny_scale_deriv (dx, K);
    dy = cv_canny_scale_deriv (dy, K);
    dxr[r] = dx;
    dyr[r] = dy;
    smag[ly + 1][lx + 1] = (x < w && y < h) ?
        cv_canny_magnitude (dx, dy, L2) : 0;
  }
  if (tid < kRing) {
    /* the top and bottom rows of the ring (GW cells each), then its
     * left and right columns (kTH cells each) */
    int ty, tx;
    if (tid < 2 * GW) {
      ty = tid < GW ? 0 : GH - 1;
      tx = tid < GW ? tid : tid - GW;
    } else {
      const int q = tid - 2 * GW;
      ty = 1 + (q < kTH ? q : q - kTH);
      tx = q < kTH ? 0 : GW - 1;
    }
    const int gy = by - 1 + ty, gx = bx - 1 + tx;
    int dx = 0, dy = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
      dx += cv_sobel_deriv_coeff (K, k) * sh.g.vs[ty][tx + k];
      dy += cv_sobel_smooth_coeff (K, k) * sh.g.vd[ty][tx + k];
    }
    dx = cv_canny_scale_deriv (dx, K);
    dy = cv_canny_scale_deriv (dy, K);
    smag[ty][tx] = (gx >= 0 && gx < w && gy >= 0 && gy < h) ?
        cv_canny_magnitude (dx, dy, L2) : 0;
  }
  __syncthreads ();             /* vs, vd dead from here: sh.u */

  /* c. classes, the rows' masks, the run starts' sets */
  const int *flat = &smag[0][0];
  /* the lanes from this thread's up, and from the one left of it up (the
   * first lane of the window of a run that starts here) */
  const unsigned above = ~0u << lx;
  const unsigned from = above | (above >> 1);
  unsigned cmr[kRows];
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, y = by + ly;
    const int tx = lx + 1, ty = ly + 1, j = ly * kTW + lx;
    /* cv_canny_class, reading only the two neighbours compared (one
     * path for the warp instead of one per direction) */
    int c = CV_CANNY_NONE;
    const int m = smag[ty][tx];
    if (x < w && y < h && m > low) {
      int ge;
      const int o = cv_canny_nms_offset (dxr[r], dyr[r], GW, &ge);
      const int a = flat[ty * GW + tx + o], b = flat[ty * GW + tx - o];
      if (m > a && m > b - ge)
        c = m > high ? CV_CANNY_STRONG : CV_CANNY_WEAK;
    }
    const unsigned cm = __ballot_sync (0xffffffffu, c != CV_CANNY_NONE);
    const unsigned sm = __ballot_sync (0xffffffffu, c == CV_CANNY_STRONG);
    cmr[r] = cm;
    if (lx == 0)
      sh.u.cand[ly] = cm;
    if (run_start (cm, lx)) {
      /* the run's lanes: from lx up to below its end bit */
      sh.u.lab[j] = j;
      sh.u.strong[j] = (sm & above & (run_end_bit (cm, above) - 1u)) != 0;
    }
  }
  __syncthreads ();

  /* d. each run start of rows 1 .. kTH - 1 joins the runs of the row
   * above that touch its window [first - 1, last + 1] */
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, j = ly * kTW + lx;
    const unsigned cm = cmr[r];
    if (ly == 0 || !run_start (cm, lx))
      continue;
    unsigned targets = runs_touching (sh.u.cand[ly - 1],
        from & run_window_top (run_end_bit (cm, above)));
    while (targets) {
      const int t = __ffs (targets) - 1;
      targets &= targets - 1u;
      tile_union (sh.u.lab, j, (ly - 1) * kTW + t);
    }
  }
  __syncthreads ();

  /* e. roots and marks at the run starts, then to every candidate */
  int root[kRows];
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, j = ly * kTW + lx;
    const unsigned cm = cmr[r];
    root[r] = -1;
    if (run_start (cm, lx)) {
      root[r] = tile_find (sh.u.lab, j);
      if (root[r] != j && sh.u.strong[j])
        atomicOr (&sh.u.strong[root[r]], 1);
    }
  }
  __syncthreads ();
#pragma unroll
  for (int r = 0; r < kRows; r++) {
    const int ly = threadIdx.y + r * kBY, y = by + ly;
    const unsigned cm = cmr[r];
    const bool inside = x < w && y < h;
    if (!cm) {
      /* no candidate in the row (the same for the whole warp) */
      if (inside)
        cls[y * w + x] = kNone;
      continue;
    }
    const int start = run_first (cm, lx);
    const int st0 = root[r] >= 0 ? sh.u.strong[root[r]] : 0;
    const unsigned rt = (unsigned) __shfl_sync (0xffffffffu, root[r], start);
    const int st = __shfl_sync (0xffffffffu, st0, start);
    if (!inside)
      continue;
    /* only in the frame (w h < 2^31 - 1): past its edges y w + x may
     * pass INT_MAX */
    const int i = y * w + x;
    if (!(cm >> lx & 1u)) {
      cls[i] = kNone;
    } else {
      cls[i] = st ? kStrongLocal : kWeakLocal;
      if (!st || lx == 0 || lx == kTW - 1 || ly == 0 || ly == kTH - 1
          || rt == (unsigned) (ly * kTW + lx)) {
        const unsigned ri = (by + rt / kTW) * (unsigned) w + bx + rt % kTW;
        labels[i] = st ? ri : ri | kWeakBit;
      }
    }
  }
}

/* ---- the merge across tiles, union-find on the global keys; loads
 * through L2 (__ldcg), where the atomics are (a stale L1 line would still
 * hold an ancestor's key: the union retries until its atomicMin lands on
 * a root) */

/* the keys of the roots of pixels a and b, both trees walked at once
 * (the two chains of dependent loads overlap) */
__device__ __forceinline__ void
global_find2 (const unsigned *labels, unsigned a, unsigned b, unsigned *ka,
    unsigned *kb)
{
  unsigned x = __ldcg (labels + a), y = __ldcg (labels + b);
  bool da = (x & kIndex) == a, db = (y & kIndex) == b;
  while (!da || !db) {
    if (!da) {
      a = x & kIndex;
      x = __ldcg (labels + a);
      da = (x & kIndex) == a;
    }
    if (!db) {
      b = y & kIndex;
      y = __ldcg (labels + b);
      db = (y & kIndex) == b;
    }
  }
  *ka = x;
  *kb = y;
}

/* join the trees that hold the nodes of keys ka and kb (keys of any
 * nodes of the two trees, roots or not): the larger key's node is pointed
 * at the smaller key; when that node was a root (atomicMin returns its own
 * key) the trees are one. Else it had a parent (old): the atomicMin may
 * have moved it (and its subtree) under ka, so ka's tree is joined with
 * old's from their roots. Never a cycle: keys fall strictly along every
 * parent pointer, so a node's descendants all have larger keys than it and
 * the smaller key ka is never one of them; a root stays its tree's smallest
 * key. */
__device__ void
global_union_keys (unsigned *labels, unsigned ka, unsigned kb)
{
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
    global_find2 (labels, old & kIndex, ka & kIndex, &kb, &ka);
  }
}

/* Pass 2: the links across tile borders, one warp per border,
 * kMergeTiles tiles a block: warp 2 t the left border of tile t (lane l:
 * row by + l, this tile's column bx against the west tile's column
 * bx - 1), warp 2 t + 1 its top border (lane l: column bx + l, row by
 * against the north tile's row by - 1). Along a border
 * the two lines of pixels are as two rows of a tile: each line's runs of
 * candidates are already one set (pass 1: consecutive candidates of a
 * tile's row or column are 8-connected), so each run start of this tile's
 * line joins every run of the other line that touches it, as in pass 1
 * (d.): one union per pair of touching runs, from the two lines'
 * __ballot_sync masks. The links across a tile corner (diagonal, between
 * tiles that share no border) are the only ones no strip holds: lane 0 of
 * the left warp joins (bx, by) with (bx - 1, by - 1), lane 0 of the top
 * warp (bx, by - 1) with (bx - 1, by). A union starts from the keys the
 * two run starts' labels[] entries hold (their tile roots', loaded for
 * the whole warp in one round trip after the classes): an atomicMin on
 * the larger, with no find first; only when that node is no longer a root
 * do finds follow (global_union_keys). Dependent global round trips for
 * a lane with n touching runs: 2 + n uncontended, was 1 + 3 n (two find
 * hops and the atomicMin each). */
constexpr int kMergeTiles = 4;

__global__ void __launch_bounds__ (32 * 2 * kMergeTiles)
canny_merge_runs_kernel (const uint8_t * __restrict__ cls, unsigned *labels,
    int w, int h, int tiles_x, int n_tiles)
{
  const int t = blockIdx.x * kMergeTiles + (int) (threadIdx.y >> 1);
  const bool top = (threadIdx.y & 1) != 0;
  if (t >= n_tiles)
    return;
  const int bx = (t % tiles_x) * kTW, by = (t / tiles_x) * kTH;
  if (top ? by == 0 : bx == 0)
    return;
  const int lane = threadIdx.x;
  /* p: this tile's pixel of the lane, q: its neighbour across the border */
  int p = 0, q = 0;
  bool ok;
  if (top) {
    ok = bx + lane < w;
    if (ok) {
      p = by * w + bx + lane;
      q = p - w;
    }
  } else {
    ok = by + lane < h;
    if (ok) {
      p = (by + lane) * w + bx;
      q = p - 1;
    }
  }
  /* the corner's pixel in the third tile (lane 0), its class read with
   * the lines' */
  const bool corner = lane == 0 && by > 0 && bx > 0;
  const int c1 = top ? by * w + bx - 1 : (by - 1) * w + bx - 1;
  const bool c1c = corner && cls[c1] != kNone;
  const unsigned pm = __ballot_sync (0xffffffffu, ok && cls[p] != kNone);
  const unsigned qm = __ballot_sync (0xffffffffu, ok && cls[q] != kNone);
  /* the run starts' keys (pass 1: a border candidate's labels[] entry is
   * the key of its tile root, or, for a tile root already joined by
   * another warp, of a node above it; any node of the tree will do for
   * global_union_keys), all loaded at once: no find walks from the pixels;
   * the other line's in shared memory for the lanes whose runs touch them
   * (written and read by this warp alone, __syncwarp between) */
  __shared__ unsigned qkey[2 * kMergeTiles][32];
  const bool ps = run_start (pm, lane);
  unsigned kp = 0;
  if (ps)
    kp = __ldcg (labels + p);
  if (run_start (qm, lane))
    qkey[threadIdx.y][lane] = __ldcg (labels + q);
  __syncwarp ();
  if (ps) {
    const unsigned above = ~0u << lane;
    unsigned targets = runs_touching (qm, (above | (above >> 1))
        & run_window_top (run_end_bit (pm, above)));
    unsigned done = 0xffffffffu;        /* no key: index < 2^31 - 1 */
    while (targets) {
      const int l = __ffs (targets) - 1;
      targets &= targets - 1u;
      /* two runs of the other line keyed by one node are one set: the
       * second union would join nothing new */
      const unsigned kq = qkey[threadIdx.y][l];
      if (kq != done)
        global_union_keys (labels, kp, kq);
      done = kq;
    }
  }
  if (corner) {
    /* the corner links: (bx, by) - (bx - 1, by - 1) and
     * (bx, by - 1) - (bx - 1, by); c0 is lane 0's pixel of this warp's
     * lines, a run start when a candidate */
    if (((top ? qm : pm) & 1u) && c1c)
      global_union_keys (labels, top ? qkey[threadIdx.y][0] : kp,
          __ldcg (labels + c1));
  }
}

/* Whether candidates i .. i + 3 (classes c) are edges: a strong tile
 * component is; a weak one walks up its tree until a strong key (every
 * key above it is smaller: the root is strong) or its root, then points
 * its tile root at the key found (path compression: any ancestor's key is
 * a valid parent, the trees no longer change). Hop 1 reaches the tile root
 * (or, for that root itself, its parent): the pointer compressed when the
 * walk goes further. The four walks are interleaved: each round moves
 * every walk still going one hop up, its loads issued together, so that a
 * thread waits for its longest walk rather than for the sum of its four. */
__device__ __forceinline__ void
canny_edges4 (unsigned *labels, int i, const uint8_t c[4], uint8_t o[4])
{
  unsigned idx[4], k[4], first[4];
  int steps[4];
  bool go[4];
#pragma unroll
  for (int q = 0; q < 4; q++) {
    /* unsigned: a lane past the row's end (unused) may pass INT_MAX */
    idx[q] = (unsigned) i + q;
    go[q] = c[q] == kWeakLocal;
    k[q] = go[q] ? labels[idx[q]] : 0u;
    first[q] = k[q] & kIndex;
    steps[q] = 0;
  }
  for (;;) {
    bool any = false;
#pragma unroll
    for (int q = 0; q < 4; q++) {
      go[q] = go[q] && (k[q] & kWeakBit) && (k[q] & kIndex) != idx[q];
      any = any || go[q];
    }
    if (!any)
      break;
#pragma unroll
    for (int q = 0; q < 4; q++) {
      if (go[q]) {
        idx[q] = k[q] & kIndex;
        k[q] = labels[idx[q]];
        steps[q]++;
      }
    }
  }
#pragma unroll
  for (int q = 0; q < 4; q++) {
    if (c[q] == kWeakLocal) {
      if (steps[q] > 1)
        labels[first[q]] = k[q];
      o[q] = (k[q] & kWeakBit) == 0 ? 255 : 0;
    } else {
      o[q] = c[q] == kStrongLocal ? 255 : 0;
    }
  }
}

/* Pass 3: the output map, 255 on the candidates of a component with a
 * strong pixel; 4 pixels of a row a thread, their class bytes as one
 * little-endian word v (byte k: pixel x + k). When no byte is kWeakLocal
 * (1: no bit 0 set) nothing needs looking up: the bytes kStrongLocal (2)
 * become 255 by ((v >> 1) & 0x01010101) * 255; else canny_edges4 walks. */
template < typename F >
__global__ void
canny_output_kernel (const uint8_t * __restrict__ cls, unsigned *labels,
    uint8_t * __restrict__ dst, size_t dstride, int w, int h, const F fill)
{
  static_assert (kNone == 0 && kWeakLocal == 1 && kStrongLocal == 2,
      "the word arithmetic below");
  /* NV12 / I420: the neutral chroma in this launch (fill.cuh) */
  cv_fill_share (fill);
  const long long xl =
      ((long long) blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (xl >= w || y >= h)
    return;
  const int x = (int) xl;
  const int i = y * w + x;
  const bool whole = x + 4 <= w;
  unsigned v = 0, o;
  if (whole && (i & 3) == 0) {
    v = *reinterpret_cast < const unsigned *>(cls + i);
  } else {
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (x + k < w)
        v |= (unsigned) cls[i + k] << (8 * k);
  }
  if (!(v & 0x01010101u)) {
    o = ((v >> 1) & 0x01010101u) * 255u;
  } else {
    uint8_t c[4], e[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      c[k] = (uint8_t) (v >> (8 * k));
    canny_edges4 (labels, i, c, e);
    o = (unsigned) e[0] | (unsigned) e[1] << 8 | (unsigned) e[2] << 16
        | (unsigned) e[3] << 24;
  }
  uint8_t *d = dst + (size_t) y * dstride + x;
  if (whole && ((uintptr_t) d & 3) == 0) {
    *reinterpret_cast < unsigned *>(d) = o;
  } else {
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (x + k < w)
        d[k] = (uint8_t) (o >> (8 * k));
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
    canny_runs_kernel < K, true > <<<grid, block, 0, s>>> (src->data,
        src->stride, l.bpp, l.r, l.g, l.b, src->width, src->height, low,
        high, cls, labels);
  else
    canny_runs_kernel < K, false > <<<grid, block, 0, s>>> (src->data,
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
    (const void *) canny_runs_kernel < 3, false >,
    (const void *) canny_runs_kernel < 3, true >,
    (const void *) canny_runs_kernel < 5, false >,
    (const void *) canny_runs_kernel < 5, true >,
    (const void *) canny_runs_kernel < 7, false >,
    (const void *) canny_runs_kernel < 7, true >,
    (const void *) canny_merge_runs_kernel,
    (const void *) canny_output_kernel < CvNoFill >,
    (const void *) canny_output_kernel < CvFill >,
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
  CvStatus st = canny_preload ();
  if (st != CV_OK)
    return st;
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
    const int n_tiles = (int) (tiles.x * tiles.y);
    canny_merge_runs_kernel <<<cv_div_up (n_tiles, kMergeTiles),
        dim3 (32, 2 * kMergeTiles), 0, s>>> (o->cls, o->labels, w, h,
        (int) tiles.x, n_tiles);
    dim3 block (32, 8);
    dim3 grid (cv_div_up (cv_div_up (w, 4), 32), cv_div_up (h, 8));
    /* the neutral chroma of NV12 / I420 output, by the same launch */
    if (o->info.n_out_planes > 1)
      canny_output_kernel < CvFill > <<<grid, block, 0, s>>> (o->cls,
          o->labels, frame->out[0].data, frame->out[0].stride, w, h,
          cv_fill_chroma (frame->out, o->info.n_out_planes,
              o->info.out_pixel_stride, 128));
    else
      canny_output_kernel < CvNoFill > <<<grid, block, 0, s>>> (o->cls,
          o->labels, frame->out[0].data, frame->out[0].stride, w, h,
          CvNoFill ());
    CV_CUDA_TRY (cudaGetLastError ());
  }
  return CV_OK;
}

}                               /* namespace */

CV_SLOT_OP_FUNCTIONS (cv_canny_cuda, canny_slot, CannySlot, CvCannyOp,
    CvCannyInfo, CvCannyParams);
CV_OPS_TABLE (cv_canny_cuda_ops, "canny-cuda", cv_canny_cuda, CvCannyOp,
    CvCannyInfo, CvCannyParams, cv_op_no_results);
