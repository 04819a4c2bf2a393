/*
 * test_parser.c — the trees the parser builds (precedence, chains, statements, spans),
 * the errors it reports with their line and column (unsupported Python first), its
 * recovery after an error, and its limits on depth (errors, never a crash).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static arena ar;
static jmp_buf oom;
static diag_sink d;
static char errors[8192];

static void on_diag(void *ud, const kc_diagnostic *kd) {
  (void)ud;
  char line[512];
  if (kd->severity != KC_SEV_ERROR)
    return;
  snprintf(line, sizeof line, "%d:%d: %s\n", kd->line, kd->col, kd->message);
  strncat(errors, line, sizeof errors - strlen(errors) - 1);
}

static node *parsen(const char *src, size_t len) {
  arena_free(&ar);
  arena_init(&ar, NULL, NULL);
  arena_set_oom(&ar, &oom);
  errors[0] = '\0';
  diag_init(&d, &ar, "t.k", src, len);
  d.emit = on_diag;
  node *m = parse_kernel_source(&ar, &d, src, len);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(m->kind, N_MODULE);
  return m;
}

static node *parse(const char *src) { return parsen(src, strlen(src)); }

static void teardown(void) { arena_free(&ar); }

/* ---- a compact printer for expressions: (op a b) ---- */

static void sx(char *out, size_t cap, const node *n);

static void sx_cat(char *out, size_t cap, const char *s) {
  strncat(out, s, cap - strlen(out) - 1);
}

static void sx_list(char *out, size_t cap, const char *head, const node_list *l) {
  sx_cat(out, cap, "(");
  sx_cat(out, cap, head);
  for (int i = 0; i < l->len; i++) {
    sx_cat(out, cap, " ");
    sx(out, cap, l->items[i]);
  }
  sx_cat(out, cap, ")");
}

static void sx(char *out, size_t cap, const node *n) {
  char buf[128];
  if (!n) {
    sx_cat(out, cap, "_");
    return;
  }
  switch (n->kind) {
  case N_INT: snprintf(buf, sizeof buf, "%lld", (long long)n->ival); sx_cat(out, cap, buf); break;
  case N_FLOAT: snprintf(buf, sizeof buf, "%g", n->fval); sx_cat(out, cap, buf); break;
  case N_IMAG: snprintf(buf, sizeof buf, "%gj", n->fval); sx_cat(out, cap, buf); break;
  case N_NAME: sx_cat(out, cap, n->str); break;
  case N_STR: snprintf(buf, sizeof buf, "'%s'", n->str); sx_cat(out, cap, buf); break;
  case N_BOOL: sx_cat(out, cap, n->ival ? "True" : "False"); break;
  case N_NONE: sx_cat(out, cap, "None"); break;
  case N_BINOP:
    snprintf(buf, sizeof buf, "(%s ", op_symbol(n->op));
    sx_cat(out, cap, buf);
    sx(out, cap, n->a);
    sx_cat(out, cap, " ");
    sx(out, cap, n->b);
    sx_cat(out, cap, ")");
    break;
  case N_UNARY:
    snprintf(buf, sizeof buf, "(%s ", op_symbol(n->op));
    sx_cat(out, cap, buf);
    sx(out, cap, n->a);
    sx_cat(out, cap, ")");
    break;
  case N_COMPARE:
    sx_cat(out, cap, "(cmp ");
    for (int i = 0; i < n->list.len; i++) {
      if (i) {
        sx_cat(out, cap, " ");
        sx_cat(out, cap, op_symbol(n->cmp_ops[i - 1]));
        sx_cat(out, cap, " ");
      }
      sx(out, cap, n->list.items[i]);
    }
    sx_cat(out, cap, ")");
    break;
  case N_BOOLOP: sx_list(out, cap, op_symbol(n->op), &n->list); break;
  case N_TUPLE: sx_list(out, cap, "tuple", &n->list); break;
  case N_LIST: sx_list(out, cap, "list", &n->list); break;
  case N_IFEXP:
    sx_cat(out, cap, "(if ");
    sx(out, cap, n->a);
    sx_cat(out, cap, " ");
    sx(out, cap, n->b);
    sx_cat(out, cap, " ");
    sx(out, cap, n->c);
    sx_cat(out, cap, ")");
    break;
  case N_ATTR:
    sx_cat(out, cap, "(. ");
    sx(out, cap, n->a);
    sx_cat(out, cap, " ");
    sx_cat(out, cap, n->str);
    sx_cat(out, cap, ")");
    break;
  case N_INDEX:
    sx_cat(out, cap, "([] ");
    sx(out, cap, n->a);
    sx_cat(out, cap, " ");
    sx(out, cap, n->b);
    sx_cat(out, cap, ")");
    break;
  case N_SLICE:
    sx_cat(out, cap, "(: ");
    sx(out, cap, n->a);
    sx_cat(out, cap, " ");
    sx(out, cap, n->b);
    sx_cat(out, cap, " ");
    sx(out, cap, n->c);
    sx_cat(out, cap, ")");
    break;
  case N_CALL:
    sx_cat(out, cap, "(call ");
    sx(out, cap, n->a);
    for (int i = 0; i < n->list.len; i++) {
      sx_cat(out, cap, " ");
      sx(out, cap, n->list.items[i]);
    }
    for (int i = 0; i < n->kwargs.len; i++) {
      sx_cat(out, cap, " ");
      sx_cat(out, cap, n->kwargs.items[i]->str);
      sx_cat(out, cap, "=");
      sx(out, cap, n->kwargs.items[i]->a);
    }
    sx_cat(out, cap, ")");
    break;
  default: sx_cat(out, cap, node_kind_name(n->kind)); break;
  }
}

