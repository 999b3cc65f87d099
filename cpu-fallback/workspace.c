/* gst-cuda-vision: large CPU workspaces mapped directly (cvworkspace.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvworkspace.h"

#include <stdint.h>
#include <stdlib.h>

/* mapping: POSIX systems with anonymous mmap, not under AddressSanitizer
 * (cvworkspace.h), unless CV_WORKSPACE_NO_MMAP is defined (the fallback's
 * own test) */
#if defined(__SANITIZE_ADDRESS__)
#define CV_WS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CV_WS_ASAN 1
#endif
#endif

#if !defined(CV_WORKSPACE_NO_MMAP) && !defined(CV_WS_ASAN) \
    && (defined(__unix__) || defined(__APPLE__))
#include <sys/mman.h>
#if defined(MAP_ANONYMOUS)
#define CV_WS_MMAP 1
#elif defined(MAP_ANON)
#define CV_WS_MMAP 1
#define MAP_ANONYMOUS MAP_ANON
#endif
#endif

/* In front of every block: its mapping's length (0: from calloc). 64
 * bytes keep the block's alignment (a multiple of alignof (max_align_t)
 * and of a cache line). */
#define CV_WS_HEADER 64

typedef struct
{
  size_t mapped_bytes;
} CvWsHeader;

void *
cv_workspace_alloc (size_t count, size_t size)
{
  size_t bytes;
  CvWsHeader *h;

  if (size != 0 && count > (SIZE_MAX - CV_WS_HEADER) / size)
    return NULL;
  bytes = count * size + CV_WS_HEADER;
#ifdef CV_WS_MMAP
  if (bytes - CV_WS_HEADER >= CV_WORKSPACE_MAP_MIN) {
    void *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED)
      return NULL;
    h = m;
    h->mapped_bytes = bytes;
    return (uint8_t *) m + CV_WS_HEADER;
  }
#endif
  h = calloc (1, bytes);
  if (!h)
    return NULL;
  h->mapped_bytes = 0;
  return (uint8_t *) h + CV_WS_HEADER;
}

void
cv_workspace_free (void *p)
{
  CvWsHeader *h;

  if (!p)
    return;
  h = (CvWsHeader *) ((uint8_t *) p - CV_WS_HEADER);
#ifdef CV_WS_MMAP
  if (h->mapped_bytes) {
    munmap (h, h->mapped_bytes);
    return;
  }
#endif
  free (h);
}

int
cv_workspace_is_mapped (const void *p)
{
  return p && ((const CvWsHeader *) ((const uint8_t *) p -
          CV_WS_HEADER))->mapped_bytes != 0;
}
