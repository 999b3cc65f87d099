/* test_workspace: the CPU implementations' workspace allocator on its own
 * (cpu-fallback/cvworkspace.h, cpu-fallback/workspace.c).
 *
 * workspace-cpu: the library's allocator: blocks of CV_WORKSPACE_MAP_MIN
 * bytes or more mapped (not in the AddressSanitizer build: calloc there),
 * smaller ones from calloc; zero-filled, writable to their last byte,
 * aligned, sizes that overflow refused; and the reason it exists: with
 * glibc's perturbation on (mallopt (M_PERTURB), what MALLOC_PERTURB_ sets)
 * a 64 MiB workspace leaves its pages untouched (mincore: at most 1/8 of
 * them resident) where a malloc of the same size fills all of them (the
 * control: the measurement sees a fill).
 * workspace-nommap-cpu: the same program built with workspace.c compiled
 * with CV_WORKSPACE_NO_MMAP (the fallback of systems without anonymous
 * mmap): every block from calloc, the same contract.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cvworkspace.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define WS_TEST_MINCORE 1
#endif

#if defined(__SANITIZE_ADDRESS__)
#define WS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WS_TEST_ASAN 1
#endif
#endif

/* whether this build maps large blocks (cvworkspace.h) */
#if defined(WS_TEST_NO_MMAP) || defined(WS_TEST_ASAN)
#define WS_TEST_MAPS 0
#else
#define WS_TEST_MAPS 1
#endif

/* every byte of p[0 .. n-1] is v */
static gboolean
all_bytes (const guint8 * p, gsize n, guint8 v)
{
  gsize i;

  for (i = 0; i < n; i++)
    if (p[i] != v)
      return FALSE;
  return TRUE;
}

/* Sizes around the mapping threshold: zero-filled, writable from the first
 * to the last byte, aligned as malloc's blocks, mapped from
 * CV_WORKSPACE_MAP_MIN bytes on where this build maps. */
GST_START_TEST (test_sizes)
{
  const gsize sizes[] = { 1, 3, 17, 4096, CV_WORKSPACE_MAP_MIN - 1,
    CV_WORKSPACE_MAP_MIN, CV_WORKSPACE_MAP_MIN + 1, (gsize) 5 << 20,
    ((gsize) 64 << 20) + 7
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    guint8 *p = cv_workspace_alloc (sizes[i], 1);

    fail_unless (p != NULL, "%" G_GSIZE_FORMAT " bytes", sizes[i]);
    fail_unless ((guintptr) p % 16 == 0, "%" G_GSIZE_FORMAT " bytes at %p",
        sizes[i], p);
    fail_unless (all_bytes (p, sizes[i], 0), "%" G_GSIZE_FORMAT " bytes not "
        "zero", sizes[i]);
    fail_unless_equals_int (cv_workspace_is_mapped (p), WS_TEST_MAPS
        && sizes[i] >= CV_WORKSPACE_MAP_MIN);
    memset (p, 0x5a, sizes[i]);
    fail_unless (all_bytes (p, sizes[i], 0x5a));
    cv_workspace_free (p);
  }
}

GST_END_TEST;

/* count x size: the product is what counts (the threshold too) */
GST_START_TEST (test_count_and_size)
{
  guint32 *a = cv_workspace_alloc (CV_WORKSPACE_MAP_MIN / 4, 4);
  guint64 *b = cv_workspace_alloc (3, 8);

  fail_unless (a != NULL && b != NULL);
  fail_unless_equals_int (cv_workspace_is_mapped (a), WS_TEST_MAPS);
  fail_unless_equals_int (cv_workspace_is_mapped (b), 0);
  a[CV_WORKSPACE_MAP_MIN / 4 - 1] = 0xdeadbeef;
  b[2] = G_GUINT64_CONSTANT (0x0123456789abcdef);
  fail_unless (a[0] == 0 && a[CV_WORKSPACE_MAP_MIN / 4 - 1] == 0xdeadbeef);
  fail_unless (b[0] == 0 && b[2] == G_GUINT64_CONSTANT (0x0123456789abcdef));
  cv_workspace_free (a);
  cv_workspace_free (b);
}

GST_END_TEST;

/* 0 bytes give a block that can be freed; NULL is freed as nothing; a
 * product that overflows size_t, or does once the header is added, gives
 * NULL; and so does a size no system has (not under ASan: its calloc
 * aborts on it). */
