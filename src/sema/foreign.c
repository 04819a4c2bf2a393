/*
 * foreign.c — device functions written in another language, as Numba links them
 * (docs: "Calling foreign functions from Python kernels"):
 *
 *   mul = cuda.declare_device('mul_f32_f32', 'float32(float32, float32)')
 *   @cuda.jit(link=[os.path.join(os.path.dirname(__file__), 'functions.cu')])
 *   def k(r, x, y): r[i] = mul(x[i], y[i])
 *
 * A declaration binds a foreign_fn (sema.h); a call converts its arguments to the
 * declared types, as a call of a typed device function does, and code generation calls
 * `int name(T *return_value, args...)`, Numba's ABI. link= names the files that define
 * them: module-level string constants and os.path calls on __file__ are evaluated
 * here, as Python would before Numba sees them. The files are checked now (that they
 * exist, and their kind by extension, as Numba's linker guesses it); the GPU links
 * them when the runtime loads the PTX (the "// kcc-link:" lines, compile.c), the CPU
 * back end compiles them with the system's compiler (target/host_link.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtins/builtin.h"
#include "typing.h"

/* ---- paths, as Python evaluates them ------------------------------------------------- */

/* The last component of a dotted path ("host:os.path.join" -> "join") when the path
 * is os.path's (imported whole or by name), else NULL. */
static const char *os_path_function(const char *p) {
  static const char prefix[] = "host:os.path.";
  if (!p || strncmp(p, prefix, sizeof prefix - 1) != 0) return NULL;
  return p + sizeof prefix - 1;
}

static const char *path_dirname(infer_ctx *ic, const char *s) {
  const char *slash = strrchr(s, '/');
  if (!slash) return "";
  size_t n = (size_t)(slash - s);
  while (n > 1 && s[n - 1] == '/') n--;   /* Python keeps the root: '/' */
  return arena_strndup(ic->ar, s, n ? n : 1);
}

static const char *path_abspath(infer_ctx *ic, const char *s) {
  if (s[0] == '/') return s;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return s;
  return arena_printf(ic->ar, "%s/%s", cwd, *s ? s : ".");
}

static const char *fold_path_call(infer_ctx *ic, node *e) {
  const char *fn = os_path_function(ix_dotted_path(ic, e->a));
  if (!fn || e->kwargs.len) return NULL;
  int n = e->list.len;
  const char **args = arena_alloc(ic->ar, sizeof *args * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    if (!(args[i] = ix_fold_path(ic, e->list.items[i]))) return NULL;
  if (strcmp(fn, "join") == 0 && n >= 1) {
    const char *s = args[0];
    for (int i = 1; i < n; i++)
      s = args[i][0] == '/' ? args[i]
          : !*s || s[strlen(s) - 1] == '/' ? arena_printf(ic->ar, "%s%s", s, args[i])
                                           : arena_printf(ic->ar, "%s/%s", s, args[i]);
    return s;
  }
  if (n != 1) return NULL;
  if (strcmp(fn, "dirname") == 0) return path_dirname(ic, args[0]);
  if (strcmp(fn, "abspath") == 0 || strcmp(fn, "realpath") == 0 ||
      strcmp(fn, "normpath") == 0)
    return path_abspath(ic, args[0]);
  if (strcmp(fn, "expanduser") == 0) return args[0];
  return NULL;
}

const char *ix_fold_path(infer_ctx *ic, node *e) {
  if (e->kind == N_STR) return e->str;
  if (e->kind == N_NAME && strcmp(e->str, "__file__") == 0 && !ix_find_const(ic, e->str))
    return ic->d->file;
  if (e->kind == N_NAME) {
    node *c = ix_sig_const(ic, e);
    return c != e && c->kind == N_STR ? c->str : NULL;
  }
  if (e->kind == N_BINOP && e->op == OP_ADD) {   /* basedir + '/functions.cu' */
    const char *a = ix_fold_path(ic, e->a), *b = a ? ix_fold_path(ic, e->b) : NULL;
    return b ? arena_printf(ic->ar, "%s%s", a, b) : NULL;
  }
  return e->kind == N_CALL ? fold_path_call(ic, e) : NULL;
}

/* ---- link= ------------------------------------------------------------------------------ */

/* The kinds of file Numba's linker takes, by extension (Linker.add_file_guess_ext). */
static const char *const link_kinds[] = {".cu", ".ptx", ".cubin", ".fatbin", ".o", ".a",
                                         ".ltoir"};

static bool known_kind(const char *path) {
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash)) return false;
  for (size_t i = 0; i < sizeof link_kinds / sizeof link_kinds[0]; i++)
    if (strcmp(dot, link_kinds[i]) == 0) return true;
  return false;
}

/* The file a link= entry names, absolute: as given when it exists (Python's working
 * directory is the compiler's), else beside the source file. NULL when neither is a
 * regular file. */
