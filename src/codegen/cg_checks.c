/*
 * cg_checks.c — the code of `assert` and `raise` (infer_checks.c types them and makes
 * the exception's text): in a kernel compiled with debug=True a failed assert or a raise
 * fills the launch's error record (host_abi.h: KC_KERNEL_ERROR_RAISE, the source
 * position, the block and thread, the text) and ends the thread; elsewhere an assert is
 * compiled out and a raise only ends the thread. A thread ends with PTX's `exit` on the
 * GPU and the executor's blk->exit_thread on the CPU (cg_target's thread_exit).
 */
#include <string.h>

#include "cg.h"
#include "host_abi.h"

/* The text into the record: its bytes (cut to fit, NUL-terminated and zero-padded) as
 * constant little-endian 8-byte words, so no string needs to live on the device. */
static void store_message(cg_ctx *g, LLVMValueRef rec, const char *text) {
  unsigned char buf[KC_KERNEL_ERROR_MSG_LEN] = {0};
  size_t n = strlen(text);
  if (n > sizeof buf - 1) n = sizeof buf - 1;
  memcpy(buf, text, n);
  for (size_t w = 0; w < (n + 8) / 8; w++) {
    unsigned long long word = 0;
    for (int k = 7; k >= 0; k--) word = word << 8 | buf[w * 8 + (size_t)k];
    cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_MESSAGE + (int)(w * 8), LLVMConstInt(g->i64, word, 0));
  }
}

/* Claim the launch's error record (the first thread to fail wins) and fill it with
 * the exception's text ("IndexError: message") at sp. */
static void record_raise(cg_ctx *g, span sp, const char *text) {
  LLVMBasicBlockRef done;
  LLVMValueRef rec = cg_error_claim(g, sp, &done);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_KIND, ci32(g, KC_KERNEL_ERROR_RAISE));
  store_message(g, rec, text);
  cg_error_done(g, done);
}

/* The thread raised: reported when checked, then ended. Leaves the builder in a block
 * that is closed (codegen.c starts a new one for any statement after it). */
static void raise_here(cg_ctx *g, node *s) {
  if (g->fi->debug) record_raise(g, s->sp, s->str ? s->str : "Exception");
  g->target->thread_exit(g);
}

/* A branch on a rare failure: its code kept out of the hot path. The builder is left
 * in the failing block; *pass is where the code goes on. */
static void branch_on_failure(cg_ctx *g, LLVMValueRef bad, LLVMBasicBlockRef *pass) {
  LLVMBasicBlockRef fail = cg_new_bb(g, "check.fail");
  *pass = cg_new_bb(g, "check.ok");
  LLVMValueRef br = LLVMBuildCondBr(g->b, bad, fail, *pass);
  LLVMValueRef w[3] = {LLVMMDStringInContext(g->c, "branch_weights", 14), ci32(g, 1),
                       ci32(g, 1 << 20)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(g->c, "prof", 4), LLVMMDNodeInContext(g->c, w, 3));
  LLVMPositionBuilderAtEnd(g->b, fail);
}

static LLVMValueRef is_zero(cg_ctx *g, LLVMValueRef v, const type *t) {
  if (t->kind == TY_COMPLEX)
    return LLVMBuildAnd(g->b, is_zero(g, cx_re(g, v), type_complex_part(t)),
                        is_zero(g, cx_im(g, v), type_complex_part(t)), "");
  if (t->kind == TY_FLOAT)
    return LLVMBuildFCmp(g->b, LLVMRealOEQ, v, LLVMConstNull(LLVMTypeOf(v)), "");
  return LLVMBuildICmp(g->b, LLVMIntEQ, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

/* Where bad holds, the thread raises text at sp (reported, then ended); the builder
 * goes on where it does not. */
static void raise_when(cg_ctx *g, LLVMValueRef bad, span sp, const char *text) {
  LLVMBasicBlockRef pass;
  branch_on_failure(g, bad, &pass);
  record_raise(g, sp, text);
  g->target->thread_exit(g);
  LLVMPositionBuilderAtEnd(g->b, pass);
}

void cg_check_divisor(cg_ctx *g, span sp, op_kind op, LLVMValueRef b, const type *t) {
  if (!g->fi || !g->fi->debug || (op != OP_DIV && op != OP_FLOORDIV && op != OP_MOD))
    return;
  if (!type_is_numeric(t)) return;
  /* fast math gives up Python's error model for floats, as in Numba (whose fastmath
     debug kernels divide by zero without raising) */
  if (g->fi->fastmath && t->kind != TY_INT && t->kind != TY_BOOL) return;
  raise_when(g, is_zero(g, b, t), sp, "ZeroDivisionError: division by zero");
}

/* t[j] in a debug kernel, bad when j is outside the tuple: Numba's IndexError. */
void cg_check_tuple_index(cg_ctx *g, span sp, LLVMValueRef bad) {
  raise_when(g, bad, sp, "IndexError: tuple index out of range");
}

void cg_check_stmt(cg_ctx *g, node *s) {
  if (s->kind == N_RAISE) {
    raise_here(g, s);
    return;
  }
  if (!g->fi->debug) return;   /* an assert outside debug code is compiled out */
  LLVMValueRef ok = cg_to_bool(g, cg_expr(g, s->a), s->a->ty);
  LLVMBasicBlockRef fail = cg_new_bb(g, "assert.fail"), pass = cg_new_bb(g, "assert.ok");
  LLVMValueRef br = LLVMBuildCondBr(g->b, ok, pass, fail);
  /* failures are rare: keep their code out of the hot path */
  LLVMValueRef w[3] = {LLVMMDStringInContext(g->c, "branch_weights", 14), ci32(g, 1 << 20),
                       ci32(g, 1)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(g->c, "prof", 4), LLVMMDNodeInContext(g->c, w, 3));
  LLVMPositionBuilderAtEnd(g->b, fail);
  raise_here(g, s);
  LLVMPositionBuilderAtEnd(g->b, pass);
}