GST_START_TEST (test_edges)
{
  void *z0 = cv_workspace_alloc (0, 8), *z1 = cv_workspace_alloc (8, 0);

  fail_unless (z0 != NULL && z1 != NULL);
  fail_if (cv_workspace_is_mapped (z0) || cv_workspace_is_mapped (z1));
  fail_if (cv_workspace_is_mapped (NULL));
  cv_workspace_free (z0);
  cv_workspace_free (z1);
  cv_workspace_free (NULL);

  fail_unless (cv_workspace_alloc (SIZE_MAX / 2, 4) == NULL);
  fail_unless (cv_workspace_alloc (4, SIZE_MAX / 2) == NULL);
  fail_unless (cv_workspace_alloc (SIZE_MAX, 1) == NULL);
  fail_unless (cv_workspace_alloc (1, SIZE_MAX - 8) == NULL);
#ifndef WS_TEST_ASAN
  /* 2^62 bytes: no address space holds them */
  fail_unless (cv_workspace_alloc ((size_t) 1 << 31, (size_t) 1 << 31) ==
      NULL || sizeof (size_t) < 8);
#endif
}

GST_END_TEST;

/* many blocks alive at once, freed in another order (the headers stay
 * apart; ASan and LSan check the calloc ones) */
GST_START_TEST (test_many)
{
  void *p[64];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (p); i++) {
    gsize n = i % 2 ? CV_WORKSPACE_MAP_MIN + i * 4099 : 100 + i * 31;

    p[i] = cv_workspace_alloc (n, 1);
    fail_unless (p[i] != NULL);
    memset (p[i], (int) i, n);
  }
  for (i = 0; i < G_N_ELEMENTS (p); i += 2)
    cv_workspace_free (p[G_N_ELEMENTS (p) - 1 - i]);
  for (i = 1; i < G_N_ELEMENTS (p); i += 2)
    cv_workspace_free (p[G_N_ELEMENTS (p) - 1 - i]);
}

GST_END_TEST;

#if defined(WS_TEST_MINCORE) && !defined(WS_TEST_ASAN)
/* pages of [p, p + n) resident in memory (mincore) */
static gsize
resident_pages (const void *p, gsize n, gsize * total)
{
  const gsize page = (gsize) sysconf (_SC_PAGESIZE);
  const guintptr start = (guintptr) p / page * page;
  const gsize len = (guintptr) p + n - start;
  const gsize np = (len + page - 1) / page;
  guchar *vec = g_malloc (np);
  gsize i, r = 0;

  fail_unless (mincore ((void *) start, len, vec) == 0);
  for (i = 0; i < np; i++)
    r += vec[i] & 1;
  g_free (vec);
  *total = np;
  return r;
}

/* glibc with perturbation on (MALLOC_PERTURB_, here mallopt (M_PERTURB)):
 * malloc fills a 64 MiB block (the control: every page of it resident,
 * i.e. the measurement sees a fill), cv_workspace_alloc's 64 MiB are not
 * filled (at most 1/8 of the pages resident: the header's, a huge page at
 * most) and read as zero; in the fallback build, zero as calloc gives
 * them. Issue #28: 1.3 GB of an 8K segmentation's workspaces filled inside
 * malloc made stopping the element take over a second. */
GST_START_TEST (test_no_fill_under_perturb)
{
  const gsize n = (gsize) 64 << 20;
  guint8 *m, *w;
  gsize res, total;

  fail_unless (mallopt (M_PERTURB, 0xa5) == 1);
  m = malloc (n);
  fail_unless (m != NULL);
  res = resident_pages (m, n, &total);
  fail_unless (res >= total - 1, "malloc under M_PERTURB: %" G_GSIZE_FORMAT
      " of %" G_GSIZE_FORMAT " pages resident (no fill seen)", res, total);
  fail_unless (m[n / 2] == (guint8) ~ 0xa5);
  free (m);

  w = cv_workspace_alloc (n, 1);
  fail_unless (w != NULL);
  res = resident_pages (w, n, &total);
  if (WS_TEST_MAPS)
    fail_unless (res <= total / 8, "cv_workspace_alloc under M_PERTURB: %"
        G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " pages resident (filled)",
        res, total);
  fail_unless (all_bytes (w, n, 0));
  cv_workspace_free (w);
  mallopt (M_PERTURB, 0);
}

GST_END_TEST;
#endif

static Suite *
workspace_suite (void)
{
  Suite *s = suite_create ("workspace");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sizes);
  tcase_add_test (tc, test_count_and_size);
  tcase_add_test (tc, test_edges);
  tcase_add_test (tc, test_many);
#if defined(WS_TEST_MINCORE) && !defined(WS_TEST_ASAN)
  tcase_add_test (tc, test_no_fill_under_perturb);
#endif
  return s;
}

GST_CHECK_MAIN (workspace);
