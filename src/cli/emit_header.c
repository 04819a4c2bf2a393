/*
 * emit_header.c — `kcc compile --emit=header`: a compiled module as a C header that a
 * program includes to use the kernels without kcc at run time (docs/cli.md). The header
 * holds the PTX as a string, the cubin as bytes when the driver made one, the kernel
 * source with the options it was compiled with (for contexts that cannot load PTX: the
 * CPU compiles the source when the header's <prefix>_load runs), and a typed
 * <prefix>_<kernel>_launch function per kernel that packs kc_arg values for kc_launch.
 *
 * Assumes out is a successful KCC_EMIT_PTX compilation: kernels with their flattened
 * parameters (compile.h) in the order the runtime packs them. Text only: finding ptxas,
 * making the cubin and writing the file are the driver's (main.c). Parameter names that
 * are C keywords or clash with the generated functions' own names get a trailing '_';
 * the header itself uses only kc.h and <stdint.h>.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_header.h"
#include "kc.h"
#include "kc_config.h"

/* A growing string; on allocation failure it stays NULL and later appends do nothing. */
typedef struct strbuf {
  char *s;
  size_t len, cap;
  int failed;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(strbuf *b, const char *fmt, ...) {
  if (b->failed) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = 1;
    return;
  }
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + (size_t)n + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->failed = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)n;
}

/* text as a C identifier: other characters become '_', a leading digit gets one. */
static void sb_add_ident(strbuf *b, const char *text) {
  if (isdigit((unsigned char)*text)) sb_add(b, "_");
  for (const char *p = text; *p; p++)
    sb_add(b, "%c", isalnum((unsigned char)*p) || *p == '_' ? *p : '_');
}

/* The PTX as a C string literal, one source line per PTX line. */
static void sb_add_c_string(strbuf *b, const char *text, size_t len) {
  sb_add(b, "  \"");
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '\n') sb_add(b, i + 1 < len ? "\\n\"\n  \"" : "\\n");
    else if (c == '"' || c == '\\') sb_add(b, "\\%c", c);
    else if (c == '\t') sb_add(b, "\\t");
    else if (c < 0x20 || c >= 0x7f || c == '?') sb_add(b, "\\%03o", c);  /* '?': trigraphs */
    else sb_add(b, "%c", c);
  }
  sb_add(b, "\"");
}

static const char *c_type_of(kc_dtype t) {
  switch (t) {
  case KC_BOOL: return "int";
  case KC_INT8: return "int8_t";
  case KC_INT16: return "int16_t";
  case KC_INT32: return "int32_t";
  case KC_INT64: return "int64_t";
  case KC_UINT8: return "uint8_t";
  case KC_UINT16: return "uint16_t";
  case KC_UINT32: return "uint32_t";
  case KC_UINT64: return "uint64_t";
  case KC_FLOAT32: return "float";
  case KC_FLOAT64: return "double";
  case KC_COMPLEX64: case KC_COMPLEX128: return "kc_complex";
  case KC_FLOAT16: return "float";
  default: return "int64_t";
  }
}

#define DTYPE_ENUM(d) [d] = #d
static const char *const dtype_enum[] = {
  DTYPE_ENUM(KC_BOOL), DTYPE_ENUM(KC_INT8), DTYPE_ENUM(KC_INT16), DTYPE_ENUM(KC_INT32),
  DTYPE_ENUM(KC_INT64), DTYPE_ENUM(KC_UINT8), DTYPE_ENUM(KC_UINT16), DTYPE_ENUM(KC_UINT32),
  DTYPE_ENUM(KC_UINT64), DTYPE_ENUM(KC_FLOAT32), DTYPE_ENUM(KC_FLOAT64),
  DTYPE_ENUM(KC_COMPLEX64), DTYPE_ENUM(KC_COMPLEX128), DTYPE_ENUM(KC_FLOAT16),
};
_Static_assert(sizeof dtype_enum / sizeof dtype_enum[0] == KC_DTYPE_COUNT,
               "dtype_enum names every kc_dtype");

