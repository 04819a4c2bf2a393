/*
 * files.c — the files the runtime reads: kernel sources (kc_compile_file), module
 * images (kc_module_load_file) and the files a PTX asks to be linked with (link.c).
 * Each is opened without blocking and refused unless it is a regular file within a
 * size limit, so that a device, a FIFO or a file that grows never stalls a load.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"
#include "file_kind.h"

/* The file at path, opened without blocking (a FIFO's open would wait for a writer) and
 * refused unless it is a regular file of at most limit bytes: a device such as
 * /dev/zero would be read for ever. A FILE, or NULL with the error recorded. */
static FILE *open_regular(kc_context *ctx, const char *path, size_t limit, kc_status *s) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int err = errno;
    if (fd >= 0) close(fd);
    *s = rt_error(ctx, KC_ERR_IO, "%s: cannot open the file (%s)", path, strerror(err));
    return NULL;
  }
  if (!S_ISREG(st.st_mode))
    *s = rt_error(ctx, KC_ERR_IO, "%s: %s, not a regular file", path, file_kind(st.st_mode));
  else if ((uint64_t)st.st_size > limit)
    *s = rt_error(ctx, KC_ERR_IO, "%s: larger than the %zu MiB limit", path,
                  limit >> 20);
  FILE *f = *s == KC_OK ? fdopen(fd, "rb") : NULL;
  if (!f) {
    close(fd);
    if (*s == KC_OK) *s = rt_error(ctx, KC_ERR_NOMEM, "out of memory reading %s", path);
  }
  return f;
}

kc_status rt_file_check(kc_context *ctx, const char *path, size_t limit) {
  kc_status s = KC_OK;
  FILE *f = open_regular(ctx, path, limit, &s);
  if (f) fclose(f);
  return s;
}

/* The whole file at path (a regular file of at most limit bytes) in a buffer of *cap
 * bytes (rt_free it with that size). */
kc_status rt_read_file(kc_context *ctx, const char *path, size_t limit, char **out,
                       size_t *lenp, size_t *capp) {
  char *buf = NULL;
  size_t len = 0, cap = 0;
  kc_status s = KC_OK;
  FILE *f = open_regular(ctx, path, limit, &s);
  for (; f;) {
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 8192;
      char *nb = rt_alloc(ctx, ncap);
      if (!nb) {
        s = rt_error(ctx, KC_ERR_NOMEM, "out of memory reading %s", path);
        break;
      }
      if (len) memcpy(nb, buf, len);
      rt_free(ctx, buf, cap);
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (len > limit) {   /* it grew since it was opened */
      s = rt_error(ctx, KC_ERR_IO, "%s: larger than the %zu MiB limit", path,
                   limit >> 20);
      break;
    }
    if (got == 0) {
      if (ferror(f)) s = rt_error(ctx, KC_ERR_IO, "%s: read error", path);
      break;
    }
  }
  if (f) fclose(f);
  if (s != KC_OK) {
    rt_free(ctx, buf, cap);
    buf = NULL;
    len = cap = 0;
  }
  *out = buf;
  *lenp = len;
  *capp = cap;
  return s;
}

