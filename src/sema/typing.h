/*
 * typing.h — type inference's state and the helpers that typing functions share: the
 * expression typer, argument checks, promotion, diagnostics. Included by the files of
 * type inference (infer.c) and by the builtin families (src/builtins/), whose typing
 * functions run inside it.
 */
#ifndef KCC_TYPING_H
#define KCC_TYPING_H

#include "builtins/builtin.h"
#include "sema.h"

typedef struct alias {
  const char *name;   /* the name bound in the module */
  const char *path;   /* the dotted path it stands for: "numba.cuda" */
} alias;

/* A module-level name bound only by code kcc does not compile (host Python): where,
 * and why that code is not the kernel language. Using it in a kernel is the error. */
typedef struct host_def {
  const char *name;
  span where;         /* the binding */
  const char *why;    /* the first error compiling that code met */
  span why_sp;
} host_def;

struct infer_ctx {
  arena *ar;
  diag_sink *d;
  program *prog;
  const kcc_options *opts;
  const builtin_registry *builtins;   /* the names the language knows (builtin.h) */
  ptr_vec consts;      /* symbol*: module constants */
  ptr_vec aliases;     /* alias*: imported names */
  ptr_vec host_defs;   /* host_def*: names only host Python binds (resolve.c) */
  ptr_vec sig_consts;  /* node*: N_ALIAS, str = name, a = a signature string or a list
                          or tuple of them kept in a name (SIG = 'void(float32[:])') */
  fn_instance *cur;    /* the function being typed */
  bool report;         /* this pass reports diagnostics and is final */
  bool changed;        /* a local's type changed during this pass */
  int loop_depth;
  bool all_f32;        /* the current kernel's arrays are all float32 */
  bool fast_kernel;    /* the current kernel uses fast math (its decorator or
                          kcc_options.fastmath): so do the device functions it calls */
  bool debug_kernel;   /* likewise for debug=True (or kcc_options.debug) */
  bool noopt_kernel;   /* and for opt=False */
  ptr_vec libs;        /* const char*: library modules (lib/, synth.h) loaded */
  int last_warn_line;
  int silent_errors;   /* errors met (not reported) in the current silent pass */
  bool keep_optional;  /* the next ix_expr may give an Optional as it is (an assignment
                          to a name, a return, `x is None`); elsewhere it is unwrapped */
};

