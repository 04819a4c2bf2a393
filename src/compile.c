/*
 * compile.c — the pipeline, top to bottom: source -> tokens -> AST (parse_module) ->
 * typed program (infer_program) -> LLVM IR (cg_program) -> PTX (target_nvptx.c) or
 * host machine code (target_host.c). One arena per compilation holds everything up to
 * the IR; what the caller keeps (text, kernel descriptions) is copied out with malloc.
 * Out-of-memory anywhere in the front end longjmps back here.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "codegen.h"
#include "compile.h"
#include "kc_config.h"
#include "parse.h"
#include "sema.h"
#include "target.h"

void kcc_options_init(kcc_options *o) {
  memset(o, 0, sizeof *o);
  o->target = KCC_TARGET_NVPTX;
  o->emit = KCC_EMIT_PTX;
  o->arch = 80;
  o->opt_level = 3;
}

static char *copy_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

static const char *libdevice_path(const kcc_options *o) {
  if (o->libdevice) return o->libdevice;
  const char *env = getenv("KC_LIBDEVICE");
  return env && *env ? env : KC_LIBDEVICE_PATH;
}

/* "add(float32[:], float32[:], int32)" */
static const char *kernel_signature(arena *a, const fn_instance *f) {
  char *s = arena_printf(a, "%s(", f->fn->name);
  for (int i = 0; i < f->nparams; i++)
    s = arena_printf(a, "%s%s%s", s, i ? ", " : "", type_name(a, f->param_types[i]));
  return arena_printf(a, "%s)", s);
}

static const char *param_name(arena *a, const fn_instance *f, int i) {
  if (f->vec_scalar)
    return i == f->nparams - 1 ? "out" : arena_printf(a, "in%d", i);
  return ((node *)f->def->params.items[i])->str;
}

/* Copy the kernels' descriptions out of the arena. Returns false when out of memory. */
static bool describe_kernels(arena *a, const program *p, size_t shared, kcc_output *out) {
  int n = p->kernels.len;
  out->kernels = calloc((size_t)n + 1, sizeof *out->kernels);
  if (!out->kernels) return false;
  out->nkernels = n;
  for (int i = 0; i < n; i++) {
    const fn_instance *f = p->kernels.items[i];
    kcc_kernel *k = &out->kernels[i];
    k->name = copy_str(f->fn->name);
    k->symbol = copy_str(f->symbol_name);
    k->signature = copy_str(kernel_signature(a, f));
    k->nparams = f->nparams;
    k->params = calloc((size_t)f->nparams + 1, sizeof *k->params);
    if (!k->name || !k->symbol || !k->signature || !k->params) return false;
    for (int j = 0; j < f->nparams; j++) {
      const type *t = f->param_types[j];
      k->params[j].name = copy_str(param_name(a, f, j));
      if (!k->params[j].name) return false;
      k->params[j].dtype = type_to_dtype(t->kind == TY_ARRAY ? t->elem : t);
      k->params[j].ndim = t->kind == TY_ARRAY ? t->ndim : 0;
      k->params[j].written = (f->written_params >> j) & 1;
    }
    k->uses_barrier = f->uses_barrier;
    k->static_shared = shared;
  }
  out->nuntyped = p->untyped.len;
  out->untyped = calloc((size_t)p->untyped.len + 1, sizeof *out->untyped);
  if (!out->untyped) return false;
  for (int i = 0; i < p->untyped.len; i++)
    if (!(out->untyped[i] = copy_str(p->untyped.items[i]))) return false;
  return true;
}

/* One line of the kernel table: "SYMBOL SIGNATURE", then " written=I,J" naming the
 * array parameters the kernel stores to (the runtime checks that they do not overlap
 * the read-only ones, which are compiled noalias). The format is runtime/image.c's. */
static size_t table_line(const kcc_kernel *k, char *s, size_t n) {
  size_t o = (size_t)snprintf(s, n, "%s %s", k->symbol, k->signature);
  const char *sep = " written=";
  for (int j = 0; j < k->nparams; j++)
    if (k->params[j].written) {
      o += (size_t)snprintf(s + o, o < n ? n - o : 0, "%s%d", sep, j);
      sep = ",";
    }
  return o;
}

static size_t table_line_bound(const kcc_kernel *k) {
  return strlen(k->symbol) + strlen(k->signature) + 16 + 4 * (size_t)k->nparams;
}