/* The tree of one expression statement. */
static const char *expr(const char *src) {
  static char out[16384];
  char text[1024];
  snprintf(text, sizeof text, "%s\n", src);
  node *m = parse(text);
  out[0] = '\0';
  if (m->body.len == 1 && m->body.items[0]->kind == N_EXPR_STMT)
    sx(out, sizeof out, m->body.items[0]->a);
  else
    snprintf(out, sizeof out, "<%d statements; errors: %s>", m->body.len, errors);
  return out;
}

START_TEST(precedence) {
  ck_assert_str_eq(expr("1 + 2 * 3"), "(+ 1 (* 2 3))");
  ck_assert_str_eq(expr("1 - 2 - 3"), "(- (- 1 2) 3)");
  ck_assert_str_eq(expr("(1 - 2) * 3"), "(* (- 1 2) 3)");
  ck_assert_str_eq(expr("-x ** 2"), "(- (** x 2))");
  ck_assert_str_eq(expr("2 ** 3 ** 2"), "(** 2 (** 3 2))");
  ck_assert_str_eq(expr("2 ** -1"), "(** 2 (- 1))");
  ck_assert_str_eq(expr("a // b % c / d @ e"), "(@ (/ (% (// a b) c) d) e)");
  ck_assert_str_eq(expr("a | b ^ c & d << 1 + 2"), "(| a (^ b (& c (<< d (+ 1 2)))))");
  ck_assert_str_eq(expr("a >> 1 << 2"), "(<< (>> a 1) 2)");
  ck_assert_str_eq(expr("~a + -b * +c"), "(+ (~ a) (* (- b) (+ c)))");
  ck_assert_str_eq(expr("not a == b"), "(not (cmp a == b))");
  ck_assert_str_eq(expr("a or b and not c"), "(or a (and b (not c)))");
  ck_assert_str_eq(expr("a or b or c"), "(or a b c)");
  ck_assert_str_eq(expr("a and b and c or d"), "(or (and a b c) d)");
  ck_assert_str_eq(expr("x if a or b else y"), "(if (or a b) x y)");
  ck_assert_str_eq(expr("x if a else y if b else z"), "(if a x (if b y z))");
  ck_assert_str_eq(expr("a + b < c * d"), "(cmp (+ a b) < (* c d))");
  ck_assert_str_eq(expr("a < b | c"), "(cmp a < (| b c))");
}
END_TEST

START_TEST(comparison_chains) {
  ck_assert_str_eq(expr("0 <= i < n"), "(cmp 0 <= i < n)");
  ck_assert_str_eq(expr("a == b != c > d >= e"), "(cmp a == b != c > d >= e)");
  ck_assert_str_eq(expr("a is not None"), "(cmp a is not None)");
  ck_assert_str_eq(expr("a is None"), "(cmp a is None)");
  ck_assert_str_eq(expr("a not in b"), "(cmp a not in b)");
  ck_assert_str_eq(expr("a in b"), "(cmp a in b)");
  ck_assert_str_eq(expr("(a < b) < c"), "(cmp (cmp a < b) < c)");
  /* long chains keep their ops in order (cmp_ops grows) */
  ck_assert_str_eq(expr("a < b < c < d < e < f < g < h < i < j"),
                   "(cmp a < b < c < d < e < f < g < h < i < j)");
}
END_TEST

