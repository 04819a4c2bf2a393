/* deadlock.c — threads waiting at different barriers are reported (CPU back end) as
 * KC_ERR_DEADLOCK with both barriers' line:col, and the context stays usable.
 * On CUDA the hardware's behaviour is undefined, so the GPU run is skipped. */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("deadlock", argc, argv);
  if (kc_context_device(H.ctx) != KC_DEVICE_CPU) {
    printf("SKIP deadlock: only the CPU back end detects barrier deadlocks\n");
    return H_SKIP;
  }
  float host[64];
  h_poison_f32(host, 64);
  kc_array *a = h_array1(KC_FLOAT32, 64, host);
  kc_arg args[] = {kc_arg_array(a)};
  kc_status s = kc_launch(h_kernel("split"), kc_dim(1), kc_dim(64), 0, NULL, args, 1);
  if (s != KC_ERR_DEADLOCK) h_die("expected KC_ERR_DEADLOCK, got %s", kc_status_name(s));
  /* as with CUDA's asynchronous errors, the next synchronize reports it too, once */
  s = kc_synchronize(H.ctx);
  if (s != KC_ERR_DEADLOCK) h_die("synchronize: expected KC_ERR_DEADLOCK, got %s", kc_status_name(s));
  const char *msg = kc_last_error(H.ctx);
  if (!strstr(msg, "different barriers") || !strstr(msg, "11:9") || !strstr(msg, "13:9"))
    h_die("the message should name the barriers at 11:9 and 13:9: %s", msg);
  h_launch(h_kernel("fine"), kc_dim(1), kc_dim(64), args, 1);
  h_fetch(a, host);
  float want[64];
  for (int i = 0; i < 64; i++) want[i] = 2.0f;
  h_check_f32("after the deadlock", want, host, 64, 0, 0);
  kc_array_free(a);
  return h_end();
}
