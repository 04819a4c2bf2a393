/*
 * infer_stmts.c — type inference of statements: assignments (to locals, elements,
 * slices, record fields, tuples of targets), augmented assignment, if, while, for (its
 * plans are infer_loops.c's), return, assert and raise (infer_checks.c), inner defs
 * (funcval.c), and a function's locals collected before its body is typed. The
 * expressions they hold are infer.c's.
 */
#include <string.h>

#include "builtins/builtin.h"
#include "typing.h"

static void ix_store_target(infer_ctx *ic, node *t, const type *vt, bool weak, node *value);

static void ix_store_element(infer_ctx *ic, node *t, const type *vt) {
  const type *et = ix_index(ic, t);
  node *base = t->a;
  if (base->ty && base->ty->kind == TY_TUPLE) {
    ix_error(ic, t->sp, "tuples are immutable: an element cannot be assigned");
    return;
  }
  ix_mark_name_written(ic, base);
  if (base->sym && base->sym->kind == SYM_CONST && ix_const_is_array(base->sym->value))
    ix_module_array_written(ic, base, t->sp);
  else if (base->sym && base->sym->kind == SYM_CONST)
    ix_error(ic, t->sp, "module constant '%s' cannot be modified", base->sym->name);
  if (base->sym && base->sym->is_shared && base->sym->value &&
      (base->sym->value->bi->flags & BF_READ_ONLY))
    ix_error(ic, t->sp, "'%s' is a constant array and cannot be modified", base->sym->name);
  if (et && et->kind == TY_ARRAY) {   /* a[1:] = v: broadcast or copied (cg_slices.c) */
    if (vt && vt->kind == TY_ARRAY && vt->ndim > et->ndim)
      ix_error(ic, t->sp, "cannot assign %s to a slice of %d dimension%s (%s): the source has "
           "more dimensions than the view", ix_tname(ic, vt), et->ndim, et->ndim == 1 ? "" : "s",
           ix_tname(ic, et));
    else if (vt && vt->kind != TY_ARRAY && !type_is_scalar(vt))
      ix_error(ic, t->sp, "cannot store %s into a slice of %s", ix_tname(ic, vt), ix_tname(ic, base->ty));
    return;
  }
  if (et && vt && et->kind == TY_RECORD && !type_equal(et, vt))
    ix_error(ic, t->sp, "cannot store %s into an element of %s (records are copied whole "
         "only from the same record type)", ix_tname(ic, vt), ix_tname(ic, base->ty));
  else if (et && vt && !type_is_scalar(vt) && et->kind != TY_RECORD)
    ix_error(ic, t->sp, "cannot store %s into an element of %s", ix_tname(ic, vt),
         ix_tname(ic, base->ty));
}

/* x = a: an array bound to another name may be written through it (x[i] = v), which
 * the parameters' written marks do not follow, so its parameter counts as written (a
 * view taken of one already does: ix_mark_view_of). Without this a GPU kernel lost
 * such stores: the parameter was declared read-only. */
static void mark_aliased_array(infer_ctx *ic, const node *v) {
  if (!v) return;
  if (v->kind == N_IFEXP) {   /* x = a if c else b */
    mark_aliased_array(ic, v->b);
    mark_aliased_array(ic, v->c);
  } else if (v->kind == N_NAME) {
    ix_mark_name_written(ic, v);
  }
}

