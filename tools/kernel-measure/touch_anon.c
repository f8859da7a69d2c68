// SPDX-License-Identifier: GPL-3.0-or-later
// Allocates MiB of anonymous memory and writes one byte per 4 KiB page, PASSES times over, then
// prints its own user and system CPU seconds. The first pass faults every page in (allocation,
// zeroing, mapping); later passes fault back whatever reclaim swapped out meanwhile.
// Usage: touch_anon MIB [PASSES]
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: touch_anon MIB [PASSES]\n"); return 2; }
  size_t bytes = (size_t)strtoull(argv[1], NULL, 10) << 20;
  int passes = argc > 2 ? atoi(argv[2]) : 1;
  unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); return 1; }
  madvise(p, bytes, MADV_NOHUGEPAGE);  // 4 KiB faults, as the model counts them
  for (int pass = 0; pass < passes; ++pass) {
    struct rusage ru;
    for (size_t off = 0; off < bytes; off += 4096) p[off] = (unsigned char)(pass + 1);
    getrusage(RUSAGE_SELF, &ru);
    printf("pass %d user_s %.6f system_s %.6f\n", pass, seconds(ru.ru_utime), seconds(ru.ru_stime));
    fflush(stdout);
  }
  return 0;
}
