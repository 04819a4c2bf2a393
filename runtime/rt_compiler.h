/*
 * rt_compiler.h — the seam between the runtime and the compiler. The runtime's files
 * call the compiler (compile.h) only through this table, so that the same runtime
 * objects make two libraries: libkc, where compiler_kcc.c hands out the compiler's
 * entry points, and libkcrt, the runtime without the compiler (no LLVM), where
 * compiler_none.c hands out none. Without a compiler, compiling (kc_compile_*, the
 * specialisation of untyped kernels) is KC_ERR_UNSUPPORTED with rt_no_compiler's
 * message; loading PTX, cubins and fatbins, arrays, launches and streams work as in
 * libkc. Data flows one way: the compiler knows nothing of this table.
 * compile() in module.c checks for the compiler first; what it calls (the disk cache,
 * cache.c) and the freeing of a compiled module's output (only compiled modules have
 * one) use the table without checking again.
 */
#ifndef KC_RT_COMPILER_H
#define KC_RT_COMPILER_H

#include <stddef.h>

#include "compile.h"
#include "ptx_link.h"

typedef struct rt_compiler {
  const char *name;   /* "LLVM 22.1.0", for kc_detect */
  void (*options_init)(kcc_options *o);
  kc_status (*compile)(const kcc_options *opts, const char *name, const char *source,
                       size_t len, kcc_output *out);
  void (*output_free)(kcc_output *out);
  kc_status (*load_object)(const kcc_options *opts, kcc_output *out);
  void (*output_drop_object)(kcc_output *out);
  kc_status (*cpu_check)(const char *cpu, const char **name, char *msg, size_t len);
  char *(*cpu_id)(const char *cpu);
  /* PTX -> cubin in process (ptx_link.h: nvJitLink, dlopen'd; -1 when absent), for a
     driver older than the PTX ISA the compiler wrote (cuda/module.c) */
  int (*ptx_to_cubin)(const char *ptx, size_t len, int arch, int opt_level, int lineinfo,
                      char **cubin, size_t *cubin_len, char **err);
  /* link=[...] with LTO-IR in it, which only nvJitLink links (ptx_link_files; -1 when
     libnvJitLink is absent): runtime/link.c */
  int (*link_files)(const ptx_link_input *in, int n, int arch, int lto, char **cubin,
                    size_t *cubin_len, char **err);
} rt_compiler;

/* The compiler linked with this library, or NULL in libkcrt. */
const rt_compiler *rt_compiler_get(void);

/* KC_ERR_UNSUPPORTED, with a message saying that `what` needs the compiler, which this
 * program (linked with libkcrt) lacks, and what to do instead. */
kc_status rt_no_compiler(kc_context *ctx, const char *what);

#endif
