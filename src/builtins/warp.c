/*
 * warp.c — the warp: cuda.syncwarp, the shuffles shfl(_up, _down, _xor)_sync, the votes
 * all/any/eq/ballot_sync, match_any/all_sync, activemask and lanemask_lt. On the GPU
 * each is its PTX instruction (64-bit values shuffle as two 32-bit halves); on the CPU
 * back end the threads of a block run as fibers and the executor exchanges the values
 * (blk->collective, with the row's KC_COLL_* code in op: host_abi.h).
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "host_abi.h"
#include "typing.h"

/* ---- typing ---- */

/* A value that can travel through a shuffle or a match: an integer or a float. */
static bool need_warp_value(infer_ctx *ic, node *arg, const char *fname) {
  if (arg->ty && (arg->ty->kind == TY_INT || (arg->ty->kind == TY_FLOAT && arg->ty->bits >= 32)))
    return true;
  if (arg->ty) ix_error(ic, arg->sp, "%s needs an integer, float32 or float64 value, not %s", fname,
                    ix_tname(ic, arg->ty));
  return false;
}

/* syncwarp(mask=all): no value. */
static const type *ix_syncwarp(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e)) return NULL;
  if (e->list.len == 1 && !ix_need_int(ic, e->list.items[0], builtin_user_name(b), "mask"))
    return NULL;
  return ix_set_type(e, &ty_void, false);
}

/* shfl_sync(mask, value, lane), shfl_up/down/xor_sync(mask, value, delta): the value's
 * type. */
static const type *ix_shuffle(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  if (!ix_args(ic, e)) return NULL;
  node *v = e->list.items[1];
  if (!ix_need_int(ic, e->list.items[0], fname, "mask") || !need_warp_value(ic, v, fname) ||
      !ix_need_int(ic, e->list.items[2], fname, "lane or offset"))
    return NULL;
  /* a bare literal is shuffled as the int64 or float64 it is */
  return ix_set_type(e, v->ty, false);
}

/* (mask, pred) for the votes, (mask, value) for the matches. */
static bool vote_args(infer_ctx *ic, node *e, const builtin *b, bool match) {
  const char *fname = builtin_user_name(b);
  if (!ix_args(ic, e)) return false;
  node *v = e->list.items[1];
  if (!ix_need_int(ic, e->list.items[0], fname, "mask")) return false;
  return match ? need_warp_value(ic, v, fname) : ix_need_real(ic, v, fname);
}

/* all_sync/any_sync/eq_sync(mask, pred) -> bool */
static const type *ix_vote(infer_ctx *ic, node *e, const builtin *b) {
  return vote_args(ic, e, b, false) ? ix_set_type(e, &ty_bool, false) : NULL;
}

/* ballot_sync(mask, pred) -> uint32 */
static const type *ix_ballot(infer_ctx *ic, node *e, const builtin *b) {
  return vote_args(ic, e, b, false) ? ix_set_type(e, &ty_u32, false) : NULL;
}

/* match_any_sync(mask, value) -> uint32 */
static const type *ix_match_any(infer_ctx *ic, node *e, const builtin *b) {
  return vote_args(ic, e, b, true) ? ix_set_type(e, &ty_u32, false) : NULL;
}

/* match_all_sync(mask, value) -> (uint32, bool) */
static const type *ix_match_all(infer_ctx *ic, node *e, const builtin *b) {
  if (!vote_args(ic, e, b, true)) return NULL;
  const type *el[2] = {&ty_u32, &ty_bool};
  return ix_set_type(e, type_tuple(ic->ar, el, 2), false);
}

/* activemask(), lanemask_lt(): uint32 */
static const type *ix_lane_mask(infer_ctx *ic, node *e, const builtin *b) {
  (void)ic, (void)b;
  return ix_set_type(e, &ty_u32, false);
}

/* ---- lowering ---- */

static LLVMValueRef cg_mask_arg(cg_ctx *g, node *e, int i) {
  return i < e->list.len ? cg_expr_as(g, e->list.items[i], &ty_u32) : ci32(g, -1);
}

