/*
 * compiler_kcc.c — the compiler's entry points for the runtime (rt_compiler.h). Linked
 * into libkc only: this file is what makes the runtime able to compile.
 */
#include "kc_config.h"
#include "ptx_link.h"
#include "rt_compiler.h"

static const rt_compiler kcc_compiler = {
  .name = "LLVM " KC_LLVM_VERSION,
  .options_init = kcc_options_init,
  .compile = kcc_compile,
  .output_free = kcc_output_free,
  .load_object = kcc_load_object,
  .output_drop_object = kcc_output_drop_object,
  .cpu_check = kcc_cpu_check,
  .cpu_id = kcc_cpu_id,
  .ptx_to_cubin = ptx_link_cubin,
  .link_files = ptx_link_files,
};

const rt_compiler *rt_compiler_get(void) {
  return &kcc_compiler;
}
