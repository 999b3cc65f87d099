/* gst-cuda-vision: the CPU implementations' large workspaces (frame-sized
 * scratch: mean-shift's segmentation arrays, non-local means' padded
 * planes, the convolution chain's intermediates, the template matching's
 * score maps). Internal header.
 *
 * Why not malloc: a program run with MALLOC_PERTURB_ (meson test sets a
 * random one for every test; also mallopt (M_PERTURB)) makes glibc fill
 * every block malloc returns, and calloc zero every mmapped one; for the
 * ~1.9 GB of an 8K mean-shift segmentation that is about a second of
 * memset inside the allocator, which no cancel flag interrupts. A block of
 * CV_WORKSPACE_MAP_MIN bytes or more is mapped here directly (anonymous
 * mmap): its pages are the kernel's zero pages, faulted in only when the
 * algorithm first writes them, i.e. between its cancel polls. Smaller
 * blocks come from calloc (a fill of < 256 KiB costs microseconds).
 *
 * Builds with AddressSanitizer, and systems without anonymous mmap, use
 * calloc for every size: ASan then still checks the workspaces' bounds and
 * LeakSanitizer sees their leaks (neither looks into mmap'd memory), and
 * ASan's allocator does not honour MALLOC_PERTURB_.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CV_WORKSPACE_H
#define CV_WORKSPACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Blocks of at least this many bytes are mapped (where mapping is used). */
#define CV_WORKSPACE_MAP_MIN ((size_t) 256 << 10)

/* count * size bytes, zero-filled, aligned at least as malloc's blocks
 * (alignof (max_align_t)); 0 bytes give a valid block too. Thread-safe.
 * Returns NULL when count * size overflows size_t or the memory cannot be
 * had (callers return CV_ERROR_NO_MEMORY). Free with cv_workspace_free ()
 * only (never free ()). Costs one mmap () call for a mapped block, no
 * write to its pages but the first (a 64-byte header). */
  void *cv_workspace_alloc (size_t count, size_t size);

/* Give back a block of cv_workspace_alloc () (NULL: nothing). A mapped
 * block is unmapped at once: the time the system takes to reclaim its
 * touched pages (about 0.1 s per GB) is spent in this call. */
  void cv_workspace_free (void *p);

/* Whether p (a block of cv_workspace_alloc ()) is mapped rather than from
 * calloc: for tests. */
  int cv_workspace_is_mapped (const void *p);

#ifdef __cplusplus
}
#endif
#endif                          /* CV_WORKSPACE_H */
