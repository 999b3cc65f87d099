/* gst-cuda-vision: the process-wide cache of pinned staging blocks (see
 * gstcvpinned.h). Built with CUDA only.
 *
 * Blocks of one size class come from one GstBufferPool of the plugin's
 * pinned allocator; the registry (a GMutex over a table of the pools by
 * class) is taken only to find a class's pool, when a slot of an element
 * wants its staging (its first frame of pageable memory after start or a
 * caps change), never per frame. Blocks are taken and given back through
 * GstBufferPool's own API (its lock-free queue). The pool subclass counts
 * what is idle (in the pools' queues) and frees a released block at once
 * when keeping it would put more than the limit in idle blocks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcvpinned.h"

GST_DEBUG_CATEGORY_STATIC (gst_cv_pinned_cache_debug);
#define GST_CAT_DEFAULT gst_cv_pinned_cache_debug

#define DEFAULT_LIMIT_MB 256
#define MIN_CLASS 4096

/* a block just allocated (not taken from the queue) */
#define FLAG_FRESH GST_BUFFER_FLAG_LAST

typedef struct
{
  GstBufferPool parent;
} GstCvStagingPool;

typedef struct
{
  GstBufferPoolClass parent_class;
} GstCvStagingPoolClass;

GType gst_cv_staging_pool_get_type (void);
G_DEFINE_TYPE (GstCvStagingPool, gst_cv_staging_pool, GST_TYPE_BUFFER_POOL);

static GMutex reg_lock;
static GHashTable *classes;     /* class size -> GstBufferPool (reg_lock) */
static gint users;              /* atomic */
static gsize idle_bytes;        /* atomic: bytes of blocks in the queues */
static gsize limit = (gsize) DEFAULT_LIMIT_MB << 20;    /* atomic */
static gint host_allocs;        /* atomic: blocks allocated, ever */

static GstFlowReturn
staging_alloc (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstFlowReturn ret = GST_BUFFER_POOL_CLASS
      (gst_cv_staging_pool_parent_class)->alloc_buffer (pool, buffer, params);

  if (ret == GST_FLOW_OK) {
    g_atomic_int_inc (&host_allocs);
    GST_BUFFER_FLAG_SET (*buffer, FLAG_FRESH);
  }
  return ret;
}

static GstFlowReturn
staging_acquire (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstFlowReturn ret = GST_BUFFER_POOL_CLASS
      (gst_cv_staging_pool_parent_class)->acquire_buffer (pool, buffer,
      params);

  if (ret != GST_FLOW_OK)
    return ret;
  if (GST_BUFFER_FLAG_IS_SET (*buffer, FLAG_FRESH))
    GST_BUFFER_FLAG_UNSET (*buffer, FLAG_FRESH);
  else                          /* out of the queue */
    g_atomic_pointer_add (&idle_bytes, -(gssize) gst_buffer_get_size (*buffer));
  return ret;
}

/* into the queue (idle) unless that passes the limit: then tagged, which
 * makes GstBufferPool free it */
static void
staging_release (GstBufferPool * pool, GstBuffer * buffer)
{
  gssize size = gst_buffer_get_size (buffer);

  /* tagged by its user: GstBufferPool frees it, it never is idle */
  if (GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY))
    size = 0;
  else if ((gsize) g_atomic_pointer_add (&idle_bytes, size) + size >
      (gsize) g_atomic_pointer_get (&limit)) {
    g_atomic_pointer_add (&idle_bytes, -size);
    GST_BUFFER_FLAG_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY);
    GST_DEBUG_OBJECT (pool, "cache full: block of %" G_GSSIZE_FORMAT
        " bytes freed", size);
  }
  GST_BUFFER_POOL_CLASS (gst_cv_staging_pool_parent_class)->release_buffer
      (pool, buffer);
}

/* freed: out of the queue (pool stopped, or refused by the base class
 * after staging_release counted it) unless tagged by staging_release */
static void
staging_free (GstBufferPool * pool, GstBuffer * buffer)
{
  if (!GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY)
      && !GST_BUFFER_FLAG_IS_SET (buffer, FLAG_FRESH))
    g_atomic_pointer_add (&idle_bytes, -(gssize) gst_buffer_get_size (buffer));
  GST_BUFFER_POOL_CLASS (gst_cv_staging_pool_parent_class)->free_buffer
      (pool, buffer);
}

static void
gst_cv_staging_pool_class_init (GstCvStagingPoolClass * klass)
{
  GstBufferPoolClass *pclass = GST_BUFFER_POOL_CLASS (klass);

  pclass->alloc_buffer = staging_alloc;
  pclass->acquire_buffer = staging_acquire;
  pclass->release_buffer = staging_release;
  pclass->free_buffer = staging_free;
}

static void
gst_cv_staging_pool_init (GstCvStagingPool * self)
{
}

gsize
gst_cv_pinned_cache_class_size (gsize size)
{
  gsize step = 1, c;

  if (size <= MIN_CLASS)
    return MIN_CLASS;
  if (size > G_MAXUINT)         /* GstBufferPool's sizes are guint */
    return 0;
  /* 5, 6, 7 or 8 steps of an eighth of the power of two at or above
   * size: at most a quarter more than asked */
  while (step * 8 < size)
    step <<= 1;
  c = (size + step - 1) / step * step;
  return c > G_MAXUINT ? 0 : c;
}

