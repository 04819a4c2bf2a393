/*
 * compile.c — the pipeline, top to bottom: source -> tokens -> AST (parse_module) ->
 * typed program (infer_program) -> LLVM IR (cg_program) -> PTX (target_nvptx.c) or
 * host machine code (target_host.c). One arena per compilation holds everything up to
 * the IR; what the caller keeps (text, kernel descriptions) is copied out with the
 * caller's allocator (kcc_options.alloc), as is the arena's memory. Out-of-memory
 * anywhere in the front end or code generation longjmps back here; the LLVM context
 * the compilation owns at that moment is disposed of. LLVM's own allocations (and the
 * back ends' short-lived copies of LLVM's text and messages) use malloc: LLVM offers
 * no hook for them.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "builtins/builtin.h"
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
  const char *checks = getenv("KC_LOOP_CHECKS");
  o->loop_checks = !(checks && strcmp(checks, "0") == 0);
}

/* ---- What the caller keeps: allocated with out->alloc (NULL: malloc) ---------------- */

static void *out_alloc(const kcc_output *out, size_t n) {
  void *p = out->alloc ? out->alloc(out->user_data, NULL, 0, n) : malloc(n);
  if (p) memset(p, 0, n);
  return p;
}

/* n must be the size the block was allocated with (the hook is told). */
static void out_free(const kcc_output *out, void *p, size_t n) {
  if (!p) return;
  if (out->alloc) out->alloc(out->user_data, p, n, 0);
  else free(p);
}

/* Shrink a block from n to m <= n bytes; the block stays as it was on failure. */
static char *out_shrink(const kcc_output *out, char *p, size_t n, size_t m) {
  char *q = out->alloc ? out->alloc(out->user_data, p, n, m) : realloc(p, m);
  if (q) return q;
  out_free(out, p, n);
  return NULL;
}

static char *out_strndup(const kcc_output *out, const char *s, size_t n) {
  char *c = out_alloc(out, n + 1);
  if (c) memcpy(c, s, n);
  return c;
}

static char *out_strdup(const kcc_output *out, const char *s) {
  return out_strndup(out, s, strlen(s));
}

static void out_free_str(const kcc_output *out, const char *s) {
  if (s) out_free(out, (char *)s, strlen(s) + 1);
}

