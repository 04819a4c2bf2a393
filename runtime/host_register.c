/*
 * host_register.c — kc_host_register / kc_host_unregister: page-locking host memory the
 * caller allocated (cuMemHostRegister), so stream-ordered copies from and to it can
 * overlap kernels. The context keeps the registered ranges in a list on both devices:
 * an unregister of a pointer never registered, or a second registration of the same
 * bytes, is then a clear KC_ERR_INVALID on the CPU device as on CUDA, and
 * kc_context_free unregisters what the caller left.
 */
#include "rt.h"

static int overlaps(const rt_host_range *r, const char *p, size_t bytes) {
  const char *q = r->p;
  return p < q + r->bytes && q < p + bytes;
}

kc_status kc_host_register(kc_context *ctx, void *p, size_t bytes) {
  RT_NEED(NULL, ctx, "kc_host_register");
  if (ctx->broken) return rt_context_usable(ctx);
  if (!p) return rt_error(ctx, KC_ERR_INVALID, "host register: the pointer is NULL");
  if (bytes == 0) return rt_error(ctx, KC_ERR_INVALID, "host register: 0 bytes");
  if ((uintptr_t)p > UINTPTR_MAX - bytes)
    return rt_error(ctx, KC_ERR_INVALID, "host register: %zu bytes at %p wrap around the "
                    "address space", bytes, p);
  for (const rt_host_range *r = ctx->registered; r; r = r->next)
    if (overlaps(r, p, bytes))
      return rt_error(ctx, KC_ERR_INVALID, "host register: %zu bytes at %p overlap the %zu "
                      "bytes at %p registered already", bytes, p, r->bytes, r->p);
  rt_host_range *r = rt_alloc(ctx, sizeof *r);
  if (!r) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  if (ctx->device == KC_DEVICE_CUDA) {
    kc_status s = rt_cuda_host_register(ctx, p, bytes);
    if (s != KC_OK) {
      rt_free(ctx, r, sizeof *r);
      return s;
    }
  }
  r->p = p, r->bytes = bytes, r->next = ctx->registered;
  ctx->registered = r;
  return KC_OK;
}

kc_status kc_host_unregister(kc_context *ctx, void *p) {
  RT_NEED(NULL, ctx, "kc_host_unregister");
  if (!p) return rt_error(ctx, KC_ERR_INVALID, "host unregister: the pointer is NULL");
  for (rt_host_range **at = &ctx->registered; *at; at = &(*at)->next) {
    rt_host_range *r = *at;
    if (r->p != p) continue;
    if (ctx->device == KC_DEVICE_CUDA) rt_cuda_host_unregister(ctx, p);
    *at = r->next;
    rt_free(ctx, r, sizeof *r);
    return KC_OK;
  }
  return rt_error(ctx, KC_ERR_INVALID, "host unregister: %p was not registered on this "
                  "context (kc_host_register)", p);
}

void rt_host_registry_free(kc_context *ctx) {
  while (ctx->registered) {
    rt_host_range *r = ctx->registered;
    if (ctx->device == KC_DEVICE_CUDA) rt_cuda_host_unregister(ctx, r->p);
    ctx->registered = r->next;
    rt_free(ctx, r, sizeof *r);
  }
}
