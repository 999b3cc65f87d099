/* gst-cuda-vision: cudaconvolve on the GPU, chains of named 3x3 filters
 * (blur, gaussian, sharpen, edge-detect; exact integer math, bit-exact
 * with cpu-fallback/convolve.c, see cvconvolve.h).
 *
 * One launch splits the frame into tiles along its edges (byte tiles in
 * shared memory, border rules; this file) and, for chains of one or two
 * stages on aligned planes, an interior that no stage reads outside of,
 * where every lane slides 3-row windows of 16 bytes down its rows in
 * registers (convolve-named-rows.cuh).
 *
 * The tiles. A plane row is handled as bytes, as on the CPU: every byte
 * is filtered with its neighbours BPP bytes away (the unfiltered alpha/x
 * byte of RGBA is replaced from the source at the end), 4 bytes per 32-bit
 * word. A block owns TWW words x TH rows of output; buffer A holds the source
 * tile plus a halo of R = n words and R rows (border rule applied while
 * loading). Stage s computes words [s + 1, BWW - s - 1) x rows
 * [s + 1, BH - s - 1) of its output buffer (words of 2 x 16-bit lanes:
 * bytes 0, 2 and bytes 1, 3; sums stay below 65536 per lane), each thread
 * a column strip of rows sliding a 3-row window in registers. Blocks at
 * the frame edge then set the out-of-frame pixels next to the frame (the
 * only ones the next stage reads) from the in-frame ones by the border
 * rule, i.e. the border rule of the next stage's input frame.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve-named.cuh"
#include "convolve-named-rows.cuh"

#include <limits.h>
#include <string.h>

/* Where a named stage writes: the next stage's shared buffer, or (last
 * stage) the destination frame. */
struct EmitShared
{
  uint32_t *out;
  int pitch;
  __device__ __forceinline__ void operator () (int j, int i, uint32_t v) const
  {
    out[j * pitch + i] = v;
  }
};

template < int BPP, int NC > struct EmitGlobal
{
  const uint8_t *src;
  size_t sstride;
  uint8_t *dst;
  size_t dstride;
  int ob, oy, Wb, H, vec;
  const uint32_t *tile;         /* the source tile in shared memory, or NULL */
  int pitch;
  __device__ __forceinline__ void operator () (int j, int i, uint32_t v) const
  {
    const int gy = oy + j, gb = ob + 4 * i;

    if (gy >= H || gb >= Wb)
      return;
    if (vec && gb + 4 <= Wb) {
      if (NC < BPP)             /* BPP 4: byte 3 from the source */
        v = (v & 0x00FFFFFFu) | ((tile ? tile[j * pitch + i] :
                __ldg ((const unsigned int *) (src + (size_t) gy * sstride +
                        gb))) & 0xFF000000u);
      *(uint32_t *) (dst + (size_t) gy * dstride + gb) = v;
    } else {
      for (int b = 0; b < 4 && gb + b < Wb; b++) {
        uint8_t byte = (uint8_t) (v >> (8 * b));
        if (NC < BPP && (gb + b) % BPP >= NC)
          byte = src[(size_t) gy * sstride + gb + b];
        dst[(size_t) gy * dstride + gb + b] = byte;
      }
    }
  }
};

/* Output rows [r0, r1) of word column col. */
template < int BPP, bool CROSS, class Emit >
__device__ __forceinline__ void
named_strip (const StageK & k, const uint32_t * in, int pitch, int col,
    int r0, int r1, const Emit & emit)
{
  const uint32_t *row = in + (r0 - 1) * pitch + col;
  RowFeat u = feat_cls < BPP, CROSS > (k, row[-1], row[0], row[1]);
  RowFeat m;

  row += pitch;
  m = feat_cls < BPP, CROSS > (k, row[-1], row[0], row[1]);
  for (int j = r0; j < r1; j++) {
    RowFeat d;

    row += pitch;
    d = feat_cls < BPP, CROSS > (k, row[-1], row[0], row[1]);
    emit (j, col, out_cls < CROSS > (k, u, m, d));
    u = m;
    m = d;
  }
}

