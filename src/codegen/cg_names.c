/*
 * cg_names.c — the user's function names against the names kcc gives its own code.
 *
 * kcc names what it makes after the user's functions (f specialised for float32 is
 * f__float32, a barrier kernel K's body K__body) and uses fixed names too (vprintf,
 * __kcc_error, libdevice's __nv_*). A user function spelled like one of them would be
 * renamed by LLVM (f__float32.1: no PTX identifier, and the kernel table names the
 * other) or silently share the declaration. This check runs on the finished module:
 * any symbol LLVM had to rename, and any user function with a reserved name, is an
 * error at the user's def.
 */
#include <stdbool.h>
#include <string.h>

#include "codegen.h"

/* Names the targets declare or libraries bring in (checked before LLVM sees a clash). */
static bool reserved_name(const char *name, bool nvptx) {
  static const char *const prefixes[] = {"__nv_", "__kcc", "llvm.", "__internal"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) return true;
  static const char *const nvptx_names[] = {"vprintf", "__assertfail", "malloc", "free"};
  for (size_t i = 0; nvptx && i < sizeof nvptx_names / sizeof nvptx_names[0]; i++)
    if (strcmp(name, nvptx_names[i]) == 0) return true;
  return false;
}

static bool ascii(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s >= 0x80) return false;
  return true;
}

static const func_def *user_function(const program *p, const char *name, size_t len) {
  for (int i = 0; i < p->funcs.len; i++) {
    const func_def *f = p->funcs.items[i];
    if (strlen(f->name) == len && strncmp(f->name, name, len) == 0) return f;
  }
  for (int i = 0; i < p->instances.len; i++) {
    const fn_instance *f = p->instances.items[i];
    if (f->symbol_name && strlen(f->symbol_name) == len &&
        strncmp(f->symbol_name, name, len) == 0)
      return f->fn;
  }
  return NULL;
}

/* A symbol LLVM renamed (NAME.1): the name was taken twice. */
static int renamed(diag_sink *d, const program *p, LLVMValueRef v) {
  size_t len;
  const char *name = LLVMGetValueName2(v, &len);
  const char *dot = memchr(name, '.', len);
  if (!dot || dot == name || strncmp(name, "llvm.", 5) == 0) return 0;
  /* only a user's name matters: kcc's own private symbols (a print's format string,
     fmt.1) are made unique on purpose, and NVPTX gives them valid names */
  const func_def *f = user_function(p, name, (size_t)(dot - name));
  if (!f) return 0;
  diag_error(d, f->def->sp, "the name '%.*s' is one kcc gives its own code in this module "
             "(a specialisation or a part of another function): rename the function",
             (int)(dot - name), name);
  return 1;
}

/* A function that becomes a PTX entry point of its own name: a kernel, or the kernel
 * @vectorize, @guvectorize and @cuda.reduce make of it. */
static bool makes_entry(const func_def *f) {
  return f->kind == FN_KERNEL || f->kind == FN_VECTORIZE || f->kind == FN_GUVECTORIZE ||
         f->kind == FN_REDUCE;
}

int cg_check_names(diag_sink *d, const program *p, LLVMModuleRef m, bool nvptx) {
  int errors = 0;
  for (int i = 0; i < p->funcs.len; i++) {
    const func_def *f = p->funcs.items[i];
    if (reserved_name(f->name, nvptx)) {
      diag_error(d, f->def->sp, "'%s' is a name kcc keeps for its own code and the "
                 "libraries it links: rename the function", f->name);
      errors++;
    } else if (makes_entry(f) && !ascii(f->name)) {
      /* its PTX entry point, and the name C programs look it up by, is the name itself */
      diag_error(d, f->def->sp, "kernel '%s': a kernel's name is its PTX entry point and "
                 "must be ASCII letters, digits and _ (names beyond ASCII are fine for "
                 "device functions, locals and constants)", f->name);
      errors++;
    } else if (nvptx && makes_entry(f) && strcmp(f->name, "_") == 0) {
      /* PTX identifiers: a letter first, or _ $ % followed by at least one more */
      diag_error(d, f->def->sp, "a kernel named '_' cannot be a PTX entry point (a PTX "
                 "name starting with '_' needs a second character): rename the kernel");
      errors++;
    }
  }
  if (errors) return errors;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    errors += renamed(d, p, fn);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    errors += renamed(d, p, g);
  return errors;
}
