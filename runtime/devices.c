/*
 * devices.c — what the devices are: kc_cuda_device_count and kc_cuda_device_info (no
 * context needed), kc_context_device_info (a context's device, the CPU's name, memory
 * and cores), and kc_detect, the report `kcc devices` prints: the driver, each GPU
 * and which pairs can reach each other's memory, the compiler, libdevice, ptxas,
 * nvJitLink and the CPU device.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kc_config.h"
#include "rt.h"
#include "rt_compiler.h"

/* ---- Devices ------------------------------------------------------------------------ */
kc_status kc_cuda_device_count(int *count) {
  RT_NEED(NULL, count, "kc_cuda_device_count");
  *count = 0;
  return rt_cuda_count(NULL, count);
}

kc_status kc_cuda_device_info(int index, kc_device_info *info) {
  RT_NEED(NULL, info, "kc_cuda_device_info");
  memset(info, 0, sizeof *info);
  return rt_cuda_info(NULL, index, info);
}

static void cpu_name(char *buf, size_t len) {
  snprintf(buf, len, "CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *colon = strchr(line, ':');
      if (colon) {
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, len, "%s", colon);
      }
      break;
    }
  }
  fclose(f);
}

static void cpu_info(kc_device_info *info) {
  memset(info, 0, sizeof *info);
  cpu_name(info->name, sizeof info->name);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info->total_memory = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
  info->multiprocessors = rt_cpu_count();
  info->max_threads_per_block = 1024;
  info->max_shared_per_block = RT_CPU_MAX_SHARED;
  info->supported = 1;
}

kc_status kc_context_device_info(kc_context *ctx, kc_device_info *info) {
  RT_NEED(NULL, ctx, "kc_context_device_info");
  RT_NEED(ctx, info, "kc_context_device_info");
  if (ctx->broken) return rt_context_usable(ctx);
  if (ctx->device == KC_DEVICE_CUDA) return rt_cuda_info(ctx, ctx->cfg.cuda_device, info);
  cpu_info(info);
  info->multiprocessors = ctx->cpu_threads;
  return KC_OK;
}

/* ---- kc_detect ------------------------------------------------------------------------ */
typedef struct text {
  char *buf;
  size_t len, used;
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = t->used < t->len ? t->len - t->used : 0;
  int n = vsnprintf(room ? t->buf + t->used : NULL, room, fmt, ap);
  va_end(ap);
  if (n > 0) t->used += (size_t)n;
}

static int file_exists(const char *path) { return access(path, R_OK) == 0; }

/* ptxas under the CUDA root, else on PATH; the found path into out. */
static int find_ptxas(char *out, size_t len) {
  snprintf(out, len, "%s/bin/ptxas", KC_CUDA_ROOT);
  if (access(out, X_OK) == 0) return 1;
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t n = strcspn(path, ":");
    if (n > 0 && n < len - 7) {
      snprintf(out, len, "%.*s/ptxas", (int)n, path);
      if (access(out, X_OK) == 0) return 1;
    }
    path += n + (path[n] == ':');
  }
  return 0;
}

/* libnvJitLink by file (dlopen would run its constructors just to look) */
static int find_nvjitlink(char *out, size_t len) {
  static const char *const dirs[] = {KC_CUDA_ROOT "/lib64", KC_CUDA_ROOT "/lib",
                                     "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"};
  static const char *const names[] = {"libnvJitLink.so", "libnvJitLink.so.13",
                                      "libnvJitLink.so.12"};
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++)
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      snprintf(out, len, "%s/%s", dirs[d], names[i]);
      if (file_exists(out)) return 1;
    }
  return 0;
}

/* With several GPUs, which pairs can reach each other's memory directly (what
 * kc_array_copy_peer gets without staging): "  [0] peer access: 1 yes, 2 no". */
static void detect_peers(text *t, int count) {
  for (int i = 0; count > 1 && i < count; i++) {
    const char *sep = " ";
    put(t, "  [%d] peer access:", i);
    for (int j = 0, can; j < count; j++) {
      if (j == i) continue;
      int yes = rt_cuda_can_access_peer(i, j, &can) == KC_OK && can;
      put(t, "%s%d %s", sep, j, yes ? "yes" : "no");
      sep = ", ";
    }
    put(t, "\n");
  }
}

static void detect_cuda(text *t) {
  char msg[RT_ERR_LEN];
  if (rt_cuda_load(msg, sizeof msg) != KC_OK) {
    put(t, "CUDA driver: %s\n", msg);
    put(t, "CUDA devices: none\n");
    return;
  }
  int v = rt_cuda_driver_version();
  const char *path = rt_cuda_driver_path();
  put(t, "CUDA driver: %s (CUDA %d.%d)\n", path ? path : "libcuda.so.1", v / 1000,
      (v % 1000) / 10);
  int count = 0;
  if (rt_cuda_count(NULL, &count) != KC_OK || count == 0) {
    put(t, "CUDA devices: none\n");
    return;
  }
  put(t, "CUDA devices: %d\n", count);
  for (int i = 0; i < count; i++) {
    kc_device_info info;
    if (rt_cuda_info(NULL, i, &info) != KC_OK) {
      put(t, "  [%d] (could not be queried)\n", i);
      continue;
    }
    put(t, "  [%d] %s, compute capability %d.%d, %.1f GiB, %d SMs: %s\n", i, info.name,
        info.cc_major, info.cc_minor, (double)info.total_memory / (1024.0 * 1024 * 1024),
        info.multiprocessors, info.supported ? "supported" : "not supported (needs 5.0+)");
  }
  detect_peers(t, count);
}

kc_status kc_detect(char *buf, size_t len, size_t *needed) {
  if (!buf && len) return rt_null_arg(NULL, "kc_detect", "buf (with len > 0)");
  text t = {buf, len, 0};
  if (len) buf[0] = '\0';
  put(&t, "kcc %s\n", KC_VERSION);
#ifdef KC_HAVE_CUDA
  detect_cuda(&t);
#else
  (void)detect_cuda;
  put(&t, "CUDA: none: a CPU-only build (no CUDA headers at build time)\n");
#endif
  const rt_compiler *cc = rt_compiler_get();
  if (cc) put(&t, "compiler: %s (libkc)\n", cc->name);
  else put(&t, "compiler: none (libkcrt: loads PTX and cubins, compiles nothing)\n");
  const char *ld = getenv("KC_LIBDEVICE");
  if (!ld || !*ld) ld = KC_LIBDEVICE_PATH;
  put(&t, "libdevice: %s (%s)\n", ld, file_exists(ld) ? "found" : "not found");
  char path[1024];
  if (find_ptxas(path, sizeof path)) put(&t, "ptxas: %s (found)\n", path);
  else put(&t, "ptxas: not found (%s/bin or PATH)\n", KC_CUDA_ROOT);
  if (find_nvjitlink(path, sizeof path)) put(&t, "nvJitLink: %s (found)\n", path);
  else put(&t, "nvJitLink: not found (libnvJitLink.so)\n");
  if (rt_nvrtc_find(path, sizeof path))
    put(&t, "NVRTC: %s (found: link= may name .cu files)\n", path);
  else put(&t, "NVRTC: not found (%s: link= cannot name .cu files)\n", path);
  kc_device_info cpu;
  cpu_info(&cpu);
  put(&t, "CPU device: %s, %d cores: supported\n", cpu.name, cpu.multiprocessors);
  if (len) buf[t.used < len ? t.used : len - 1] = '\0';
  if (needed) *needed = t.used;
  return KC_OK;
}