START_TEST(primaries) {
  ck_assert_str_eq(expr("cuda.threadIdx.x"), "(. (. cuda threadIdx) x)");
  ck_assert_str_eq(expr("f(a, b + 1, key=2)"), "(call f a (+ b 1) key=2)");
  ck_assert_str_eq(expr("f()"), "(call f)");
  ck_assert_str_eq(expr("f(a,)"), "(call f a)");
  ck_assert_str_eq(expr("a[i]"), "([] a i)");
  ck_assert_str_eq(expr("a[i, j]"), "([] a (tuple i j))");
  ck_assert_str_eq(expr("a[i,]"), "([] a (tuple i))");
  ck_assert_str_eq(expr("a[1:n:2]"), "([] a (: 1 n 2))");
  ck_assert_str_eq(expr("a[:, j]"), "([] a (tuple (: _ _ _) j))");
  ck_assert_str_eq(expr("a[::-1]"), "([] a (: _ _ (- 1)))");
  ck_assert_str_eq(expr("a[1:]"), "([] a (: 1 _ _))");
  ck_assert_str_eq(expr("a.shape[0]"), "([] (. a shape) 0)");
  ck_assert_str_eq(expr("f(x)(y)[0].z"), "(. ([] (call (call f x) y) 0) z)");
  ck_assert_str_eq(expr("(a, b)"), "(tuple a b)");
  ck_assert_str_eq(expr("(a,)"), "(tuple a)");
  ck_assert_str_eq(expr("()"), "(tuple)");
  ck_assert_str_eq(expr("a, b"), "(tuple a b)");
  ck_assert_str_eq(expr("['f4(f4)', 'f8(f8)',]"), "(list 'f4(f4)' 'f8(f8)')");
  ck_assert_str_eq(expr("[]"), "(list)");
  ck_assert_str_eq(expr("True, False, None, 1.5, 2j"), "(tuple True False None 1.5 2j)");
  ck_assert_str_eq(expr("'a' \"b\""), "'ab'");
  ck_assert_str_eq(expr("float32[:, ::1]"), "([] float32 (tuple (: _ _ _) (: _ _ 1)))");
}
END_TEST

START_TEST(expression_spans) {
  node *m = parse("y = (a + b) * c[1]\n");
  node *as = m->body.items[0], *mul = as->a;
  ck_assert_int_eq(as->sp.col, 1);
  ck_assert_int_eq(as->sp.end_col, 19);
  ck_assert_int_eq(mul->kind, N_BINOP);
  ck_assert_int_eq(mul->sp.col, 5);
  ck_assert_int_eq(mul->sp.end_col, 19);
  ck_assert_int_eq(mul->a->sp.col, 6);   /* a + b, without its parentheses */
  ck_assert_int_eq(mul->a->sp.end_col, 11);
  ck_assert_int_eq(mul->b->sp.col, 15);  /* c[1] */
  ck_assert_int_eq(mul->b->sp.end_col, 19);
  m = parse("z = f(1,\n      2)\n");
  node *call = m->body.items[0]->a;
  ck_assert_int_eq(call->sp.line, 1);
  ck_assert_int_eq(call->sp.col, 5);
  ck_assert_int_eq(call->sp.end_line, 2);
  ck_assert_int_eq(call->sp.end_col, 9);
}
END_TEST

START_TEST(assignments) {
  node *m = parse("a = b = 1\nx, y = f(a)\n(p, q) = 1, 2\ni: int32 = 0\nj: float32\n"
                  "a[i] += 1\nc.d **= 2\n");
  ck_assert_str_eq(errors, "");
  ck_assert_int_eq(m->body.len, 7);
  node *s = m->body.items[0];
  ck_assert_int_eq(s->kind, N_ASSIGN);
  ck_assert_int_eq(s->list.len, 2);
  ck_assert_str_eq(s->list.items[0]->str, "a");
  ck_assert_str_eq(s->list.items[1]->str, "b");
  ck_assert_int_eq(s->a->ival, 1);
  s = m->body.items[1];
  ck_assert_int_eq(s->list.items[0]->kind, N_TUPLE);
  ck_assert_int_eq(s->list.items[0]->list.len, 2);
  ck_assert_int_eq(s->a->kind, N_CALL);
  s = m->body.items[2];
  ck_assert_int_eq(s->list.items[0]->kind, N_TUPLE);
  ck_assert_int_eq(s->a->kind, N_TUPLE);
  s = m->body.items[3];
  ck_assert_int_eq(s->kind, N_ANNASSIGN);
  ck_assert_str_eq(s->a->str, "i");
  ck_assert_str_eq(s->b->str, "int32");
  ck_assert_int_eq(s->c->ival, 0);
  s = m->body.items[4];
  ck_assert_int_eq(s->kind, N_ANNASSIGN);
  ck_assert_ptr_null(s->c);
  s = m->body.items[5];
  ck_assert_int_eq(s->kind, N_AUGASSIGN);
  ck_assert_int_eq(s->op, OP_ADD);
  ck_assert_int_eq(s->a->kind, N_INDEX);
  s = m->body.items[6];
  ck_assert_int_eq(s->op, OP_POW);
  ck_assert_int_eq(s->a->kind, N_ATTR);
}
END_TEST

