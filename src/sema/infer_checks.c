/*
 * infer_checks.c — `assert cond[, msg]` and `raise E` / `raise E(args)` in type
 * inference: the exception's class checked and its text made. Their code, for both
 * targets, is cg_checks.c's.
 *
 * Numba-CUDA checks them only in a kernel compiled with debug=True (kcc: also
 * `kcc compile -g`, kc_compile_options.debug, which make every kernel a debug kernel;
 * fn_instance.debug, set per kernel by specialise.c). There, a failed assert or a raise
 * fills the launch's error record (host_abi.h: kind KC_KERNEL_ERROR_RAISE, the source
 * position, the block and thread, and the exception's text) as a failed bounds check
 * does, and the thread ends; the runtime then fails the launch with KC_ERR_ASSERT and a
 * message naming all of these. Elsewhere an assert is compiled out (its condition is
 * not evaluated, as under `python -O` and CUDA C's NDEBUG), and a raise only ends the
 * thread, silently, as Numba's kernels return early from one.
 *
 * The text is made when compiling, as Python's str() of the exception would print it:
 * "AssertionError", "AssertionError: n must be positive", "ValueError: ('bad', 3)". Like
 * Numba, kcc takes only constant arguments (literals and module constants).
 *
 * A thread ends with PTX's `exit` on the GPU; on the CPU it calls the executor's
 * blk->exit_thread, which ends its fiber (runtime/cpu/pool.c): so a function that can raise
 * makes its kernel run as fibers (fn_instance.uses_barrier), as a barrier does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "typing.h"

/* Python's built-in exception classes that a kernel may raise. */
static const char *const exception_classes[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BufferError", "EOFError",
    "Exception", "FloatingPointError", "IndexError", "KeyError", "LookupError",
    "MemoryError", "NameError", "NotImplementedError", "OSError", "OverflowError",
    "RecursionError", "RuntimeError", "StopIteration", "SystemError", "TypeError",
    "UnboundLocalError", "UnicodeError", "ValueError", "ZeroDivisionError"};

bool ix_builtin_exception(const char *name) {
  for (size_t i = 0; i < sizeof exception_classes / sizeof *exception_classes; i++)
    if (strcmp(name, exception_classes[i]) == 0) return true;
  return false;
}

static const char *exception_class(infer_ctx *ic, const node *e) {
  const char *path = e->kind == N_NAME ? ix_alias_path(ic, e->str) : NULL;
  if (path && strncmp(path, USER_EXCEPTION_PREFIX, strlen(USER_EXCEPTION_PREFIX)) == 0)
    return path + strlen(USER_EXCEPTION_PREFIX);   /* class MyError(ValueError) */
  const char *name = NULL;
  if (e->kind == N_NAME && !ix_find_local(ic->cur, e->str) && !ix_find_const(ic, e->str))
    name = e->str;
  else if (e->kind == N_ATTR && e->a->kind == N_NAME && strcmp(e->a->str, "builtins") == 0)
    name = e->str;
  for (size_t i = 0; name && i < sizeof exception_classes / sizeof *exception_classes; i++)
    if (strcmp(name, exception_classes[i]) == 0) return exception_classes[i];
  return NULL;
}

/* repr() of a float as Python writes it: the shortest digits that read back the same,
 * in positional notation from 1e-4 up to 1e16 and in exponent notation outside. */
static const char *float_repr(infer_ctx *ic, double v) {
  if (isnan(v)) return "nan";
  if (isinf(v)) return v < 0 ? "-inf" : "inf";
  char digits[40];
  int prec = 1;
  for (; prec < 17; prec++) {
    snprintf(digits, sizeof digits, "%.*e", prec - 1, v);
    if (strtod(digits, NULL) == v) break;
  }
  snprintf(digits, sizeof digits, "%.*e", prec - 1, v);
  int exp = atoi(strchr(digits, 'e') + 1);
  if (exp < -4 || exp >= 16) {
    /* "1.5e-05", "1e+16": the mantissa without a trailing ".0", two exponent digits */
    char *e = strchr(digits, 'e');
    *e = '\0';
    return arena_printf(ic->ar, "%se%c%02d", digits, exp < 0 ? '-' : '+', abs(exp));
  }
  int decimals = prec - 1 - exp;
  const char *s = arena_printf(ic->ar, "%.*f", decimals > 0 ? decimals : 0, v);
  return decimals > 0 ? s : arena_printf(ic->ar, "%s.0", s);
}