template < int BPP, class Emit >
__device__ __forceinline__ void
named_stage (const NamedChain & c, const uint32_t * in, int pitch, int s,
    int BWW, int BH, int tid, const Emit & emit)
{
  const int rw = BWW - 2 * s - 2, rh = BH - 2 * s - 2;
  const int nstrip = max (1, NT_THREADS / rw);
  const int sh = (rh + nstrip - 1) / nstrip;
  const int items = rw * nstrip;
  const StageK k = c.k[s];
  const bool cross = c.cross[s];

  for (int it = tid; it < items; it += NT_THREADS) {
    const int strip = it / rw, col = s + 1 + (it - strip * rw);
    const int r0 = s + 1 + strip * sh, r1 = min (r0 + sh, BH - s - 1);

    if (r0 >= r1)
      continue;
    if (cross)
      named_strip < BPP, true > (k, in, pitch, col, r0, r1, emit);
    else
      named_strip < BPP, false > (k, in, pitch, col, r0, r1, emit);
  }
}

template < int BPP, int NC, bool SMALL >
__device__ __forceinline__ void
named_tile (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int W, int H, int vec,
    const NamedChain & c, int tx, int ty, uint32_t * nsm)
{
  constexpr int TWW = NamedGeom < BPP, SMALL >::TWW;
  constexpr int TH = NamedGeom < BPP, SMALL >::TH;
  const int R = c.n, mode = c.border;
  const int BWW = TWW + 2 * R, BH = TH + 2 * R, plane = BWW * BH;
  const int Wb = W * BPP;
  const int ob = tx * TWW * 4 - 4 * R;
  const int oy = ty * TH - R;
  const int tid = threadIdx.x;
  const bool edge = ob < 0 || ob + 4 * BWW > Wb || oy < 0 || oy + BH > H;
  uint32_t *in = nsm, *out = nsm + plane;

  /* source tile + halo, border rule applied; 4 loads in flight per
   * thread */
  for (int o0 = tid; o0 < plane; o0 += 4 * NT_THREADS) {
    uint32_t v[4];

#pragma unroll
    for (int k = 0; k < 4; k++) {
      const int o = o0 + k * NT_THREADS;
      const int j = o / BWW, i = o - j * BWW;
      const int gy = oy + j, gb = ob + 4 * i;

      v[k] = 0;
      if (o >= plane)
        break;
      if (vec && gy >= 0 && gy < H && gb >= 0 && gb + 4 <= Wb) {
        v[k] = __ldg ((const unsigned int *) (src + (size_t) gy * sstride +
                gb));
      } else {
        /* addresses first, then the 4 loads at once (a byte out of the
         * frame under the constant rule reads byte 0 and is masked) */
        const int my = cv_conv_border (gy, H, mode);
        size_t at[4];
        uint32_t ok = 0, by[4];

#pragma unroll
        for (int b = 0; b < 4; b++) {
          const int px = floor_div (gb + b, BPP), ch = gb + b - px * BPP;
          const int mx = cv_conv_border (px, W, mode);
          const bool in_frame = my >= 0 && mx >= 0;
          at[b] = in_frame ? (size_t) my * sstride + (size_t) mx * BPP + ch : 0;
          ok |= (in_frame ? 0xFFu : 0u) << (8 * b);
        }
#pragma unroll
        for (int b = 0; b < 4; b++)
          by[b] = __ldg (src + at[b]);
        v[k] = (by[0] | by[1] << 8 | by[2] << 16 | by[3] << 24) & ok;
      }
    }
#pragma unroll
    for (int k = 0; k < 4; k++)
      if (o0 + k * NT_THREADS < plane)
        in[o0 + k * NT_THREADS] = v[k];
  }
  __syncthreads ();

  for (int s = 0; s < R; s++) {
    if (s == R - 1) {
      /* buffer nsm still holds the source tile up to the second stage */
      EmitGlobal < BPP, NC > e = { src, sstride, dst, dstride, ob, oy, Wb, H,
        vec, R <= 2 ? nsm : NULL, BWW
      };
      named_stage < BPP > (c, in, BWW, s, BWW, BH, tid, e);
      break;
    }
    {
      EmitShared e = { out, BWW };
      named_stage < BPP > (c, in, BWW, s, BWW, BH, tid, e);
    }
    __syncthreads ();
    if (edge) {
      /* out-of-frame pixels next to the frame (rows -1 and H, pixel
       * columns -1 and W) from in-frame ones of the same buffer: byte
       * stores to bytes no thread reads in this pass */
      const int rw = BWW - 2 * s - 2, rh = BH - 2 * s - 2;
      uint8_t *ob8 = (uint8_t *) out;

      for (int o = tid; o < rw * rh; o += NT_THREADS) {
        const int j = s + 1 + o / rw, i = s + 1 + o % rw;
        const int gy = oy + j, gb = ob + 4 * i;
        const bool rowin = gy >= 0 && gy < H;

        if ((rowin && gb >= 0 && gb + 4 <= Wb) || gy < -1 || gy > H
            || gb + 4 <= -BPP || gb >= Wb + BPP)
          continue;
        {
          const int my = cv_conv_border (gy, H, mode);
          for (int b = 0; b < 4; b++) {
            const int px = floor_div (gb + b, BPP), ch = gb + b - px * BPP;
            int mx;
            uint8_t v = 0;

            if ((rowin && px >= 0 && px < W) || px < -1 || px > W)
              continue;
            mx = cv_conv_border (px, W, mode);
            if (my >= 0 && mx >= 0)
              v = ob8[(size_t) (my - oy) * BWW * 4 + (mx * BPP + ch - ob)];
            ob8[(size_t) j * BWW * 4 + 4 * i + b] = v;
          }
        }
      }
      __syncthreads ();
    }
    {
      uint32_t *t = in;
      in = out;
      out = t;
    }
  }
}

