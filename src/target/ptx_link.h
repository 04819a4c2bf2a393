/*
 * ptx_link.h — PTX -> cubin in process through libnvJitLink, loaded at run time.
 * (Internal: used by the kcc driver and by bench/compile_bench.c.)
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

#endif
