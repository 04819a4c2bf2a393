/*
 * multisig_use.c — uses the header kcc --emit=header wrote for multisig.k: a launch
 * function per signature of a multi-signature kernel and of a multi-signature
 * @vectorize, NAME_launch for a kernel of one signature; built with -Werror (C here,
 * C++ in multisig_use.cpp, which includes this file) and run on the CPU device.
 * Expected values: products and sums of squares of small integers, exact in every type.
 */
#include <stdio.h>

#include "multisig_kc.h"

#define CHECK(cond)                                                                      \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "%s:%d: %s failed (%s)\n", __FILE__, __LINE__, #cond,              \
              ctx ? kc_last_error(ctx) : "");                                            \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

int main(void) {
  kc_context *ctx = NULL;
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  CHECK(kc_context_new(&cfg, &ctx) == KC_OK);
  kc_module *m = NULL;
  CHECK(multisig_load(ctx, &m) == KC_OK);
  int64_t n = 4;
  float hf[4] = {1, 2, 3, 4};
  double hd[4] = {1, 2, 3, 4};
  int32_t hi[4] = {1, 2, 3, 4};
  kc_array *af = NULL, *ad = NULL, *ai = NULL, *outd = NULL;
  CHECK(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, hf, sizeof hf, &af) == KC_OK);
  CHECK(kc_array_from_host(ctx, KC_FLOAT64, 1, &n, hd, sizeof hd, &ad) == KC_OK);
  CHECK(kc_array_from_host(ctx, KC_INT32, 1, &n, hi, sizeof hi, &ai) == KC_OK);
  CHECK(multisig_scale_launch_float32_1d_float32(m, NULL, kc_dim(1), kc_dim(4), af, 2.0f) == KC_OK);
  CHECK(multisig_scale_launch_float64_1d_float64(m, NULL, kc_dim(1), kc_dim(4), ad, 3.0) == KC_OK);
  CHECK(multisig_scale_launch_int32_1d_int32(m, NULL, kc_dim(1), kc_dim(4), ai, 5) == KC_OK);
  CHECK(kc_array_like(ad, &outd) == KC_OK);
  CHECK(multisig_hyp2_launch_float64_1d_float64_1d_float64_1d(m, NULL, kc_dim(1), kc_dim(4),
                                                              ad, ad, outd) == KC_OK);
  CHECK(kc_array_to_host(af, hf, sizeof hf) == KC_OK);
  CHECK(kc_array_to_host(ai, hi, sizeof hi) == KC_OK);
  double hyp[4];
  CHECK(kc_array_to_host(outd, hyp, sizeof hyp) == KC_OK);
  for (int i = 0; i < 4; i++) {
    CHECK(hf[i] == 2.0f * (float)(i + 1));
    CHECK(hi[i] == 5 * (i + 1));
    double d = 3.0 * (i + 1);
    CHECK(hyp[i] == 2 * d * d);
  }
  CHECK(multisig_one_launch(m, NULL, kc_dim(1), kc_dim(1), ai) == KC_OK);
  CHECK(kc_array_to_host(ai, hi, sizeof hi) == KC_OK);
  CHECK(hi[0] == 1);
  kc_array_free(outd);
  kc_array_free(ai);
  kc_array_free(ad);
  kc_array_free(af);
  kc_module_free(m);
  kc_context_free(ctx);
  puts("ok");
  return 0;
}
