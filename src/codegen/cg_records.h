/*
 * cg_records.h — code generation of record values (cg_records.c), for codegen.c.
 */
#ifndef KCC_CG_RECORDS_H
#define KCC_CG_RECORDS_H

#include "cg.h"

/* An array element of record type in memory: its bytes. */
LLVMTypeRef cg_record_mem_type(cg_ctx *g, const type *t);
/* r.x (e an N_ATTR whose base is a record): a number, or a nested array or record. */
LLVMValueRef cg_record_field(cg_ctx *g, node *e);
/* r.x = v */
void cg_record_store(cg_ctx *g, node *t, LLVMValueRef v, const type *vt);
/* r.x op= v (s the N_AUGASSIGN) */
void cg_record_augassign(cg_ctx *g, node *s);
/* Copy a record of type rt from src to dst (both addresses). */
void cg_record_copy(cg_ctx *g, LLVMValueRef dst, LLVMValueRef src, const type *rt);
/* A thread's own copy of a kernel's record parameter (src its address). */
LLVMValueRef cg_record_local_copy(cg_ctx *g, LLVMValueRef src, const type *t);

#endif