static LLVMValueRef cg_syncwarp(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef mask = cg_mask_arg(g, e, 0);
  cg_call_intrinsic(g, "llvm.nvvm.bar.warp.sync", NULL, &mask, 1);
  return NULL;
}

static LLVMValueRef cg_syncwarp_host(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef mask = cg_mask_arg(g, e, 0);
  cg_host_collective(g, KC_COLL_SYNCWARP, mask, NULL, NULL, e->sp);
  return NULL;
}

static LLVMValueRef cg_activemask(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  return cg_call_intrinsic(g, "llvm.nvvm.activemask", NULL, NULL, 0);
}

static LLVMValueRef cg_activemask_host(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  return LLVMBuildTrunc(g->b, cg_host_collective(g, KC_COLL_ACTIVEMASK, NULL, NULL, NULL, e->sp),
                        g->i32, "");
}

/* A warp value as raw bits (i32 or i64) and back. */
static LLVMValueRef warp_bits(cg_ctx *g, LLVMValueRef v, const type *t) {
  if (t->kind == TY_FLOAT) return LLVMBuildBitCast(g->b, v, t->bits == 32 ? g->i32 : g->i64, "");
  if (t->bits >= 32) return v;
  return t->is_signed ? LLVMBuildSExt(g->b, v, g->i32, "") : LLVMBuildZExt(g->b, v, g->i32, "");
}

static LLVMValueRef warp_unbits(cg_ctx *g, LLVMValueRef bits, const type *t) {
  if (t->kind == TY_FLOAT) return LLVMBuildBitCast(g->b, bits, cg_scalar_type(g, t), "");
  if (t->bits >= 32) return bits;
  return LLVMBuildTrunc(g->b, bits, cg_scalar_type(g, t), "");
}

static LLVMValueRef nvptx_shfl32(cg_ctx *g, const char *mode, LLVMValueRef mask,
                                 LLVMValueRef v, LLVMValueRef lane) {
  char name[48];
  snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.i32", mode);
  /* c: clamp 31 for idx/down/bfly, 0 for up, as in CUDA's __shfl_*_sync at width 32 */
  LLVMValueRef args[4] = {mask, v, lane, ci32(g, strcmp(mode, "up") == 0 ? 0 : 0x1f)};
  return cg_call_intrinsic(g, name, NULL, args, 4);
}

/* The host: the executor's exchange of a warp value's bits (zero-extended to 64),
 * the result at the bits' own width. */
static LLVMValueRef host_exchange(cg_ctx *g, const builtin *b, LLVMValueRef mask,
                                  LLVMValueRef bits, LLVMValueRef arg, span sp) {
  bool w64 = LLVMTypeOf(bits) == g->i64;
  LLVMValueRef v64 = w64 ? bits : LLVMBuildZExt(g->b, bits, g->i64, "");
  LLVMValueRef r = cg_host_collective(g, (unsigned)b->op, mask, v64, arg, sp);
  return w64 ? r : LLVMBuildTrunc(g->b, r, g->i32, "");
}

/* shfl_sync(mask, value, lane) and friends: the operands, in the order written. */
static void shuffle_operands(cg_ctx *g, node *e, LLVMValueRef *mask, LLVMValueRef *bits,
                             LLVMValueRef *lane) {
  *mask = cg_mask_arg(g, e, 0);
  *bits = warp_bits(g, cg_expr(g, e->list.items[1]), e->ty);
  *lane = cg_expr_as(g, e->list.items[2], &ty_u32);
}