static void ix_store_target(infer_ctx *ic, node *t, const type *vt, bool weak, node *value) {
  switch (t->kind) {
  case N_NAME: {
    symbol *s = ix_find_local(ic->cur, t->str);
    t->sym = s;
    if (s->value && s->value->kind == N_FUNCDEF) {
      ix_error(ic, t->sp, "'%s' names an inner function (defined at line %d) and cannot be "
           "reassigned", s->name, s->value->sp.line);
      return;
    }
    if (value && vt && vt->kind == TY_FUNCVAL) ix_closure_copy_check(ic, t, value);
    if (value && value->kind == N_CALL && value->bi && (value->bi->flags & BF_NEW_ARRAY)) {
      if (s->ty && !s->is_shared && ic->report)
        ix_error(ic, t->sp, "'%s' is bound to a %s array and also to other values", s->name,
             value->bi->name);
      s->is_shared = true;
      s->value = value;
    } else if (s->is_shared && vt) {
      ix_error(ic, t->sp, "'%s' is bound to a shared or local array and cannot be reassigned",
           s->name);
      return;
    }
    if (s->is_param && vt && vt->kind == TY_ARRAY && !type_equal(vt, s->ty)) {
      ix_error(ic, t->sp, "cannot rebind array parameter '%s' to %s", s->name, ix_tname(ic, vt));
      return;
    }
    if (vt && vt->kind == TY_ARRAY) mark_aliased_array(ic, value);
    ix_assign_local(ic, s, vt, weak, t->sp);
    t->ty = s->ty;
    return;
  }
  case N_TUPLE: {
    if (!vt) {
      for (int i = 0; i < t->list.len; i++) ix_store_target(ic, t->list.items[i], NULL, false, NULL);
      return;
    }
    if (vt->kind != TY_TUPLE) {
      ix_error(ic, t->sp, "cannot unpack %s into %d names", ix_tname(ic, vt), t->list.len);
      return;
    }
    if (vt->nelems != t->list.len) {
      ix_error(ic, t->sp, "cannot unpack a tuple of %d values into %d names", vt->nelems,
           t->list.len);
      return;
    }
    for (int i = 0; i < t->list.len; i++)
      ix_store_target(ic, t->list.items[i], vt->elems[i], false, NULL);
    return;
  }
  case N_INDEX:
    if (t->b && t->b->kind == N_STR) {   /* r["y"] = v */
      const type *bt = ix_expr(ic, t->a);
      if (!bt) return;                   /* reported */
      if (ix_record_key(t, bt)) {
        if (ix_record_store(ic, t, bt, vt, true)) ix_store_element(ic, t, vt);
        return;
      }
    }
    ix_store_element(ic, t, vt);         /* a[i] = v, a[1:] = v, r.h[:] = v */
    return;
  case N_ATTR:
    if (ix_record_store(ic, t, ix_expr(ic, t->a), vt, true)) ix_store_element(ic, t, vt);
    return;
  default:
    ix_error(ic, t->sp, "cannot assign to this expression");
  }
}

/* ---- a name bound again to a value of another type ---- */

typedef struct renaming { const char *from, *to; } renaming;

static bool rename_use(const node *n, void *ud) {
  renaming *r = ud;
  if (n->kind == N_NAME && strcmp(n->str, r->from) == 0) ((node *)n)->str = r->to;
  return false;
}

static bool reads_name(const node *n, void *ud) {
  return n->kind == N_NAME && strcmp(n->str, ud) == 0;
}

/* Where statement s lies in body, directly or inside ifs only (no loop around it could
 * carry a new value back to an earlier use): 1 with its list and index, 0 when it is
 * not there, -1 when an enclosing if is followed by a use of name, where the paths
 * through and around s would merge two values. */
static int place_in_ifs(node_list *body, const node *s, const char *name, node_list **block,
                        int *at) {
  for (int i = 0; i < body->len; i++) {
    node *st = body->items[i];
    if (st == s) {
      *block = body, *at = i;
      return 1;
    }
    if (st->kind != N_IF) continue;
    int r = place_in_ifs(&st->body, s, name, block, at);
    if (!r) r = place_in_ifs(&st->orelse, s, name, block, at);
    if (!r) continue;
    for (int j = i + 1; r > 0 && j < body->len; j++)
      if (ast_visit(body->items[j], reads_name, (void *)name)) r = -1;
    return r;
  }
  return 0;
}

/* x = v, v of a type x cannot hold (x = (x, x) after x = n): from here on x is a new
 * variable, as Numba's SSA versions of a name are, when no path can merge the two
 * (the assignment at the top level or inside ifs only, x not read after those ifs). */
static void rebind_as_new_variable(infer_ctx *ic, node *s, const type *vt) {
  node *t = s->list.items[0];
  symbol *old = ix_find_local(ic->cur, t->str);
  bool w;
  if (!vt || vt->kind == TY_VOID || !old || !old->ty || old->is_shared ||
      (old->value && old->value->kind == N_FUNCDEF) ||
      ix_unify(ic, old->ty, old->weak, vt, s->a->weak, &w))
    return;
  node_list *body;
  int at;
  if (place_in_ifs(&ic->cur->def->body, s, t->str, &body, &at) <= 0) return;
  renaming r = {t->str, arena_printf(ic->ar, "%s$%d", t->str, ic->cur->locals.len)};
  ix_new_local(ic, ic->cur, r.to, t->sp);
  t->str = r.to;
  for (int i = at + 1; i < body->len; i++) ast_visit(body->items[i], rename_use, &r);
}

