/*
 * ast.h — the abstract syntax tree the parser builds and later stages annotate.
 *
 * One node struct for every kind (as chibicc does): a kind, a source span set when
 * the node is built, and a handful of generic child slots whose meaning per kind is
 * listed below. Type inference fills the `ty` and `sym` slots; code generation reads
 * them. Nodes live in the compilation's arena.
 */
#ifndef KCC_AST_H
#define KCC_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "types.h"

typedef enum node_kind {
  /* ---- expressions ---- */
  N_INT,      /* ival (uval for literals > INT64_MAX; `big` set) */
  N_FLOAT,    /* fval */
  N_IMAG,     /* fval: an imaginary literal like 2.0j */
  N_COMPLEX,  /* a folded complex constant (infer.c only): a = real, b = imag part (N_FLOAT) */
  N_BOOL,     /* ival 0/1 */
  N_STR,      /* str (contents, escapes resolved) */
  N_NONE,
  N_NAME,     /* str */
  N_ATTR,     /* a.str : a = object, str = attribute name */
  N_CALL,     /* a = callee, list = positional args, kwargs = N_KEYWORD nodes; params =
                 (infer, device-function calls) the arguments in parameter order, the
                 omitted ones' folded defaults filled in */
  N_KEYWORD,  /* str = name, a = value (only inside a call's kwargs) */
  N_INDEX,    /* a = object, b = index (an N_TUPLE for a[i, j]) */
  N_SLICE,    /* a = lower, b = upper, c = step; each may be NULL (a[1:], a[::2]) */
  N_TUPLE,    /* list = elements */
  N_LIST,     /* list = elements (decorator signature lists) */
  N_BINOP,    /* op (an op_kind), a = left, b = right */
  N_UNARY,    /* op: OP_NEG, OP_POS, OP_INVERT, OP_NOT; a = operand */
  N_COMPARE,  /* list = n operands, cmp_ops = n-1 ops (OP_LT ...): a < b <= c */
  N_BOOLOP,   /* op: OP_AND/OP_OR; list = 2+ operands */
  N_IFEXP,    /* a = condition, b = value if true, c = value if false */
  N_STARRED,  /* *a: a tuple unpacked into a call's positional arguments (f(*t)) */
  N_NAMEDEXPR,/* a := b: a = the target name, b = the value, which is also the result */
  /* ---- statements ---- */
  N_EXPR_STMT,  /* a = expression */
  N_ASSIGN,     /* list = targets (a = b = v has two), a = value */
  N_AUGASSIGN,  /* op, a = target, b = value */
  N_ANNASSIGN,  /* a = target name, b = annotation, c = value or NULL */
  N_IF,         /* a = condition, body, orelse (an elif is an N_IF alone in orelse) */
  N_WHILE,      /* a = condition, body, orelse (the else of while...else) */
  N_FOR,        /* a = target (N_NAME or N_TUPLE), b = iterable, body, orelse */
  N_BREAK,
  N_CONTINUE,
  N_RETURN,     /* a = value or NULL */
  N_PASS,
  N_ASSERT,     /* a = condition, b = message or NULL; str = the failure's text, set by
                   type inference (infer_checks.c) */
  N_RAISE,      /* a = exception (a class or a call of one) or NULL (a bare re-raise),
                   b = the `from` cause or NULL; str as N_ASSERT's */
  N_FUNCDEF,    /* str = name, params = N_PARAM nodes, decorators, body,
                   a = return annotation or NULL */
  N_PARAM,      /* str = name, a = annotation or NULL, b = default value or NULL */
  N_IMPORT,     /* list = N_ALIAS nodes: import numba.cuda as cuda */
  N_IMPORTFROM, /* str = module ("numba.cuda"), list = N_ALIAS nodes */
  N_ALIAS,      /* str = dotted name, str2 = `as` name or NULL */
  N_HOST,       /* a top-level statement kcc does not compile (host Python, parse.c);
                   for a class, str2 = its first base's last dotted part:
                   list = N_NAME nodes it binds at module level; str = why it is not the
                   kernel language (the first error parsing it met), a = an N_PASS whose
                   span is that error's */
  N_ENUM,       /* class NAME(IntEnum): at module level (parse.c): str = NAME, body =
                   its members as N_ASSIGNs to names spelled "NAME.MEMBER" */
  N_MODULE      /* body = top-level statements */
} node_kind;

