/*
 * fuzz_common.h — what the libFuzzer targets share: one compilation's arena and
 * diagnostic sink, set up the way compile.c sets them up (out-of-memory longjmps back
 * to the target), with diagnostics counted but not printed.
 *
 * The targets call the stages directly rather than kcc_compile so that each stops
 * where it should (parse, types, verified IR) and a crash points at one stage.
 */
#ifndef KCC_FUZZ_COMMON_H
#define KCC_FUZZ_COMMON_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "builtins/builtin.h"
#include "compile.h"
#include "parse.h"
#include "sema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs past this are cut: big inputs only slow the fuzzer down (the generated cases
 * of tests/run_diagnostics.py cover size). */
#define FUZZ_MAX_INPUT (16 * 1024)

static void fuzz_quiet(void *user_data, const kc_diagnostic *dg) {
  (void)user_data;
  (void)dg;
}

typedef struct fuzz_job {
  arena a;
  diag_sink d;
  jmp_buf oom;
  kcc_options o;
} fuzz_job;

/* Called with the job's oom handler already armed by setjmp in the caller. */
static void fuzz_job_begin(fuzz_job *j, const char *src, size_t len) {
  arena_set_oom(&j->a, &j->oom);
  diag_init(&j->d, &j->a, "fuzz.k", src, len);
  j->d.emit = fuzz_quiet;
}

#endif