/* Names the generated functions use themselves; a kernel parameter of the same name
 * (or a C keyword) gets a trailing '_'. */
static int name_taken(const char *name) {
  static const char *const taken[] = {
    "module", "stream", "grid", "block", "shared_bytes", "kc_k", "kc_s", "kc_args",
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
    "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
  };
  for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
    if (strcmp(name, taken[i]) == 0) return 1;
  return 0;
}

static void sb_add_param_name(strbuf *b, const kcc_param *p, int index) {
  if (!p->name || !*p->name) {
    sb_add(b, "arg%d", index);
    return;
  }
  sb_add_ident(b, p->name);
  if (name_taken(p->name)) sb_add(b, "_");
}

/* The kc_arg of a value of dtype d (an array when ndim > 0) held by C variable name. */
static void sb_add_value(strbuf *b, kc_dtype d, int ndim, const char *name) {
  if (ndim > 0) sb_add(b, "kc_arg_array(%s)", name);
  else if (d == KC_FLOAT32) sb_add(b, "kc_arg_f32(%s)", name);
  else if (d == KC_FLOAT64) sb_add(b, "kc_arg_f64(%s)", name);
  else if (d == KC_FLOAT16) sb_add(b, "kc_arg_f16(%s)", name);
  else if (d == KC_BOOL) sb_add(b, "kc_arg_bool(%s)", name);
  else if (d == KC_COMPLEX64 || d == KC_COMPLEX128)
    sb_add(b, "kc_arg_c128(%s.re, %s.im)", name, name);
  else
    sb_add(b, "kc_arg_int(%s, (int64_t)%s)", (unsigned)d < KC_DTYPE_COUNT ? dtype_enum[d]
                                                                         : "KC_INT64", name);
}

/* The C name of parameter p (element e of a tuple parameter when e >= 0), in a buffer
 * the caller frees. */
static char *param_c_name(const kcc_param *p, int index, int e) {
  strbuf nm = {0};
  sb_add_param_name(&nm, p, index);
  if (e >= 0) sb_add(&nm, "_%d", e);
  return nm.s;
}

static void sb_add_arg(strbuf *b, const kcc_param *p, int index) {
  if (p->ndim == 0 && p->dtype == KC_RECORD) {   /* a record: its layout and its bytes */
    sb_add(b, "kc_arg_record(");
    sb_add_param_name(b, p, index);
    sb_add(b, "_record, ");
    sb_add_param_name(b, p, index);
    sb_add(b, ")");
    return;
  }
  if (p->nelems > 0) {   /* kc_args_<name>, filled before kc_args */
    char *nm = param_c_name(p, index, -1);
    sb_add(b, "kc_arg_tuple(kc_args_%s, %d)", nm ? nm : "", p->nelems);
    free(nm);
    return;
  }
  char *nm = param_c_name(p, index, -1);
  sb_add_value(b, p->dtype, p->ndim, nm ? nm : "");
  free(nm);
}

/* A tuple parameter is passed to the launcher element by element (name_0, name_1 ...)
 * and gathered into an array of kc_arg for kc_arg_tuple. */
static void sb_add_tuple_args(strbuf *b, const kcc_param *p, int index) {
  char *nm = param_c_name(p, index, -1);
  sb_add(b, "  kc_arg kc_args_%s[%d] = {", nm ? nm : "", p->nelems);
  for (int e = 0; e < p->nelems; e++) {
    char *en = param_c_name(p, index, e);
    sb_add(b, e ? ", " : "");
    sb_add_value(b, p->elems[e], 0, en ? en : "");
    free(en);
  }
  sb_add(b, "};\n");
  free(nm);
}