typedef enum op_kind {
  OP_NONE,
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_MATMUL,
  OP_LSHIFT, OP_RSHIFT, OP_BITAND, OP_BITOR, OP_BITXOR,
  OP_NEG, OP_POS, OP_INVERT, OP_NOT,
  OP_AND, OP_OR,
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_IS, OP_ISNOT, OP_IN, OP_NOTIN
} op_kind;

typedef struct node node;

typedef struct node_list {
  node **items;
  int len, cap;
} node_list;

struct symbol; /* a resolved name: local, constant, function, builtin (infer.c) */

struct node {
  node_kind kind;
  span sp;
  op_kind op;
  /* literals and names */
  int64_t ival;
  uint64_t uval;
  bool big;          /* N_INT: value above INT64_MAX, kept in uval */
  bool unwrap;       /* N_NAME, N_CALL: its value is an Optional used as its element
                        (ty the element; type inference sets it, code generation
                        extracts the value) */
  double fval;
  const char *str;
  const char *str2;
  /* children */
  node *a, *b, *c;
  node_list list;
  node_list kwargs;
  node_list body, orelse;
  node_list params;
  node_list decorators;
  op_kind *cmp_ops;  /* N_COMPARE: list.len - 1 entries */
  /* filled by type inference */
  const type *ty;
  struct symbol *sym;
  bool weak;         /* a literal (or constant expression of literals) whose type
                        may adapt to the other operand */
  const struct builtin *bi; /* the builtin a name, attribute or call refers to
                        (src/builtins/builtin.h), or NULL */
  int aux;           /* stage-private integer (e.g. a tuple index) */
  void *aux_ptr;     /* stage-private pointer */
};

node *node_new(arena *a, node_kind kind, span sp);
void node_push(arena *a, node_list *l, node *n);
const char *node_kind_name(node_kind k);
const char *op_symbol(op_kind op);   /* "+", "//", "<=", "and" ... */
/* Visit n and every node under it, depth first (an inner function's body is not
 * entered), until visit returns true; returns whether it did. */
typedef bool (*ast_visit_fn)(const node *n, void *ud);
bool ast_visit(const node *n, ast_visit_fn visit, void *ud);
bool ast_visit_list(const node_list *l, ast_visit_fn visit, void *ud);
/* Visit statement s, then the statements of its blocks (if, while and for bodies and
 * else blocks; an inner def's body is not entered), in source order, until visit returns
 * true; returns whether it did. `loops` counts the loops around a statement from where
 * the walk began (a loop's else block is outside the loop), for break and continue. The
 * statement walks of funcval.c and host_regions.c go through here and
 * ast_assign_targets, so a new statement with a block, or one that assigns, is taught
 * to them in this file. */
typedef bool (*ast_stmt_fn)(const node *s, int loops, void *ud);
bool ast_visit_stmt(const node *s, ast_stmt_fn visit, void *ud);
bool ast_visit_stmts(const node_list *body, ast_stmt_fn visit, void *ud);
/* Call target(t, ud) for each target statement s assigns (a = b = v: a and b; x += 1,
 * x: int = 0 and `for x in`: x; a tuple or a[i] is one target); none for others. */
typedef void (*ast_target_fn)(const node *t, void *ud);
void ast_assign_targets(const node *s, ast_target_fn target, void *ud);
/* The extents of a constant nested tuple v (a folded module constant), 1 to KC_MAX_DIMS
 * deep and rectangular, into dims (zeroed by the caller) and *ndim (0 first); false
 * when it is not one. depth: 0. */
bool ast_tuple_shape(const node *v, int depth, int64_t *dims, int *ndim);
/* Print the tree, one node per line with its span, for `kcc compile --emit=ast`. */
char *ast_dump(arena *a, const node *module);

#endif
