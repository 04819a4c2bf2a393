/*
 * handles.c — freed module, kernel table, stream and event handles kept for a while, so
 * that a second kc_*_free or a use after the free is a clear KC_ERR_INVALID rather than
 * a read of freed memory (as freed arrays are: array.c's graveyard).
 *
 * A freed handle's resources are released at once; the handle itself is marked
 * RT_HANDLE_FREED and parked in the context's ring of the last RT_GRAVEYARD such frees,
 * the oldest one really freed to make room. The check is on that mark alone, so a
 * handle made anywhere (zeroed by rt_calloc) is live without being registered. Beyond
 * the ring's reach a use after free is again undefined, as the ownership rules in kc.h
 * say.
 */
#include "rt.h"

void rt_handle_bury(kc_context *ctx, void *handle, size_t size, uint32_t *magic) {
  if (!handle) return;
  if (magic) *magic = RT_HANDLE_FREED;
  unsigned i = ctx->handle_next++ % RT_GRAVEYARD;
  if (ctx->handle_grave[i]) rt_free(ctx, ctx->handle_grave[i], ctx->handle_grave_size[i]);
  ctx->handle_grave[i] = handle;
  ctx->handle_grave_size[i] = size;
}

void rt_handle_graveyard_free(kc_context *ctx) {
  for (int i = 0; i < RT_GRAVEYARD; i++) {
    rt_free(ctx, ctx->handle_grave[i], ctx->handle_grave_size[i]);
    ctx->handle_grave[i] = NULL;
  }
}

kc_status rt_handle_live(kc_context *ctx, uint32_t magic, const char *call, const char *what) {
  if (magic != RT_HANDLE_FREED) return KC_OK;
  return rt_error(ctx, KC_ERR_INVALID, "%s: the %s was already freed", call, what);
}
