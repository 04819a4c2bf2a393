/*
 * diagnostics.c — where the diagnostics of a compilation on a context go. The library
 * prints nothing by default (the embedding convention): each diagnostic goes to the
 * config's diag hook, or to stderr when the context is verbose (KC_VERBOSE=1), and its
 * GCC-style text is kept so that kc_last_diagnostics can hand the caller all of the
 * last compilation's diagnostics at once.
 */
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

/* A specialisation's warnings repeat the first compilation's ("kernel 'k' has no
 * parameter types" for the other untyped kernels): only errors and their notes pass. */
static int spec_passes(rt_diag_route *r, const kc_diagnostic *d) {
  if (d->severity == KC_SEV_WARNING) r->pass_notes = 0;
  if (d->severity == KC_SEV_WARNING || (d->severity == KC_SEV_NOTE && !r->pass_notes))
    return 0;
  if (d->severity == KC_SEV_ERROR) r->pass_notes = 1;
  return 1;
}

void rt_diag_route_fn(void *user_data, const kc_diagnostic *d) {
  rt_diag_route *r = user_data;
  kc_context *ctx = r->ctx;
  if (r->specialising && !spec_passes(r, d)) return;
  if (d->text) diags_append(ctx, d->text);
  if (ctx->cfg.diag) ctx->cfg.diag(ctx->cfg.user_data, d);
  else if (ctx->cfg.verbose && d->text) fputs(d->text, stderr);
}

const char *kc_last_diagnostics(const kc_context *ctx) {
  return ctx && ctx->diags ? ctx->diags : "";
}