/* A kernel compiled for several signatures has a launch function per signature, named
 * <prefix>_<kernel>_launch_<types>: each parameter's type as an identifier (float32,
 * float32_1d for a 1-D array, tuple_int32_int32, record), joined by '_' (docs/cli.md).
 * Two signatures that still spell the same (they differ only in layout or record) get
 * the later one's index too. */
static void sb_add_param_token(strbuf *b, const kcc_param *p) {
  if (p->nelems) {
    sb_add(b, "tuple");
    for (int e = 0; e < p->nelems; e++) sb_add(b, "_%s", kc_dtype_name(p->elems[e]));
  } else if (p->dtype == KC_RECORD) {
    sb_add(b, "record");
  } else {
    sb_add(b, "%s", kc_dtype_name(p->dtype));
  }
  if (p->ndim > 0) sb_add(b, "_%dd", p->ndim);
}

static char *launch_suffix(const kcc_kernel *k) {
  strbuf b = {0};
  sb_add(&b, "_");
  for (int i = 0; i < k->nparams; i++) {
    if (i) sb_add(&b, "_");
    sb_add_param_token(&b, &k->params[i]);
  }
  if (k->nparams == 0) sb_add(&b, "void");
  if (b.failed) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

static int same_name(const kcc_kernel *a, const kcc_kernel *b) {
  return strcmp(a->name, b->name) == 0;
}

/* kernels[i]'s launch-function suffix: "" when its name is compiled once, else its
 * types (malloc'd; NULL when out of memory). */
static char *hdr_suffix(const kcc_output *out, int i) {
  int overloads = 0, same_before = 0;
  for (int j = 0; j < out->nkernels; j++)
    if (same_name(&out->kernels[j], &out->kernels[i])) overloads++;
  if (overloads == 1) return calloc(1, 1);
  char *suffix = launch_suffix(&out->kernels[i]);
  for (int j = 0; j < i && suffix; j++) {
    if (!same_name(&out->kernels[j], &out->kernels[i])) continue;
    char *other = launch_suffix(&out->kernels[j]);
    same_before += other && strcmp(other, suffix) == 0;
    free(other);
  }
  if (suffix && same_before > 0) {
    strbuf b = {0};
    sb_add(&b, "%s_%d", suffix, same_before + 1);
    free(suffix);
    if (b.failed) free(b.s);
    suffix = b.failed ? NULL : b.s;
  }
  return suffix;
}

static void hdr_launch_fn(strbuf *b, const char *prefix, const kcc_kernel *k,
                          const char *suffix) {
  sb_add(b, "/* %s\n * Launch on grid x block threads on stream (NULL: the default "
            "stream);\n * asynchronous on CUDA. */\n", k->signature ? k->signature : k->name);
  sb_add(b, "static inline kc_status %s_", prefix);
  sb_add_ident(b, k->name);
  sb_add(b, "_launch%s(kc_module *module, kc_stream *stream,\n    kc_dim3 grid, kc_dim3 block",
         suffix);
  for (int i = 0; i < k->nparams; i++) {
    const kcc_param *p = &k->params[i];
    for (int e = 0; e < p->nelems; e++) {
      sb_add(b, ",\n    %s ", c_type_of(p->elems[e]));
      sb_add_param_name(b, p, i);
      sb_add(b, "_%d", e);
    }
    if (p->nelems) continue;
    if (p->ndim > 0) {
      sb_add(b, ",\n    kc_array *");
    } else if (p->dtype == KC_RECORD) {
      sb_add(b, ",\n    const kc_record *");
      sb_add_param_name(b, p, i);
      sb_add(b, "_record, const void *");
    } else {
      sb_add(b, ",\n    %s ", c_type_of(p->dtype));
    }
    sb_add_param_name(b, p, i);
  }
  sb_add(b, ") {\n  kc_kernel *kc_k;\n  kc_status kc_s = kc_module_get_kernel(module, \"%s\", "
            "&kc_k);\n  if (kc_s != KC_OK) return kc_s;\n", k->name);
  if (k->nparams == 0) {
    sb_add(b, "  return kc_launch(kc_k, grid, block, 0, stream, NULL, 0);\n}\n\n");
    return;
  }
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].nelems) sb_add_tuple_args(b, &k->params[i], i);
  sb_add(b, "  kc_arg kc_args[%d] = {\n", k->nparams);
  for (int i = 0; i < k->nparams; i++) {
    sb_add(b, "    ");
    sb_add_arg(b, &k->params[i], i);
    sb_add(b, ",\n");
  }
  sb_add(b, "  };\n  return kc_launch(kc_k, grid, block, 0, stream, kc_args, %d);\n}\n\n",
         k->nparams);
}

