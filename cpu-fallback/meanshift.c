/* gst-cuda-vision: mean-shift filtering and segmentation on the CPU
 * (C99 + OpenMP), and its operator (cv_meanshift_cpu_ops). The per-pixel
 * math is kernels/meanshift_core.h, shared with kernels/meanshift.cu; the
 * segmentation follows the same deterministic rules (union-find with the
 * smallest index as root), so CPU and GPU give the same labels. See
 * cvmeanshift.h for the definitions.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cpu-internal.h"
#include "meanshift_core.h"
#include "cvop-internal.h"
#include "cvcpu.h"
#include "cvworkspace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The segmentation runs over the ROI's pixels several times on one thread
 * (about a second per pass at 8K on a loaded machine): every pass polls
 * the cancel flag at least every POLL_PIXELS pixels (or every row), well
 * under a millisecond of work. */
#define POLL_PIXELS ((size_t) 1 << 16)

/* The frame's workspaces (img, filt, pos, and the segmentation's L, cnt,
 * sum, best: 56 bytes per ROI pixel, ~1.9 GB at 8K) come from
 * cv_workspace_alloc: mapped per frame, their pages faulted in by the
 * passes that poll the cancel flag, never filled inside the allocator
 * (MALLOC_PERTURB_), and nothing held between frames or in filter mode.
 * Those of a cancelled frame are freed by a detached thread of their own:
 * giving ~1.9 GB of touched pages back to the system takes 0.2 s, and more
 * than 0.5 s on a loaded machine, which the thread that stops the element
 * need not wait for. */
#define MAX_LATER 4

typedef struct
{
  void *p[MAX_LATER];
} FreeLater;

static void *
free_later_thread (void *data)
{
  FreeLater *f = data;
  int i;

  for (i = 0; i < MAX_LATER; i++)
    cv_workspace_free (f->p[i]);
  free (f);
  return NULL;
}

/* free the workspaces a, b, c, d (any may be NULL) now or, after a
 * cancellation, in the background (now when no thread can be made) */
static void
free_workspaces (int cancelled, void *a, void *b, void *c, void *d)
{
  FreeLater *f = cancelled ? malloc (sizeof (FreeLater)) : NULL;
  pthread_attr_t attr;
  pthread_t t;
  int started = 0;

  if (f && pthread_attr_init (&attr) == 0) {
    f->p[0] = a;
    f->p[1] = b;
    f->p[2] = c;
    f->p[3] = d;
    started = pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED)
        == 0 && pthread_create (&t, &attr, free_later_thread, f) == 0;
    pthread_attr_destroy (&attr);
  }
  if (started)
    return;
  free (f);
  cv_workspace_free (a);
  cv_workspace_free (b);
  cv_workspace_free (c);
  cv_workspace_free (d);
}

/* root of i with path halving */
static uint32_t
uf_find (uint32_t * L, uint32_t i)
{
  while (L[i] != i) {
    L[i] = L[L[i]];
    i = L[i];
  }
  return i;
}

/* join the sets of a and b; the smaller root becomes the root */
static void
uf_union (uint32_t * L, uint32_t a, uint32_t b)
{
  a = uf_find (L, a);
  b = uf_find (L, b);
  if (a < b)
    L[b] = a;
  else if (b < a)
    L[a] = b;
}

/* end of the block of at most POLL_PIXELS elements that starts at i */
static size_t
poll_block_end (size_t i, size_t n)
{
  return n - i > POLL_PIXELS ? i + POLL_PIXELS : n;
}

/* FALSE when cancelled (L then only partly compressed) */
static int
uf_compress (uint32_t * L, size_t n, const CvExec * exec)
{
  size_t i, end;

  /* raster order: L[L[i]] is already a root when L[i] < i */
  for (i = 0; i < n; i = end) {
    if (cv_exec_cancelled (exec))
      return 0;
    for (end = poll_block_end (i, n); i < end; i++)
      L[i] = L[L[i]];
  }
  return 1;
}

/* memset (p, 0, bytes) in blocks; FALSE when cancelled (the first touch
 * of a large workspace is slow: page faults) */
