/* probe.c — meson links this with -fsanitize=fuzzer to see whether the C compiler
 * found for fuzzing (clang) has libFuzzer. */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)data;
  (void)size;
  return 0;
}
