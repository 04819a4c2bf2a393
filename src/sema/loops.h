/*
 * loops.h — for loops over anything but a plain range(...), and tuples indexed at run
 * time: what type inference (infer_loops.c) decides and code generation (cg_loops.c)
 * builds from.
 *
 * Every iterable kcc accepts has a length known when the loop starts, and its k-th item
 * can be computed directly: a range, reversed(range), an array (its elements, or the
 * rows of a 2-D or 3-D array as views), a tuple of one element type, enumerate(x[,
 * start]) and zip(x, y, ...) of those. So each such loop is a counter k from 0 to that
 * length, the target assigned item k: one shape of loop, whatever is nested in it.
 */
#ifndef KCC_LOOPS_H
#define KCC_LOOPS_H

#include "ast.h"

typedef enum iter_kind {
  IT_RANGE,     /* range(...): e the call, count the type it counts in */
  IT_REVERSED,  /* reversed(range(...)): subs[0] the range */
  IT_ARRAY,     /* an array: its elements (1-D) or its rows (views) */
  IT_TUPLE,     /* a tuple of one element type */
  IT_ENUMERATE, /* enumerate(x[, start]): subs[0] is x, start the second argument */
  IT_ZIP        /* zip(x, y, ...): subs[0..nsubs) */
} iter_kind;

typedef struct iter_plan iter_plan;
struct iter_plan {
  iter_kind kind;
  node *e;            /* the iterable as written */
  const type *yield;  /* the type of each item */
  node *start;        /* IT_ENUMERATE: the start, or NULL for 0 */
  iter_plan **subs;
  int nsubs;
};

/* An N_FOR statement whose iterable is not a plain range(...) has its plan in aux_ptr;
 * an N_INDEX of a tuple by a run-time index has aux TUPLE_INDEX_DYNAMIC. */
#define TUPLE_INDEX_DYNAMIC (-1)

#endif