static int
zero_polled (void *p, size_t bytes, const CvExec * exec)
{
  const size_t block = POLL_PIXELS * sizeof (unsigned long long);
  size_t off;

  for (off = 0; off < bytes; off += block) {
    if (cv_exec_cancelled (exec))
      return 0;
    memset ((uint8_t *) p + off, 0, bytes - off > block ? block : bytes - off);
  }
  return 1;
}

/* per-segment pixel counts and filtered-colour sums, at the root; FALSE
 * when cancelled */
static int
segment_stats (const uint32_t * filt, const uint32_t * L, size_t n,
    uint32_t * cnt, unsigned long long *sum, const CvExec * exec)
{
  size_t i, end;

  if (!zero_polled (cnt, n * sizeof (uint32_t), exec)
      || !zero_polled (sum, 3 * n * sizeof (unsigned long long), exec))
    return 0;
  for (i = 0; i < n; i = end) {
    if (cv_exec_cancelled (exec))
      return 0;
    for (end = poll_block_end (i, n); i < end; i++) {
      uint32_t v = filt[i], r;

      if (!CV_MS_IN (v))
        continue;
      r = L[i];
      cnt[r]++;
      sum[3 * (size_t) r] += CV_MS_R (v);
      sum[3 * (size_t) r + 1] += CV_MS_G (v);
      sum[3 * (size_t) r + 2] += CV_MS_B (v);
    }
  }
  return 1;
}

static void
write_pixel (uint8_t * px, CvLumaLayout l, uint32_t v)
{
  if (l.r < 0) {
    px[0] = (uint8_t) CV_MS_R (v);
  } else {
    px[l.r] = (uint8_t) CV_MS_R (v);
    px[l.g] = (uint8_t) CV_MS_G (v);
    px[l.b] = (uint8_t) CV_MS_B (v);
  }
}

/* Segments of the filtered ROI, painted into dst with their labels in
 * seg. Polls exec's cancel flag in every pass (joining, each merging
 * round, the statistics, the labels and painting): CV_ERROR_CANCELLED,
 * dst and the labels then incomplete. */