/* Diagnostics: reported on the final pass only (the fixpoint passes are silent). */
void ix_error(infer_ctx *ic, span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ix_warn(infer_ctx *ic, span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A type's name for a message ("float32[:]"), "<unknown>" for NULL. */
const char *ix_tname(infer_ctx *ic, const type *t);

/* Type e (any expression); NULL after an error. An Optional value (a device function
 * that may return None) is typed as its element unless ic->keep_optional asked for it
 * as it is (node->unwrap then tells code generation to extract the value). */
const type *ix_expr(infer_ctx *ic, node *e);
/* ix_expr keeping an Optional value as it is */
const type *ix_expr_optional(infer_ctx *ic, node *e);
/* Type every argument of call e; false if any is unknown. */
bool ix_args(infer_ctx *ic, node *e);
/* Record e's type (and whether it is a weak literal type); returns t. */
const type *ix_set_type(node *e, const type *t, bool weak);
/* The argument count of call e within [lo, hi], and no keywords; what: its name. */
bool ix_check_argc(infer_ctx *ic, node *e, const char *what, int lo, int hi);
/* An argument that must be a number / a real number / an integer (what: its role). */
bool ix_need_scalar(infer_ctx *ic, node *arg, const char *fname);
bool ix_need_real(infer_ctx *ic, node *arg, const char *fname);
bool ix_need_int(infer_ctx *ic, node *arg, const char *fname, const char *what);
/* The NVPTX target is at least sm_<min>, else an error at e. */
bool ix_need_arch(infer_ctx *ic, node *e, const char *fname, int min);
/* The type two operands meet in: NumPy's promotion for two integers (a literal as
 * int64), and a literal adopting a float operand's type (docs/language.md). */
const type *ix_promote(const type *a, bool aw, const node *an, const type *b, bool bw,
                       const node *bn, bool *weak);
/* A cast to type to (int(x), float32(x)): the argument checked, e typed as to. */
const type *ix_cast(infer_ctx *ic, node *e, const type *to, const char *fname);

/* Constants: e folded to a literal node when it is one (NULL otherwise). */
node *ix_fold(infer_ctx *ic, node *e);
node *ix_fold_quietly(infer_ctx *ic, node *e);   /* muted: NULL, never an error */
/* e folded to an integer or a tuple of them, a local name counting as its value where the
 * function binds it once, at its top level before e, to one (N = 100; then
 * cuda.shared.array(N, int32) or (4, N)); else NULL, quietly */
node *ix_fold_local_constant(infer_ctx *ic, node *e);
bool ix_const_int(infer_ctx *ic, node *e, int64_t *v);

/* scope.c: what a name means. A local of f, a module constant, a function (NULL when
 * none); the dotted path a module-level name stands for (an import's, a default alias's
 * or a builtin's own name), and binding one. */
symbol *ix_find_local(fn_instance *f, const char *name);
symbol *ix_find_const(infer_ctx *ic, const char *name);
func_def *ix_find_func(infer_ctx *ic, const char *name);
const char *ix_alias_path(infer_ctx *ic, const char *name);
/* An exception class a module declares (class MyError(ValueError): ...) is bound to
 * USER_EXCEPTION_PREFIX + its name (resolve.c); a kernel may raise it. */
#define USER_EXCEPTION_PREFIX "kcc.user_exception."
bool ix_builtin_exception(const char *name);
void ix_bind_alias(infer_ctx *ic, const char *name, const char *path);
/* Forget a module constant of this name (rebound by a later binding). */
void ix_forget_const(infer_ctx *ic, const char *name);
/* The builtin path a name or attribute chain stands for ("cuda.grid" ->
 * "numba.cuda.grid"), or NULL when its root is a local, constant or function. */
const char *ix_dotted_path(infer_ctx *ic, const node *e);
/* A scalar type spelled by a path ("numba.float32", "numpy.int64"), or NULL. */
const type *ix_type_from_path(const char *path);

/* The stage's files, each other's: */
/* infer.c: statements, and a function's locals */
void ix_block(infer_ctx *ic, node_list *body);
symbol *ix_new_local(infer_ctx *ic, fn_instance *f, const char *name, span where);
void ix_collect_locals(infer_ctx *ic, fn_instance *f, node_list *body);
/* infer.c, for infer_stmts.c: integers and bools; the type two assignments' types
 * unify to (NULL: none); a local's type widened by an assignment; a condition typed;
 * an element read a[i]; a binary operator typed (x op= v); a parameter named by n
 * written; an error where a module array is written */
bool ix_is_intlike(const type *t);
const type *ix_unify(infer_ctx *ic, const type *a, bool aw, const type *b, bool bw,
                     bool *weak);
void ix_assign_local(infer_ctx *ic, symbol *s, const type *t, bool weak, span sp);
void ix_condition(infer_ctx *ic, node *c);
const type *ix_index(infer_ctx *ic, node *e);
const type *ix_binop(infer_ctx *ic, node *e);
/* infer_calls.c, for infer.c: a call typed */
const type *ix_call(infer_ctx *ic, node *e);
void ix_mark_name_written(infer_ctx *ic, const node *n);
void ix_module_array_written(infer_ctx *ic, const node *n, span where);
/* infer.c, for infer_loops.c: range(...)'s arguments checked and the type it counts in
 * (NULL after an error); a store to a for loop's target; a parameter (or the array a
 * view of it is taken from: a[i] of a 2-D a) that a view made here may write */
const type *ix_range_args(infer_ctx *ic, node *it);
void ix_store(infer_ctx *ic, node *t, const type *vt);
void ix_mark_written(infer_ctx *ic, const node *n);
/* infer_loops.c: for loops over arrays, tuples, enumerate, zip, reversed(range); a
 * tuple indexed by a value known only at run time */
void ix_for_iter(infer_ctx *ic, node *s);
const type *ix_tuple_index_dynamic(infer_ctx *ic, node *e, const type *tt);
/* fold.c: the type of a folded constant; constant nodes made and read */
const type *ix_const_type(infer_ctx *ic, node *v);
node *ix_const_int_node(infer_ctx *ic, int64_t v, span sp);
node *ix_const_float_node(infer_ctx *ic, double v, span sp);
double ix_const_as_double(const node *n);
/* A folded constant with a type of its own, as NumPy's scalars and arrays have
 * (np.float32(x), np.int8(3), a module array np.arange(4)): node->aux is FOLD_TYPED and
 * node->ty that type, so it does not adopt the other operand's type as a literal does.
 * A module array's value is a nested N_TUPLE of typed elements, its ty an array type. */
#define FOLD_TYPED 0x4e50
static inline bool ix_const_typed(const node *v) { return v->aux == FOLD_TYPED && v->ty; }
static inline bool ix_const_is_array(const node *v) {
  return ix_const_typed(v) && v->ty->kind == TY_ARRAY;
}
/* v (a folded number) converted to scalar type t as NumPy's astype does: rounded to a
 * float's precision, wrapped to an integer's width (a float truncated first). */
node *ix_fold_cast(infer_ctx *ic, node *v, const type *t, span sp);
/* fold_math.c: math.f, numpy.f (on module arrays too), cmath.f of folded arguments, for
 * the call e of the builtin at path; NULL when it is not one kcc evaluates. */
node *ix_fold_elementary(infer_ctx *ic, node *e, const char *path);
/* l op r on two folded numbers, untyped (the caller casts); -x, ~x, not x on one */
node *ix_fold_binop_untyped(infer_ctx *ic, node *e, node *l, node *r);
node *ix_fold_unary(infer_ctx *ic, node *e, node *v);
/* fold_arrays.c: module arrays folded. The flat elements of a (out) and its extents
 * (dims), returning its rank; an array constant made of flat elements (each cast to
 * t); arithmetic, attributes and indexing on them (NULL: not a constant). */
int ix_const_array_flat(infer_ctx *ic, node *a, ptr_vec *out, int64_t *dims);
node *ix_const_array_make(infer_ctx *ic, node **flat, const int64_t *dims, int ndim,
                          const type *t, span sp);
node *ix_fold_array_binop(infer_ctx *ic, node *e, node *l, node *r);
node *ix_fold_array_unary(infer_ctx *ic, node *e, node *a);
node *ix_fold_array_attr(infer_ctx *ic, node *e, node *a);
node *ix_fold_dtype_itemsize(infer_ctx *ic, node *e);
node *ix_fold_index(infer_ctx *ic, node *e, node *v, node *i);
/* resolve.c: module level */
/* A builtin written in the kernel language: the instance of library module mod's
 * function name for parameter types args[0..n) (the module loaded on first use), or
 * NULL after an error. Code generation calls it with cg_call_values. */
fn_instance *ix_lib_instance(infer_ctx *ic, const char *mod, const char *name,
                             const type **args, int n, span where);
/* lib/kcc/cmath.k: the complex functions written in the kernel language (complex ** by
 * infer.c, cmath.exp ... by builtins/complex.c) */
#define IX_CMATH_MODULE "kcc.cmath"
/* A call of a numba.cuda.random function: false, with one error at the call, when its
 * states argument is not a uint64 array of two dimensions. */
bool ix_random_states_ok(infer_ctx *ic, node *call, func_def *fn, const type **args, int n);
bool ix_host_use_error(infer_ctx *ic, span sp, const char *path);
/* A library module's device function named by its whole path, or NULL. */
func_def *ix_lib_function(infer_ctx *ic, const char *path);
void ix_module_level(infer_ctx *ic, node *module);
void ix_plain_functions_with_host_defaults(infer_ctx *ic);
void ix_fold_defaults(infer_ctx *ic, func_def *fn);
/* infer_records.c: record dtypes (np.dtype, from_dtype), record types in signatures,
 * field access. REC_FIELD_BASE in an N_INDEX's aux: the element is only read, a[i].x */
#define REC_FIELD_BASE 0x5246
const type *ix_record_const(const node *v, bool *is_numba_type);
node *ix_record_fold_call(infer_ctx *ic, node *e, const builtin *b);
const type *ix_record_maker(infer_ctx *ic, node *e, const builtin *b);
const type *ix_record_annotation(infer_ctx *ic, node *base);
const type *ix_sig_record(infer_ctx *ic, const char *text, size_t len, span sp);
const type *ix_record_field(infer_ctx *ic, node *e, const type *rt);
/* v.x of a CUDA vector v (e->aux: which element) */
const type *ix_vector_field(infer_ctx *ic, node *e, const type *vt);
void ix_record_written(infer_ctx *ic, node *e);
bool ix_record_store(infer_ctx *ic, node *t, const type *rt, const type *vt, bool plain);
int ix_record_position(infer_ctx *ic, node *e, const type *bt);
/* resolve_sigs.c: signatures in every spelling; 'U' or 'T' for a path naming Numba's
 * UniTuple or Tuple type (a kernel parameter's type), else 0 */
int ix_tuple_type_ctor(const char *path);
/* resolve_sigs.c: signatures in every spelling */
void ix_apply_cli_sigs(infer_ctx *ic);
/* An array index held in a name whose value is a tuple of integers (idx = (i, j);
 * a[idx], cuda.atomic.add(a, idx, v)): *slot becomes the tuple (idx[0], idx[1]), as
 * though written out. Anything else is left as it is. */
void ix_expand_tuple_index(infer_ctx *ic, node **slot);
/* r["y"] on a record is r.y (Numba takes both): when bt (e->a's type) is a record and
 * the index a string, e becomes that attribute, for typing, stores and code alike. */
bool ix_record_key(node *e, const type *bt);
/* A decorator argument as written, or, for a name bound at module level to a signature
 * string or a list of them, that value. */
node *ix_sig_const(infer_ctx *ic, node *e);
/* One signature in any of Numba's spellings (resolve_sigs.c): its parameter types, and
 * its result type (NULL when it has none, as a tuple of argument types). */
bool ix_signature(infer_ctx *ic, node *e, ptr_vec **params, const type **ret);

/* Foreign device functions (foreign.c): cuda.declare_device at module level, their
 * calls, link= and the program's link files; a path Python would compute from strings,
 * string constants, __file__ and os.path's functions (NULL when it is not one). */
bool ix_declare_device(infer_ctx *ic, node *s);
foreign_fn *ix_find_foreign(infer_ctx *ic, const char *name);
const type *ix_foreign_call(infer_ctx *ic, node *e, foreign_fn *f);
void ix_link_option(infer_ctx *ic, func_def *fn, node *kw);
void ix_collect_links(infer_ctx *ic);
const char *ix_fold_path(infer_ctx *ic, node *e);
/* The kernel type an annotation names, or NULL, saying nothing (Numba ignores
 * annotations: one kcc does not know is not an error). */
const type *ix_known_annotation(infer_ctx *ic, node *ann);
const type *ix_annotation_type(infer_ctx *ic, node *ann);
void ix_annotation_sig(infer_ctx *ic, func_def *fn);
void ix_decorator_sigs(infer_ctx *ic, func_def *fn, node *arg);
void ix_reduce_decorator_sigs(infer_ctx *ic, func_def *fn, node *arg);
ptr_vec *ix_reduce_kernel_sig(infer_ctx *ic, const type *el);
#define GU_MAX_ARGS 32

/* A parsed layout "(m,n),()->(m)": per argument its core dimension names. */
typedef struct gu_layout {
  int nargs, nin;
  int ndim[GU_MAX_ARGS];
  const char *dim[GU_MAX_ARGS][KC_MAX_DIMS];
} gu_layout;
bool ix_gu_parse_layout(infer_ctx *ic, const char *s, gu_layout *l, const char **err);
/* funcval.c: functions, builtins and type objects as values; inner functions */
const type *ix_funcval_func(infer_ctx *ic, func_def *fn);
const type *ix_funcval_path(infer_ctx *ic, const char *path);
const type *ix_class_value(infer_ctx *ic, node *e);
void ix_inner_def(infer_ctx *ic, node *s);
void ix_closure_copy_check(infer_ctx *ic, node *target, node *value);
bool ix_bind_captures(infer_ctx *ic, node *e, func_def *fn);
bool ix_sig_args(infer_ctx *ic, node *e, func_def *fn, const type **args, int n);
/* builtins/arrays.c: an array method kernels do not have (reported: true) */
/* infer.c: e makes a view that can be written through: its root parameter is written */
bool ix_mark_view_of(infer_ctx *ic, node *e);   /* false: a module array's, refused */
/* infer_calls.c: the constants call passes to fn's parameters (integers, booleans,
 * tuples of integers), by parameter, or NULL when there are none */
node **ix_literal_args(infer_ctx *ic, node *call, func_def *fn, int n);
/* specialise.c: instances (call: the call, whose constants may make a literal instance;
 * NULL for none) */
fn_instance *ix_instantiate(infer_ctx *ic, func_def *fn, const type **args, int n,
                            bitset omitted, span site, node *call);
void ix_compile_functions(infer_ctx *ic);
/* resolve_options.c: one keyword option of @cuda.jit (or of @vectorize ...) for fn;
   false when kw is not one of those options (the caller's keywords: device=) */
bool ix_decorator_option(infer_ctx *ic, func_def *fn, node *kw);
/* infer_checks.c: an assert or raise statement typed, its failure's text made */
void ix_check_stmt(infer_ctx *ic, node *s);

#endif
