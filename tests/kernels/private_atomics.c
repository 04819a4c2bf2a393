/* private_atomics.c — atomic adds to global integer arrays, which the CPU back end
 * counts per worker where nothing else in the kernel reads the array
 * (private_atomics.k says which kernels qualify and which must not), against
 * references computed here in C. On the CPU every check runs on pools of 1, 2, 3 and
 * 5 workers, and the histogram twice in a row (copies zeroed per launch, counts kept).
 * tolerance: exact (integers; int32 and uint32 sums wrap as C's unsigned ones do). */
#include "harness.h"

#define NDATA 300007
#define NVALS 5003
#define NBIG (1 << 17)

static uint8_t *data;

static void check_hist(void) {
  int32_t bins[256] = {0}, want[256] = {0};
  for (int i = 0; i < NDATA; i++) want[data[i]] += 2;
  kc_array *dd = h_array1(KC_UINT8, NDATA, data), *db = h_array1(KC_INT32, 256, bins);
  kc_arg args[] = {kc_arg_array(dd), kc_arg_array(db)};
  for (int launch = 0; launch < 2; launch++)
    h_launch(h_kernel("hist"), kc_dim(37), kc_dim(128), args, 2);
  h_fetch(db, bins);
  h_check_i32("hist (two launches)", want, bins, 256);
  int64_t b64[256] = {0}, w64[256] = {0};
  for (int i = 0; i < 256; i++) w64[i] = want[i] / 2;
  kc_array *d64 = h_array1(KC_INT64, 256, b64);
  kc_arg sargs[] = {kc_arg_array(dd), kc_arg_array(d64)};
  h_launch(h_kernel("hist_shared"), kc_dim(19), kc_dim(64), sargs, 2);
  h_fetch(d64, b64);
  h_check_i64("hist_shared", w64, b64, 256);
  kc_array_free(dd), kc_array_free(db), kc_array_free(d64);
}

static void check_add_sub(void) {
  int64_t *vals = h_alloc(NVALS, sizeof *vals), a64[6] = {0}, w64[6] = {0};
  int32_t a32[7] = {0}, w32[7];
  uint32_t u32[5] = {0}, wu32[5], acc32[7] = {0};
  for (int i = 0; i < 5; i++) wu32[i] = 0;
  for (int64_t i = 0; i < NVALS; i++) {
    int64_t v = (int64_t)(((uint64_t)i * 2654435761u) % (1ull << 33)) - ((int64_t)1 << 32);
    vals[i] = v;
    acc32[i % 7] += (uint32_t)v;
    wu32[i % 5] -= (uint32_t)v;
    w64[(i % 3) * 2 + i % 2] += v * 1000003;
    w64[((i + 1) % 3) * 2] -= v;
  }
  for (int i = 0; i < 7; i++) w32[i] = (int32_t)acc32[i];
  int64_t shape[2] = {3, 2};
  kc_array *dv = h_array1(KC_INT64, NVALS, vals), *d32 = h_array1(KC_INT32, 7, a32),
           *du = h_array1(KC_UINT32, 5, u32), *d64 = h_array(KC_INT64, 2, shape, a64);
  kc_arg args[] = {kc_arg_array(dv), kc_arg_array(d32), kc_arg_array(du), kc_arg_array(d64)};
  h_launch(h_kernel("add_sub"), kc_dim(h_blocks(NVALS, 64)), kc_dim(64), args, 4);
  h_fetch(d32, a32), h_fetch(du, u32), h_fetch(d64, a64);
  h_check_i32("add_sub int32", w32, a32, 7);
  h_check_u32("add_sub uint32", wu32, u32, 5);
  h_check_i64("add_sub int64 2-D", w64, a64, 6);
  kc_array_free(dv), kc_array_free(d32), kc_array_free(du), kc_array_free(d64);
  free(vals);
}