/* The kernel source and the --sig signatures, for contexts that cannot load PTX (the
 * CPU device compiles the source instead). */
static void hdr_source(strbuf *b, const hdr_options *o, const char *p) {
  const char *name = strcmp(o->input, "-") == 0 ? "<stdin>" : o->input;
  sb_add(b, "/* The kernel source, compiled on contexts that cannot load PTX (the CPU). */\n"
            "static const char %s_source[] =\n", p);
  if (o->source_len > 0) sb_add_c_string(b, o->source, o->source_len);
  else sb_add(b, "  \"\"");
  sb_add(b, ";\nstatic const char %s_source_name[] =\n", p);
  sb_add_c_string(b, name, strlen(name));
  sb_add(b, ";\n");
  if (o->nsigs > 0) {
    sb_add(b, "static const char *const %s_sigs[%d] = {\n", p, o->nsigs);
    for (int i = 0; i < o->nsigs; i++) {
      sb_add_c_string(b, o->sigs[i], strlen(o->sigs[i]));
      sb_add(b, ",\n");
    }
    sb_add(b, "};\n");
  }
  sb_add(b, "\n");
}

/* The cubin as a C array of bytes, sixteen to a line. */
static void hdr_cubin(strbuf *b, const hdr_options *o, const char *p) {
  sb_add(b, "/* The cubin for sm_%d (GPU machine code; its kernel table is inside it). */\n"
            "#define %s_CUBIN_ARCH %d\n"
            "static const unsigned char %s_cubin[%zu] = {", o->arch, p, o->arch, p,
         o->cubin_len);
  for (size_t i = 0; i < o->cubin_len; i++)
    sb_add(b, "%s0x%02x,", i % 16 ? " " : "\n  ", (unsigned char)o->cubin[i]);
  sb_add(b, "\n};\n\n");
}

/* <prefix>_load: the cubin on a CUDA device it runs on (when the header has one), else
 * the PTX on a CUDA context, else the embedded source compiled with the header's
 * signatures, optimisation level, --bounds-check and --fastmath (so the CPU runs the
 * same kernels). */