static CvStatus
segment (const CvMsCore * k, const CvMeanShiftParams * p, int frame_width,
    const uint32_t * filt, const CvMsPos * pos, CvPlane * dst,
    CvLumaLayout l, CvMeanShiftSegments * seg, const CvExec * exec)
{
  const int rw = k->rw, rh = k->rh;
  const size_t n = (size_t) rw * rh;
  uint32_t *L = cv_workspace_alloc (n, sizeof (uint32_t));
  uint32_t *cnt = cv_workspace_alloc (n, sizeof (uint32_t));
  unsigned long long *sum = cv_workspace_alloc (n,
      3 * sizeof (unsigned long long));
  unsigned long long *best = cv_workspace_alloc (n,
      sizeof (unsigned long long));
  const uint32_t minsize = (uint32_t) p->min_segment_size;
  size_t i, end;
  int x, y, round, ret = CV_ERROR_CANCELLED;
  uint32_t nseg = 0;

  if (!L || !cnt || !sum || !best) {
    free_workspaces (0, L, cnt, sum, best);
    return CV_ERROR_NO_MEMORY;
  }
  for (i = 0; i < n; i = end) {
    if (cv_exec_cancelled (exec))
      goto out;
    for (end = poll_block_end (i, n); i < end; i++)
      L[i] = (uint32_t) i;
  }

  /* 1. join 4-neighbours with close attractors */
  for (y = 0; y < rh; y++) {
    if (cv_exec_cancelled (exec))
      goto out;
    for (x = 0; x < rw; x++) {
      size_t a = (size_t) y * rw + x;

      if (!CV_MS_IN (filt[a]))
        continue;
      if (x + 1 < rw && CV_MS_IN (filt[a + 1])
          && cv_ms_joined (k, pos[a], filt[a], pos[a + 1], filt[a + 1]))
        uf_union (L, (uint32_t) a, (uint32_t) (a + 1));
      if (y + 1 < rh && CV_MS_IN (filt[a + rw])
          && cv_ms_joined (k, pos[a], filt[a], pos[a + rw], filt[a + rw]))
        uf_union (L, (uint32_t) a, (uint32_t) (a + rw));
    }
  }
  if (!uf_compress (L, n, exec))
    goto out;

  /* 2. rounds of small-segment merging */
  for (round = 0; minsize > 1 && round < CV_MEANSHIFT_MERGE_ROUNDS; round++) {
    int changed = 0;

    if (!segment_stats (filt, L, n, cnt, sum, exec))
      goto out;
    for (i = 0; i < n; i = end) {
      if (cv_exec_cancelled (exec))
        goto out;
      for (end = poll_block_end (i, n); i < end; i++)
        best[i] = ~0ull;
    }
    for (y = 0; y < rh; y++) {
      if (cv_exec_cancelled (exec))
        goto out;
      for (x = 0; x < rw; x++) {
        size_t a = (size_t) y * rw + x;
        uint32_t la = L[a];
        int d;
        static const int nx[4] = { -1, 1, 0, 0 }, ny[4] = { 0, 0, -1, 1 };

        if (!CV_MS_IN (filt[a]) || cnt[la] >= minsize)
          continue;
        for (d = 0; d < 4; d++) {
          int qx = x + nx[d], qy = y + ny[d];
          size_t q;
          uint32_t lb;
          unsigned long long key;

          if (qx < 0 || qy < 0 || qx >= rw || qy >= rh)
            continue;
          q = (size_t) qy *rw + qx;
          lb = L[q];
          if (!CV_MS_IN (filt[q]) || lb == la)
            continue;
          key = cv_ms_merge_key (cnt[la], sum + 3 * (size_t) la, cnt[lb],
              sum + 3 * (size_t) lb, lb);
          if (key < best[la])
            best[la] = key;
        }
      }
    }
    for (i = 0; i < n; i = end) {
      if (cv_exec_cancelled (exec))
        goto out;
      for (end = poll_block_end (i, n); i < end; i++)
        /* the roots at the start of the round: the only indices with
         * cnt > 0 (L changes inside this loop) */
        if (cnt[i] > 0 && cnt[i] < minsize && best[i] != ~0ull) {
          uf_union (L, (uint32_t) i, (uint32_t) (best[i] & 0xFFFFFFFFu));
          changed = 1;
        }
    }
    if (!changed)
      break;
    if (!uf_compress (L, n, exec))
      goto out;
  }

  /* 3. paint with the mean filtered colour, labels in frame indices */
  if (!segment_stats (filt, L, n, cnt, sum, exec))
    goto out;
  for (y = 0; y < dst->height; y++) {
    uint32_t *lab = seg->labels + (size_t) y * frame_width;

    if (cv_exec_cancelled (exec))
      goto out;
    for (x = 0; x < frame_width; x++)
      lab[x] = CV_MEANSHIFT_NO_LABEL;
  }
  for (y = 0; y < rh; y++) {
    uint8_t *row = dst->data + (size_t) (p->roi_y + y) * dst->stride;
    uint32_t *lab = seg->labels + (size_t) (p->roi_y + y) * frame_width +
        p->roi_x;

    if (cv_exec_cancelled (exec))
      goto out;
    for (x = 0; x < rw; x++) {
      size_t a = (size_t) y * rw + x;
      uint32_t r = L[a];

      if (!CV_MS_IN (filt[a]))
        continue;
      if (r == a)
        nseg++;
      write_pixel (row + (size_t) (p->roi_x + x) * l.bpp, l,
          cv_ms_mean_color (cnt[r], sum + 3 * (size_t) r));
      lab[x] = (uint32_t) ((p->roi_y + r / rw) * (size_t) frame_width +
          p->roi_x + r % rw);
    }
  }
  seg->n_segments = nseg;
  ret = CV_OK;
out:
  free_workspaces (ret == CV_ERROR_CANCELLED, L, cnt, sum, best);
  return ret;
}

