/*
 * fuzz_parse.c — libFuzzer target: the lexer and the parser (and the AST printer).
 * Any input must give a tree and diagnostics, never a crash, a hang or a leak.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > FUZZ_MAX_INPUT) size = FUZZ_MAX_INPUT;
  fuzz_job j;
  memset(&j, 0, sizeof j);
  arena_init(&j.a, NULL, NULL);
  if (setjmp(j.oom) == 0) {
    const char *src = (const char *)data;
    fuzz_job_begin(&j, src, size);
    lex_token *toks;
    lex_tokenize(&j.a, &j.d, src, size, &toks);
    diag_init(&j.d, &j.a, "fuzz.k", src, size);
    j.d.emit = fuzz_quiet;
    node *mod = parse_module(&j.a, &j.d, src, size);
    ast_dump(&j.a, mod);
  }
  arena_free(&j.a);
  return 0;
}
