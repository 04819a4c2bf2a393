/*
 * libdevice_host.h — the CPU back end's versions of libdevice's __nv_* functions, so that
 * a cuda.libdevice call (src/builtins/libdevice.c) is the same call of __nv_<name> on
 * both targets: libdevice's on the GPU, the function this table binds the name to in
 * the host JIT (target_host.c) on the CPU.
 */
#ifndef KCC_LIBDEVICE_HOST_H
#define KCC_LIBDEVICE_HOST_H

#include <stddef.h>

typedef struct libdevice_host_fn {
  const char *name;        /* "__nv_sin" */
  void (*fn)(void);        /* the C library's sin, or this file's own */
} libdevice_host_fn;

extern const libdevice_host_fn libdevice_host_fns[];
extern const size_t libdevice_host_nfns;

/* lgamma and lgammaf without libm's global signgam, which the CPU back end's workers
 * would race on: what kernels' lgamma calls are bound to (target_host.c). */
double host_lgamma(double x);
float host_lgammaf(float x);

#endif