/* The GPU: shfl.sync; 64-bit values travel as two 32-bit shuffles. */
static LLVMValueRef cg_shuffle(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef mask, bits, lane;
  shuffle_operands(g, e, &mask, &bits, &lane);
  if (LLVMTypeOf(bits) == g->i32)
    return warp_unbits(g, nvptx_shfl32(g, b->name, mask, bits, lane), e->ty);
  LLVMValueRef lo = LLVMBuildTrunc(g->b, bits, g->i32, "");
  LLVMValueRef hi = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, bits, ci64(g, 32), ""), g->i32, "");
  lo = LLVMBuildZExt(g->b, nvptx_shfl32(g, b->name, mask, lo, lane), g->i64, "");
  hi = LLVMBuildZExt(g->b, nvptx_shfl32(g, b->name, mask, hi, lane), g->i64, "");
  LLVMValueRef r = LLVMBuildOr(g->b, lo, LLVMBuildShl(g->b, hi, ci64(g, 32), ""), "");
  return warp_unbits(g, r, e->ty);
}

static LLVMValueRef cg_shuffle_host(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef mask, bits, lane;
  shuffle_operands(g, e, &mask, &bits, &lane);
  return warp_unbits(g, host_exchange(g, b, mask, bits, lane, e->sp), e->ty);
}

/* all_sync/any_sync/eq_sync/ballot_sync(mask, pred): the operands, pred as i1. */
static void vote_operands(cg_ctx *g, node *e, LLVMValueRef *mask, LLVMValueRef *pred) {
  *mask = cg_mask_arg(g, e, 0);
  node *a = e->list.items[1];
  *pred = cg_to_bool(g, cg_expr(g, a), a->ty);
}

/* The GPU: name is the vote.sync intrinsic. */
static LLVMValueRef cg_vote(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef args[2];
  vote_operands(g, e, &args[0], &args[1]);
  return cg_call_intrinsic(g, b->name, NULL, args, 2);
}

static LLVMValueRef cg_vote_host(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef mask, pred;
  vote_operands(g, e, &mask, &pred);
  LLVMValueRef r = cg_host_collective(g, (unsigned)b->op, mask,
                                      LLVMBuildZExt(g->b, pred, g->i64, ""), NULL, e->sp);
  return b->op == KC_COLL_BALLOT ? LLVMBuildTrunc(g->b, r, g->i32, "")
                                 : LLVMBuildICmp(g->b, LLVMIntNE, r, ci64(g, 0), "");
}

/* match_any_sync(mask, value) / match_all_sync: the operands; values compare as bits. */
static void match_operands(cg_ctx *g, node *e, LLVMValueRef *mask, LLVMValueRef *bits) {
  *mask = cg_mask_arg(g, e, 0);
  node *a = e->list.items[1];
  *bits = warp_bits(g, cg_expr(g, a), a->ty);
}

/* match_any_sync -> uint32 mask m; match_all_sync -> (m, pred). */
static LLVMValueRef match_result(cg_ctx *g, node *e, LLVMValueRef m, LLVMValueRef pred) {
  if (!pred) return m;
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  agg = LLVMBuildInsertValue(g->b, agg, m, 0, "");
  return LLVMBuildInsertValue(g->b, agg, pred, 1, "");
}

static LLVMValueRef cg_match(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef args[2];
  match_operands(g, e, &args[0], &args[1]);
  bool w64 = LLVMTypeOf(args[1]) == g->i64;
  if (b->op == KC_COLL_MATCH_ANY)
    return cg_call_intrinsic(g, w64 ? "llvm.nvvm.match.any.sync.i64"
                                    : "llvm.nvvm.match.any.sync.i32", NULL, args, 2);
  LLVMValueRef r = cg_call_intrinsic(g, w64 ? "llvm.nvvm.match.all.sync.i64p"
                                            : "llvm.nvvm.match.all.sync.i32p", NULL, args, 2);
  LLVMValueRef m = LLVMBuildExtractValue(g->b, r, 0, "");
  return match_result(g, e, m, LLVMBuildExtractValue(g->b, r, 1, ""));
}

/* The host: the executor finds the lanes with equal bits; "all" when they are all of
 * mask's (the executor's mask is then non-zero). */
