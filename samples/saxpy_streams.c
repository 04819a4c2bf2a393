/*
 * saxpy_streams.c — SAXPY (y = a * x + y, float32) over a large vector, the usual way to
 * overlap copies and compute on a GPU: the vector is cut into chunks, and the chunks
 * alternate between two streams; each chunk is an async copy in of x and y, a launch,
 * and an async copy out of y, all queued on its stream. While one stream's kernel runs,
 * the other's copies move (a GPU has copy engines beside its SMs), which is why the host
 * buffers are page-locked: x from kc_host_alloc (Numba's cuda.pinned_array), y malloc'd
 * then kc_host_register'ed (Numba's cuda.pinned(arr)). Two events on the default stream
 * time the whole pipeline. On the CPU device the same calls run in order at each call
 * (nothing overlaps there: docs/runtime.md, "Streams").
 *
 *   usage: saxpy_streams [path/to/saxpy_streams.k [elements [chunks]]]
 *          (defaults: 50 000 000 elements in 16 chunks; exit 0 when the result is right)
 *
 * The check: every element must equal the C reference exactly. The kernel rounds the
 * product and then the sum, each to float32 (kcc emits mul.rn and add.rn without
 * fastmath, never a fused multiply-add), and so does the reference: the product is
 * stored in a volatile float so no C compiler fuses it with the add either.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

#define NSTREAMS 2

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "saxpy_streams: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* The inputs, computed again for the check so no third vector is needed. */
static float x_of(int64_t i) { return (float)(i % 1000) * 0.001f; }
static float y_of(int64_t i) { return (float)(i % 777) - 300.5f; }

static float reference(float a, int64_t i) {
  volatile float product = a * x_of(i);
  return product + y_of(i);
}

/* Per stream: device buffers for one chunk, reused chunk after chunk (the stream's
 * order makes the next copy in wait for the last copy out). */
typedef struct lane {
  kc_stream *stream;
  kc_array *x, *y;
} lane;

/* Queue chunk [off, off + len) on l: copy in, launch, copy out. A short last chunk
 * uses views of the chunk buffers' first len elements. */
static kc_status queue_chunk(kc_kernel *saxpy, lane *l, float a, float *x, float *y,
                             int64_t off, int64_t len, int64_t chunk) {
  kc_array *dx = l->x, *dy = l->y;
  kc_status s = KC_OK;
  if (len < chunk && ((s = kc_array_view(l->x, 0, len, &dx)) != KC_OK ||
                      (s = kc_array_view(l->y, 0, len, &dy)) != KC_OK))
    return s;
  size_t bytes = (size_t)len * sizeof(float);
  kc_arg args[] = {kc_arg_f32(a), kc_arg_array(dx), kc_arg_array(dy)};
  unsigned block = 256, grid = (unsigned)((len + block - 1) / block);
  if ((s = kc_array_copy_from_host_async(dx, x + off, bytes, l->stream)) == KC_OK &&
      (s = kc_array_copy_from_host_async(dy, y + off, bytes, l->stream)) == KC_OK &&
      (s = kc_launch(saxpy, kc_dim(grid), kc_dim(block), 0, l->stream, args, 3)) == KC_OK)
    s = kc_array_to_host_async(dy, y + off, bytes, l->stream);
  /* a view only names memory: freeing it now leaves the queued work its buffers */
  if (dx != l->x) kc_array_free(dx);
  if (dy != l->y) kc_array_free(dy);
  return s;
}

static kc_status run(kc_context *ctx, kc_kernel *saxpy, float a, float *x, float *y,
                     int64_t n, int64_t chunks, float *ms) {
  int64_t chunk = (n + chunks - 1) / chunks;
  lane lanes[NSTREAMS] = {{0}};
  kc_event *start = NULL, *end = NULL;
  kc_status s = KC_OK;
  for (int i = 0; i < NSTREAMS && s == KC_OK; i++)
    if ((s = kc_stream_new(ctx, &lanes[i].stream)) == KC_OK &&
        (s = kc_array_new(ctx, KC_FLOAT32, 1, &chunk, &lanes[i].x)) == KC_OK)
      s = kc_array_new(ctx, KC_FLOAT32, 1, &chunk, &lanes[i].y);
  if (s == KC_OK && (s = kc_event_new(ctx, &start)) == KC_OK)
    s = kc_event_new(ctx, &end);
  /* on the default stream: it waits for the streams' earlier work and they for it */
  if (s == KC_OK) s = kc_event_record(start, NULL);
  for (int64_t c = 0, off = 0; s == KC_OK && off < n; c++, off += chunk)
    s = queue_chunk(saxpy, &lanes[c % NSTREAMS], a, x, y, off,
                    n - off < chunk ? n - off : chunk, chunk);
  if (s == KC_OK) s = kc_event_record(end, NULL);
  if (s == KC_OK) s = kc_event_synchronize(end);
  if (s == KC_OK) s = kc_event_elapsed_ms(start, end, ms);
  kc_status sync = kc_synchronize(ctx);   /* before the buffers go, even on failure */
  if (s == KC_OK) s = sync;
  kc_event_free(start);
  kc_event_free(end);
  for (int i = 0; i < NSTREAMS; i++) {
    kc_array_free(lanes[i].x);
    kc_array_free(lanes[i].y);
    kc_stream_free(lanes[i].stream);
  }
  return s;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/saxpy_streams.k";
  int64_t n = argc > 2 ? atoll(argv[2]) : 50000000;
  int64_t chunks = argc > 3 ? atoll(argv[3]) : 16;
  if (n < 1 || chunks < 1 || chunks > n) {
    fprintf(stderr, "saxpy_streams: want elements >= 1 and 1 <= chunks <= elements\n");
    return 2;
  }
  const float a = 2.5f;

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("saxpy_streams: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  kc_kernel *saxpy = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) return fail(ctx, "compile", s);
  if ((s = kc_module_get_kernel(mod, "saxpy", &saxpy)) != KC_OK)
    return fail(ctx, "get kernel", s);

  size_t bytes = (size_t)n * sizeof(float);
  float *x = NULL, *y = malloc(bytes);
  if (!y) return fail(ctx, "malloc", KC_ERR_NOMEM);
  if ((s = kc_host_alloc(ctx, bytes, (void **)&x)) != KC_OK) return fail(ctx, "host alloc", s);
  if ((s = kc_host_register(ctx, y, bytes)) != KC_OK) return fail(ctx, "host register", s);
  for (int64_t i = 0; i < n; i++) x[i] = x_of(i), y[i] = y_of(i);

  float ms = 0;
  if ((s = run(ctx, saxpy, a, x, y, n, chunks, &ms)) != KC_OK) return fail(ctx, "saxpy", s);

  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (y[i] != reference(a, i)) bad++;
  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu";
  double gbs = ms > 0 ? 3.0 * (double)bytes / (ms * 1e6) : 0.0;
  if (bad)
    printf("saxpy_streams: FAIL on %s: %lld of %lld elements wrong\n", dev, (long long)bad,
           (long long)n);
  else
    printf("saxpy_streams: OK on %s: %lld elements in %lld chunks on %d streams, %.2f ms "
           "(copies and kernels, %.1f GB/s moved), match the C reference\n", dev,
           (long long)n, (long long)chunks, NSTREAMS, (double)ms, gbs);

  kc_host_unregister(ctx, y);
  kc_host_free(ctx, x);
  free(y);
  kc_module_free(mod);
  kc_context_free(ctx);
  return bad ? 1 : 0;
}