/* reg_lock held */
static void
registry_init_locked (void)
{
  const gchar *env;

  if (classes)
    return;
  GST_DEBUG_CATEGORY_INIT (gst_cv_pinned_cache_debug, "cudavisionpinnedcache",
      0, "gst-cuda-vision shared pinned staging");
  classes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
      gst_object_unref);
  if ((env = g_getenv ("CUDAVISION_PINNED_CACHE_MB")) && *env) {
    gchar *end = NULL;
    guint64 mb = g_ascii_strtoull (env, &end, 10);

    if (end == env || *end || mb > (G_MAXSIZE >> 20))
      GST_WARNING ("CUDAVISION_PINNED_CACHE_MB=%s is not a number of MiB "
          "(0 .. %" G_GSIZE_FORMAT "): the default bound is kept", env,
          (gsize) (G_MAXSIZE >> 20));
    else
      g_atomic_pointer_set (&limit, (gsize) mb << 20);
  }
}

static GstBufferPool *
class_pool (gsize class_size)
{
  GstBufferPool *pool;

  g_mutex_lock (&reg_lock);
  registry_init_locked ();
  pool = g_hash_table_lookup (classes, GSIZE_TO_POINTER (class_size));
  if (!pool) {
    GstAllocator *allocator = gst_cv_pinned_allocator_get ();
    GstStructure *config;
    GstAllocationParams params;

    pool = g_object_new (gst_cv_staging_pool_get_type (), NULL);
    gst_object_ref_sink (pool);
    config = gst_buffer_pool_get_config (pool);
    gst_cv_pinned_allocation_params (&params);
    gst_buffer_pool_config_set_params (config, NULL, (guint) class_size, 0, 0);
    gst_buffer_pool_config_set_allocator (config, allocator, &params);
    gst_object_unref (allocator);
    if (!gst_buffer_pool_set_config (pool, config)
        || !gst_buffer_pool_set_active (pool, TRUE)) {
      GST_WARNING ("no pool of %" G_GSIZE_FORMAT "-byte blocks", class_size);
      gst_object_unref (pool);
      g_mutex_unlock (&reg_lock);
      return NULL;
    }
    GST_INFO ("class of %" G_GSIZE_FORMAT "-byte blocks: %" GST_PTR_FORMAT,
        class_size, pool);
    g_hash_table_insert (classes, GSIZE_TO_POINTER (class_size), pool);
  }
  gst_object_ref (pool);
  g_mutex_unlock (&reg_lock);
  return pool;
}

GstBufferPool *
gst_cv_pinned_cache_pool (gsize size)
{
  gsize c = gst_cv_pinned_cache_class_size (size);

  return c ? class_pool (c) : NULL;
}

gboolean
gst_cv_pinned_cache_acquire (gsize size, GstCvStagingBlock * block)
{
  guint tries;

  memset (block, 0, sizeof (*block));
  /* a pool being cleared (the last user went as this one came) is
   * flushing: the next lookup makes a new one */
  for (tries = 0; tries < 2; tries++) {
    GstBufferPool *pool = gst_cv_pinned_cache_pool (size);
    GstFlowReturn ret;

    if (!pool)
      return FALSE;
    ret = gst_buffer_pool_acquire_buffer (pool, &block->buffer, NULL);
    gst_object_unref (pool);
    if (ret == GST_FLOW_OK)
      break;
    block->buffer = NULL;
    if (ret != GST_FLOW_FLUSHING)
      return FALSE;
  }
  if (!block->buffer)
    return FALSE;
  if (!gst_buffer_map (block->buffer, &block->map, GST_MAP_READWRITE)) {
    gst_clear_buffer (&block->buffer);
    return FALSE;
  }
  return TRUE;
}

void
gst_cv_pinned_cache_release (GstCvStagingBlock * block)
{
  if (!block->buffer)
    return;
  gst_buffer_unmap (block->buffer, &block->map);
  gst_clear_buffer (&block->buffer);
  memset (&block->map, 0, sizeof (block->map));
}

void
gst_cv_pinned_cache_use (void)
{
  g_atomic_int_inc (&users);
}

void
gst_cv_pinned_cache_unuse (void)
{
  GHashTable *old = NULL;

  if (!g_atomic_int_dec_and_test (&users))
    return;
  g_mutex_lock (&reg_lock);
  /* still nobody (a user may have come meanwhile) */
  if (g_atomic_int_get (&users) == 0 && classes
      && g_hash_table_size (classes) > 0) {
    old = classes;
    classes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
        gst_object_unref);
  }
  g_mutex_unlock (&reg_lock);
  if (old) {
    GHashTableIter it;
    gpointer pool;

    GST_INFO ("no user left: %u classes freed", g_hash_table_size (old));
    /* idle blocks freed now, blocks still out when they come back */
    g_hash_table_iter_init (&it, old);
    while (g_hash_table_iter_next (&it, NULL, &pool))
      gst_buffer_pool_set_active (pool, FALSE);
    g_hash_table_unref (old);
  }
}

void
gst_cv_pinned_cache_set_limit (gsize bytes)
{
  g_mutex_lock (&reg_lock);
  registry_init_locked ();
  g_mutex_unlock (&reg_lock);
  g_atomic_pointer_set (&limit, bytes);
}

void
gst_cv_pinned_cache_stats (guint * allocs, gsize * idle, guint * n_classes)
{
  if (allocs)
    *allocs = (guint) g_atomic_int_get (&host_allocs);
  if (idle)
    *idle = (gsize) g_atomic_pointer_get (&idle_bytes);
  if (n_classes) {
    g_mutex_lock (&reg_lock);
    *n_classes = classes ? g_hash_table_size (classes) : 0;
    g_mutex_unlock (&reg_lock);
  }
}
