/* gst-cuda-vision: cudaconvolve's named 3x3 filters on the GPU, the
 * interior of the frame: rows sliding in registers (exact integers).
 * Internal header, included by convolve-named.cu only (its kernel runs
 * this path and the byte tiles in one launch).
 *
 * Where no stage of the chain reads outside the frame (every tile but the
 * first and last tile rows and columns of the tiling above) a lane owns 16
 * bytes (4 words) of a row and walks S rows, keeping the last 3 rows of
 * every stage's input in registers: no shared memory, no barrier. A row of
 * stage s is computed from the 4 words of the lane and the word to each
 * side (the neighbouring lanes' words, by shuffle); stage s + 1 reads the
 * stage s results the same way. The outer lanes of a warp have no
 * neighbour on one side, so their outermost word is wrong after each
 * stage; with 4 words per lane and at most 4 stages that never reaches
 * their third word, so lanes 1 .. 30 are exact and write the output
 * (for a single stage lanes 0 and 31 load the missing word and write too).
 * Chains of up to FAST_MAX_N stages take this path. Same per-lane
 * arithmetic as the tiles (feat_cls / out_cls).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_CONVOLVE_NAMED_ROWS_CUH
#define CV_CONVOLVE_NAMED_ROWS_CUH

#include "convolve-named.cuh"

#define FAST_S 8                /* rows per lane */
#define FAST_MAX_N 2            /* longest chain run this way */

/* Features of the 4 words w of a lane, its neighbours' words by shuffle
 * (or el / er for the outer lanes of a single stage). */
template < int BPP, bool CROSS >
__device__ __forceinline__ void
quad_feat (const StageK & k, const uint32_t w[4], int lane, bool own_edges,
    uint32_t el, uint32_t er, RowFeat f[4])
{
  uint32_t l = __shfl_up_sync (0xffffffffu, w[3], 1);
  uint32_t r = __shfl_down_sync (0xffffffffu, w[0], 1);

  if (own_edges && lane == 0)
    l = el;
  if (own_edges && lane == 31)
    r = er;
  f[0] = feat_cls < BPP, CROSS > (k, l, w[0], w[1]);
  f[1] = feat_cls < BPP, CROSS > (k, w[0], w[1], w[2]);
  f[2] = feat_cls < BPP, CROSS > (k, w[1], w[2], w[3]);
  f[3] = feat_cls < BPP, CROSS > (k, w[2], w[3], r);
}

/* One lane's strip: rows [y0, y0 + FAST_S) of the quad at byte qb. All
 * rows y0 - N .. y0 + FAST_S - 1 + N and bytes qb - 4 .. qb + 19 that
 * the output depends on are inside the frame (the caller's region).
 * Bit s of CLS: stage s is of the cross class. */
template < int BPP, int NC, int N, int CLS >
__device__ __forceinline__ void
fast_strip (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, const NamedChain & c,
    int qb, int y0, bool load, bool load_right, bool store, int lane)
{
  constexpr int ROWS = FAST_S + 2 * N;
  RowFeat u[N][4], m[N][4];
  uint32_t raw[ROWS][4];

#pragma unroll
  for (int i = 0; i < ROWS; i++) {
    const uint8_t *row = src + (size_t) (y0 - N + i) * sstride + qb;
    uint32_t w[4], el = 0, er = 0;

    if (load) {
      const uint4 t = __ldg ((const uint4 *) row);
      w[0] = t.x;
      w[1] = t.y;
      w[2] = t.z;
      w[3] = t.w;
      if (N == 1 && lane == 0)
        el = __ldg ((const unsigned int *) row - 1);
      if (N == 1 && lane == 31 && load_right)
        er = __ldg ((const unsigned int *) row + 4);
    } else {
      w[0] = w[1] = w[2] = w[3] = 0;
    }
    if (NC < BPP) {
#pragma unroll
      for (int q = 0; q < 4; q++)
        raw[i][q] = w[q];
    }
    /* input row i feeds stage 0; stage s gets its rows 2 s rows later */
#pragma unroll
    for (int s = 0; s < N; s++) {
      const int j = i - 2 * s;  /* input row index of stage s */
      const bool cross = (CLS >> s) & 1;
      RowFeat d[4];

      if (j < 0)
        break;
      if (cross)
        quad_feat < BPP, true > (c.k[s], w, lane, N == 1, el, er, d);
      else
        quad_feat < BPP, false > (c.k[s], w, lane, N == 1, el, er, d);
      if (j >= 2) {
        uint32_t o[4];
#pragma unroll
        for (int q = 0; q < 4; q++)
          o[q] = cross ? out_cls < true > (c.k[s], u[s][q], m[s][q], d[q]) :
              out_cls < false > (c.k[s], u[s][q], m[s][q], d[q]);
        if (s == N - 1) {
          /* output row y0 + i - 2 N, source row i - N */
          if (store) {
            uint32_t *orow = (uint32_t *) (dst + (size_t) (y0 - 2 * N + i) *
                dstride + qb);
            if (NC < BPP) {
#pragma unroll
              for (int q = 0; q < 4; q++)
                o[q] = (o[q] & 0x00FFFFFFu) | (raw[i - N][q] & 0xFF000000u);
            }
            *(uint4 *) orow = make_uint4 (o[0], o[1], o[2], o[3]);
          }
        } else {
#pragma unroll
          for (int q = 0; q < 4; q++)
            w[q] = o[q];
        }
      }
#pragma unroll
      for (int q = 0; q < 4; q++) {
        u[s][q] = m[s][q];
        m[s][q] = d[q];
      }
      if (j < 2)
        break;
    }
  }
}

#endif /* CV_CONVOLVE_NAMED_ROWS_CUH */