/* repr() of a string: single quotes unless it holds one and no double quote. */
static const char *str_repr(infer_ctx *ic, const char *s) {
  char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
  size_t n = strlen(s);
  char *out = arena_alloc(ic->ar, 2 * n + 3), *p = out;
  *p++ = q;
  for (; *s; s++) {
    if (*s == q || *s == '\\') *p++ = '\\';
    if (*s == '\n') { *p++ = '\\'; *p++ = 'n'; continue; }
    *p++ = *s;
  }
  *p++ = q;
  *p = '\0';
  return out;
}

/* str() (or repr(), inside a tuple) of a constant argument; NULL after an error. */
static const char *constant_text(infer_ctx *ic, node *e, bool repr, const char *what) {
  if (e->kind == N_STR) return repr ? str_repr(ic, e->str) : e->str;
  if (e->kind == N_NONE) return "None";
  node *v = ix_fold(ic, e);
  if (v && v->kind == N_BOOL) return v->ival ? "True" : "False";
  if (v && v->kind == N_INT)
    return v->big ? arena_printf(ic->ar, "%llu", (unsigned long long)v->uval)
                  : arena_printf(ic->ar, "%lld", (long long)v->ival);
  if (v && v->kind == N_FLOAT) return float_repr(ic, v->fval);
  ix_error(ic, e->sp, "%s must be a constant (a string, a number, True, False or None): "
           "kcc records it when compiling, as Numba does", what);
  return NULL;
}

static void ix_assert(infer_ctx *ic, node *s) {
  const type *t = ix_expr(ic, s->a);
  if (t && !type_is_scalar(t))
    ix_error(ic, s->a->sp, "an assert's condition must be a number or bool, not %s",
             ix_tname(ic, t));
  s->str = "AssertionError";
  if (s->b) {
    const char *m = constant_text(ic, s->b, false, "the message of an assert");
    if (m && *m) s->str = arena_printf(ic->ar, "AssertionError: %s", m);
  }
  if (ic->cur->debug) ic->cur->uses_barrier = true;   /* the CPU ends a thread as a fiber */
}

/* The text of E(args): "E" for no arguments (or one that prints empty), "E: a" for
 * one, "E: (a, b)" with each argument's repr for more, as str() of the exception. */
static const char *raise_text(infer_ctx *ic, const char *cls, node *call) {
  if (!call) return cls;
  if (call->kwargs.len) {
    ix_error(ic, ((node *)call->kwargs.items[0])->sp, "an exception takes no keyword "
             "arguments");
    return NULL;
  }
  int n = call->list.len;
  if (n == 0) return cls;
  if (n == 1) {
    const char *m = constant_text(ic, call->list.items[0], false, "an exception's argument");
    return !m ? NULL : *m ? arena_printf(ic->ar, "%s: %s", cls, m) : cls;
  }
  const char *text = arena_printf(ic->ar, "%s: (", cls);
  for (int i = 0; i < n; i++) {
    const char *m = constant_text(ic, call->list.items[i], true, "an exception's argument");
    if (!m) return NULL;
    text = arena_printf(ic->ar, "%s%s%s", text, i ? ", " : "", m);
  }
  return arena_printf(ic->ar, "%s)", text);
}

static void ix_raise(infer_ctx *ic, node *s) {
  if (!s->a) {
    ix_error(ic, s->sp, "a bare 'raise' re-raises the exception being handled, and kernels "
             "handle none: name the exception, e.g. raise ValueError(\"...\")");
    return;
  }
  if (s->b) {
    ix_error(ic, s->b->sp, "'raise ... from ...' is not supported in kernels; write "
             "raise E(\"...\") (kernels report no causes)");
    return;
  }
  node *call = s->a->kind == N_CALL ? s->a : NULL;
  node *callee = call ? call->a : s->a;
  const char *cls = exception_class(ic, callee);
  if (!cls) {
    ix_error(ic, callee->sp, "a kernel can raise one of Python's built-in exception classes "
             "or a class derived from one at module level, e.g. raise ValueError(\"...\") "
             "or raise IndexError");
    return;
  }
  const char *text = raise_text(ic, cls, call);
  if (text) s->str = text;
  ic->cur->uses_barrier = true;   /* the CPU ends a thread as a fiber */
}

void ix_check_stmt(infer_ctx *ic, node *s) {
  if (s->kind == N_ASSERT) ix_assert(ic, s);
  else ix_raise(ic, s);
}
