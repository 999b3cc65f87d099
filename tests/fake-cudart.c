/* A stand-in for the four CUDA runtime calls of the pinned allocator
 * (plugin/gstcvpinned.c), so that its arithmetic is tested on machines
 * without a GPU (test_pinned, cpu suite).
 *
 * cudaHostAlloc returns blocks at a chosen distance from a page boundary
 * (fake_cudart_set_misalign: 0, 64, or an odd number of bytes), filled with
 * junk (0xAB) and followed by a canary that cudaFreeHost checks; under
 * AddressSanitizer the block is also a plain heap block, so any write past
 * it is reported. fake_cudart_block() tells which block an address lies in.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fake-cudart.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <cuda_runtime_api.h>

#define CANARY 64
#define CANARY_BYTE 0x5C

typedef struct
{
  guint8 *raw;                  /* posix_memalign'ed */
  guint8 *start;                /* what cudaHostAlloc returned */
  gsize size;
} Block;

static GMutex lock;
static GHashTable *blocks;      /* start -> Block */
static gsize misalign = 64;

void
fake_cudart_set_misalign (gsize bytes)
{
  g_mutex_lock (&lock);
  misalign = bytes;
  g_mutex_unlock (&lock);
}

guint
fake_cudart_outstanding (void)
{
  guint n;

  g_mutex_lock (&lock);
  n = blocks ? g_hash_table_size (blocks) : 0;
  g_mutex_unlock (&lock);
  return n;
}

gsize
fake_cudart_outstanding_bytes (void)
{
  GHashTableIter it;
  gpointer v;
  gsize bytes = 0;

  g_mutex_lock (&lock);
  if (blocks) {
    g_hash_table_iter_init (&it, blocks);
    while (g_hash_table_iter_next (&it, NULL, &v))
      bytes += ((Block *) v)->size;
  }
  g_mutex_unlock (&lock);
  return bytes;
}

gboolean
fake_cudart_block (const void *p, const guint8 ** start, gsize * size)
{
  GHashTableIter it;
  gpointer v;
  gboolean found = FALSE;

  g_mutex_lock (&lock);
  if (blocks) {
    g_hash_table_iter_init (&it, blocks);
    while (g_hash_table_iter_next (&it, NULL, &v)) {
      Block *b = v;
      if ((const guint8 *) p >= b->start
          && (const guint8 *) p <= b->start + b->size) {
        *start = b->start;
        *size = b->size;
        found = TRUE;
        break;
      }
    }
  }
  g_mutex_unlock (&lock);
  return found;
}

cudaError_t
cudaHostAlloc (void **ptr, size_t size, unsigned int flags)
{
  Block *b;
  void *raw = NULL;

  (void) flags;
  g_mutex_lock (&lock);
  if (posix_memalign (&raw, 4096, size + misalign + CANARY) != 0) {
    g_mutex_unlock (&lock);
    return cudaErrorMemoryAllocation;
  }
  b = g_new (Block, 1);
  b->raw = raw;
  b->start = b->raw + misalign;
  b->size = size;
  memset (b->start, 0xAB, size);
  memset (b->start + size, CANARY_BYTE, CANARY);
  if (!blocks)
    blocks = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_hash_table_insert (blocks, b->start, b);
  *ptr = b->start;
  g_mutex_unlock (&lock);
  return cudaSuccess;
}

cudaError_t
cudaFreeHost (void *ptr)
{
  Block *b;
  gsize i;

  g_mutex_lock (&lock);
  b = blocks ? g_hash_table_lookup (blocks, ptr) : NULL;
  if (!b) {
    g_mutex_unlock (&lock);
    g_error ("cudaFreeHost(%p): not a block of cudaHostAlloc", ptr);
  }
  for (i = 0; i < CANARY; i++)
    if (b->start[b->size + i] != CANARY_BYTE)
      g_error ("cudaFreeHost(%p): written past the end of the %"
          G_GSIZE_FORMAT "-byte block (byte %" G_GSIZE_FORMAT ")", ptr,
          b->size, b->size + i);
  g_hash_table_remove (blocks, ptr);
  g_mutex_unlock (&lock);
  free (b->raw);
  g_free (b);
  return cudaSuccess;
}

const char *
cudaGetErrorString (cudaError_t err)
{
  return err == cudaSuccess ? "no error" : "fake CUDA runtime error";
}

cudaError_t
cudaGetLastError (void)
{
  return cudaSuccess;
}
