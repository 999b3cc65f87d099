/* syscount: an LD_PRELOAD library that counts, per thread, the calls of
 * the libc wrappers a GStreamer / CUDA host path blocks or enters the
 * kernel through (syscall (): futex and others, ioctl, nanosleep,
 * clock_nanosleep, read, write, poll, ppoll, sched_yield) and the wall
 * time inside them, and prints them at exit (SYSCOUNT_OUT=FILE appends
 * there, else stderr): e.g. the output thread's wake-ups per frame of
 * issue #24 (docs/benchmarks.md, seventh session). Calls libc makes
 * internally (not through its exported symbols) are not seen. A
 * diagnostic tool, not built by meson:
 *   gcc -O2 -shared -fPIC -o libsyscount.so tests/tools/syscount.c -ldl -lpthread
 *   SYSCOUNT_OUT=/tmp/sc.txt LD_PRELOAD=$PWD/libsyscount.so cudavision-bench ...
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <signal.h>

enum
{ F_FUTEX, F_SYSCALL_OTHER, F_IOCTL, F_NANOSLEEP, F_CLOCK_NANOSLEEP, F_READ,
      F_WRITE, F_POLL, F_PPOLL, F_YIELD, F_SENDMSG, F_N };
static const char *fname[F_N] =
    { "futex", "syscall", "ioctl", "nanosleep", "clock_nanosleep", "read",
      "write", "poll", "ppoll", "sched_yield", "sendmsg" };
#define MAXT 256
struct T
{
  pid_t tid;
  unsigned long n[F_N];
  double us[F_N];
};
static struct T tab[MAXT];
static atomic_int ntab;
static __thread struct T *me;

static double
now_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static struct T *
self_t (void)
{
  if (!me) {
    int i = atomic_fetch_add (&ntab, 1);
    if (i >= MAXT)
      i = MAXT - 1;
    me = &tab[i];
    me->tid = (pid_t) syscall (SYS_gettid);
  }
  return me;
}

#define REAL(name) static __typeof__(name) *real_##name; if (!real_##name) real_##name = dlsym (RTLD_NEXT, #name)
#define ACC(f_, expr) do { struct T *t_ = self_t (); double a_ = now_us (); expr; t_->us[f_] += now_us () - a_; t_->n[f_]++; } while (0)

long
syscall (long nr, ...)
{
  static long (*real) (long, ...);
  if (!real)
    real = dlsym (RTLD_NEXT, "syscall");
  va_list ap;
  va_start (ap, nr);
  long a1 = va_arg (ap, long), a2 = va_arg (ap, long), a3 =
      va_arg (ap, long), a4 = va_arg (ap, long), a5 = va_arg (ap, long), a6 =
      va_arg (ap, long);
  va_end (ap);
  long r;
  ACC (nr == SYS_futex ? F_FUTEX : F_SYSCALL_OTHER, r =
      real (nr, a1, a2, a3, a4, a5, a6));
  return r;
}

int
ioctl (int fd, unsigned long req, ...)
{
  REAL (ioctl);
  va_list ap;
  va_start (ap, req);
  void *arg = va_arg (ap, void *);
  va_end (ap);
  int r;
  ACC (F_IOCTL, r = real_ioctl (fd, req, arg));
  return r;
}

int
nanosleep (const struct timespec *a, struct timespec *b)
{
  REAL (nanosleep);
  int r;
  ACC (F_NANOSLEEP, r = real_nanosleep (a, b));
  return r;
}

int
clock_nanosleep (clockid_t c, int f, const struct timespec *a,
    struct timespec *b)
{
  REAL (clock_nanosleep);
  int r;
  ACC (F_CLOCK_NANOSLEEP, r = real_clock_nanosleep (c, f, a, b));
  return r;
}

ssize_t
read (int fd, void *b, size_t n)
{
  REAL (read);
  ssize_t r;
  ACC (F_READ, r = real_read (fd, b, n));
  return r;
}

ssize_t
write (int fd, const void *b, size_t n)
{
  REAL (write);
  ssize_t r;
  ACC (F_WRITE, r = real_write (fd, b, n));
  return r;
}

int
poll (struct pollfd *f, nfds_t n, int t)
{
  REAL (poll);
  int r;
  ACC (F_POLL, r = real_poll (f, n, t));
  return r;
}

int
ppoll (struct pollfd *f, nfds_t n, const struct timespec *t,
    const __sigset_t * s)
{
  REAL (ppoll);
  int r;
  ACC (F_PPOLL, r = real_ppoll (f, n, t, s));
  return r;
}

int
sched_yield (void)
{
  REAL (sched_yield);
  int r;
  ACC (F_YIELD, r = real_sched_yield ());
  return r;
}

__attribute__((destructor))
     static void dump (void)
{
  const char *path = getenv ("SYSCOUNT_OUT");
  FILE *f = path ? fopen (path, "a") : stderr;
  if (!f)
    f = stderr;
  int n = ntab < MAXT ? ntab : MAXT;
  fprintf (f, "# syscount pid %d\n", (int) getpid ());
  for (int i = 0; i < n; i++) {
    char p[64], name[64] = "?";
    snprintf (p, sizeof p, "/proc/self/task/%d/comm", tab[i].tid);
    FILE *c = fopen (p, "r");
    if (c) {
      if (fgets (name, sizeof name, c))
        name[strcspn (name, "\n")] = 0;
      fclose (c);
    }
    fprintf (f, "tid %d %-16s", tab[i].tid, name);
    for (int k = 0; k < F_N; k++)
      if (tab[i].n[k])
        fprintf (f, " %s=%lu(%.0fus)", fname[k], tab[i].n[k], tab[i].us[k]);
    fprintf (f, "\n");
  }
  if (f != stderr)
    fclose (f);
}