/* The PTX with the kernel table twice, so that the runtime can load the file alone and
 * still check launch arguments: as "// kcc-kernel: LINE" comments in front (read from
 * PTX text), and as a NUL-terminated .const byte array __kcc_kernels at the end, which
 * ptxas and nvJitLink keep (it is .visible) and so travels inside a cubin, where the
 * runtime finds it in the ELF symbol table. */
static char *ptx_with_header(const kcc_output *out, const char *ptx, size_t *len) {
  size_t table_len = 0, n = strlen(ptx) + 256;
  for (int i = 0; i < out->nkernels; i++) table_len += table_line_bound(&out->kernels[i]) + 1;
  char *table = malloc(table_len + 1);
  if (!table) return NULL;
  size_t t = 0;
  for (int i = 0; i < out->nkernels; i++) {
    t += table_line(&out->kernels[i], table + t, table_len + 1 - t);
    table[t++] = '\n';
  }
  table[t] = '\0';
  n += 16 * (size_t)out->nkernels + t + 5 * (t + 1);   /* comments, bytes as "255, " */
  char *s = malloc(n);
  if (!s) {
    free(table);
    return NULL;
  }
  size_t o = 0;
  for (const char *line = table; *line;) {
    const char *nl = strchr(line, '\n');
    o += (size_t)snprintf(s + o, n - o, "// kcc-kernel: %.*s\n", (int)(nl - line), line);
    line = nl + 1;
  }
  o += (size_t)snprintf(s + o, n - o, "%s", ptx);
  if (t > 0) {
    o += (size_t)snprintf(s + o, n - o,
                          "\n// the kernel table again, for cubins (runtime/image.c)\n"
                          ".visible .const .align 1 .b8 __kcc_kernels[%zu] = {", t + 1);
    for (size_t i = 0; i <= t; i++)
      o += (size_t)snprintf(s + o, n - o, "%s%u", i ? ", " : "", (unsigned char)table[i]);
    o += (size_t)snprintf(s + o, n - o, "};\n");
  }
  free(table);
  *len = o;
  return s;
}

static kc_status fail(diag_sink *d, kc_status st, const char *what, char *msg) {
  diag_error(d, span_none(), "%s: %s", what, msg ? msg : "failed");
  free(msg);
  return st;
}

static kc_status emit_nvptx(const kcc_options *o, diag_sink *d, LLVMModuleRef m,
                            kcc_output *out) {
  char *err = NULL, *text = NULL;
  size_t len = 0;
  if (nvptx_prepare_module(m, o->arch, &err)) return fail(d, KC_ERR_INVALID, "NVPTX target", err);
  if (nvptx_link_libdevice(m, libdevice_path(o), &err))
    return fail(d, KC_ERR_IO, "libdevice", err);
  if (nvptx_optimize_and_emit(m, o->arch, o->opt_level, o->emit == KCC_EMIT_LLVM, &text, &len, &err))
    return fail(d, KC_ERR_INTERNAL, "PTX generation", err);
  if (o->emit == KCC_EMIT_LLVM) {
    out->text = text;
    out->text_len = len;
    return KC_OK;
  }
  out->text = ptx_with_header(out, text, &out->text_len);
  free(text);
  return out->text ? KC_OK : KC_ERR_NOMEM;
}

static kc_status emit_host(const kcc_options *o, diag_sink *d, LLVMContextRef ctx,
                           LLVMModuleRef m, kcc_output *out) {
  char *err = NULL;
  if (host_prepare_module(m, &err)) return fail(d, KC_ERR_INTERNAL, "host target", err);
  /* the IR passes run here for both outputs: what --emit=llvm shows is what runs */
  if (host_optimize(m, o->opt_level, &err)) return fail(d, KC_ERR_INTERNAL, "optimiser", err);
  if (o->emit == KCC_EMIT_LLVM) {
    out->text = host_emit_llvm(m);
    out->text_len = out->text ? strlen(out->text) : 0;
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return out->text ? KC_OK : KC_ERR_NOMEM;
  }
  if (host_jit(ctx, m, o->opt_level, &out->host, &err))
    return fail(d, KC_ERR_INTERNAL, "JIT", err);
  for (int i = 0; i < out->nkernels; i++) {
    kcc_kernel *k = &out->kernels[i];
    char name[512];
    snprintf(name, sizeof name, "%s__block", k->symbol);
    k->block_fn = host_lookup(out->host, name);
    snprintf(name, sizeof name, "%s__thread", k->symbol);
    k->thread_fn = host_lookup(out->host, name);
    if (!k->block_fn || !k->thread_fn)
      return fail(d, KC_ERR_INTERNAL, "JIT", copy_str("kernel entry point not found"));
  }
  return KC_OK;
}

