/*
 * cache_evict.c — keeps the on-disk compile cache (cache.c) under its size budget:
 * KC_CACHE_MAX bytes (default 256 MiB; suffixes K, M, G, T for powers of 1024). After
 * each store the directory's entries are listed and, while their sizes add up to more
 * than the budget, the least recently used goes: a hit touches its entry's modification
 * time (cache.c), so the oldest mtime is the entry that has waited longest for a use.
 * The entry just stored goes last, and only when it alone is over the budget.
 *
 * No lock: processes that store at once each list and evict on their own. An unlink
 * that finds the entry gone already is not an error, a reader that has an entry open
 * keeps reading it after an unlink (POSIX), and the worst two evicting processes do is
 * remove a little more than needed. Temporary files (".<hash>.XXXXXX") older than an
 * hour belong to a process that died while writing and are removed.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

#define CACHE_MAX_DEFAULT ((uint64_t)256 << 20)
#define STALE_TEMP_SECONDS 3600

uint64_t rt_cache_max_bytes(void) {
  const char *s = getenv("KC_CACHE_MAX");
  if (!s || !isdigit((unsigned char)*s)) return CACHE_MAX_DEFAULT;
  char *e;
  errno = 0;
  unsigned long long v = strtoull(s, &e, 10);
  int shift = 0;
  switch (*e) {
  case 'k': case 'K': shift = 10; e++; break;
  case 'm': case 'M': shift = 20; e++; break;
  case 'g': case 'G': shift = 30; e++; break;
  case 't': case 'T': shift = 40; e++; break;
  default: break;
  }
  if (shift && *e == 'i') e++;
  if (*e == 'B') e++;
  if (*e || errno || (shift && v > (UINT64_MAX >> shift))) return CACHE_MAX_DEFAULT;
  return (uint64_t)v << shift;
}

/* One entry of the directory: its name (fixed length), size and last use. */
typedef struct cache_file {
  char name[24];
  uint64_t size;
  struct timespec used;
} cache_file;

/* "<16 hex digits>.ptxc" or ".cpuc": the names cache.c gives entries. */
static int is_entry_name(const char *n) {
  if (strlen(n) != 21) return 0;
  for (int i = 0; i < 16; i++)
    if (!isxdigit((unsigned char)n[i])) return 0;
  return strcmp(n + 16, ".ptxc") == 0 || strcmp(n + 16, ".cpuc") == 0;
}

static int older_first(const void *a, const void *b) {
  const cache_file *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The regular files named as entries, in *files (malloc'd), their sizes added up in
 * *total; stale temporary files removed on the way. -1 when dir cannot be listed. */
static int list_entries(int dfd, cache_file **files, size_t *n, uint64_t *total) {
  int fd2 = dup(dfd);
  DIR *d = fd2 < 0 ? NULL : fdopendir(fd2);
  if (!d) {
    if (fd2 >= 0) close(fd2);
    return -1;
  }
  size_t cap = 0;
  struct dirent *e;
  time_t now = time(NULL);
  *files = NULL, *n = 0, *total = 0;
  while ((e = readdir(d))) {
    struct stat st;
    int entry = is_entry_name(e->d_name), temp = e->d_name[0] == '.' && strlen(e->d_name) == 24;
    if ((!entry && !temp) || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    if (temp) {
      if (now - st.st_mtime > STALE_TEMP_SECONDS) unlinkat(dfd, e->d_name, 0);
      continue;
    }
    if (*n == cap) {
      cache_file *more = realloc(*files, (cap = cap ? cap * 2 : 64) * sizeof **files);
      if (!more) break;   /* out of memory: evict among those listed */
      *files = more;
    }
    cache_file *f = &(*files)[(*n)++];
    memcpy(f->name, e->d_name, 22);
    f->size = (uint64_t)st.st_size;
    f->used = st.st_mtim;
    *total += f->size;
  }
  closedir(d);
  return 0;
}

/* Remove one entry; its bytes no longer count (also when another process was first). */
static void evict(int dfd, const cache_file *f, uint64_t *total) {
  if (unlinkat(dfd, f->name, 0) == 0 || errno == ENOENT) *total -= f->size;
}

void rt_cache_evict(const char *dir, const char *keep, uint64_t max) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  cache_file *files = NULL;
  size_t n;
  uint64_t total;
  if (list_entries(dfd, &files, &n, &total) == 0 && total > max) {
    qsort(files, n, sizeof *files, older_first);
    const cache_file *kept = NULL;
    for (size_t i = 0; i < n && total > max; i++) {
      if (keep && strcmp(files[i].name, keep) == 0) kept = &files[i];
      else evict(dfd, &files[i], &total);
    }
    if (total > max && kept) evict(dfd, kept, &total);
  }
  free(files);
  close(dfd);
}