static const char *find_link_file(infer_ctx *ic, const char *path) {
  struct stat st;
  const char *tries[2] = {path, NULL};
  if (path[0] != '/') {
    const char *dir = path_dirname(ic, ic->d->file);
    tries[1] = arena_printf(ic->ar, "%s/%s", *dir ? dir : ".", path);
  }
  for (int i = 0; i < 2 && tries[i]; i++) {
    if (stat(tries[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;
    char *real = realpath(tries[i], NULL);
    if (!real) continue;
    const char *r = arena_strdup(ic->ar, real);
    free(real);
    return r;
  }
  return NULL;
}

static void link_entry(infer_ctx *ic, func_def *fn, node *e) {
  const char *path = ix_fold_path(ic, e);
  if (!path) {
    ix_error(ic, e->sp, "link= takes file names kcc can evaluate: strings, module-level "
             "string constants, and os.path.join/dirname/abspath of them and __file__");
    return;
  }
  if (!known_kind(path)) {
    ix_error(ic, e->sp, "don't know how to link '%s': link= takes CUDA C/C++ (.cu), PTX "
             "(.ptx), cubins (.cubin), fat binaries (.fatbin), objects (.o), libraries (.a) "
             "and LTO-IR (.ltoir)", path);
    return;
  }
  const char *abs = find_link_file(ic, path);
  if (abs && strpbrk(abs, "\r\n")) {   /* the PTX names it on a line of its own */
    ix_error(ic, e->sp, "link file '%s': kcc cannot link a file whose name has a line break",
             path);
    return;
  }
  if (!abs) {
    ix_error(ic, e->sp, "link file '%s' not found (looked in the working directory and "
             "beside %s)", path, ic->d->file);
    return;
  }
  link_file *l = arena_alloc(ic->ar, sizeof *l);
  l->path = abs;
  l->where = e->sp;
  vec_push(ic->ar, &fn->opts.links, l);
}

void ix_link_option(infer_ctx *ic, func_def *fn, node *kw) {
  node *v = ix_sig_const(ic, kw->a);
  if (v->kind != N_LIST && v->kind != N_TUPLE) {
    ix_error(ic, kw->sp, "link= takes a list of files: link=['functions.cu']");
    return;
  }
  fn->opts.links = (ptr_vec){0};
  fn->opts.link_given = true;
  for (int i = 0; i < v->list.len; i++) link_entry(ic, fn, v->list.items[i]);
}

/* A foreign function named as a function compiled here (its entry point or
 * specialisation) is an error at the declaration: LLVM would rename one of them. */
static void check_clashes(infer_ctx *ic) {
  program *p = ic->prog;
  for (int i = 0; i < p->foreign.len; i++) {
    const foreign_fn *f = p->foreign.items[i];
    for (int k = 0; f->called && k < p->instances.len; k++) {
      const fn_instance *inst = p->instances.items[k];
      if (strcmp(inst->symbol_name, f->symbol) != 0) continue;
      ix_error(ic, f->where, "the foreign function '%s' has the name of another function in "
               "this module ('%s', line %d): rename one of them", f->symbol, inst->fn->name,
               inst->fn->def->sp.line);
      break;
    }
  }
}

/* The link= files of every function compiled, each once (the program's); a foreign
 * function called with none to define it is an error at the first call. */
void ix_collect_links(infer_ctx *ic) {
  program *p = ic->prog;
  check_clashes(ic);
  bool given = false;   /* a link= whose files were refused has had its error */
  for (int k = 0; k < p->instances.len; k++) {
    given = given || ((fn_instance *)p->instances.items[k])->fn->opts.link_given;
    const ptr_vec *l = &((fn_instance *)p->instances.items[k])->fn->opts.links;
    for (int i = 0; i < l->len; i++) {
      bool seen = false;
      for (int j = 0; j < p->links.len && !seen; j++)
        seen = strcmp(((link_file *)p->links.items[j])->path,
                      ((link_file *)l->items[i])->path) == 0;
      if (!seen) vec_push(ic->ar, &p->links, l->items[i]);
    }
  }
  for (int i = 0; i < p->foreign.len && !given; i++) {
    const foreign_fn *f = p->foreign.items[i];
    if (f->called) {
      ix_error(ic, f->first_call, "'%s' is a foreign function (cuda.declare_device, line %d), "
               "and no kernel links the file that defines it: @cuda.jit(link=['file.cu'])",
               f->name, f->where.line);
      return;
    }
  }
}

/* ---- declarations and calls --------------------------------------------------------------- */

/* A symbol the linked file can define and PTX can name: an identifier that is not one
 * of kcc's own (__kcc_...). Mangled C++ names are identifiers too. */
static bool foreign_symbol_ok(const char *s) {
  if (!*s || (!(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))))
    return false;
  for (const char *c = s; *c; c++)
    if (!(*c == '_' || *c == '$' || (*c >= '0' && *c <= '9') || (*c >= 'A' && *c <= 'Z') ||
          (*c >= 'a' && *c <= 'z')))
      return false;
  return strncmp(s, "__kcc", 5) != 0;
}

/* Numbers cross the ABI as C's types do; arrays, records and tuples have Numba's data
 * model's layouts, which a foreign function would have to spell field by field. */
static bool foreign_type_ok(const type *t) {
  return t->kind == TY_INT || (t->kind == TY_FLOAT && t->bits >= 32) || t->kind == TY_BOOL;
}

static bool foreign_types_ok(infer_ctx *ic, node *sig, const type *ret, ptr_vec *params) {
  if (ret->kind != TY_VOID && !foreign_type_ok(ret)) {
    ix_error(ic, sig->sp, "a foreign function returns a number (an integer, float or bool) "
             "in kcc, not %s", ix_tname(ic, ret));
    return false;
  }
  for (int i = 0; i < params->len; i++)
    if (!foreign_type_ok(params->items[i])) {
      ix_error(ic, sig->sp, "a foreign function takes numbers (integers, floats, bools) "
               "in kcc; parameter %d is %s (pass an array's elements, or write the function "
               "in the kernel language)", i + 1, ix_tname(ic, params->items[i]));
      return false;
    }
  return true;
}

/* name = cuda.declare_device('symbol', sig) at module level; false when s is not one. */
bool ix_declare_device(infer_ctx *ic, node *s) {
  node *t = s->list.len == 1 ? s->list.items[0] : NULL, *v = s->a;
  if (!t || t->kind != N_NAME || v->kind != N_CALL) return false;
  const char *p = ix_dotted_path(ic, v->a);
  if (!p || strcmp(p, "numba.cuda.declare_device") != 0) return false;
  node *name = v->list.len > 0 ? v->list.items[0] : NULL;
  node *sig = v->list.len > 1 ? v->list.items[1] : NULL;
  for (int i = 0; i < v->kwargs.len; i++) {
    node *kw = v->kwargs.items[i];
    if (strcmp(kw->str, "name") == 0 && !name) name = kw->a;
    else if (strcmp(kw->str, "sig") == 0 && !sig) sig = kw->a;
    else {
      ix_error(ic, kw->sp, "cuda.declare_device takes name and sig");
      return true;
    }
  }
  if (!name || !sig || v->list.len > 2) {
    ix_error(ic, v->sp, "cuda.declare_device takes two arguments: the function's name and "
             "its signature, as in cuda.declare_device('mul', 'float32(float32, float32)')");
    return true;
  }
  name = ix_sig_const(ic, name);
  if (name->kind != N_STR || !foreign_symbol_ok(name->str)) {
    ix_error(ic, name->sp, "a foreign function's name is a string naming a C identifier "
             "(extern \"C\") or a mangled C++ name, and not one starting __kcc");
    return true;
  }
  ptr_vec *params;
  const type *ret;
  if (!ix_signature(ic, sig, &params, &ret)) return true;
  if (!ret) {
    ix_error(ic, sig->sp, "return type must be provided for device declarations, as in "
             "'float32(float32, float32)'");
    return true;
  }
  if (!foreign_types_ok(ic, sig, ret, params)) return true;
  foreign_fn *f = arena_alloc(ic->ar, sizeof *f);
  f->name = t->str;
  f->symbol = name->str;
  f->ret = ret;
  f->nparams = params->len;
  f->params = (const type **)params->items;
  f->where = v->sp;
  vec_push(ic->ar, &ic->prog->foreign, f);
  ix_forget_const(ic, t->str);
  return true;
}

foreign_fn *ix_find_foreign(infer_ctx *ic, const char *name) {
  for (int i = ic->prog->foreign.len - 1; i >= 0; i--) {
    foreign_fn *f = ic->prog->foreign.items[i];
    if (strcmp(f->name, name) == 0) return f;
  }
  return NULL;
}

const type *ix_foreign_call(infer_ctx *ic, node *e, foreign_fn *f) {
  if (!ix_args(ic, e)) return NULL;
  if (e->kwargs.len || e->list.len != f->nparams) {
    ix_error(ic, e->sp, "'%s' (cuda.declare_device, line %d) takes %d argument%s, by "
             "position", f->name, f->where.line, f->nparams, f->nparams == 1 ? "" : "s");
    return NULL;
  }
  for (int i = 0; i < f->nparams; i++) {
    node *a = e->list.items[i];
    if (!foreign_type_ok(a->ty)) {
      ix_error(ic, a->sp, "argument %d of '%s' is declared %s; %s is not a number", i + 1,
               f->name, ix_tname(ic, f->params[i]), ix_tname(ic, a->ty));
      return NULL;
    }
  }
  e->aux = CALL_FOREIGN;
  e->aux_ptr = f;
  if (!f->called) f->called = true, f->first_call = e->sp;
  return ix_set_type(e, f->ret, false);
}