static LLVMValueRef cg_match_host(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef mask, bits;
  match_operands(g, e, &mask, &bits);
  LLVMValueRef m = host_exchange(g, b, mask, bits, NULL, e->sp);
  if (LLVMTypeOf(m) != g->i32) m = LLVMBuildTrunc(g->b, m, g->i32, "");
  if (b->op == KC_COLL_MATCH_ANY) return m;
  return match_result(g, e, m, LLVMBuildICmp(g->b, LLVMIntNE, m, ci32(g, 0), ""));
}

static LLVMValueRef cg_lanemask_lt(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  return cg_call_intrinsic(g, "llvm.nvvm.read.ptx.sreg.lanemask.lt", NULL, NULL, 0);
}

/* The CPU: the bits of the lanes below this one. */
static LLVMValueRef cg_lanemask_lt_host(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  LLVMValueRef bit = LLVMBuildShl(g->b, ci32(g, 1), cg_laneid(g), "");
  return LLVMBuildSub(g->b, bit, ci32(g, 1), "");
}

/* The warp-synchronous instructions need sm_30 (sm_70 for match) and PTX 6.0. */
const builtin builtins_warp[] = {
  {.path = "numba.cuda.syncwarp", .kind = BK_FUNCTION, .min_args = 0, .max_args = 1,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_SYNCWARP, .typing = ix_syncwarp,
   .lower = cg_syncwarp, .lower_host = cg_syncwarp_host},
  {.path = "numba.cuda.shfl_sync", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_SHFL_IDX, .name = "idx",
   .typing = ix_shuffle, .lower = cg_shuffle, .lower_host = cg_shuffle_host},
  {.path = "numba.cuda.shfl_up_sync", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_SHFL_UP, .name = "up",
   .typing = ix_shuffle, .lower = cg_shuffle, .lower_host = cg_shuffle_host},
  {.path = "numba.cuda.shfl_down_sync", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_SHFL_DOWN, .name = "down",
   .typing = ix_shuffle, .lower = cg_shuffle, .lower_host = cg_shuffle_host},
  {.path = "numba.cuda.shfl_xor_sync", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_SHFL_XOR, .name = "bfly",
   .typing = ix_shuffle, .lower = cg_shuffle, .lower_host = cg_shuffle_host},
  {.path = "numba.cuda.all_sync", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_VOTE_ALL,
   .name = "llvm.nvvm.vote.all.sync", .typing = ix_vote, .lower = cg_vote,
   .lower_host = cg_vote_host},
  {.path = "numba.cuda.any_sync", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_VOTE_ANY,
   .name = "llvm.nvvm.vote.any.sync", .typing = ix_vote, .lower = cg_vote,
   .lower_host = cg_vote_host},
  {.path = "numba.cuda.eq_sync", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_VOTE_EQ,
   .name = "llvm.nvvm.vote.uni.sync", .typing = ix_vote, .lower = cg_vote,
   .lower_host = cg_vote_host},
  {.path = "numba.cuda.ballot_sync", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_BALLOT,
   .name = "llvm.nvvm.vote.ballot.sync", .typing = ix_ballot, .lower = cg_vote,
   .lower_host = cg_vote_host},
  {.path = "numba.cuda.match_any_sync", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .min_sm = 70, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_MATCH_ANY,
   .typing = ix_match_any, .lower = cg_match, .lower_host = cg_match_host},
  {.path = "numba.cuda.match_all_sync", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .min_sm = 70, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_MATCH_ALL,
   .typing = ix_match_all, .lower = cg_match, .lower_host = cg_match_host},
  {.path = "numba.cuda.activemask", .kind = BK_FUNCTION, .min_args = 0, .max_args = 0,
   .min_sm = 30, .min_ptx = 60, .flags = BF_WARP, .op = KC_COLL_ACTIVEMASK,
   .typing = ix_lane_mask, .lower = cg_activemask, .lower_host = cg_activemask_host},
  {.path = "numba.cuda.lanemask_lt", .kind = BK_FUNCTION, .min_args = 0, .max_args = 0,
   .typing = ix_lane_mask, .lower = cg_lanemask_lt, .lower_host = cg_lanemask_lt_host},
  {NULL},
};