/* The same array as acc and view: each thread reads its own element after adding 5. */
static void check_aliased(void) {
  enum { N = 1000 };
  int32_t acc[N], out[N], want_acc[N], want_out[N];
  for (int i = 0; i < N; i++) acc[i] = i, want_out[i] = i + 5, want_acc[i] = i + 6;
  h_poison_i32(out, N);
  kc_array *da = h_array1(KC_INT32, N, acc), *dout = h_array1(KC_INT32, N, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("add_then_read"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 3);
  h_fetch(da, acc), h_fetch(dout, out);
  h_check_i32("add_then_read: what each thread read", want_out, out, N);
  h_check_i32("add_then_read: the array", want_acc, acc, N);
  kc_array_free(da), kc_array_free(dout);
}

static void check_shared_ones(void) {
  enum { N = 4000 };
  int32_t bins[4] = {0}, wbins[4] = {N / 4, N / 4, N / 4, N / 4}, out[N], ones[N], counter[1] = {0};
  for (int i = 0; i < N; i++) ones[i] = 1;
  h_poison_i32(out, N);
  kc_array *db = h_array1(KC_INT32, 4, bins), *dout = h_array1(KC_INT32, N, out);
  kc_arg args[] = {kc_arg_array(db), kc_arg_array(dout)};
  h_launch(h_kernel("add_and_read"), kc_dim(h_blocks(N, 64)), kc_dim(64), args, 2);
  h_fetch(db, bins), h_fetch(dout, out);
  h_check_i32("add_and_read bins", wbins, bins, 4);
  h_check_i32("add_and_read reads", ones, out, N);
  /* tickets: the old values are 0 .. N-1, each once */
  kc_array *dc = h_array1(KC_INT32, 1, counter);
  kc_arg targs[] = {kc_arg_array(dc), kc_arg_array(dout)};
  h_launch(h_kernel("tickets"), kc_dim(h_blocks(N, 64)), kc_dim(64), targs, 2);
  h_fetch(dc, counter), h_fetch(dout, out);
  int32_t *seen = h_alloc(N, sizeof *seen);
  for (int i = 0; i < N; i++)
    if (out[i] >= 0 && out[i] < N) seen[out[i]]++;
  for (int i = 0; i < N; i++) ones[i] = 1;
  h_check_i32("tickets: each old value once", ones, seen, N);
  if (counter[0] != N && H.failures++ == 0) printf("FAIL tickets: counter %d\n", counter[0]);
  free(seen);
  kc_array_free(db), kc_array_free(dout), kc_array_free(dc);
}

static void check_big(void) {
  int32_t *idx = h_alloc(NDATA, sizeof *idx), *big = h_alloc(NBIG, sizeof *big),
          *want = h_alloc(NBIG, sizeof *want);
  for (int i = 0; i < NDATA; i++) idx[i] = (int32_t)(((uint32_t)i * 40503u) % NBIG), want[idx[i]]++;
  kc_array *di = h_array1(KC_INT32, NDATA, idx), *db = h_array1(KC_INT32, NBIG, big);
  kc_arg args[] = {kc_arg_array(di), kc_arg_array(db)};
  h_launch(h_kernel("scatter"), kc_dim(64), kc_dim(256), args, 2);
  h_fetch(db, big);
  h_check_i32("scatter into 2^17 bins", want, big, NBIG);
  kc_array_free(di), kc_array_free(db);
  free(idx), free(big), free(want);
}

static void run_all(void) {
  check_hist();
  check_add_sub();
  check_aliased();
  check_shared_ones();
  check_big();
}

/* A context of `threads` CPU workers with the module compiled, in place of H's. */
static void use_cpu_pool(int threads, const char *path) {
  if (H.mod) kc_module_free(H.mod);
  if (H.ctx) kc_context_free(H.ctx);
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = threads;
  H.mod = NULL;
  h_ok(kc_context_new(&cfg, &H.ctx), "kc_context_new");
  h_ok(kc_compile_file(H.ctx, path, NULL, &H.mod), "kc_compile_file");
}

int main(int argc, char **argv) {
  h_begin("private_atomics", argc, argv);
  data = h_alloc(NDATA, 1);
  for (int i = 0; i < NDATA; i++) data[i] = (uint8_t)(((uint32_t)i * 2654435761u) >> 13);
  if (kc_context_device(H.ctx) != KC_DEVICE_CPU) {
    run_all();
  } else {
    static const int pools[] = {1, 2, 3, 5};
    for (int p = 0; p < 4; p++) {
      use_cpu_pool(pools[p], argv[1]);
      run_all();
    }
  }
  free(data);
  return h_end();
}
