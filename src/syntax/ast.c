/*
 * ast.c — building and printing the syntax tree. Nodes are zeroed arena memory, so a
 * fresh node has no children, no type and an empty list of everything. ast_dump is
 * what `kcc compile --emit=ast` prints and what the parser tests compare against:
 * one node per line, indented by depth, with its key fields and span.
 */
#include "ast.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

node *node_new(arena *a, node_kind kind, span sp) {
  node *n = arena_alloc(a, sizeof *n);
  if (!n)
    return NULL;
  n->kind = kind;
  n->sp = sp;
  return n;
}

/* Grows by doubling; the old array stays in the arena. */
void node_push(arena *a, node_list *l, node *n) {
  if (l->len == l->cap) {
    int cap = l->cap ? l->cap * 2 : 4;
    node **items = arena_alloc(a, sizeof(node *) * (size_t)cap);
    if (!items)
      return;
    if (l->len)
      memcpy(items, l->items, sizeof(node *) * (size_t)l->len);
    l->items = items;
    l->cap = cap;
  }
  l->items[l->len++] = n;
}

const char *node_kind_name(node_kind k) {
  static const char *const names[] = {
    [N_INT] = "Int", [N_FLOAT] = "Float", [N_IMAG] = "Imag", [N_COMPLEX] = "Complex",
    [N_BOOL] = "Bool", [N_STR] = "Str", [N_NONE] = "None", [N_NAME] = "Name", [N_ATTR] = "Attr",
    [N_CALL] = "Call", [N_KEYWORD] = "Keyword", [N_INDEX] = "Index",
    [N_SLICE] = "Slice", [N_TUPLE] = "Tuple", [N_LIST] = "List", [N_BINOP] = "BinOp",
    [N_UNARY] = "Unary", [N_COMPARE] = "Compare", [N_BOOLOP] = "BoolOp",
    [N_IFEXP] = "IfExp", [N_STARRED] = "Starred", [N_NAMEDEXPR] = "NamedExpr", [N_EXPR_STMT] = "Expr", [N_ASSIGN] = "Assign",
    [N_AUGASSIGN] = "AugAssign", [N_ANNASSIGN] = "AnnAssign", [N_IF] = "If",
    [N_WHILE] = "While", [N_FOR] = "For", [N_BREAK] = "Break",
    [N_CONTINUE] = "Continue", [N_RETURN] = "Return", [N_PASS] = "Pass",
    [N_ASSERT] = "Assert", [N_RAISE] = "Raise",
    [N_FUNCDEF] = "FuncDef", [N_PARAM] = "Param", [N_IMPORT] = "Import",
    [N_IMPORTFROM] = "ImportFrom", [N_ALIAS] = "Alias", [N_HOST] = "Host", [N_ENUM] = "Enum", [N_MODULE] = "Module",
  };
  if ((unsigned)k < sizeof names / sizeof names[0] && names[k])
    return names[k];
  return "?";
}

