/*
 * ptx_link.h — PTX -> cubin in process through libnvJitLink, loaded at run time.
 * (Internal: used by the kcc driver, bench/compile_bench.c, and the runtime through
 * rt_compiler.h: a PTX newer than the driver, link=[...] with LTO-IR.)
 */
#ifndef KCC_PTX_LINK_H
#define KCC_PTX_LINK_H

#include <stddef.h>

/* The path libnvJitLink was loaded from (loading it on first call), or NULL when it
 * is not installed or lacks an entry point kcc needs. */
const char *ptx_link_library(void);

/* Assemble len bytes of PTX into a cubin for sm_<arch> at ptxas level opt_level (0-3),
 * with line info when lineinfo is non-zero. Returns 0 with *cubin (malloc'd) and
 * *cubin_len set; 1 on failure with a malloc'd message in *err (nvJitLink's log
 * included); -1 when libnvJitLink is not available (*err untouched beyond NULL). */
int ptx_link_cubin(const char *ptx, size_t len, int arch, int opt_level, int lineinfo,
                   char **cubin, size_t *cubin_len, char **err);

/* An input of ptx_link_files; the kinds are nvJitLinkInputType's values. */
typedef enum ptx_link_kind {
  PTX_LINK_CUBIN = 1, PTX_LINK_PTX, PTX_LINK_LTOIR, PTX_LINK_FATBIN, PTX_LINK_OBJECT,
  PTX_LINK_LIBRARY
} ptx_link_kind;

typedef struct ptx_link_input {
  ptx_link_kind kind;
  const char *name;   /* the file's path, or a name for the log */
  const void *data;   /* len bytes in memory, or NULL: the file at name */
  size_t len;
} ptx_link_input;

/* Link n inputs into a cubin for sm_<arch>, with link-time optimisation (-lto) when lto
 * is non-zero (LTO-IR inputs need it). Returns as ptx_link_cubin does; a failure's
 * message names the step (the input being added) and carries nvJitLink's log. */
int ptx_link_files(const ptx_link_input *in, int n, int arch, int lto, char **cubin,
                   size_t *cubin_len, char **err);

#endif