/* Border tiles of the tiling (tile columns < 1 or >= tx_end, tile rows < 1
 * or >= ty_end) in this order: row 0, rows ty_end .. gy - 1, then per row
 * 1 .. ty_end - 1 column 0 and columns tx_end .. gx - 1. */
struct NamedSplit
{
  int gx, gy, tx_end, ty_end;   /* tiles; fast region [1, tx_end) x [1, ty_end) */
  int nborder;                  /* border tiles */
  int qx0, qx1, ry0, ry1;       /* fast region: 16-byte quads, rows */
  int wcols, brows;             /* fast blocks: warp columns, block rows */
};

__device__ __forceinline__ void
border_tile (const NamedSplit & sp, int b, int &tx, int &ty)
{
  const int full = sp.gx * (1 + sp.gy - sp.ty_end);

  if (b < full) {
    const int r = b / sp.gx;
    tx = b - r * sp.gx;
    ty = r == 0 ? 0 : sp.ty_end + r - 1;
  } else {
    const int k = 1 + sp.gx - sp.tx_end, o = b - full, r = o / k,
        cc = o - r * k;
    ty = 1 + r;
    tx = cc == 0 ? 0 : sp.tx_end + cc - 1;
  }
}

template < int BPP, int NC, int N, int CLS >
__global__ void __launch_bounds__ (NT_THREADS)
named_chain_kernel (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int W, int H, int vec,
    const NamedChain c, const NamedSplit sp)
{
  extern __shared__ uint32_t nsm[];
  const int b = (int) blockIdx.x;

  if (b < sp.nborder) {
    int tx, ty;

    border_tile (sp, b, tx, ty);
    named_tile < BPP, NC, (N >= 1 && N <= FAST_MAX_N) > (src, sstride, dst,
        dstride, W, H, vec, c, tx, ty,
        nsm);
    return;
  }
  if (N >= 1 && N <= FAST_MAX_N) {
    constexpr int OUTQ = N == 1 ? 32 : 30;
    /* the block's warps are stacked: one warp column, 8 strips of rows */
    const int f = b - sp.nborder, by = f / sp.wcols, wc = f - by * sp.wcols;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int y0 = sp.ry0 + (by * (NT_THREADS / 32) + warp) * FAST_S;
    const int q = sp.qx0 + wc * OUTQ + lane - (N == 1 ? 0 : 1);
    const bool inner = N == 1 || (lane >= 1 && lane <= 30);

    if (y0 >= sp.ry1)           /* whole warp */
      return;
    fast_strip < BPP, NC, (N < 1 ? 1 : (N > FAST_MAX_N ? FAST_MAX_N : N)),
        CLS > (src, sstride, dst, dstride, c, 16 * q, y0, 16 * q + 16 <= W * BPP,
        16 * q + 20 <= W * BPP, inner && q < sp.qx1, lane);
  }
}

