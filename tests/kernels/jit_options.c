/* jit_options.c — kernels declared with max_registers=, launch_bounds=, opt=False,
 * lineinfo=, debug=, cache= and device functions with inline= / forceinline= compute
 * what the same code computes without them (expected values computed here), and a
 * block larger than launch_bounds' max threads per block is KC_ERR_LAUNCH. */
#include "harness.h"

static kc_kernel *kernel(kc_module *m, const char *name) {
  kc_kernel *k = NULL;
  h_ok(kc_module_get_kernel(m, name, &k), name);
  return k;
}

int main(int argc, char **argv) {
  h_begin("jit_options", argc, argv);
  kc_module *m = NULL;
  h_ok(kc_compile_file(H.ctx, argv[1], NULL, &m), "compile");
  enum { N = 200 };
  float host[N], got[N], want[N];
  for (int i = 0; i < N; i++) host[i] = (float)i * 0.25f - 3.0f;
  kc_array *a = h_array1(KC_FLOAT32, N, host);
  kc_arg args[] = {kc_arg_array(a)};

  h_launch(kernel(m, "bounded"), kc_dim(4), kc_dim(64), args, 1);
  h_fetch(a, got);
  for (int i = 0; i < N; i++) want[i] = host[i] * 2.0f;
  h_check_f32("bounded", want, got, N, 0, 0);

  /* 128 threads: more than launch_bounds' 64 */
  kc_status s = kc_launch(kernel(m, "bounded"), kc_dim(2), kc_dim(128), 0, NULL, args, 1);
  if (s != KC_ERR_LAUNCH || !strstr(kc_last_error(H.ctx), "limit of 64 threads per block"))
    h_die("bounded: a block of 128 threads should be refused: %s %s", kc_status_name(s),
          kc_last_error(H.ctx));

  kc_arg nargs[] = {kc_arg_array(a), kc_arg_i32(5)};
  h_launch(kernel(m, "unoptimised"), kc_dim(4), kc_dim(64), nargs, 2);
  h_fetch(a, got);
  for (int i = 0; i < N; i++) want[i] = host[i] * 2.0f + 5.0f;
  h_check_f32("unoptimised", want, got, N, 0, 0);

  h_launch(kernel(m, "debug_unoptimised"), kc_dim(2), kc_dim(128), args, 1);
  h_fetch(a, got);
  for (int i = 0; i < N; i++) want[i] = (host[i] * 2.0f + 5.0f) * (host[i] * 2.0f + 5.0f);
  h_check_f32("debug_unoptimised", want, got, N, 0, 0);

  kc_array_free(a);
  kc_module_free(m);
  return h_end();
}
