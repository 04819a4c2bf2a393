/*
 * file_kind.h — what a file that is not a regular one is, for the messages of kcc and
 * of kc_compile_file / kc_module_load_file, which both refuse such files (a device such
 * as /dev/zero would be read for ever, a FIFO's open would wait for a writer).
 */
#ifndef KCC_FILE_KIND_H
#define KCC_FILE_KIND_H

#include <sys/stat.h>

static inline const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "a special file";
}

#endif