template < int BPP, bool SMALL >
static size_t
named_smem (int R)
{
  typedef NamedGeom < BPP, SMALL > G;
  /* a single stage reads one buffer and writes the frame */
  return (size_t) (R > 1 ? 2 : 1) * (G::TWW + 2 * R) * (G::TH + 2 * R) *
      sizeof (uint32_t);
}

template < int BPP, int NC, int N, int CLS >
static CvStatus
launch_named_n (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int W, int H, const NamedChain & c, cudaStream_t stream)
{
  constexpr bool FAST = N >= 1 && N <= FAST_MAX_N;
  constexpr int TWW = NamedGeom < BPP, FAST >::TWW;
  constexpr int NT_H = NamedGeom < BPP, FAST >::TH;
  const size_t smem = named_smem < BPP, FAST > (c.n);
  const long long wb = (long long) W * BPP;
  const int vec = ((uintptr_t) src % 4 == 0) && sstride % 4 == 0 &&
      ((uintptr_t) dst % 4 == 0) && dstride % 4 == 0;
  const int fast_ok = FAST && ((uintptr_t) src % 16 == 0) && sstride % 16 == 0
      && ((uintptr_t) dst % 16 == 0) && dstride % 16 == 0;
  NamedSplit sp;
  long long blocks;

  memset (&sp, 0, sizeof (sp));
  sp.gx = (int) ((wb + 4 * TWW - 1) / (4 * TWW));
  sp.gy = cv_div_up (H, NT_H);
  if (wb + 8 * (long long) TWW >= INT_MAX)
    return CV_ERROR_INVALID_ARGUMENT;
  /* the fast region: tiles that are not in the first or last tile row or
   * column; it ends one tile earlier where the rows its stages read below
   * it (N) or the 16 bytes its last lanes read to its right would leave
   * the frame */
  sp.tx_end = sp.gx - 1;
  if (sp.gx >= 2 && wb - 4LL * TWW * (sp.gx - 1) < 16)
    sp.tx_end--;
  sp.ty_end = sp.gy - 1;
  if (sp.gy >= 2 && H - NT_H * (sp.gy - 1) < N)
    sp.ty_end--;
  if (!fast_ok || sp.tx_end <= 1 || sp.ty_end <= 1) {
    sp.tx_end = 1;              /* every tile is a border tile */
    sp.ty_end = 1;
  }
  sp.nborder = sp.gx * (1 + sp.gy - sp.ty_end) + (sp.ty_end - 1) * (1 +
      sp.gx - sp.tx_end);
  if (sp.tx_end > 1) {
    const int outq = N == 1 ? 32 : 30, rows = NT_THREADS / 32 * FAST_S;

    sp.qx0 = TWW / 4;           /* 4 * TWW bytes = TWW / 4 quads */
    sp.qx1 = sp.tx_end * TWW / 4;
    sp.ry0 = NT_H;
    sp.ry1 = sp.ty_end * NT_H;
    sp.wcols = (sp.qx1 - sp.qx0 + outq - 1) / outq;
    sp.brows = (sp.ry1 - sp.ry0 + rows - 1) / rows;
  }
  blocks = (long long) sp.nborder + (long long) sp.wcols * sp.brows;
  if (blocks > INT_MAX)
    return CV_ERROR_INVALID_ARGUMENT;
  named_chain_kernel < BPP, NC, N, CLS > <<<(unsigned) blocks, NT_THREADS,
      smem, stream>>> (src, sstride, dst, dstride, W, H, vec, c, sp);
  return cv_cuda_status (cudaGetLastError ());
}

