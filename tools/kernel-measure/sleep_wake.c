// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU a task spends on its own side of one short timed sleep: entering the sleep
// (the system call, setting the timer, schedule() switching away) and coming back from it
// (the switch in, returning to user space). It sleeps ITER times for SLEEP_US microseconds
// with clock_nanosleep() and reads its own CPU clock (the scheduler's sum_exec_runtime,
// CLOCK_THREAD_CPUTIME_ID) before and after each sleep; two reads with nothing between them
// give the cost of a read, which is subtracted. Each sleep is measured on its own, so that
// the low percentiles show the cost on a quiet CPU (a machine shared with builds disturbs
// some sleeps: another task's preemption or cold caches lengthen them). The waking itself
// (the timer interrupt and try_to_wake_up()) runs on whatever the CPU was doing and is not
// counted here.
// Usage: sleep_wake ITER SLEEP_US   (prints one line of figures in microseconds)
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: sleep_wake ITER SLEEP_US\n");
    return 2;
  }
  const long iter = atol(argv[1]);
  const long sleepUs = atol(argv[2]);
  if (iter <= 0 || sleepUs <= 0) {
    fprintf(stderr, "sleep_wake: ITER and SLEEP_US must be positive\n");
    return 2;
  }
  double *read = malloc(sizeof(double) * (size_t)iter);
  double *cycle = malloc(sizeof(double) * (size_t)iter);
  if (read == NULL || cycle == NULL) return 1;
  for (long i = 0; i < iter; ++i) {
    const double a = now(CLOCK_THREAD_CPUTIME_ID);
    read[i] = now(CLOCK_THREAD_CPUTIME_ID) - a;
  }
  const struct timespec d = {.tv_sec = sleepUs / 1000000, .tv_nsec = (sleepUs % 1000000) * 1000};
  const double w0 = now(CLOCK_MONOTONIC);
  for (long i = 0; i < iter; ++i) {
    const double a = now(CLOCK_THREAD_CPUTIME_ID);
    clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
    cycle[i] = now(CLOCK_THREAD_CPUTIME_ID) - a;
  }
  const double wallS = (now(CLOCK_MONOTONIC) - w0) / (double)iter;
  qsort(read, (size_t)iter, sizeof(double), cmp);
  qsort(cycle, (size_t)iter, sizeof(double), cmp);
  const double r = read[iter / 2];
  printf("iter %ld sleep_us %ld read_us %.3f sleep_wake_us p10 %.3f p25 %.3f median %.3f p90 %.3f "
         "wall_us %.1f\n",
         iter, sleepUs, r * 1e6, (cycle[iter / 10] - r) * 1e6, (cycle[iter / 4] - r) * 1e6,
         (cycle[iter / 2] - r) * 1e6, (cycle[iter * 9 / 10] - r) * 1e6, wallS * 1e6);
  return 0;
}
