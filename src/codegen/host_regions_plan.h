/*
 * host_regions_plan.h — the region form's plan, shared by host_regions.c, which makes
 * it (uniform locals, regions, which locals each region keeps), and host_regions_cg.c,
 * which generates the code from it. Internal to these two files.
 */
#ifndef KCC_HOST_REGIONS_PLAN_H
#define KCC_HOST_REGIONS_PLAN_H

#include "cg.h"
#include "host_regions.h"

/* A statement of a list at the block's level: part of a region, a barrier, or run once
 * for the whole block (control flow holding a barrier, an assignment to uniform locals,
 * a jump). */
typedef enum stmt_class { ST_REGION, ST_BARRIER, ST_BLOCK, ST_STRIDED } stmt_class;

typedef struct host_regions {
  arena *ar;
  fn_instance *f;
  int n;                  /* f's locals */
  symbol **syms;
  host_locals locals;     /* symbol -> index in syms */
  bool *uniform;
  /* one walk of the body (repeated until the uniform locals settle) */
  bool changed;
  const char *why;        /* the first reason the kernel keeps fibers */
  int *region;            /* the region a local is referenced in: -1 none, -2 several */
  bool *killed;           /* every region referencing it assigns it first */
  bool *written;          /* assigned inside a region */
  int *stamp;             /* region + 1 where last seen */
  int nregions;
  int loop_depth;         /* block-level loops around the statement being walked */
  bool region_returns;    /* the region being walked has a return */
  bool returned;          /* some region walked so far has a return */
  ptr_vec local_arrays;   /* cuda.local.array calls in regions (N_CALL nodes) */
  int *nassign;           /* assignments to each local */
  node **def;             /* its assignment at the function's top level, if any */
  int *def_region;        /* the region holding that assignment */
  /* Locals recomputed rather than kept per thread: assigned once, at the top level,
     from uniform values and the thread's index (tx = cuda.threadIdx.x, i =
     cuda.grid(1)); each later region recomputes them as its threads start, which keeps
     their ranges in view of LLVM (a reload from memory loses them) and saves memory */
  bool remat_mode;        /* uniform_expr accepts the thread's index and these */
  bool *settled;          /* a uniform local that keeps one value from here on */
  bool *remat;
  ptr_vec remat_order;    /* their definitions, in program order */
  int emitted;            /* regions generated so far */
  /* Grid-stride loops (for i in range(cuda.grid(1), n, cuda.gridsize(1))) at the
     function's top level: run step by step for the whole block, each step a loop over
     the threads, so that a step's threads touch neighbouring elements (see
     emit_strided) */
  ptr_vec strided;
  /* code generation */
  bool block_level;
  LLVMValueRef dims[3], lin;
  LLVMValueRef *base;     /* per local kept per thread: its array */
  LLVMValueRef *arr_base; /* per local array: its storage for thread 0 */
} host_regions;

/* host_regions.c, for host_regions_cg.c: f's plan, or NULL when its barriers leave it to
 * fibers (hr_explain says why); a local's index (-1: not one of f's locals); whether
 * local v is kept per thread; a statement's class; the end of the region starting at
 * l's statement i */
host_regions *hr_plan(arena *a, fn_instance *f);
void hr_explain(const fn_instance *f, const char *why);
int hr_local_of(const host_regions *R, const node *e);
bool hr_per_thread(const host_regions *R, int v);
stmt_class hr_classify(const host_regions *R, const node *s);
int hr_region_end(const host_regions *R, node_list *l, int i);
/* Whether e (a grid-stride loop's start) grows with each of the thread's coordinates,
 * the others fixed, as long as its 64-bit arithmetic does not wrap: sums of
 * cuda.threadIdx.x/y/z, cuda.grid(1), recomputed locals of them, values the same in
 * every thread, and a coordinate times a count up to 2^16. Then the block's smallest
 * start is thread (0, 0, 0)'s and its largest the last thread's. */
bool hr_thread_monotone(const host_regions *R, const node *e);
/* A region that is one `if` whose condition starts with tid < u (or tid <= u, tid == u;
 * tid the thread's index along *axis, u uniform): u, with *op the comparison as
 * tid OP u, so that the region's loop along that axis can stop at u. Else NULL. */
node *hr_region_bound(host_regions *R, node **items, int n, int *axis, op_kind *op);
/* The first local a top-level definition assigns (a name, or the first of a tuple of
 * up to HR_DEF_MAX names), or -1. */
enum { HR_DEF_MAX = 3 };
int hr_def_local(const host_regions *R, const node *s);
/* The inner loop of grid-stride loop s when the two are a 2-D grid-stride nest the
 * block steps through together, else NULL. */
node *hr_strided_inner(host_regions *R, const node *s);

#endif