START_TEST(control_flow) {
  node *m = parse("if a:\n  x = 1\nelif b:\n  x = 2\nelif c: x = 3\nelse:\n  x = 4\n"
                  "while i < n:\n  i += 1\n  if i: break\nelse:\n  pass\n"
                  "for i, j in z:\n  continue\nelse:\n  return\n"
                  "for k in range(0, n, -1): pass\n");
  ck_assert_str_eq(errors, "");
  ck_assert_int_eq(m->body.len, 4);
  node *s = m->body.items[0];
  ck_assert_int_eq(s->kind, N_IF);
  ck_assert_int_eq(s->sp.line, 1);
  ck_assert_int_eq(s->sp.end_line, 7);
  ck_assert_int_eq(s->orelse.len, 1);
  node *e1 = s->orelse.items[0];
  ck_assert_int_eq(e1->kind, N_IF);
  ck_assert_str_eq(e1->a->str, "b");
  ck_assert_int_eq(e1->sp.line, 3);
  node *e2 = e1->orelse.items[0];
  ck_assert_str_eq(e2->a->str, "c");
  ck_assert_int_eq(e2->body.len, 1);
  ck_assert_int_eq(e2->orelse.len, 1);
  ck_assert_int_eq(e2->orelse.items[0]->kind, N_ASSIGN);
  s = m->body.items[1];
  ck_assert_int_eq(s->kind, N_WHILE);
  ck_assert_int_eq(s->body.len, 2);
  ck_assert_int_eq(s->body.items[1]->body.items[0]->kind, N_BREAK);
  ck_assert_int_eq(s->orelse.items[0]->kind, N_PASS);
  s = m->body.items[2];
  ck_assert_int_eq(s->kind, N_FOR);
  ck_assert_int_eq(s->a->kind, N_TUPLE);
  ck_assert_int_eq(s->body.items[0]->kind, N_CONTINUE);
  ck_assert_int_eq(s->orelse.items[0]->kind, N_RETURN);
  ck_assert_ptr_null(s->orelse.items[0]->a);
  s = m->body.items[3];
  ck_assert_int_eq(s->b->kind, N_CALL);
  ck_assert_int_eq(s->b->list.len, 3);
}
END_TEST

START_TEST(functions_and_decorators) {
  node *m = parse("@cuda.jit\ndef k(a: float32[:], n: int32):\n    \"\"\"doc\"\"\"\n"
                  "    a[0] = n\n\n@cuda.jit(device=True)\ndef d(x, y) -> float32:\n"
                  "    return x, y\n@vectorize(['f4(f4)'], target='cuda')\n"
                  "@kernel\ndef v(x): return x\n");
  ck_assert_str_eq(errors, "");
  ck_assert_int_eq(m->body.len, 3);
  node *k = m->body.items[0];
  ck_assert_int_eq(k->kind, N_FUNCDEF);
  ck_assert_str_eq(k->str, "k");
  ck_assert_int_eq(k->decorators.len, 1);
  ck_assert_int_eq(k->decorators.items[0]->kind, N_ATTR);
  ck_assert_int_eq(k->params.len, 2);
  ck_assert_str_eq(k->params.items[0]->str, "a");
  ck_assert_int_eq(k->params.items[0]->a->kind, N_INDEX);
  ck_assert_str_eq(k->params.items[1]->a->str, "int32");
  ck_assert_int_eq(k->body.len, 2);
  ck_assert_int_eq(k->body.items[0]->a->kind, N_STR);
  ck_assert_int_eq(k->sp.line, 2);
  ck_assert_int_eq(k->sp.end_line, 4);
  node *dv = m->body.items[1];
  ck_assert_int_eq(dv->decorators.items[0]->kind, N_CALL);
  ck_assert_str_eq(dv->decorators.items[0]->kwargs.items[0]->str, "device");
  ck_assert_str_eq(dv->a->str, "float32");
  ck_assert_int_eq(dv->body.items[0]->a->kind, N_TUPLE);
  node *v = m->body.items[2];
  ck_assert_int_eq(v->decorators.len, 2);
  ck_assert_int_eq(v->decorators.items[0]->list.items[0]->kind, N_LIST);
  ck_assert_int_eq(v->body.len, 1);
}
END_TEST

