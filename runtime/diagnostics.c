/*
 * diagnostics.c — where the diagnostics of a compilation on a context go. The library
 * prints nothing by default (the embedding convention): each diagnostic goes to the
 * config's diag hook, or to stderr when the context is verbose (KC_VERBOSE=1), and its
 * GCC-style text is kept so that kc_last_diagnostics can hand the caller all of the
 * last compilation's diagnostics at once.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

void rt_diags_reset(kc_context *ctx) {
  ctx->diags_len = 0;
  if (ctx->diags) ctx->diags[0] = '\0';
}

/* Append text; an allocation failure drops it (the compilation itself goes on and
 * reports its own out-of-memory). */
static void diags_append(kc_context *ctx, const char *text) {
  size_t n = strlen(text);
  if (ctx->diags_len + n + 1 > ctx->diags_cap) {
    size_t cap = ctx->diags_cap ? ctx->diags_cap : 1024;
    while (cap < ctx->diags_len + n + 1) cap *= 2;
    char *nb = rt_alloc(ctx, cap);
    if (!nb) return;
    if (ctx->diags_len) memcpy(nb, ctx->diags, ctx->diags_len);
    rt_free(ctx, ctx->diags, ctx->diags_cap);
    ctx->diags = nb;
    ctx->diags_cap = cap;
  }
  memcpy(ctx->diags + ctx->diags_len, text, n + 1);
  ctx->diags_len += n;
}

static uint64_t text_hash(const char *s) {   /* FNV-1a */
  uint64_t h = 1469598103934665603u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

/* Whether w holds h; if not, h is added (an allocation failure only forgets it). */
static bool warned_before(kc_context *ctx, rt_warned *w, uint64_t h) {
  for (size_t i = 0; i < w->n; i++)
    if (w->hash[i] == h) return true;
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 8;
    uint64_t *v = rt_alloc(ctx, cap * sizeof *v);
    if (!v) return false;
    if (w->n) memcpy(v, w->hash, w->n * sizeof *v);
    rt_free(ctx, w->hash, w->cap * sizeof *v);
    w->hash = v, w->cap = cap;
  }
  w->hash[w->n++] = h;
  return false;
}

void rt_warned_free(kc_context *ctx, rt_warned *w) {
  rt_free(ctx, w->hash, w->cap * sizeof *w->hash);
  memset(w, 0, sizeof *w);
}

/* A specialisation compiles the module's source again, so the warnings of the rest of
 * it repeat the first compilation's: a warning passes only once per module (a print
 * of more than 32 items in the kernel specialised is new; a float32 widened in another
 * kernel is not), and a note only after an error or warning that passed. */
static int route_passes(rt_diag_route *r, const kc_diagnostic *d) {
  bool pass = true;
  if (d->severity == KC_SEV_NOTE) return r->pass_notes;
  if (d->severity == KC_SEV_WARNING) {
    bool old = r->seen && d->text && warned_before(r->ctx, r->seen, text_hash(d->text));
    pass = r->mode == RT_DIAG_ALL || (r->mode == RT_DIAG_NEW && !old);
  }
  r->pass_notes = pass;
  return pass;
}

void rt_diag_route_fn(void *user_data, const kc_diagnostic *d) {
  rt_diag_route *r = user_data;
  kc_context *ctx = r->ctx;
  if (!route_passes(r, d)) return;
  if (d->text) diags_append(ctx, d->text);
  if (ctx->cfg.diag) ctx->cfg.diag(ctx->cfg.user_data, d);
  else if (ctx->cfg.verbose && d->text) fputs(d->text, stderr);
}

const char *kc_last_diagnostics(const kc_context *ctx) {
  return ctx && ctx->diags ? ctx->diags : "";
}