static void hdr_load_fn(strbuf *b, const hdr_options *o, const char *p, int has_cubin) {
  sb_add(b, "/* Load the module into ctx: on a CUDA device %sthe PTX (compiled by the\n"
            " * driver); on the CPU device the embedded source, compiled at run time.\n"
            " * Free it with kc_module_free. */\n"
            "static inline kc_status %s_load(kc_context *ctx, kc_module **module) {\n"
            "  if (kc_context_device(ctx) != KC_DEVICE_CUDA) {\n"
            "    kc_compile_options opts;\n"
            "    kc_compile_options_init(&opts);   /* = {0}, which C++ warns about */\n",
         has_cubin ? "of the cubin's architecture\n * (same major version, minor at least "
                     "the cubin's) the cubin, else " : "", p);
  if (o->nsigs > 0)
    sb_add(b, "    opts.signatures = %s_sigs;\n    opts.nsignatures = %d;\n", p, o->nsigs);
  if (o->bounds_check) sb_add(b, "    opts.bounds_check = 1;\n");
  if (o->fastmath) sb_add(b, "    opts.fastmath = 1;\n");
  /* kc_compile_options spells -O0 KC_OPT_O0 (0 is "the context's") */
  if (o->opt_level == 0) sb_add(b, "    opts.opt_level = KC_OPT_O0;\n");
  else sb_add(b, "    opts.opt_level = %d;\n", o->opt_level);
  sb_add(b, "    return kc_compile_source(ctx, %s_source_name, %s_source,\n"
            "                             sizeof %s_source - 1, &opts, module);\n  }\n",
         p, p, p);
  if (has_cubin)
    sb_add(b, "  kc_device_info info;\n"
              "  if (kc_context_device_info(ctx, &info) == KC_OK &&\n"
              "      info.cc_major == %s_CUBIN_ARCH / 10 && info.cc_minor >= %s_CUBIN_ARCH %% 10 &&\n"
              "      kc_module_load_image(ctx, %s_cubin, sizeof %s_cubin, NULL, module) == KC_OK)\n"
              "    return KC_OK;\n", p, p, p, p);
  sb_add(b, "  return kc_module_load_ptx(ctx, %s_ptx, sizeof %s_ptx - 1, module);\n}\n\n",
         p, p);
}

/* A C header: the PTX as a string, the cubin when there is one, the source,
 * <prefix>_load, and one launch function per kernel. */
char *hdr_make(const hdr_options *o, const kcc_output *out, size_t *len) {
  strbuf prefix = {0}, b = {0};
  sb_add_ident(&prefix, o->stem);
  if (prefix.failed) {
    free(prefix.s);
    return NULL;
  }
  const char *p = prefix.s;
  sb_add(&b, "/*\n * Generated by kcc %s from %s (sm_%d, -O%d%s%s). Do not edit.\n *\n"
             " *   kc_module *m;\n *   %s_load(ctx, &m);\n", KC_VERSION,
         strcmp(o->input, "-") == 0 ? "standard input" : o->input, o->arch,
         o->opt_level, o->fastmath ? ", --fastmath" : "", o->cubin ? ", with a cubin" : "", p);
  char *first = out->nkernels > 0 ? hdr_suffix(out, 0) : NULL;
  if (first)
    sb_add(&b, " *   %s_%s_launch%s(m, NULL, grid, block, ...);\n", p, out->kernels[0].name,
           first);
  free(first);
  sb_add(&b, " *   kc_module_free(m);\n */\n#ifndef ");
  for (const char *c = p; *c; c++) sb_add(&b, "%c", toupper((unsigned char)*c));
  sb_add(&b, "_KC_H\n#define ");
  for (const char *c = p; *c; c++) sb_add(&b, "%c", toupper((unsigned char)*c));
  sb_add(&b, "_KC_H\n\n#include <stdint.h>\n\n#include \"kc.h\"\n\n");
  /* the PTX and the source are longer than the 4095 characters -Wpedantic holds a
     string to (C99's minimum limit; GCC and Clang take any length) */
  sb_add(&b, "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
             "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n#endif\n\n");
  sb_add(&b, "/* The PTX for sm_%d. */\nstatic const char %s_ptx[] =\n", o->arch, p);
  sb_add_c_string(&b, out->text, out->text_len);
  sb_add(&b, ";\n\n");
  if (o->cubin) hdr_cubin(&b, o, p);
  hdr_source(&b, o, p);
  sb_add(&b, "#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n\n");
  hdr_load_fn(&b, o, p, o->cubin != NULL);
  for (int i = 0; i < out->nkernels; i++) {
    char *suffix = hdr_suffix(out, i);
    if (!suffix) b.failed = 1;
    else hdr_launch_fn(&b, p, &out->kernels[i], suffix);
    free(suffix);
  }
  sb_add(&b, "#endif\n");
  free(prefix.s);
  if (b.failed) {
    free(b.s);
    return NULL;
  }
  *len = b.len;
  return b.s;
}