START_TEST(imports) {
  node *m = parse("import math\nimport numba.cuda as cuda, numpy as np\n"
                  "from numba import cuda, float32 as f32\nfrom numba import (\n  vectorize,\n"
                  "  int32,\n)\n");
  ck_assert_str_eq(errors, "");
  ck_assert_int_eq(m->body.len, 4);
  node *s = m->body.items[1];
  ck_assert_int_eq(s->kind, N_IMPORT);
  ck_assert_int_eq(s->list.len, 2);
  ck_assert_str_eq(s->list.items[0]->str, "numba.cuda");
  ck_assert_str_eq(s->list.items[0]->str2, "cuda");
  s = m->body.items[2];
  ck_assert_int_eq(s->kind, N_IMPORTFROM);
  ck_assert_str_eq(s->str, "numba");
  ck_assert_str_eq(s->list.items[1]->str, "float32");
  ck_assert_str_eq(s->list.items[1]->str2, "f32");
  ck_assert_ptr_null(s->list.items[0]->str2);
  ck_assert_int_eq(m->body.items[3]->list.len, 2);
}
END_TEST

START_TEST(semicolons_and_empty) {
  node *m = parse("a = 1; b = 2;\nc\n");
  ck_assert_int_eq(m->body.len, 3);
  m = parse("");
  ck_assert_int_eq(m->body.len, 0);
  ck_assert_int_eq(d.nerrors, 0);
  m = parse("\n\n# only a comment\n");
  ck_assert_int_eq(m->body.len, 0);
  ck_assert_int_eq(d.nerrors, 0);
  m = parsen("x = 1", 3); /* not NUL-terminated at len: "x =" */
  ck_assert_str_eq(errors, "1:4: expected an expression, found end of line\n");
}
END_TEST

START_TEST(ast_dump_text) {
  node *m = parse("def f(a: int32):\n    return -a[0] + 1\n");
  ck_assert_str_eq(ast_dump(&ar, m),
                   "Module @1:1-3:1\n"
                   "  FuncDef f @1:1-2:21\n"
                   "    Param a @1:7-1:15\n"
                   "      Name int32 @1:10-1:15\n"
                   "    body:\n"
                   "      Return @2:5-2:21\n"
                   "        BinOp + @2:12-2:21\n"
                   "          Unary - @2:12-2:17\n"
                   "            Index @2:13-2:17\n"
                   "              Name a @2:13-2:14\n"
                   "              Int 0 @2:15-2:16\n"
                   "          Int 1 @2:20-2:21\n");
  m = parse("a = b = 'x\\n'\n");
  ck_assert_str_eq(ast_dump(&ar, m),
                   "Module @1:1-2:1\n"
                   "  Assign @1:1-1:14\n"
                   "    Name a @1:1-1:2\n"
                   "    Name b @1:5-1:6\n"
                   "    Str \"x\\n\" @1:9-1:14\n");
  ck_assert_str_eq(node_kind_name(N_COMPARE), "Compare");
  ck_assert_str_eq(op_symbol(OP_ISNOT), "is not");
  ck_assert_str_eq(op_symbol(OP_FLOORDIV), "//");
}
END_TEST

/* ---- errors ---- */

static const char *errs(const char *src) {
  parse(src);
  return errors;
}

