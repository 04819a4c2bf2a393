/*
 * kernel_error.c — errors a kernel reports from the device: an index out of bounds
 * (bounds-checked code), a failed assert or a raise (debug code), an array assigned to
 * a slice of another shape. Generated code fills a kc_kernel_error record
 * (host_abi.h) and ends the thread; this file turns a record into KC_ERR_BOUNDS or
 * KC_ERR_ASSERT with a message naming the kernel, the source position, the block and
 * the thread.
 *
 * On the CPU the executor hands over its launch's record (cpu/exec.c). On CUDA each
 * bounds-checked module has its record in device memory (the global
 * KC_KERNEL_ERROR_SYMBOL): a launch marks the module, and a synchronisation reads the
 * marked modules' records, clears them and reports the first one set.
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"

/* ---- Messages ------------------------------------------------------------------------ */
kc_status rt_kernel_error_status(const kc_kernel_error *e) {
  return e->kind == KC_KERNEL_ERROR_RAISE ? KC_ERR_ASSERT : KC_ERR_BOUNDS;
}

/* "file.k:7:5: error: kernel 'k': AssertionError: n > 0, in block (0, 0, 0), thread
 * (3, 0, 0)"; the text is the device's, so it is bounded here whatever it holds. */
static void format_raise(char *buf, size_t len, const char *where, const char *kernel,
                         const kc_kernel_error *e) {
  const char *nul = memchr(e->message, 0, sizeof e->message);
  int n = nul ? (int)(nul - e->message) : (int)sizeof e->message;
  snprintf(buf, len, "%s: error: kernel '%s': %.*s, in block (%u, %u, %u), thread "
           "(%u, %u, %u)", where, kernel, n, e->message, e->block[0], e->block[1],
           e->block[2], e->thread[0], e->thread[1], e->thread[2]);
}

void rt_format_kernel_error(char *buf, size_t len, const char *kernel, const char *file,
                            const kc_kernel_error *e) {
  char where[512], index[32], shape[32 * KC_MAX_DIMS];
  if (file) snprintf(where, sizeof where, "%s:%u:%u", file, e->line, e->col);
  else snprintf(where, sizeof where, "line %u:%u", e->line, e->col);
  if (e->kind == KC_KERNEL_ERROR_RAISE) {
    format_raise(buf, len, where, kernel, e);
    return;
  }
  if (e->is_unsigned) snprintf(index, sizeof index, "%llu", (unsigned long long)e->index);
  else snprintf(index, sizeof index, "%lld", (long long)e->index);
  unsigned nd = e->ndim >= 1 && e->ndim <= KC_MAX_DIMS ? e->ndim : 1;
  int n = snprintf(shape, sizeof shape, "(");
  for (unsigned k = 0; k < nd; k++)
    n += snprintf(shape + n, sizeof shape - (size_t)n, k ? ", %lld" : "%lld",
                  (long long)e->shape[k]);
  snprintf(shape + n, sizeof shape - (size_t)n, nd == 1 ? ",)" : ")");
  if (e->is_unsigned == KC_KERNEL_ERROR_SHAPE_MISMATCH) {   /* a[1:] = b (cg_slices.c) */
    snprintf(buf, len,
             "%s: error: kernel '%s': cannot assign an array of extent %lld to axis %u of a "
             "slice of shape %s (the extents must be equal or 1), in block (%u, %u, %u), "
             "thread (%u, %u, %u)",
             where, kernel, (long long)e->index, e->axis, shape, e->block[0], e->block[1],
             e->block[2], e->thread[0], e->thread[1], e->thread[2]);
    return;
  }
  snprintf(buf, len,
           "%s: error: kernel '%s': index %s is out of bounds for axis %u with size %lld "
           "(array of shape %s), in block (%u, %u, %u), thread (%u, %u, %u)",
           where, kernel, index, e->axis, (long long)e->shape[e->axis < nd ? e->axis : 0],
           shape, e->block[0], e->block[1], e->block[2], e->thread[0], e->thread[1],
           e->thread[2]);
}

/* ---- The records of CUDA modules --------------------------------------------------------- */
/* Bounds-checked PTX has the global KC_KERNEL_ERROR_SYMBOL (host_abi.h); remember
 * where, and list the module in its context so synchronisations read it. */
kc_status rt_module_bind_error_record(kc_module *m) {
  size_t bytes = 0;
  kc_status s = rt_cuda_global_address(m->ctx, m->cu_module, KC_KERNEL_ERROR_SYMBOL,
                                       &m->error_dptr, &bytes);
  if (s == KC_ERR_NOT_FOUND) {
    m->error_dptr = 0;
    return KC_OK;
  }
  if (s != KC_OK) return s;
  if (bytes < sizeof(kc_kernel_error)) {
    m->error_dptr = 0;
    return rt_error(m->ctx, KC_ERR_INVALID, "the PTX's %s has %zu bytes, not %zu",
                    KC_KERNEL_ERROR_SYMBOL, bytes, sizeof(kc_kernel_error));
  }
  m->next_checked = m->ctx->checked;
  m->ctx->checked = m;
  return KC_OK;
}

void rt_module_unlink_error_record(kc_module *m) {
  for (kc_module **p = &m->ctx->checked; *p; p = &(*p)->next_checked)
    if (*p == m) {
      *p = m->next_checked;
      return;
    }
}

void rt_module_note_launch(kc_module *m, const kc_kernel *k) {
  if (m->error_kernels > 0 && m->error_kernel != k->name &&
      strcmp(m->error_kernel, k->name) != 0)
    m->error_many = 1;
  m->error_kernel = k->name;
  m->error_kernels++;
}

kc_status rt_module_error_status(kc_module *m, const kc_kernel_error *rec) {
  if (!rec->flag) return KC_OK;
  char who[256], msg[RT_ERR_LEN];
  if (!m->error_kernel) snprintf(who, sizeof who, "?");
  else if (m->error_many)
    snprintf(who, sizeof who, "%s' (or another kernel of the module launched since the "
             "last synchronisation: '%s' was the last", m->error_kernel, m->error_kernel);
  else snprintf(who, sizeof who, "%s", m->error_kernel);
  rt_format_kernel_error(msg, sizeof msg, who, m->src_name, rec);
  return rt_error(m->ctx, rt_kernel_error_status(rec), "%s", msg);
}

/* Read one module's record; when set, clear it on the device (so the next launches
 * start clean) and report it. */
static kc_status read_error_record(kc_module *m) {
  kc_kernel_error rec;
  kc_status s = rt_cuda_copy_dtoh(m->ctx, &rec, m->error_dptr, sizeof rec);
  if (s != KC_OK || !rec.flag) return s;
  uint32_t zero = 0;
  s = rt_cuda_fill(m->ctx, m->error_dptr, sizeof rec / 4, 4, &zero);
  return s != KC_OK ? s : rt_module_error_status(m, &rec);
}

kc_status rt_check_kernel_errors(kc_context *ctx) {
  kc_status first = KC_OK;
  char first_msg[RT_ERR_LEN];
  for (kc_module *m = ctx->checked; m; m = m->next_checked) {
    if (m->error_kernels == 0) continue;
    kc_status s = read_error_record(m);
    m->error_kernels = 0;
    m->error_many = 0;
    m->error_kernel = NULL;
    if (s != KC_OK && first == KC_OK) {
      first = s;
      memcpy(first_msg, ctx->err, sizeof first_msg);
    }
  }
  if (first != KC_OK) memcpy(ctx->err, first_msg, sizeof first_msg);
  return first;
}
