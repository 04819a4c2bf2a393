/* recursion_depth.c — the CPU back end's bound on recursion (recursion_depth.k): 10**6
 * calls deep, and 17 calls of 480 KB frames, each fail their launch with KC_ERR_LAUNCH
 * naming the kernel, the function and the depth (never a signal), and the context then
 * runs recursion within the bound right: count_down(100) is 100 and heavy(2) is
 * 2 + 1 + 0 = 3 (the sums written out here). CPU back end only: a GPU's stack limit
 * faults the context, which no later launch survives.
 * tolerance: exact. */
#include "harness.h"

static void expect_deep(const char *what, kc_kernel *k, kc_array *out, int64_t n,
                        const char *fn) {
  kc_arg args[] = {kc_arg_array(out), kc_arg_i64(n)};
  kc_status s = kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 2);
  kc_status s2 = kc_synchronize(H.ctx);
  if (s != KC_ERR_LAUNCH && s2 != KC_ERR_LAUNCH)
    h_die("%s: expected KC_ERR_LAUNCH, got %s then %s (%s)", what, kc_status_name(s),
          kc_status_name(s2), kc_last_error(H.ctx));
  const char *msg = kc_last_error(H.ctx);
  const char *needles[] = {what, fn, "RecursionError", " deep", NULL};
  for (int i = 0; needles[i]; i++)
    if (!strstr(msg, needles[i])) h_die("%s: the message lacks '%s': %s", what, needles[i], msg);
}

int main(int argc, char **argv) {
  h_begin("recursion_depth", argc, argv);
  if (kc_context_device(H.ctx) != KC_DEVICE_CPU) {
    printf("SKIP recursion_depth: the bound is the CPU back end's\n");
    return H_SKIP;
  }
  int64_t got = -1, zero = 0;
  kc_array *out = h_array1(KC_INT64, 1, &zero);
  kc_kernel *deep = h_kernel("deep"), *frames = h_kernel("deep_frames");
  expect_deep("deep", deep, out, 1000000, "count_down");
  expect_deep("deep_frames", frames, out, 16, "heavy");

  kc_arg a1[] = {kc_arg_array(out), kc_arg_i64(100)};
  h_launch(deep, kc_dim(1), kc_dim(1), a1, 2);
  h_fetch(out, &got);
  int64_t want = 100;
  h_check_i64("count_down(100)", &want, &got, 1);
  kc_arg a2[] = {kc_arg_array(out), kc_arg_i64(2)};
  h_launch(frames, kc_dim(1), kc_dim(1), a2, 2);
  h_fetch(out, &got);
  want = 2 + 1 + 0;
  h_check_i64("heavy(2)", &want, &got, 1);
  kc_array_free(out);
  return h_end();
}