START_TEST(unsupported_python) {
  ck_assert_str_eq(errs("class Foo:\n    x = 1\ny = 2\n"), "1:1: classes are not supported in kernels\n");
  ck_assert_str_eq(errs("f = lambda a: a\n"), "1:5: lambda expressions are not supported in kernels\n");
  ck_assert_str_eq(errs("x = [i for i in y]\n"), "1:8: list comprehensions are not supported in kernels\n");
  ck_assert_str_eq(errs("x = sum(i for i in y)\n"), "1:11: generator expressions are not supported in kernels\n");
  ck_assert_str_eq(errs("x = {i for i in y}\n"), "1:5: dict and set displays are not supported in kernels\n");
  ck_assert_str_eq(errs("x = {1: 2}\n"), "1:5: dict and set displays are not supported in kernels\n");
  ck_assert_str_eq(errs("try:\n  pass\nfinally:\n  pass\n"),
                   "1:1: 'try' statements (exceptions) are not supported in kernels\n"
                   "3:1: 'try' statements (exceptions) are not supported in kernels\n");
  ck_assert_str_eq(errs("with a as b:\n  pass\n"), "1:1: 'with' statements are not supported in kernels\n");
  ck_assert_str_eq(errs("def g():\n  yield 1\n"), "2:3: generators ('yield') are not supported in kernels\n");
  ck_assert_str_eq(errs("def g():\n  x = yield\n"), "2:7: generators ('yield') are not supported in kernels\n");
  ck_assert_str_eq(errs("global x\n"), "1:1: 'global' declarations are not supported in kernels\n");
  ck_assert_str_eq(errs("nonlocal x\n"), "1:1: 'nonlocal' declarations are not supported in kernels\n");
  ck_assert_str_eq(errs("async def f(): pass\n"), "1:1: 'async' functions are not supported in kernels\n");
  ck_assert_str_eq(errs("x = await y\n"), "1:5: 'await' is not supported in kernels\n");
  ck_assert_str_eq(errs("del x\n"), "1:1: 'del' statements are not supported in kernels\n");
  /* assert and raise parse (infer_checks.c types them) */
  ck_assert_str_eq(errs("assert x\nassert x > 0, 'm'\n"), "");
  ck_assert_str_eq(errs("raise X\nraise X('m', 1)\nraise\nraise X from Y\n"), "");
  ck_assert_str_eq(errs("f(*args)\n"), "");   /* a tuple unpacked (typed by inference) */
  ck_assert_str_eq(errs("f(**kw)\n"), "1:3: star parameters and '**' unpacking ('*args', '**kwargs') are not supported in kernels (a call may unpack a tuple: f(*t))\n");
  ck_assert_str_eq(errs("def f(*args): pass\n"), "1:7: star parameters and '**' unpacking ('*args', '**kwargs') are not supported in kernels (a call may unpack a tuple: f(*t))\n");
  ck_assert_str_eq(errs("if (n := 10) > 5: pass\n"), "");   /* an assignment expression */
  ck_assert_int_ne(strlen(errs("(a.b := 1)\n")), 0);    /* its target is a name only */
  /* defaults parse, into the parameter's b (infer.c checks them) */
  node *m = parse("def f(a, b=1, c: int32 = 2.5): pass\n");
  ck_assert_str_eq(errors, "");
  node_list *ps = &m->body.items[0]->params;
  ck_assert_ptr_null(ps->items[0]->b);
  ck_assert_int_eq(ps->items[1]->b->ival, 1);
  ck_assert_str_eq(ps->items[2]->a->str, "int32");
  ck_assert_double_eq(ps->items[2]->b->fval, 2.5);
  ck_assert_str_eq(errs("from numba import *\n"), "1:19: 'from ... import *' is not supported in kernels\n");
  ck_assert_str_eq(errs("x = ...\n"), "1:5: '...' (Ellipsis) is not supported in kernels\n");
  ck_assert_str_eq(errs("x = f'{a}'\n"), "1:5: f-strings are not supported in kernels\n");
}
END_TEST

START_TEST(syntax_errors) {
  ck_assert_str_eq(errs("x = 1 2\n"), "1:7: expected end of line or ';', found '2'\n");
  ck_assert_str_eq(errs("x = 1 +\n"), "1:8: expected an expression, found end of line\n");
  ck_assert_str_eq(errs("if x\n  pass\n"), "1:5: expected ':', found end of line\n");
  ck_assert_str_eq(errs("if x:\npass\n"), "2:1: expected an indented block\n");
  ck_assert_str_eq(errs("if x:\n"), "2:1: expected an indented block\n");
  ck_assert_str_eq(errs("  x = 1\n"), "1:3: unexpected indent\n");
  ck_assert_str_eq(errs("x = 1\n    y = 2\n"), "2:5: unexpected indent\n");
  ck_assert_str_eq(errs("f(a b)\n"), "1:5: expected ')', found 'b'\n");
  ck_assert_str_eq(errs("x = 1 if y\n"), "1:11: expected else, found end of line\n");
  ck_assert_str_eq(errs("@cuda.jit\nx = 1\n"), "2:1: expected def, found 'x'\n");
  ck_assert_str_eq(errs("from a imp b\n"), "1:8: expected import, found 'imp'\n");
  ck_assert_str_eq(errs("if x = 1: pass\n"), "1:6: invalid syntax: '=' assigns; did you mean '=='?\n");
  ck_assert_str_eq(errs("else:\n  pass\n"), "1:1: 'else' without a matching 'if', 'for' or 'while'\n");
  ck_assert_str_eq(errs("def (x): pass\n"), "1:5: expected a name, found '('\n");
  ck_assert_str_eq(errs("f(a=1, 2)\n"), "1:8: positional argument follows keyword argument\n");
  ck_assert_str_eq(errs("f(a + 1=2)\n"), "1:3: expression cannot be a keyword argument name (did you mean '==' ?)\n");
  ck_assert_str_eq(errs("1 = x\n"), "1:1: cannot assign to a literal\n");
  ck_assert_str_eq(errs("f() = 3\n"), "1:1: cannot assign to a function call\n");
  ck_assert_str_eq(errs("a < b = 3\n"), "1:1: cannot assign to a comparison\n");
  ck_assert_str_eq(errs("x, 1 = a\n"), "1:4: cannot assign to a literal\n");
  ck_assert_str_eq(errs("x, y += 1\n"), "1:1: cannot assign to a tuple\n");
  ck_assert_str_eq(errs("a.b: int32 = 1\n"), "1:1: only a plain name can be annotated in a kernel\n");
  ck_assert_str_eq(errs("for 1 in x: pass\n"), "1:5: cannot assign to a literal\n");
  ck_assert_str_eq(errs("x = (1,\n"), "1:5: '(' was never closed\n");
  ck_assert_str_eq(errs("x = (a + 1\nif i < n:\n    pass\n"),
                   "1:5: '(' was never closed\n2:9: expected else, found ':'\n");
  ck_assert_str_eq(errs("x = 1)\n"), "1:6: unmatched ')'\n");
  ck_assert_str_eq(errs("if x:\n    a\n  b\n"), "3:3: unindent does not match any outer indentation level\n");
  ck_assert_str_eq(errs("if x:\n    a\nif y:\n\tb\n"), "4:1: inconsistent use of tabs and spaces in indentation\n");
  ck_assert_str_eq(errs("def f():\n    x = 1\n\ty = 2\n"), "3:1: inconsistent use of tabs and spaces in indentation\n");
  ck_assert_str_eq(errs("x = 99999999999999999999\n"), "1:5: integer literal too large (the limit is 2**64 - 1)\n");
}
END_TEST