static void ix_assign(infer_ctx *ic, node *s) {
  bool to_name = s->list.len == 1 && ((node *)s->list.items[0])->kind == N_NAME;
  const type *vt = to_name ? ix_expr_optional(ic, s->a) : ix_expr(ic, s->a);
  if (vt && vt->kind == TY_VOID) {
    ix_error(ic, s->a->sp, "this call returns no value");
    vt = NULL;
  }
  if (to_name) rebind_as_new_variable(ic, s, vt);
  for (int i = 0; i < s->list.len; i++)
    ix_store_target(ic, s->list.items[i], vt, s->a->weak, s->a);
}

/* x op= v: typed as x = x op v, the element type kept for array stores. */
static void ix_augassign(infer_ctx *ic, node *s) {
  node *t = s->a;
  if (t->kind != N_NAME && t->kind != N_INDEX && t->kind != N_ATTR) {
    ix_error(ic, t->sp, "cannot use augmented assignment on this expression");
    return;
  }
  node tmp = {0};
  tmp.kind = N_BINOP;
  tmp.sp = s->sp;
  tmp.op = s->op;
  tmp.a = t;
  tmp.b = s->b;
  const type *rt = ix_binop(ic, &tmp);
  s->ty = rt;
  s->aux_ptr = tmp.aux_ptr;   /* the binary operation's own (complex **: the _kc_cpow instance) */
  if (t->kind == N_NAME) {
    if (t->sym && t->sym->is_shared) {
      ix_error(ic, t->sp, "'%s' is bound to a shared or local array and cannot be reassigned",
           t->str);
      return;
    }
    ix_store_target(ic, t, rt, tmp.weak, NULL);
  } else if (t->kind == N_ATTR) {
    ix_record_store(ic, t, ix_expr(ic, t->a), rt, false);
  } else {
    ix_store_element(ic, t, rt);
  }
}


/* x: T = v. Numba ignores annotations; kcc declares x of type T when T is a kernel type
 * it knows (x: float32 = 0), and otherwise (x: int, x: Any) reads it as x = v. */
static void ix_annassign(infer_ctx *ic, node *s) {
  if (s->a->kind != N_NAME) {
    ix_error(ic, s->a->sp, "only a name can be annotated");
    return;
  }
  const type *t = ix_known_annotation(ic, s->b);
  if (!t) {
    if (!s->c) return;
    const type *vt = ix_expr(ic, s->c);
    if (vt) ix_store_target(ic, s->a, vt, s->c->weak, s->c);
    return;
  }
  ix_store_target(ic, s->a, t, false, NULL);
  if (s->c) {
    const type *vt = ix_expr(ic, s->c);
    if (vt && t && !type_is_scalar(vt) && !type_equal(vt, t))
      ix_error(ic, s->c->sp, "cannot assign %s to '%s' declared %s", ix_tname(ic, vt), s->a->str,
           ix_tname(ic, t));
  }
}

/* How well an integer argument fits a formal integer parameter, Numba's Conversion
 * kinds (typeconv/rules.py, closed over its cast graph): exact, promote (same
 * signedness, wider), safe (a bool to any integer, an unsigned to a wider signed) or
 * unsafe (anything else). An integer literal converts as int64 (uint64 above 2^63 - 1)
 * does, but never better than promote (types/scalars.py IntegerLiteral). */
enum { CONV_EXACT, CONV_PROMOTE, CONV_SAFE, CONV_UNSAFE };

static int int_conversion(const type *from, bool literal, const type *to) {
  int c;
  if (type_equal(from, to)) c = CONV_EXACT;
  else if (from->kind == TY_BOOL) c = CONV_SAFE;
  else if (from->is_signed == to->is_signed) c = to->bits > from->bits ? CONV_PROMOTE : CONV_UNSAFE;
  else if (!from->is_signed && to->bits > from->bits) c = CONV_SAFE;
  else c = CONV_UNSAFE;
  return literal && c < CONV_PROMOTE ? CONV_PROMOTE : c;
}

/* The type range(...) counts in, as Numba's Range template resolves it
 * (typing/builtins.py): of its three signatures, all-int32 (range_state32), all-int64
 * and all-uint64, the one whose conversions rate best (fewest unsafe, then safe, then
 * promote conversions; the first on a tie, typing/context.py resolve_overload). So
 * range(n) counts in int32 for an int32 n, range(0, n) in int64 (the literal is int64),
 * range(u) in uint64 for an unsigned u. */