/* x86-64: an AVX2 clone of the row loop as well (the window loops
 * vectorise), chosen at load time; the results are the same (integer
 * arithmetic, or float without contraction: AVX2 has no FMA). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && defined(__linux__)
#define CV_MS_CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define CV_MS_CLONES
#endif

CV_MS_CLONES static void
filter_row (const CvMsSrc * s, const CvMsCore * k, int y,
    const uint32_t * img, uint32_t * filt, CvMsPos * pos, const CvExec * exec)
{
  const int rw = k->rw;
  CvMsPos tmp;
  int x;

  for (x = 0; x < rw; x++) {
    size_t i = (size_t) y * rw + x;
    uint32_t v = img[i];
    CvMsPos *pp = pos ? &pos[i] : &tmp;

    /* one pixel can take long (large radius, many iterations) */
    if (cv_exec_cancelled (exec))
      return;
    if (!CV_MS_IN (v)) {
      filt[i] = v;
      continue;
    }
    filt[i] = k->kernel == CV_MEANSHIFT_FLAT ?
        cv_ms_flat (s, k, x, y, v, pp) :
        cv_ms_profile (s, k, k->kernel, x, y, v, pp);
  }
}

CvStatus
cv_meanshift_cpu (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvMeanShiftParams * params, CvMeanShiftSegments * seg,
    const CvExec * exec)
{
  const CvMeanShiftParams *p = params;
  CvMsCore k;
  CvMsSrc s;
  uint32_t *img, *filt;
  CvMsPos *pos = NULL;
  size_t n;
  int y, ret, segment_mode;
  const int rw = p ? p->roi_width : 0, rh = p ? p->roi_height : 0;

  ret = cv_ms_validate (src, layout, dst, p, !seg || !seg->labels);
  if (ret != CV_OK)
    return ret;
  segment_mode = p->mode == CV_MEANSHIFT_SEGMENT;

  /* pixels outside the ROI and bytes other than R, G, B: the input */
  for (y = 0; y < src->height; y++) {
    if (cv_exec_cancelled (exec))
      return CV_ERROR_CANCELLED;
    memmove (dst->data + (size_t) y * dst->stride,
        src->data + (size_t) y * src->stride, (size_t) src->width * layout.bpp);
  }
  if (rw == 0 || rh == 0) {
    if (segment_mode) {
      size_t i, total = (size_t) src->width * src->height;
      for (i = 0; i < total; i++)
        seg->labels[i] = CV_MEANSHIFT_NO_LABEL;
      seg->n_segments = 0;
    }
    return CV_OK;
  }

  n = (size_t) rw *rh;
  img = cv_workspace_alloc (n, sizeof (uint32_t));
  filt = cv_workspace_alloc (n, sizeof (uint32_t));
  if (segment_mode)
    pos = cv_workspace_alloc (n, sizeof (CvMsPos));
  if (!img || !filt || (segment_mode && !pos)) {
    free_workspaces (0, img, filt, pos, NULL);
    return CV_ERROR_NO_MEMORY;
  }

  /* pack the ROI: R, G, B and whether the pixel is inside the colour range */
#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
  for (y = 0; y < rh; y++) {
    const uint8_t *row = src->data + (size_t) (p->roi_y + y) * src->stride;
    int x;

    if (cv_exec_cancelled (exec))
      continue;                 /* no break out of an OpenMP loop */
    for (x = 0; x < rw; x++) {
      const uint8_t *px = row + (size_t) (p->roi_x + x) * layout.bpp;
      int r, g, b, in;

      if (layout.r < 0) {
        r = px[0];
        g = b = 0;
        in = r >= p->color_min[0] && r <= p->color_max[0];
      } else {
        r = px[layout.r];
        g = px[layout.g];
        b = px[layout.b];
        in = r >= p->color_min[0] && r <= p->color_max[0]
            && g >= p->color_min[1] && g <= p->color_max[1]
            && b >= p->color_min[2] && b <= p->color_max[2];
      }
      img[(size_t) y * rw + x] = CV_MS_PACK (r, g, b, in);
    }
  }

  cv_ms_core_init (&k, p);
  memset (&s, 0, sizeof (s));
  s.img.p = img;
  s.img.stride = (size_t) rw;

  /* the mean-shift iterations, one pixel at a time */
#pragma omp parallel for schedule(dynamic, 1) num_threads (CV_OMP_THREADS (exec))
  for (y = 0; y < rh; y++)
    filter_row (&s, &k, y, img, filt, pos, exec);

  if (cv_exec_cancelled (exec)) {
    ret = CV_ERROR_CANCELLED;
  } else if (segment_mode) {
    ret = segment (&k, p, src->width, filt, pos, dst, layout, seg, exec);
  } else {
    ret = CV_OK;
#pragma omp parallel for schedule(static) num_threads (CV_OMP_THREADS (exec))
    for (y = 0; y < rh; y++) {
      uint8_t *row = dst->data + (size_t) (p->roi_y + y) * dst->stride;
      int x;

      if (cv_exec_cancelled (exec))
        continue;
      for (x = 0; x < rw; x++) {
        uint32_t v = filt[(size_t) y * rw + x];
        if (CV_MS_IN (v))
          write_pixel (row + (size_t) (p->roi_x + x) * layout.bpp, layout, v);
      }
    }
    if (cv_exec_cancelled (exec))
      ret = CV_ERROR_CANCELLED;
  }
  free_workspaces (ret == CV_ERROR_CANCELLED, img, filt, pos, NULL);
  return ret;
}

