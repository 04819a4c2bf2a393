/*
 * fuzz_cache.c — libFuzzer target: the disk cache's entry reader (runtime/cache.c,
 * rt_cache_parse) over arbitrary bytes. Nothing may crash, leak or be read out of
 * bounds, and a damaged entry must never load.
 *
 * The first byte picks how the rest is used (bit 1: a CPU entry's key, else PTX's):
 *   bit 0 clear: as the whole entry, first line included (the key, the checksum);
 *   bit 0 set:   as what follows the first line (the kernel table and the code), given
 *                the right first line (this key, the checksum of these bytes) so that
 *                the table parser sees every input: what a buggy writer, or a checksum
 *                collision, would hand it.
 * A hit must give a table whose strings and counts are ones the writer makes; a miss an
 * empty output. (A whole entry can hit: libFuzzer reads the expected first line out of
 * the memcmp that checks it.) Seeds (tests/fuzz/cache_seeds/) are tables of real
 * compilations and of the tests' entries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIRST_LINE 62   /* "kcc-cache 7 <32 hex> <16 hex>\n", as cache.c writes it */

/* A fixed key, for a PTX entry or (host) a CPU one. */
static rt_cache_key fuzz_key(int host) {
  rt_cache_key k;
  memset(&k, 0, sizeof k);
  k.h[0] = 0x0123456789abcdefull;
  k.h[1] = 0xfedcba9876543210ull;
  k.host = host;
  return k;
}

/* Every string of the table is one the writer accepts, and the counts agree. */
static void check_table(const kcc_output *out) {
  for (int i = 0; i < out->nkernels; i++) {
    const kcc_kernel *k = &out->kernels[i];
    if (!k->name || !k->symbol || !k->signature || !*k->name || !*k->symbol) abort();
    if (k->nparams < 0 || (k->nparams && !k->params)) abort();
    for (int j = 0; j < k->nparams; j++)
      if (!k->params[j].name || k->params[j].ndim < 0 || k->params[j].nelems < 0) abort();
  }
  for (int i = 0; i < out->nuntyped; i++)
    if (!out->untyped[i] || !*out->untyped[i]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int whole = (data[0] & 1) == 0, host = (data[0] & 2) != 0;
  rt_cache_key key = fuzz_key(host);
  data++, size--;
  size_t len = whole ? size : FIRST_LINE + size;
  char *buf = malloc(len + 1);
  if (!buf) return 0;
  if (whole) {
    memcpy(buf, data, size);
  } else {
    snprintf(buf, FIRST_LINE + 1, "kcc-cache 7 %016llx%016llx %016llx\n",
             (unsigned long long)key.h[1], (unsigned long long)key.h[0],
             (unsigned long long)XXH3_64bits(data, size));
    memcpy(buf + FIRST_LINE, data, size);
  }
  buf[len] = '\0';
  kcc_output out;
  int hit = rt_cache_parse(&key, buf, len, &out) == 0;
  free(buf);
  if (hit) check_table(&out);
  if (!hit && (out.nkernels || out.kernels || out.text || out.object)) abort();
  kcc_output_free(&out);
  return 0;
}
