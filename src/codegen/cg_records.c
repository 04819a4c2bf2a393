/*
 * cg_records.c — record values in code generation. A record value is the address of
 * its bytes (Numba's records from arrays are references too): a[i] of an array of
 * records is the element's address, r.x a load at r + the field's offset, with the
 * alignment that address is known to have (records.h: rec_field_align), so packed
 * records never make a misaligned access on the GPU. A nested array is a C-contiguous
 * array value over the field's bytes; a nested record, its address.
 */
#include "cg_records.h"

#include "records.h"

LLVMTypeRef cg_record_mem_type(cg_ctx *g, const type *t) {
  return LLVMArrayType2(g->i8, (uint64_t)t->rec->size);
}

static LLVMValueRef field_ptr(cg_ctx *g, LLVMValueRef base, const rec_field *f) {
  LLVMValueRef off = ci64(g, f->offset);
  return LLVMBuildInBoundsGEP2(g->b, g->i8, base, &off, 1, f->name);
}

/* The field e names (e an N_ATTR on a record) and its address. */
static LLVMValueRef attr_ptr(cg_ctx *g, node *e, const rec_field **f) {
  *f = rec_find(e->a->ty, e->str);
  return field_ptr(g, cg_expr(g, e->a), *f);
}

static LLVMValueRef load_field(cg_ctx *g, LLVMValueRef p, const type *rt, const rec_field *f) {
  LLVMValueRef v = LLVMBuildLoad2(g->b, cg_mem_type(g, f->ty), p, f->name);
  LLVMSetAlignment(v, (unsigned)rec_field_align(rt, f));
  return f->ty->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "") : v;
}

static void store_field(cg_ctx *g, LLVMValueRef p, LLVMValueRef v, const type *rt,
                        const rec_field *f) {
  if (f->ty->kind == TY_BOOL) v = LLVMBuildZExt(g->b, v, g->i8, "");
  LLVMSetAlignment(LLVMBuildStore(g->b, v, p), (unsigned)rec_field_align(rt, f));
}

LLVMValueRef cg_record_field(cg_ctx *g, node *e) {
  const rec_field *f;
  LLVMValueRef p = attr_ptr(g, e, &f);
  if (f->ty->kind == TY_RECORD) return p;
  if (f->ty->kind == TY_ARRAY) {
    LLVMValueRef ext[KC_MAX_DIMS];
    for (int k = 0; k < f->ndim; k++) ext[k] = ci64(g, f->shape[k]);
    return cg_build_array(g, f->ty, p, ext);
  }
  return load_field(g, p, e->a->ty, f);
}

void cg_record_store(cg_ctx *g, node *t, LLVMValueRef v, const type *vt) {
  const rec_field *f;
  LLVMValueRef p = attr_ptr(g, t, &f);
  store_field(g, p, cg_convert(g, v, vt, f->ty), t->a->ty, f);
}

/* r.x op= v: the record's address computed once. */
void cg_record_augassign(cg_ctx *g, node *s) {
  node *t = s->a;
  const rec_field *f;
  const type *rt = s->ty;
  LLVMValueRef p = attr_ptr(g, t, &f);
  LLVMValueRef cur = cg_convert(g, load_field(g, p, t->a->ty, f), f->ty, rt);
  LLVMValueRef r = cg_augmented_value(g, s, cur, rt);
  store_field(g, p, cg_convert(g, r, rt, f->ty), t->a->ty, f);
}

/* Copy n 8-byte words from src to dst (both 8-aligned) in a loop. */
static void copy_words(cg_ctx *g, LLVMValueRef dst, LLVMValueRef src, long long n) {
  LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b), loop = cg_new_bb(g, "rcopy.loop"),
                    done = cg_new_bb(g, "rcopy.done");
  LLVMBuildBr(g->b, loop);
  LLVMPositionBuilderAtEnd(g->b, loop);
  LLVMValueRef k = LLVMBuildPhi(g->b, g->i64, "k");
  LLVMValueRef v = LLVMBuildLoad2(g->b, g->i64, LLVMBuildInBoundsGEP2(g->b, g->i64, src, &k, 1, ""), "");
  LLVMSetAlignment(v, 8);
  LLVMSetAlignment(LLVMBuildStore(g->b, v, LLVMBuildInBoundsGEP2(g->b, g->i64, dst, &k, 1, "")), 8);
  LLVMValueRef next = LLVMBuildNUWAdd(g->b, k, ci64(g, 1), "");
  LLVMValueRef in[2] = {ci64(g, 0), next};
  LLVMBasicBlockRef bbs[2] = {from, loop};
  LLVMAddIncoming(k, in, bbs, 2);
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, next, ci64(g, n), ""), loop, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* a[i] = r: the record's bytes copied. NVPTX lowers a memcpy to a loop of single
 * bytes, so a GPU copies a record of 8-aligned words a word at a time. */
void cg_record_copy(cg_ctx *g, LLVMValueRef dst, LLVMValueRef src, const type *rt) {
  unsigned al = (unsigned)rt->rec->ptr_align;
  long long size = rt->rec->size;
  if (!g->target->host && al >= 8 && size % 8 == 0 && size >= 64) {
    copy_words(g, dst, src, size / 8);
    return;
  }
  LLVMBuildMemCpy(g->b, dst, al, src, al, ci64(g, size));
}

/* A kernel's record parameter, copied for the thread (the CPU back end unpacks the
 * arguments once per block). */
LLVMValueRef cg_record_local_copy(cg_ctx *g, LLVMValueRef src, const type *t) {
  LLVMValueRef slot = cg_entry_alloca(g, cg_record_mem_type(g, t), "record");
  LLVMSetAlignment(slot, 16);
  cg_record_copy(g, slot, src, t);
  return slot;
}