/* ---- the operator (cvmeanshift.h) ---- */

typedef struct
{
  CvMeanShiftInfo info;
  uint32_t *labels;             /* width * height (a workspace), at the
                                 * first segment-mode frame */
  CvMeanShiftSegments seg;
  int segmented;                /* the last submit succeeded in segment
                                 * mode */
} MeanShiftSlot;

static CvStatus
meanshift_slot_create (const CvMeanShiftInfo * info, MeanShiftSlot ** slot)
{
  MeanShiftSlot *o;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_meanshift_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  o = calloc (1, sizeof (MeanShiftSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  *slot = o;
  return CV_OK;
}

static CvStatus
meanshift_slot_submit (MeanShiftSlot * o, const CvFrame * frame,
    const CvMeanShiftParams * p, const CvExec * exec)
{
  const size_t n = (size_t) o->info.width * o->info.height;
  CvFrame f;
  int segment, status;

  o->segmented = 0;
  if (!p || !cv_meanshift_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  segment = p->mode == CV_MEANSHIFT_SEGMENT;
  if (segment && !o->labels) {
    if ((uint64_t) n >= 0xFFFFFFFFull)
      return CV_ERROR_INVALID_ARGUMENT;
    o->labels = cv_workspace_alloc (n, sizeof (uint32_t));
    if (!o->labels)
      return CV_ERROR_NO_MEMORY;
  }
  o->seg.labels = o->labels;
  o->seg.n_segments = 0;
  status = cv_meanshift_cpu (&f.in[0], o->info.layout, &f.out[0], p,
      segment ? &o->seg : NULL, exec);
  o->segmented = status == CV_OK && segment;
  return status;
}

static const CvMeanShiftSegments *
meanshift_slot_results (MeanShiftSlot * o)
{
  return o->segmented ? &o->seg : NULL;
}

static void
meanshift_slot_destroy (MeanShiftSlot * o)
{
  if (!o)
    return;
  cv_workspace_free (o->labels);
  free (o);
}

CV_SLOT_OP_FUNCTIONS (cv_meanshift_cpu, meanshift_slot, MeanShiftSlot,
    CvMeanShiftOp, CvMeanShiftInfo, CvMeanShiftParams);
CV_SLOT_OP_RESULTS (cv_meanshift_cpu, meanshift_slot, MeanShiftSlot,
    CvMeanShiftOp, CvMeanShiftSegments);
CV_OPS_TABLE (cv_meanshift_cpu_ops, "meanshift-cpu", cv_meanshift_cpu,
    CvMeanShiftOp, CvMeanShiftInfo, CvMeanShiftParams,
    cv_meanshift_cpu_results);
