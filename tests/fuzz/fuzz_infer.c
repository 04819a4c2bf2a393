/*
 * fuzz_infer.c — libFuzzer target: the whole front end, source to typed program
 * (lexer, parser, name resolution, type inference, specialisation), for both targets'
 * options, and the --emit=types printer.
 */
#include "fuzz_common.h"

static void infer_once(const char *src, size_t size, kcc_target target) {
  fuzz_job j;
  memset(&j, 0, sizeof j);
  kcc_options_init(&j.o);
  j.o.target = target;
  arena_init(&j.a, NULL, NULL);
  if (setjmp(j.oom) == 0) {
    fuzz_job_begin(&j, src, size);
    node *mod = parse_module(&j.a, &j.d, src, size);
    program p;
    if (j.d.nerrors == 0 && infer_program(&j.a, &j.d, mod, &j.o, kcc_builtins(), &p) == 0)
      infer_dump_types(&j.a, &p);
  }
  arena_free(&j.a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > FUZZ_MAX_INPUT) size = FUZZ_MAX_INPUT;
  infer_once((const char *)data, size, KCC_TARGET_NVPTX);
  infer_once((const char *)data, size, KCC_TARGET_HOST);
  return 0;
}
