/*
 * print.c — print(a, b, ..., sep=" ", end="\n") in kernels, as Numba's CUDA print:
 * numbers, bools and string constants, one printf (CPU) or vprintf (GPU) call per
 * print with the format built at compile time.
 */
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* CUDA's vprintf takes at most 32 arguments; a longer print emits its format string
 * as it is, with a warning, as Numba's does (on both targets, so they print alike). */
#define PRINT_MAX_ITEMS 32

/* ---- typing ---- */

/* ---- print ---- */
/* print's keyword arguments: sep= and end=, each at most once, each a string constant
 * (the format is built at compile time) or None (Python's default: " " and "\n"). */
static bool ix_print_kwargs(infer_ctx *ic, node *e) {
  bool ok = true;
  for (int i = 0; i < e->kwargs.len; i++) {
    node *kw = e->kwargs.items[i], *v = kw->a;
    if (strcmp(kw->str, "sep") != 0 && strcmp(kw->str, "end") != 0) {
      ix_error(ic, kw->sp, "print() in a kernel takes only the keyword arguments sep= and "
           "end=, not '%s='", kw->str);
      ok = false;
      continue;
    }
    bool repeated = false;
    for (int j = 0; j < i; j++)
      repeated |= strcmp(((node *)e->kwargs.items[j])->str, kw->str) == 0;
    if (repeated) {
      ix_error(ic, kw->sp, "print() got the keyword argument '%s=' twice", kw->str);
      ok = false;
    } else if (v->kind == N_STR || v->kind == N_NONE) {
      v->ty = &ty_string;
    } else {  /* not typed: a string expression would only draw a second error */
      ix_error(ic, v->sp, "print()'s %s= must be a string constant such as %s=\"%s\" (the "
           "format is built when the kernel is compiled)", kw->str, kw->str,
           kw->str[0] == 's' ? ", " : "");
      ok = false;
    }
  }
  return ok;
}

/* print(a, b, ...) as Numba's CUDA print: numbers, bools and string constants, printed
 * with sep (a space) between and end (a newline) after; one printf per call. A string
 * argument is typed ty_string without going through ix_expr (strings are not values
 * elsewhere). */
static const type *ix_print(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  bool ok = ix_print_kwargs(ic, e);
  if (e->list.len > PRINT_MAX_ITEMS)
    ix_warn(ic, e->sp, "CUDA print() cannot print more than %d items. The raw format "
            "string will be emitted by the kernel instead.", PRINT_MAX_ITEMS);  /* Numba's words */
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (a->kind == N_STR) {
      a->ty = &ty_string;
      continue;
    }
    const type *t = ix_expr(ic, a);
    if (!t) {
      ok = false;
    } else if (!type_is_scalar(t)) {
      ix_error(ic, a->sp, "print() can only print numbers, bools and string constants, not %s",
           ix_tname(ic, t));
      ok = false;
    } else if (t->kind == TY_COMPLEX) {
      ix_error(ic, a->sp, "print() cannot print %s yet; print its .real and .imag", ix_tname(ic, t));
      ok = false;
    }
  }
  return ok ? ix_set_type(e, &ty_void, false) : NULL;
}


/* ---- lowering ---- */

/* A constant C string: in global memory on the GPU (cast to generic, as vprintf wants),
 * as nvcc puts printf's formats, so that no text, however long, fills the 64 KiB
 * constant bank; a private global on the host. */
static LLVMValueRef const_cstring(cg_ctx *g, const char *text) {
  size_t n = strlen(text);
  LLVMValueRef init = LLVMConstStringInContext2(g->c, text, n, 0);
  LLVMValueRef gv = LLVMAddGlobalInAddressSpace(g->m, LLVMTypeOf(init), "str",
                                                g->target->string_addrspace);
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(gv, LLVMGlobalUnnamedAddr);
  return cg_generic_ptr(g, gv);
}

/* fmt with s appended, '%' doubled (a new string: one copy however long s is). */
static char *fmt_literal(cg_ctx *g, const char *fmt, const char *s) {
  size_t n = strlen(fmt);
  char *out = arena_alloc(g->ar, n + 2 * strlen(s) + 1);
  memcpy(out, fmt, n);
  for (const char *p = s; *p; p++) {
    if (*p == '%') out[n++] = '%';
    out[n++] = *p;
  }
  out[n] = '\0';
  return out;
}

/* One print argument as printf sees it: its conversion and the promoted value (ints to
 * 64 bits, floats to double, bools to the strings True/False, as Python prints them). */
static LLVMValueRef print_value(cg_ctx *g, node *a, const char **conv) {
  const type *t = a->ty;
  LLVMValueRef v = cg_expr(g, a);
  if (t->kind == TY_BOOL) {
    *conv = "%s";
    return LLVMBuildSelect(g->b, v, const_cstring(g, "True"), const_cstring(g, "False"), "");
  }
  if (t->kind == TY_FLOAT) {
    *conv = "%f";
    return cg_convert(g, v, t, &ty_f64);
  }
  *conv = t->is_signed ? "%lld" : "%llu";
  return cg_convert(g, v, t, t->is_signed ? &ty_i64 : &ty_u64);
}

/* print's sep= or end= (a string constant, checked by infer), else Python's default. */
static const char *print_keyword(node *e, const char *name, const char *fallback) {
  for (int i = 0; i < e->kwargs.len; i++) {
    node *kw = e->kwargs.items[i];
    if (strcmp(kw->str, name) == 0 && kw->a->kind == N_STR) return kw->a->str;
  }
  return fallback;
}

/* print(a, b, ..., sep=" ", end="\n"): one call of the target's printf (the host's
 * printf, the GPU's vprintf) per print, so concurrent threads' lines never mix within
 * a line. sep and end go into the format as literals. Past PRINT_MAX_ITEMS items the
 * format itself is printed, its conversions as Numba writes them (strings as %s). */
static LLVMValueRef cg_print(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  int n = e->list.len;
  bool raw = n > PRINT_MAX_ITEMS;
  const char *sep = print_keyword(e, "sep", " "), *end = print_keyword(e, "end", "\n");
  char *fmt = arena_strdup(g->ar, "");
  LLVMValueRef *vals = arena_alloc(g->ar, sizeof *vals * (size_t)(n + 1));
  int nv = 0;
  for (int i = 0; i < n; i++) {
    node *a = e->list.items[i];
    if (i) fmt = fmt_literal(g, fmt, sep);
    if (a->kind == N_STR) {
      fmt = raw ? arena_printf(g->ar, "%s%%s", fmt) : fmt_literal(g, fmt, a->str);
      continue;
    }
    const char *conv;
    vals[nv] = print_value(g, a, &conv);
    nv++;
    fmt = arena_printf(g->ar, "%s%s", fmt, conv);
  }
  fmt = fmt_literal(g, fmt, end);
  if (raw) fmt = fmt_literal(g, "", fmt), nv = 0;
  g->target->printf_call(g, const_cstring(g, fmt), vals, nv);
  return NULL;
}


const builtin builtins_print[] = {
  {.path = "print", .kind = BK_FUNCTION, .max_args = -1, .typing = ix_print, .lower = cg_print},
  {NULL},
};