START_TEST(recovery_reports_several) {
  ck_assert_str_eq(errs("x = 1 2\ny = 3\nz = = 4\nclass A:\n    pass\nw = )\n"),
                   "1:7: expected end of line or ';', found '2'\n"
                   "3:5: invalid syntax: '=' assigns; did you mean '=='?\n"
                   "4:1: classes are not supported in kernels\n"
                   "6:5: unmatched ')'\n");
  /* the good statements are kept */
  node *m = parse("a = 1\nb = = 2\nc = 3\n");
  ck_assert_int_eq(m->body.len, 2);
  ck_assert_int_eq(d.nerrors, 1);
  /* an error inside brackets does not swallow the rest of the file */
  ck_assert_str_eq(errs("x = foo(a b,\n        c)\ny = 1\nz = 2 3\n"),
                   "1:11: expected ')', found 'b'\n"
                   "4:7: expected end of line or ';', found '3'\n");
  /* inside a function body */
  m = parse("def f():\n    x = = 1\n    y = 2\ndef g():\n    pass\n");
  ck_assert_int_eq(d.nerrors, 1);
  ck_assert_int_eq(m->body.len, 2);
  ck_assert_int_eq(m->body.items[0]->body.len, 1);
}
END_TEST

START_TEST(non_utf8_source) {
  ck_assert_str_eq(errs("x = 1\n# caf\xe9\ny = \xff\n"), "2:6: invalid byte 0xe9: source must be UTF-8\n");
  ck_assert_str_eq(errs("\xfe\xff"), "1:1: invalid byte 0xfe: source must be UTF-8\n");
}
END_TEST

/* ---- limits: errors, not stack overflows ---- */

static char *repeat(const char *head, const char *unit, int n, const char *tail) {
  size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
  char *s = malloc(hl + ul * (size_t)n + tl + 1);
  memcpy(s, head, hl);
  for (int i = 0; i < n; i++)
    memcpy(s + hl + ul * (size_t)i, unit, ul);
  memcpy(s + hl + ul * (size_t)n, tail, tl + 1);
  return s;
}

START_TEST(deep_parentheses) {
  char *open = repeat("x = ", "(", 200, "1"), *src = repeat(open, ")", 200, "\n");
  ck_assert_str_eq(errs(src), "");
  free(open);
  free(src);
  open = repeat("x = ", "[", 201, "1");
  src = repeat(open, "]", 201, "\n");
  ck_assert_str_eq(errs(src), "1:205: too deeply nested (limit 200)\n");
  free(open);
  free(src);
}
END_TEST

START_TEST(long_left_deep_expression) {
  char *src = repeat("x = 1", " + 1", 100000, "\ny = 2\n");
  node *m = parse(src);
  ck_assert_str_eq(errors, "1:5: expression too complex (nesting depth over 1000)\n");
  ck_assert_int_eq(m->body.len, 2);
  free(src);
  src = repeat("x = a", "[0]", 5000, "\n");
  ck_assert_str_eq(errs(src), "1:5: expression too complex (nesting depth over 1000)\n");
  free(src);
  src = repeat("x = 1", " + 1", 998, "\n"); /* depth 999: fine */
  ck_assert_str_eq(errs(src), "");
  free(src);
}
END_TEST

START_TEST(long_right_deep_expression) {
  char *src = repeat("x = ", "not ", 100000, "y\n");
  ck_assert_ptr_nonnull(strstr(errs(src), "expression too complex"));
  free(src);
  src = repeat("x = ", "-", 100000, "y\n");
  ck_assert_ptr_nonnull(strstr(errs(src), "expression too complex"));
  free(src);
  src = repeat("x = 2", " ** 2", 100000, "\n");
  ck_assert_ptr_nonnull(strstr(errs(src), "expression too complex"));
  free(src);
  /* reported where the depth runs over: the innermost 1001 levels */
  src = repeat("x = ", "-", 2000, "y\n");
  ck_assert_str_eq(errs(src), "1:1005: expression too complex (nesting depth over 1000)\n");
  free(src);
}
END_TEST