const char *op_symbol(op_kind op) {
  static const char *const syms[] = {
    [OP_NONE] = "", [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
    [OP_FLOORDIV] = "//", [OP_MOD] = "%", [OP_POW] = "**", [OP_MATMUL] = "@",
    [OP_LSHIFT] = "<<", [OP_RSHIFT] = ">>", [OP_BITAND] = "&", [OP_BITOR] = "|",
    [OP_BITXOR] = "^", [OP_NEG] = "-", [OP_POS] = "+", [OP_INVERT] = "~",
    [OP_NOT] = "not", [OP_AND] = "and", [OP_OR] = "or", [OP_EQ] = "==",
    [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
    [OP_IS] = "is", [OP_ISNOT] = "is not", [OP_IN] = "in", [OP_NOTIN] = "not in",
  };
  if ((unsigned)op < sizeof syms / sizeof syms[0] && syms[op])
    return syms[op];
  return "?";
}

/* ---- ast_dump ---- */

typedef struct dump_buf {
  arena *ar;
  char *s;
  size_t len, cap;
} dump_buf;

static void dump_printf(dump_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void dump_printf(dump_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 1024;
    while (cap < b->len + (size_t)n + 1)
      cap *= 2;
    char *s = arena_alloc(b->ar, cap);
    if (!s)
      return;
    if (b->len)
      memcpy(s, b->s, b->len);
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* A string literal's contents, escaped so the dump stays one line per node. */
static void dump_quoted(dump_buf *b, const char *s) {
  dump_printf(b, " \"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      dump_printf(b, "\\%c", c);
    else if (c == '\n')
      dump_printf(b, "\\n");
    else if (c < 0x20 || c == 0x7f)
      dump_printf(b, "\\x%02x", c);
    else
      dump_printf(b, "%c", c);
  }
  dump_printf(b, "\"");
}

/* The key fields of one node, after its kind name. */
static void dump_fields(dump_buf *b, const node *n) {
  switch (n->kind) {
  case N_INT:
    if (n->big)
      dump_printf(b, " %" PRIu64, n->uval);
    else
      dump_printf(b, " %" PRId64, n->ival);
    break;
  case N_FLOAT:
  case N_IMAG:
    dump_printf(b, " %.17g", n->fval);
    break;
  case N_BOOL:
    dump_printf(b, " %s", n->ival ? "True" : "False");
    break;
  case N_STR:
    dump_quoted(b, n->str ? n->str : "");
    break;
  case N_BINOP:
  case N_UNARY:
  case N_BOOLOP:
    dump_printf(b, " %s", op_symbol(n->op));
    break;
  case N_AUGASSIGN:
    dump_printf(b, " %s=", op_symbol(n->op));
    break;
  case N_COMPARE:
    for (int i = 0; i + 1 < n->list.len; i++)
      dump_printf(b, " %s", op_symbol(n->cmp_ops[i]));
    break;
  case N_ALIAS:
    dump_printf(b, " %s", n->str ? n->str : "");
    if (n->str2)
      dump_printf(b, " as %s", n->str2);
    break;
  default:
    if (n->str)
      dump_printf(b, " %s", n->str);
    break;
  }
  dump_printf(b, " @%d:%d-%d:%d\n", n->sp.line, n->sp.col, n->sp.end_line, n->sp.end_col);
}

static void dump_node(dump_buf *b, const node *n, int depth);

static void dump_list(dump_buf *b, const char *label, const node_list *l, int depth) {
  if (l->len == 0)
    return;
  if (label) {
    dump_printf(b, "%*s%s:\n", depth * 2, "", label);
    depth++;
  }
  for (int i = 0; i < l->len; i++)
    dump_node(b, l->items[i], depth);
}

/* Statement kinds whose lists need a label to be read unambiguously. */
static void dump_children(dump_buf *b, const node *n, int depth) {
  bool stmt = n->kind >= N_EXPR_STMT;
  dump_list(b, stmt && n->kind != N_MODULE ? "decorators" : NULL, &n->decorators, depth);
  dump_list(b, NULL, &n->params, depth);
  if (n->kind == N_ASSIGN) {
    /* targets first, as written: a = b = value */
    dump_list(b, NULL, &n->list, depth);
    dump_node(b, n->a, depth);
    return;
  }
  if (n->kind == N_FUNCDEF && n->a) {
    dump_printf(b, "%*sreturns:\n", depth * 2, "");
    dump_node(b, n->a, depth + 1);
  } else if (n->a) {
    dump_node(b, n->a, depth);
  }
  if (n->b)
    dump_node(b, n->b, depth);
  if (n->c)
    dump_node(b, n->c, depth);
  dump_list(b, NULL, &n->list, depth);
  dump_list(b, "kwargs", &n->kwargs, depth);
  dump_list(b, n->kind == N_MODULE ? NULL : "body", &n->body, depth);
  dump_list(b, "else", &n->orelse, depth);
}

static void dump_node(dump_buf *b, const node *n, int depth) {
  if (!n) {
    dump_printf(b, "%*s<null>\n", depth * 2, "");
    return;
  }
  dump_printf(b, "%*s%s", depth * 2, "", node_kind_name(n->kind));
  dump_fields(b, n);
  /* An N_SLICE's absent bounds matter: a[1:] is not a[:1]. */
  if (n->kind == N_SLICE) {
    const node *parts[3] = {n->a, n->b, n->c};
    for (int i = 0; i < 3; i++)
      dump_node(b, parts[i], depth + 1);
    return;
  }
  dump_children(b, n, depth + 1);
}

char *ast_dump(arena *a, const node *module) {
  dump_buf b = {a, NULL, 0, 0};
  dump_node(&b, module, 0);
  return b.s ? b.s : arena_strdup(a, "");
}

bool ast_tuple_shape(const node *v, int depth, int64_t *dims, int *ndim) {
  if (v->kind != N_TUPLE) {
    if (depth == 0) return false;
    if (*ndim == 0) *ndim = depth;
    return *ndim == depth;
  }
  if (depth >= KC_MAX_DIMS || v->list.len == 0) return false;
  if (dims[depth] == 0) dims[depth] = v->list.len;
  if (dims[depth] != v->list.len) return false;
  for (int i = 0; i < v->list.len; i++)
    if (!ast_tuple_shape(v->list.items[i], depth + 1, dims, ndim)) return false;
  return true;
}

bool ast_visit(const node *n, ast_visit_fn visit, void *ud) {
  if (!n) return false;
  if (visit(n, ud)) return true;
  if (n->kind == N_FUNCDEF) return false;
  return ast_visit(n->a, visit, ud) || ast_visit(n->b, visit, ud) ||
         ast_visit(n->c, visit, ud) || ast_visit_list(&n->list, visit, ud) ||
         ast_visit_list(&n->kwargs, visit, ud) || ast_visit_list(&n->body, visit, ud) ||
         ast_visit_list(&n->orelse, visit, ud);
}

bool ast_visit_list(const node_list *l, ast_visit_fn visit, void *ud) {
  for (int i = 0; i < l->len; i++)
    if (ast_visit(l->items[i], visit, ud)) return true;
  return false;
}

static bool visit_stmts(const node_list *body, int loops, ast_stmt_fn visit, void *ud);

static bool visit_stmt(const node *s, int loops, ast_stmt_fn visit, void *ud) {
  if (visit(s, loops, ud)) return true;
  if (s->kind == N_FUNCDEF) return false;
  bool loop = s->kind == N_WHILE || s->kind == N_FOR;
  return visit_stmts(&s->body, loops + loop, visit, ud) ||
         visit_stmts(&s->orelse, loops, visit, ud);
}

static bool visit_stmts(const node_list *body, int loops, ast_stmt_fn visit, void *ud) {
  for (int i = 0; i < body->len; i++)
    if (visit_stmt(body->items[i], loops, visit, ud)) return true;
  return false;
}

bool ast_visit_stmt(const node *s, ast_stmt_fn visit, void *ud) {
  return visit_stmt(s, 0, visit, ud);
}

bool ast_visit_stmts(const node_list *body, ast_stmt_fn visit, void *ud) {
  return visit_stmts(body, 0, visit, ud);
}

/* The targets of n := v within expression e (not within nested statements). */
static void walrus_targets(const node *e, ast_target_fn target, void *ud) {
  if (!e || e->kind == N_FUNCDEF) return;
  if (e->kind == N_NAMEDEXPR) target(e->a, ud);
  walrus_targets(e->a, target, ud);
  walrus_targets(e->b, target, ud);
  walrus_targets(e->c, target, ud);
  for (int i = 0; i < e->list.len; i++) walrus_targets(e->list.items[i], target, ud);
  for (int i = 0; i < e->kwargs.len; i++) walrus_targets(e->kwargs.items[i], target, ud);
}

void ast_assign_targets(const node *s, ast_target_fn target, void *ud) {
  if (s->kind == N_ASSIGN)
    for (int i = 0; i < s->list.len; i++) target(s->list.items[i], ud);
  else if (s->kind == N_AUGASSIGN || s->kind == N_ANNASSIGN || s->kind == N_FOR)
    target(s->a, ud);
  if (s->kind == N_FUNCDEF) return;
  /* n := v in the statement's own expressions (its nested blocks are statements of
     their own, visited in turn) */
  walrus_targets(s->a, target, ud);
  walrus_targets(s->b, target, ud);
  walrus_targets(s->c, target, ud);
  for (int i = 0; i < s->list.len; i++) walrus_targets(s->list.items[i], target, ud);
}