static const type *range_type(node *it) {
  static const type *const formal[3] = {&ty_i32, &ty_i64, &ty_u64};
  const type *best = NULL;
  int best_rate[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    int rate[3] = {0, 0, 0}; /* unsafe, safe, promote */
    for (int i = 0; i < it->list.len; i++) {
      node *a = it->list.items[i];
      int c = int_conversion(a->ty, a->weak && a->ty->kind == TY_INT, formal[k]);
      if (c == CONV_UNSAFE) rate[0]++;
      else if (c == CONV_SAFE) rate[1]++;
      else if (c == CONV_PROMOTE) rate[2]++;
    }
    int d = rate[0] != best_rate[0] ? rate[0] - best_rate[0]
          : rate[1] != best_rate[1] ? rate[1] - best_rate[1] : rate[2] - best_rate[2];
    if (!best || d < 0) {
      best = formal[k];
      for (int j = 0; j < 3; j++) best_rate[j] = rate[j];
    }
  }
  return best;
}

/* range(...)'s arguments checked (one to three integers): the type it counts in, or
 * NULL after an error. */
const type *ix_range_args(infer_ctx *ic, node *it) {
  bool ok = ix_check_argc(ic, it, "range", 1, 3) && ix_args(ic, it);
  for (int i = 0; ok && i < it->list.len; i++) {
    node *a = it->list.items[i];
    if (!ix_is_intlike(a->ty)) {
      ix_error(ic, a->sp, "range() needs integers, not %s%s", ix_tname(ic, a->ty),
           a->kind == N_ATTR && strcmp(a->str, "shape") == 0
               ? " (.shape is a tuple: write .shape[0] for the first dimension)" : "");
      ok = false;
    }
  }
  return it->ty = ok ? range_type(it) : NULL;
}

/* for over range(...) here; over anything else (arrays, tuples, enumerate, zip,
 * reversed) in infer_loops.c. */
static void ix_for(infer_ctx *ic, node *s) {
  node *it = s->b;
  const char *p = it->kind == N_CALL ? ix_dotted_path(ic, it->a) : NULL;
  const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
  s->aux_ptr = NULL;
  if (!b || strcmp(b->path, "range") != 0 || s->a->kind != N_NAME) {
    ix_for_iter(ic, s);
    return;
  }
  it->bi = b;
  const type *t = ix_range_args(ic, it);
  ix_store_target(ic, s->a, t, false, NULL);
  ic->loop_depth++;
  ix_block(ic, &s->body);
  ic->loop_depth--;
  ix_block(ic, &s->orelse);
}

void ix_store(infer_ctx *ic, node *t, const type *vt) { ix_store_target(ic, t, vt, false, NULL); }

void ix_mark_written(infer_ctx *ic, const node *n) {
  node *root = (node *)n;
  while (root->kind == N_INDEX) root = root->a;
  ix_mark_name_written(ic, root);
}

/* `return None` (or a bare `return`) beside `return v`: Numba's Optional(v's type),
 * for a scalar v; true when this return was taken so. */
static const type *value_of(const type *t) {
  return t->kind == TY_VOID ? NULL : t->kind == TY_OPTIONAL ? t->elem : t;
}

static bool ix_optional_return(infer_ctx *ic, fn_instance *f, const type *t) {
  const type *r = f->ret;
  if (!r || type_equal(r, t)) return false;
  bool maybe_none = r->kind == TY_VOID || t->kind == TY_VOID || r->kind == TY_OPTIONAL ||
                    t->kind == TY_OPTIONAL;
  const type *a = value_of(r), *b = value_of(t);
  if (!maybe_none || (!a && !b)) return false;
  bool w;
  const type *u = a && b ? ix_unify(ic, a, false, b, false, &w) : a ? a : b;
  if (!u || !type_is_scalar(u)) return false;   /* reported by the caller */
  const type *opt = type_optional(ic->ar, u);
  if (!type_equal(opt, f->ret)) {
    f->ret = opt;
    ic->changed = true;
  }
  return true;
}

