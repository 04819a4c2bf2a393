/*
 * operators.c — Python's operator module in kernels, as Numba types it: each function
 * is its operator. operator.add(a, b) is a + b (and operator.iadd(a, b) too: numbers
 * are not changed in place), operator.neg(a) is -a, operator.lt(a, b) is a < b,
 * operator.contains(a, b) is b in a, operator.getitem(a, i) is a[i]. (is_ and is_not
 * are left out: kernels have `is` only to compare with None.) A row's typing
 * turns the call into the operator's own node and types that, so the operator's rules,
 * diagnostics and lowering serve unchanged; the rows are never lowered. A kernel gets
 * these from `import operator`, `from operator import add`, or a closure variable bound
 * to one (Numba's tests pass operator.add into a kernel factory).
 */
#include "builtin.h"
#include "typing.h"

/* The call e (list = its arguments) made the node of kind k: the arguments' slots as
 * that kind reads them. */
static const type *retype_as(infer_ctx *ic, node *e, node_kind k) {
  node *x = e->list.items[0], *y = e->list.len > 1 ? e->list.items[1] : NULL;
  e->kind = k;
  e->bi = NULL;
  e->a = x;
  e->b = y;
  e->list.len = 0;
  return ix_expr(ic, e);
}

static const type *ix_operator_binop(infer_ctx *ic, node *e, const builtin *b) {
  e->op = (op_kind)b->op;
  return retype_as(ic, e, N_BINOP);
}

static const type *ix_operator_unary(infer_ctx *ic, node *e, const builtin *b) {
  e->op = (op_kind)b->op;
  return retype_as(ic, e, N_UNARY);
}

/* lt, eq, is_ ... and contains, whose operands are the other way round (b in a) */
static const type *ix_operator_compare(infer_ctx *ic, node *e, const builtin *b) {
  if (b->op == OP_IN) {
    node *t = e->list.items[0];
    e->list.items[0] = e->list.items[1];
    e->list.items[1] = t;
  }
  e->cmp_ops = arena_alloc(ic->ar, sizeof *e->cmp_ops);
  e->cmp_ops[0] = (op_kind)b->op;
  e->a = e->b = NULL;
  e->kind = N_COMPARE;
  e->bi = NULL;
  return ix_expr(ic, e);
}

static const type *ix_operator_getitem(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  return retype_as(ic, e, N_INDEX);
}

#define BINOP(name, opk) \
  {.path = "operator." name, .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE | BF_REWRITTEN, .op = opk, .typing = ix_operator_binop}
#define BINOPS(name, opk) BINOP(#name, opk), BINOP("i" #name, opk)
#define UNARY(name, opk) \
  {.path = "operator." name, .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE | BF_REWRITTEN, .op = opk, .typing = ix_operator_unary}
#define COMPARE(name, opk) \
  {.path = "operator." name, .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE | BF_REWRITTEN, .op = opk, .typing = ix_operator_compare}

const builtin builtins_operators[] = {
  {.path = "operator", .kind = BK_MODULE},
  BINOPS(add, OP_ADD), BINOPS(sub, OP_SUB), BINOPS(mul, OP_MUL), BINOPS(truediv, OP_DIV),
  BINOPS(floordiv, OP_FLOORDIV), BINOPS(mod, OP_MOD), BINOPS(pow, OP_POW),
  BINOPS(lshift, OP_LSHIFT), BINOPS(rshift, OP_RSHIFT), BINOP("and_", OP_BITAND),
  BINOP("iand", OP_BITAND), BINOP("or_", OP_BITOR), BINOP("ior", OP_BITOR),
  BINOPS(xor, OP_BITXOR),
  UNARY("neg", OP_NEG), UNARY("pos", OP_POS), UNARY("invert", OP_INVERT),
  UNARY("inv", OP_INVERT), UNARY("not_", OP_NOT),
  COMPARE("lt", OP_LT), COMPARE("le", OP_LE), COMPARE("eq", OP_EQ), COMPARE("ne", OP_NE),
  COMPARE("gt", OP_GT), COMPARE("ge", OP_GE), COMPARE("contains", OP_IN),
  {.path = "operator.getitem", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE | BF_REWRITTEN, .typing = ix_operator_getitem},
  {NULL},
};