/* A back end's malloc'd text, moved into the caller's memory. */
static kc_status out_take_text(kcc_output *out, char *text, size_t len) {
  out->text = text ? out_strndup(out, text, len) : NULL;
  out->text_len = out->text ? len : 0;
  free(text);
  return out->text ? KC_OK : KC_ERR_NOMEM;
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

static const char *param_name(const fn_instance *f, int i) {
  return ((node *)f->def->params.items[i])->str;
}

/* A tuple parameter's element dtypes (its elements are scalars, resolve_sigs.c). */
static bool describe_tuple(kcc_output *out, const type *t, kcc_param *p) {
  kc_dtype *el = out_alloc(out, (size_t)t->nelems * sizeof *el);
  if (!el) return false;
  for (int i = 0; i < t->nelems; i++) el[i] = type_to_dtype(t->elems[i]);
  p->nelems = t->nelems;
  p->elems = el;
  p->dtype = el[0];
  return true;
}

/* Copy the kernels' descriptions out of the arena. Returns false when out of memory. */
static bool describe_kernels(arena *a, const program *p, size_t shared, kcc_output *out) {
  int n = p->kernels.len;
  out->kernels = out_alloc(out, ((size_t)n + 1) * sizeof *out->kernels);
  if (!out->kernels) return false;
  out->nkernels = n;
  for (int i = 0; i < n; i++) {
    const fn_instance *f = p->kernels.items[i];
    kcc_kernel *k = &out->kernels[i];
    k->name = out_strdup(out, f->fn->name);
    k->symbol = out_strdup(out, f->symbol_name);
    k->signature = out_strdup(out, kernel_signature(a, f));
    k->nparams = f->nparams;
    k->params = out_alloc(out, ((size_t)f->nparams + 1) * sizeof *k->params);
    if (!k->name || !k->symbol || !k->signature || !k->params) return false;
    for (int j = 0; j < f->nparams; j++) {
      const type *t = f->param_types[j];
      k->params[j].name = out_strdup(out, param_name(f, j));
      if (!k->params[j].name) return false;
      const type *el = t->kind == TY_ARRAY ? t->elem : t;   /* a record: the signature says which */
      k->params[j].dtype = el->kind == TY_RECORD ? KC_RECORD : type_to_dtype(el);
      k->params[j].ndim = t->kind == TY_ARRAY ? t->ndim : 0;
      if (t->kind == TY_TUPLE && !describe_tuple(out, t, &k->params[j])) return false;
      k->params[j].strided = t->kind == TY_ARRAY && t->strided;
      k->params[j].written = param_written(f, j);
    }
    k->uses_barrier = f->uses_barrier && !f->host_regions;
    k->cooperative = f->uses_grid_sync;
    k->inner_axis = f->host_inner;
    k->fuse_blocks = f->host_fused;
    k->regions = f->host_regions;
    k->static_shared = shared;
    k->max_threads = f->fn->opts.max_threads;
  }
  out->untyped = out_alloc(out, ((size_t)p->untyped.len + 1) * sizeof *out->untyped);
  if (!out->untyped) return false;
  out->nuntyped = p->untyped.len;
  for (int i = 0; i < p->untyped.len; i++)
    if (!(out->untyped[i] = out_strdup(out, p->untyped.items[i]))) return false;
  return true;
}

/* One line of the kernel table: "SYMBOL SIGNATURE", then " written=I,J" naming the
 * array parameters the kernel stores to (the runtime checks that they do not overlap
 * the read-only ones, which are compiled noalias), and " cooperative" for a kernel
 * that synchronises its grid. The format is runtime/image.c's. */
static size_t table_line(const kcc_kernel *k, char *s, size_t n) {
  size_t o = (size_t)snprintf(s, n, "%s %s", k->symbol, k->signature);
  const char *sep = " written=";
  for (int j = 0; j < k->nparams; j++)
    if (k->params[j].written) {
      o += (size_t)snprintf(s + o, o < n ? n - o : 0, "%s%d", sep, j);
      sep = ",";
    }
  if (k->cooperative) o += (size_t)snprintf(s + o, o < n ? n - o : 0, " cooperative");
  return o;
}

static size_t table_line_bound(const kcc_kernel *k) {
  return strlen(k->symbol) + strlen(k->signature) + 32 + 4 * (size_t)k->nparams;
}

/* The PTX with the kernel table twice, so that the runtime can load the file alone and
 * still check launch arguments: as "// kcc-kernel: LINE" comments in front (read from
 * PTX text), and as a NUL-terminated .global byte array __kcc_kernels at the end, which
 * ptxas and nvJitLink keep (it is .visible) and so travels inside a cubin, where the
 * runtime finds it in the ELF symbol table. Global memory, not .const: the table grows
 * with the kernels and their signatures (a record of 10,000 fields spells each), and
 * the 64 KiB constant bank is the module arrays'. First, a "// kcc-link: PATH" line for
 * each link= file, which the runtime links with the PTX when it loads it. */
static char *ptx_with_header(const kcc_output *out, const ptr_vec *links, const char *ptx,
                             size_t *len) {
  size_t table_len = 0, n = strlen(ptx) + 256;
  for (int i = 0; i < links->len; i++) n += strlen(((link_file *)links->items[i])->path) + 16;
  for (int i = 0; i < out->nkernels; i++) table_len += table_line_bound(&out->kernels[i]) + 1;
  char *table = out_alloc(out, table_len + 1);
  if (!table) return NULL;
  size_t t = 0;
  for (int i = 0; i < out->nkernels; i++) {
    t += table_line(&out->kernels[i], table + t, table_len + 1 - t);
    table[t++] = '\n';
  }
  table[t] = '\0';
  n += 16 * (size_t)out->nkernels + t + 5 * (t + 1);   /* comments, bytes as "255, " */
  char *s = out_alloc(out, n);
  if (!s) {
    out_free(out, table, table_len + 1);
    return NULL;
  }
  size_t o = 0;
  for (int i = 0; i < links->len; i++)   /* the runtime links these (runtime/cuda) */
    o += (size_t)snprintf(s + o, n - o, "// kcc-link: %s\n", ((link_file *)links->items[i])->path);
  for (const char *line = table; *line;) {
    const char *nl = strchr(line, '\n');
    o += (size_t)snprintf(s + o, n - o, "// kcc-kernel: %.*s\n", (int)(nl - line), line);
    line = nl + 1;
  }
  o += (size_t)snprintf(s + o, n - o, "%s", ptx);
  if (t > 0) {
    o += (size_t)snprintf(s + o, n - o,
                          "\n// the kernel table again, for cubins (runtime/image.c)\n"
                          ".visible .global .align 1 .b8 __kcc_kernels[%zu] = {", t + 1);
    for (size_t i = 0; i <= t; i++)
      o += (size_t)snprintf(s + o, n - o, "%s%u", i ? ", " : "", (unsigned char)table[i]);
    o += (size_t)snprintf(s + o, n - o, "};\n");
  }
  out_free(out, table, table_len + 1);
  s = out_shrink(out, s, n, o + 1);   /* the exact size: what kcc_output_free says */
  *len = o;
  return s;
}

/* msg (malloc'd by a back end) is freed before reporting, which may run out of memory
 * and longjmp. At sp (a link= entry), or at no place in the source. */
static kc_status fail_at(diag_sink *d, span sp, kc_status st, const char *what, char *msg) {
  char text[3000];   /* a C compiler's messages about a link= file run long */
  snprintf(text, sizeof text, "%s", msg ? msg : "failed");
  free(msg);
  diag_error(d, sp, "%s: %s", what, text);
  return st;
}

static kc_status fail(diag_sink *d, kc_status st, const char *what, char *msg) {
  return fail_at(d, span_none(), st, what, msg);
}

static kc_status emit_nvptx(const kcc_options *o, diag_sink *d, LLVMModuleRef m,
                            const ptr_vec *links, kcc_output *out) {
  char *err = NULL, *text = NULL;
  size_t len = 0;
  if (nvptx_prepare_module(m, o->arch, &err)) return fail(d, KC_ERR_INVALID, "NVPTX target", err);
  if (nvptx_link_libdevice(m, libdevice_path(o), &err))
    return fail(d, KC_ERR_IO, "libdevice", err);
  if (nvptx_optimize_and_emit(m, o->arch, o->opt_level, o->emit == KCC_EMIT_LLVM, &text, &len, &err))
    return fail(d, KC_ERR_INTERNAL, "PTX generation", err);
  if (o->emit == KCC_EMIT_LLVM) return out_take_text(out, text, len);
  out->text = ptx_with_header(out, links, text, &out->text_len);
  free(text);
  return out->text ? KC_OK : KC_ERR_NOMEM;
}

/* Each kernel's two entry points in the JIT'd code; false when one is missing. */
static bool find_entries(kcc_output *out) {
  for (int i = 0; i < out->nkernels; i++) {
    kcc_kernel *k = &out->kernels[i];
    char name[512];
    snprintf(name, sizeof name, "%s__block", k->symbol);
    k->block_fn = host_lookup(out->host, name);
    snprintf(name, sizeof name, "%s__thread", k->symbol);
    k->thread_fn = host_lookup(out->host, name);
    /* a kernel in region form (host_regions.c) has no K__thread */
    if (!(k->uses_barrier ? k->thread_fn : k->block_fn)) return false;
  }
  return true;
}

/* The object code host_jit kept, moved into the caller's memory. */
static kc_status out_take_object(kcc_output *out, host_object *kept) {
  out->object = kept->data ? out_alloc(out, kept->len ? kept->len : 1) : NULL;
  if (out->object) memcpy(out->object, kept->data, kept->len);
  out->object_len = out->object ? kept->len : 0;
  free(kept->data);
  return out->object || !kept->data ? KC_OK : KC_ERR_NOMEM;
}

/* Each kernel's stack need per thread: the larger of its two entry points'. */
static void measure_stacks(LLVMModuleRef m, kcc_output *out) {
  for (int i = 0; i < out->nkernels; i++) {
    kcc_kernel *k = &out->kernels[i];
    char name[512];
    snprintf(name, sizeof name, "%s__block", k->symbol);
    uint64_t b = host_stack_need(m, name);
    snprintf(name, sizeof name, "%s__thread", k->symbol);
    uint64_t t = host_stack_need(m, name);
    k->stack_bytes = (size_t)(b > t ? b : t);
  }
}

static span link_where(const ptr_vec *links, int i) {
  return ((const link_file *)links->items[i])->where;
}

/* The link= files as object code for the JIT (host_link.c); an error at the entry that
 * named the one that failed. */
static kc_status link_objects(diag_sink *d, const ptr_vec *links, host_object *objs) {
  const char **paths = malloc(sizeof *paths * (size_t)(links->len + 1));
  if (!paths) return KC_ERR_NOMEM;
  for (int i = 0; i < links->len; i++) paths[i] = ((link_file *)links->items[i])->path;
  char *err = NULL;
  int failed = 0, rc = host_link_objects(paths, links->len, objs, &failed, &err);
  free(paths);
  return rc ? fail_at(d, link_where(links, failed), KC_ERR_TYPE, "link=", err) : KC_OK;
}

/* *owned is the LLVM context the compilation must dispose of: emit_host clears it when
 * it disposes of ctx or hands it to the JIT. */
static kc_status emit_host(const kcc_options *o, diag_sink *d, LLVMContextRef ctx,
                           LLVMModuleRef m, const ptr_vec *links, LLVMContextRef *owned,
                           kcc_output *out) {
  char *err = NULL;
  if (o->emit == KCC_EMIT_JIT && host_cpu_usable(o->cpu, &err))
    return fail(d, KC_ERR_INVALID, "CPU target", err);   /* the code is to run here */
  if (host_prepare_module(m, o->cpu, &err)) return fail(d, KC_ERR_INVALID, "host target", err);
  measure_stacks(m, out);
  host_stack_probes(m);
  /* the IR passes run here for both outputs: what --emit=llvm shows is what runs */
  if (host_optimize(m, o->opt_level, o->cpu, &err))
    return fail(d, KC_ERR_INTERNAL, "optimiser", err);
  if (o->emit == KCC_EMIT_LLVM) {
    char *text = host_emit_llvm(m);
    *owned = NULL;
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return out_take_text(out, text, text ? strlen(text) : 0);
  }
  host_object kept = {NULL, 0}, *objs = NULL;
  if (links->len > 0) {
    objs = calloc((size_t)links->len, sizeof *objs);
    kc_status st = objs ? link_objects(d, links, objs) : KC_ERR_NOMEM;
    if (st != KC_OK) {
      free(objs);
      return st;
    }
  }
  *owned = NULL;
  /* a module with link= files is not kept for the disk cache: its object alone would
     not link again */
  bool keep = o->keep_object && links->len == 0;
  int rc = host_jit(ctx, m, o->opt_level, o->cpu, keep ? &kept : NULL, objs, links->len,
                    &out->host, &err);
  host_objects_free(objs, links->len);
  free(objs);
  if (rc && links->len > 0)   /* most likely a foreign function the files lack */
    return fail_at(d, link_where(links, 0), KC_ERR_TYPE, "JIT (every function declared "
                   "with cuda.declare_device must be defined, extern \"C\", in the link= "
                   "files)", err);
  if (rc) return fail(d, KC_ERR_INTERNAL, "JIT", err);
  if (out_take_object(out, &kept) != KC_OK) return KC_ERR_NOMEM;
  if (!find_entries(out)) {
    diag_error(d, span_none(), "JIT: kernel entry point not found");
    return KC_ERR_INTERNAL;
  }
  return KC_OK;
}

/* The back half: typed program -> IR -> PTX or machine code. *owned holds the LLVM
 * context while an out-of-memory longjmp could leave it behind (the module is the
 * context's and goes with it). */
static kc_status generate(const kcc_options *o, arena *a, diag_sink *d, program *p,
                          const char *name, LLVMContextRef *owned, kcc_output *out) {
  LLVMContextRef ctx = *owned = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  size_t shared = 0;
  kc_status st = KC_OK;
  if (cg_program(a, d, p, o, ctx, name, &m, &shared) > 0) st = KC_ERR_INTERNAL;
  else if (cg_check_names(d, p, m, o->target != KCC_TARGET_HOST) > 0) st = KC_ERR_TYPE;
  else if (!describe_kernels(a, p, shared, out)) st = KC_ERR_NOMEM;
  /* emit_host hands ctx and m to the JIT (or frees them) */
  else if (o->target == KCC_TARGET_HOST) return emit_host(o, d, ctx, m, &p->links, owned, out);
  else st = emit_nvptx(o, d, m, &p->links, out);
  *owned = NULL;
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return st;
}

static char *text_copy(const kcc_output *out, const char *s, size_t *len) {
  char *c = out_strdup(out, s);
  *len = c ? strlen(c) : 0;
  return c;
}

static kc_status run_pipeline(const kcc_options *o, arena *a, diag_sink *d, const char *name,
                              const char *src, size_t len, LLVMContextRef *owned,
                              kcc_output *out) {
  node *mod = parse_module(a, d, src, len);
  if (o->emit == KCC_EMIT_AST) {
    out->text = text_copy(out, ast_dump(a, mod), &out->text_len);
    return d->nerrors ? KC_ERR_SYNTAX : out->text ? KC_OK : KC_ERR_NOMEM;
  }
  if (d->nerrors) return KC_ERR_SYNTAX;
  program p;
  if (infer_program(a, d, mod, o, kcc_builtins(), &p) > 0) return KC_ERR_TYPE;
  if (o->emit == KCC_EMIT_TYPES) {
    out->text = text_copy(out, infer_dump_types(a, &p), &out->text_len);
    return out->text ? KC_OK : KC_ERR_NOMEM;
  }
  return generate(o, a, d, &p, name, owned, out);
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
  LLVMContextRef llvm;   /* the LLVM context while the compilation owns it */
} job;

static void run_guarded(job *j) {
  j->status = KC_ERR_NOMEM;
  if (setjmp(j->oom) != 0) return;
  arena_set_oom(&j->a, &j->oom);
  diag_init(&j->d, &j->a, j->name, j->source, j->len);
  j->d.emit = j->o->diag;
  j->d.user_data = j->o->diag_user_data ? j->o->diag_user_data : j->o->user_data;
  j->d.color = j->o->color;
  j->status = run_pipeline(j->o, &j->a, &j->d, j->name, j->source, j->len, &j->llvm,
                           j->out);
}

kc_status kcc_compile(const kcc_options *opts, const char *name, const char *source,
                      size_t len, kcc_output *out) {
  memset(out, 0, sizeof *out);
  kcc_options defaults;
  kcc_options_init(&defaults);
  if (!opts) opts = &defaults;
  out->alloc = opts->alloc;
  out->user_data = opts->user_data;
  job *j = out_alloc(out, sizeof *j);
  if (!j) return out->status = KC_ERR_NOMEM;
  j->o = opts;
  j->name = name ? name : "<source>";
  j->source = source ? source : "";
  j->len = source ? len : 0;
  j->out = out;
  arena_init(&j->a, j->o->alloc, j->o->user_data);
  run_guarded(j);
  if (j->llvm) LLVMContextDispose(j->llvm);   /* abandoned by an out-of-memory longjmp */
  kc_status st = j->status;
  out->nerrors = j->d.nerrors;
  out->nwarnings = j->d.nwarnings;
  if (j->d.first_error) out->first_error = out_strdup(out, j->d.first_error);
  if (st == KC_OK && out->nerrors) st = KC_ERR_INTERNAL;
  out->status = st;
  arena_free(&j->a);
  out_free(out, j, sizeof *j);
  return st;
}

void kcc_output_free(kcc_output *out) {
  if (!out) return;
  out_free(out, out->text, out->text_len + 1);
  for (int i = 0; out->kernels && i < out->nkernels; i++) {
    kcc_kernel *k = &out->kernels[i];
    out_free_str(out, k->name);
    out_free_str(out, k->symbol);
    out_free_str(out, k->signature);
    for (int j = 0; k->params && j < k->nparams; j++) {
      out_free_str(out, k->params[j].name);
      out_free(out, (void *)k->params[j].elems, (size_t)k->params[j].nelems * sizeof(kc_dtype));
    }
    out_free(out, k->params, ((size_t)k->nparams + 1) * sizeof *k->params);
  }
  out_free(out, out->kernels, ((size_t)out->nkernels + 1) * sizeof *out->kernels);
  for (int i = 0; out->untyped && i < out->nuntyped; i++) out_free_str(out, out->untyped[i]);
  out_free(out, out->untyped, ((size_t)out->nuntyped + 1) * sizeof *out->untyped);
  host_code_free(out->host);
  out_free(out, out->object, out->object_len ? out->object_len : 1);
  out_free_str(out, out->first_error);
  memset(out, 0, sizeof *out);
}

/* ---- Host code from a kept object (the runtime's disk cache) ----------------------- */

kc_status kcc_load_object(const kcc_options *opts, kcc_output *out) {
  char *err = NULL, probe[512];
  if (out->nkernels > 0) snprintf(probe, sizeof probe, "%s__block", out->kernels[0].symbol);
  if (!out->object ||
      host_jit_object(out->object, out->object_len, opts->opt_level, opts->cpu,
                      out->nkernels > 0 ? probe : NULL, &out->host, &err)) {
    out->first_error = out_strdup(out, err ? err : "no object code");
    free(err);
    return KC_ERR_INTERNAL;
  }
  if (find_entries(out)) return KC_OK;
  host_code_free(out->host);
  out->host = NULL;
  out->first_error = out_strdup(out, "JIT: kernel entry point not found");
  return KC_ERR_INTERNAL;
}

void kcc_output_drop_object(kcc_output *out) {
  out_free(out, out->object, out->object_len ? out->object_len : 1);
  out->object = NULL;
  out->object_len = 0;
}

kc_status kcc_cpu_check(const char *cpu, const char **name, char *msg, size_t len) {
  char *err = NULL;
  if (host_cpu_check(cpu, name, &err) == 0) return KC_OK;
  snprintf(msg, len, "%s", err ? err : "unknown CPU target");
  free(err);
  return KC_ERR_INVALID;
}

/* The code generator's switches read from the environment (for comparisons: see
 * docs/language.md), so that a cached kernel built with another setting is not taken. */
static const char *const codegen_switches[] = {"KC_CPU_REGIONS", "KC_CPU_SPLIT", "KC_CPU_WIDE"};

char *kcc_cpu_id(const char *cpu) {
  char *id = NULL, *err = NULL;
  if (host_target_id(cpu, &id, &err)) free(err);
  for (size_t k = 0; id && k < sizeof codegen_switches / sizeof *codegen_switches; k++) {
    const char *v = getenv(codegen_switches[k]);
    if (!v) continue;
    size_t len = strlen(id) + strlen(codegen_switches[k]) + strlen(v) + 3;
    char *more = malloc(len);
    if (more) snprintf(more, len, "%s %s=%s", id, codegen_switches[k], v);
    free(id);
    id = more;
  }
  return id;
}