static void ix_return(infer_ctx *ic, node *s) {
  fn_instance *f = ic->cur;
  node *v = s->a;
  if (v && v->kind == N_NONE) v = NULL;
  if (f->is_kernel) {
    if (v) ix_error(ic, v->sp, "a kernel cannot return a value; write results into an array");
    return;
  }
  const type *t = v ? ix_expr_optional(ic, v) : &ty_void;
  if (!t) {
    f->ret_failed = ic->report;
    return;
  }
  if (!f->ret_declared && ix_optional_return(ic, f, t)) return;
  if (t->kind == TY_FUNCVAL) {
    ix_error(ic, v->sp, "a device function cannot return a function (call it here instead)");
    f->ret_failed = ic->report;
    return;
  }
  if (f->ret_declared) {   /* converted to the signature's result */
    if (!type_equal(t, f->ret) && !(type_is_scalar(t) && type_is_scalar(f->ret)))
      ix_error(ic, v ? v->sp : s->sp, "'%s' is declared to return %s, not %s", f->fn->name,
           ix_tname(ic, f->ret), ix_tname(ic, t));
    return;
  }
  if (!f->ret || f->ret_guessed) {
    f->ret = t;
    f->ret_guessed = false;
    ic->changed = true;
    return;
  }
  if ((f->ret->kind == TY_VOID) != (t->kind == TY_VOID)) {
    ix_error(ic, s->sp, "this function returns a value on some paths and nothing on others");
    return;
  }
  bool w;
  const type *u = ix_unify(ic, f->ret, false, t, false, &w);
  if (!u) {
    ix_error(ic, s->sp, "this function returns %s here and %s elsewhere", ix_tname(ic, t),
         ix_tname(ic, f->ret));
    return;
  }
  if (!type_equal(u, f->ret)) { f->ret = u; ic->changed = true; }
}

/* if DEBUG:, if neg_idx: with a constant (a module constant, a literal instance's
 * parameter): the branch not taken is dropped from this instance's tree before it is
 * typed, as Numba prunes dead branches, so it may hold what the constant rules out. */
static void prune_constant_if(infer_ctx *ic, node *s) {
  node *v = s->a->kind == N_BOOL ? s->a : ix_fold_quietly(ic, s->a);
  if (!v || (v->kind != N_BOOL && v->kind != N_INT)) return;
  if (v != s->a) {
    node *c = node_new(ic->ar, N_BOOL, s->a->sp);
    c->ival = v->ival != 0;
    s->a = c;
  }
  if (s->a->ival) s->orelse.len = 0;
  else s->body.len = 0;
}

static void ix_stmt(infer_ctx *ic, node *s) {
  switch (s->kind) {
  case N_EXPR_STMT:
    if (s->a->kind != N_STR) ix_expr(ic, s->a); /* a string alone is a docstring */
    return;
  case N_ASSIGN: ix_assign(ic, s); return;
  case N_AUGASSIGN: ix_augassign(ic, s); return;
  case N_ANNASSIGN: ix_annassign(ic, s); return;
  case N_IF:
    prune_constant_if(ic, s);
    ix_condition(ic, s->a);
    ix_block(ic, &s->body);
    ix_block(ic, &s->orelse);
    return;
  case N_WHILE:
    ix_condition(ic, s->a);
    ic->loop_depth++;
    ix_block(ic, &s->body);
    ic->loop_depth--;
    ix_block(ic, &s->orelse);
    return;
  case N_FOR: ix_for(ic, s); return;
  case N_BREAK: case N_CONTINUE:
    if (ic->loop_depth == 0)
      ix_error(ic, s->sp, "'%s' outside a loop", s->kind == N_BREAK ? "break" : "continue");
    return;
  case N_RETURN: ix_return(ic, s); return;
  case N_PASS: return;
  case N_ASSERT: case N_RAISE: ix_check_stmt(ic, s); return;
  case N_FUNCDEF: ix_inner_def(ic, s); return;
  case N_IMPORT: case N_IMPORTFROM:
    ix_error(ic, s->sp, "imports are only allowed at module level");
    return;
  default:
    ix_error(ic, s->sp, "unexpected %s statement", node_kind_name(s->kind));
  }
}

void ix_block(infer_ctx *ic, node_list *body) {
  for (int i = 0; i < body->len; i++) ix_stmt(ic, body->items[i]);
}

int infer_program(arena *a, diag_sink *d, node *module, const kcc_options *opts,
                  const builtin_registry *builtins, program *out) {
  memset(out, 0, sizeof *out);
  out->module = module;
  out->range = builtin_find(builtins, "range");
  out->barrier = builtin_find(builtins, "numba.cuda.syncthreads");
  infer_ctx ic = {0};
  ic.ar = a;
  ic.d = d;
  ic.prog = out;
  ic.opts = opts;
  ic.builtins = builtins;
  ic.report = true;
  int before = d->nerrors;
  ix_module_level(&ic, module);
  ix_plain_functions_with_host_defaults(&ic);
  for (int i = 0; i < out->funcs.len; i++) ix_fold_defaults(&ic, out->funcs.items[i]);
  ix_apply_cli_sigs(&ic);
  ix_compile_functions(&ic);
  ix_collect_links(&ic);
  return d->nerrors - before;
}