template < int BPP, int NC >
static CvStatus
launch_named (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int W, int H, const NamedChain & c, cudaStream_t stream)
{
#define CV_LN(n, k) launch_named_n < BPP, NC, n, k > (src, sstride, dst, \
      dstride, W, H, c, stream)
  const int x0 = c.cross[0], x1 = c.n > 1 && c.cross[1];

  switch (c.n) {
    case 1:
      return x0 ? CV_LN (1, 1) : CV_LN (1, 0);
    case 2:
      switch (x0 | x1 << 1) {
        case 0:
          return CV_LN (2, 0);
        case 1:
          return CV_LN (2, 1);
        case 2:
          return CV_LN (2, 2);
        default:
          return CV_LN (2, 3);
      }
    default:
      return CV_LN (0, 0);      /* tiles only */
  }
#undef CV_LN
}

int
cv_conv_named_try (int bpp, int nc, const uint8_t * s, size_t ss,
    uint8_t * d, size_t ds, int W, int H, const GpuChain & g,
    cudaStream_t st, CvStatus *ret)
{
  NamedChain c;

  for (int i = 0; i < g.n; i++)
    if (g.kind[i] == CV_FILTER_CUSTOM)
      return 0;
  memset (&c, 0, sizeof (c));
  c.n = g.n;
  c.border = g.border;
  for (int i = 0; i < g.n; i++) {
    c.cross[i] = g.kind[i] == CV_FILTER_SHARPEN
        || g.kind[i] == CV_FILTER_EDGE_DETECT;
    c.k[i] = stage_k (g.kind[i]);
  }
  if (bpp == 1 && nc == 1)
    *ret = launch_named < 1, 1 > (s, ss, d, ds, W, H, c, st);
  else if (bpp == 2 && nc == 2)
    *ret = launch_named < 2, 2 > (s, ss, d, ds, W, H, c, st);
  else if (bpp == 3 && nc == 3)
    *ret = launch_named < 3, 3 > (s, ss, d, ds, W, H, c, st);
  else if (bpp == 4 && nc == 3)
    *ret = launch_named < 4, 3 > (s, ss, d, ds, W, H, c, st);
  else
    return 0;
  return 1;
}

template < int BPP, int NC >
static CvStatus
preload_named (void)
{
  const void *k[] = {
    (const void *) named_chain_kernel < BPP, NC, 1, 0 >,
    (const void *) named_chain_kernel < BPP, NC, 1, 1 >,
    (const void *) named_chain_kernel < BPP, NC, 2, 0 >,
    (const void *) named_chain_kernel < BPP, NC, 2, 1 >,
    (const void *) named_chain_kernel < BPP, NC, 2, 2 >,
    (const void *) named_chain_kernel < BPP, NC, 2, 3 >,
    (const void *) named_chain_kernel < BPP, NC, 0, 0 >,
  };
  return cv_cuda_preload (k, (int) (sizeof (k) / sizeof (k[0])));
}

/* every chain shape launch_named can launch on (bpp, nc) pixels, loaded at
 * the operator's create (convolve-internal.h) */
CvStatus
cv_conv_named_preload (int bpp, int nc)
{
  if (bpp == 1 && nc == 1)
    return preload_named < 1, 1 > ();
  if (bpp == 2 && nc == 2)
    return preload_named < 2, 2 > ();
  if (bpp == 3 && nc == 3)
    return preload_named < 3, 3 > ();
  if (bpp == 4 && nc == 3)
    return preload_named < 4, 3 > ();
  return CV_OK;
}