START_TEST(wide_flat_expressions) {
  char *src = repeat("x = a", " or a", 100000, "\n");
  node *m = parse(src);
  ck_assert_str_eq(errors, "");
  ck_assert_int_eq(m->body.items[0]->a->list.len, 100001);
  free(src);
  src = repeat("x = a", " < a", 100000, "\n");
  m = parse(src);
  ck_assert_str_eq(errors, "");
  ck_assert_int_eq(m->body.items[0]->a->list.len, 100001);
  ck_assert_int_eq(m->body.items[0]->a->cmp_ops[99999], OP_LT);
  free(src);
  src = repeat("x = f(1", ", 1", 100000, ")\n");
  m = parse(src);
  ck_assert_int_eq(m->body.items[0]->a->list.len, 100001);
  free(src);
}
END_TEST

START_TEST(deep_blocks) {
  static char src[64 * 1024];
  src[0] = '\0';
  for (int i = 0; i < 100; i++)
    sprintf(src + strlen(src), "%*sif x:\n", i, "");
  sprintf(src + strlen(src), "%*spass\n", 100, "");
  ck_assert_str_eq(errs(src), "");
  src[0] = '\0';
  for (int i = 0; i < 101; i++)
    sprintf(src + strlen(src), "%*sif x:\n", i, "");
  sprintf(src + strlen(src), "%*spass\n", 101, "");
  ck_assert_str_eq(errs(src), "102:102: too deeply nested (limit 100 indentation levels)\n");
}
END_TEST

START_TEST(many_elifs) {
  char *src = repeat("if x:\n  pass\n", "elif y:\n  pass\n", 1500, "");
  ck_assert_str_eq(errs(src), "2003:1: too many 'elif' branches (limit 1000)\n");
  free(src);
}
END_TEST

/* ---- out of memory: every allocation failing in turn, never a crash or leak ---- */

static int fail_after;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize && fail_after-- <= 0)
    return NULL;
  return arena_default_alloc(NULL, ptr, osize, nsize);
}

START_TEST(out_of_memory) {
  /* big enough to need several arena chunks */
  char *src = repeat("def k(a: float32[:]):\n", "    a[0] = a[1] * 2.0 + f(x, y=1)\n", 300, "");
  int ok = 0;
  for (int n = 0; n < 1000 && !ok; n++) {
    arena a;
    jmp_buf jb;
    diag_sink ds;
    arena_init(&a, failing_alloc, NULL);
    arena_set_oom(&a, &jb);
    fail_after = n;
    if (setjmp(jb) == 0) {
      diag_init(&ds, &a, "t.k", src, strlen(src));
      node *m = parse_kernel_source(&a, &ds, src, strlen(src));
      ck_assert_int_eq(m->body.items[0]->body.len, 300);
      ok = 1;
    }
    arena_free(&a);
  }
  ck_assert_int_eq(ok, 1);
  free(src);
}
END_TEST

static Suite *parser_suite(void) {
  Suite *s = suite_create("parser");
  TCase *t = tcase_create("trees");
  tcase_add_checked_fixture(t, NULL, teardown);
  tcase_add_test(t, precedence);
  tcase_add_test(t, comparison_chains);
  tcase_add_test(t, primaries);
  tcase_add_test(t, expression_spans);
  tcase_add_test(t, assignments);
  tcase_add_test(t, control_flow);
  tcase_add_test(t, functions_and_decorators);
  tcase_add_test(t, imports);
  tcase_add_test(t, semicolons_and_empty);
  tcase_add_test(t, ast_dump_text);
  suite_add_tcase(s, t);
  TCase *e = tcase_create("errors");
  tcase_add_checked_fixture(e, NULL, teardown);
  tcase_add_test(e, unsupported_python);
  tcase_add_test(e, syntax_errors);
  tcase_add_test(e, recovery_reports_several);
  tcase_add_test(e, non_utf8_source);
  suite_add_tcase(s, e);
  TCase *l = tcase_create("limits");
  tcase_add_checked_fixture(l, NULL, teardown);
  tcase_set_timeout(l, 120);
  tcase_add_test(l, deep_parentheses);
  tcase_add_test(l, long_left_deep_expression);
  tcase_add_test(l, long_right_deep_expression);
  tcase_add_test(l, wide_flat_expressions);
  tcase_add_test(l, deep_blocks);
  tcase_add_test(l, many_elifs);
  tcase_add_test(l, out_of_memory);
  suite_add_tcase(s, l);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(parser_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
