/* A stand-in for cudaHostAlloc/cudaFreeHost (see fake-cudart.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef FAKE_CUDART_H
#define FAKE_CUDART_H

#include <glib.h>

G_BEGIN_DECLS

/* Blocks returned from now on start this many bytes after a page
 * boundary (default 64, as real pinned blocks are at least 64-aligned). */
void fake_cudart_set_misalign (gsize bytes);

/* Blocks allocated and not freed. */
guint fake_cudart_outstanding (void);

/* Bytes of the blocks allocated and not freed (as asked of
 * cudaHostAlloc). */
gsize fake_cudart_outstanding_bytes (void);

/* The block holding address p (its end counts as inside): TRUE with its
 * start and size. */
gboolean fake_cudart_block (const void *p, const guint8 ** start,
    gsize * size);

G_END_DECLS
#endif