/* The back half: typed program -> IR -> PTX or machine code. */
static kc_status generate(const kcc_options *o, arena *a, diag_sink *d, program *p,
                          const char *name, kcc_output *out) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  size_t shared = 0;
  if (cg_program(a, d, p, o, ctx, name, &m, &shared) > 0) {
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return KC_ERR_INTERNAL;
  }
  if (!describe_kernels(a, p, shared, out)) {
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return KC_ERR_NOMEM;
  }
  /* emit_host hands ctx and m to the JIT (or frees them) */
  if (o->target == KCC_TARGET_HOST) return emit_host(o, d, ctx, m, out);
  kc_status st = emit_nvptx(o, d, m, out);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return st;
}

static char *text_copy(const char *s, size_t *len) {
  *len = strlen(s);
  return copy_str(s);
}

static kc_status run_pipeline(const kcc_options *o, arena *a, diag_sink *d, const char *name,
                              const char *src, size_t len, kcc_output *out) {
  node *mod = parse_module(a, d, src, len);
  if (o->emit == KCC_EMIT_AST) {
    out->text = text_copy(ast_dump(a, mod), &out->text_len);
    return d->nerrors ? KC_ERR_SYNTAX : out->text ? KC_OK : KC_ERR_NOMEM;
  }
  if (d->nerrors) return KC_ERR_SYNTAX;
  program p;
  if (infer_program(a, d, mod, o, &p) > 0) return KC_ERR_TYPE;
  if (o->emit == KCC_EMIT_TYPES) {
    out->text = text_copy(infer_dump_types(a, &p), &out->text_len);
    return out->text ? KC_OK : KC_ERR_NOMEM;
  }
  return generate(o, a, d, &p, name, out);
}

/* Everything a compilation needs across the setjmp that catches out-of-memory. */
typedef struct job {
  const kcc_options *o;
  const char *name, *source;
  size_t len;
  kcc_output *out;
  arena a;
  diag_sink d;
  jmp_buf oom;
  kc_status status;
} job;

static void run_guarded(job *j) {
  j->status = KC_ERR_NOMEM;
  if (setjmp(j->oom) != 0) return;
  arena_set_oom(&j->a, &j->oom);
  diag_init(&j->d, &j->a, j->name, j->source, j->len);
  j->d.emit = j->o->diag;
  j->d.user_data = j->o->user_data;
  j->d.color = j->o->color;
  j->status = run_pipeline(j->o, &j->a, &j->d, j->name, j->source, j->len, j->out);
  j->out->nerrors = j->d.nerrors;
  j->out->nwarnings = j->d.nwarnings;
  if (j->d.first_error) j->out->first_error = copy_str(j->d.first_error);
}

kc_status kcc_compile(const kcc_options *opts, const char *name, const char *source,
                      size_t len, kcc_output *out) {
  memset(out, 0, sizeof *out);
  kcc_options defaults;
  kcc_options_init(&defaults);
  job *j = calloc(1, sizeof *j);
  if (!j) return out->status = KC_ERR_NOMEM;
  j->o = opts ? opts : &defaults;
  j->name = name ? name : "<source>";
  j->source = source ? source : "";
  j->len = source ? len : 0;
  j->out = out;
  arena_init(&j->a, j->o->alloc, j->o->user_data);
  run_guarded(j);
  kc_status st = j->status;
  if (st == KC_OK && out->nerrors) st = KC_ERR_INTERNAL;
  out->status = st;
  arena_free(&j->a);
  free(j);
  return st;
}

void kcc_output_free(kcc_output *out) {
  if (!out) return;
  free(out->text);
  for (int i = 0; i < out->nkernels; i++) {
    kcc_kernel *k = &out->kernels[i];
    free((char *)k->name);
    free((char *)k->symbol);
    free((char *)k->signature);
    for (int j = 0; k->params && j < k->nparams; j++) free((char *)k->params[j].name);
    free(k->params);
  }
  free(out->kernels);
  for (int i = 0; i < out->nuntyped; i++) free((char *)out->untyped[i]);
  free(out->untyped);
  host_code_free(out->host);
  free(out->first_error);
  memset(out, 0, sizeof *out);
}
