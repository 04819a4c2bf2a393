/*
 * mandelbrot.c — runs samples/mandelbrot.k (complex numbers, a 2-D grid-stride loop)
 * on the device kc_context_new picks and checks every pixel's escape count against
 * the same iteration written with C99 complex numbers. Optionally writes the image as
 * a PGM file.
 *
 *   usage: mandelbrot [path/to/mandelbrot.k] [out.pgm]   (exit 0 when it matches)
 *
 * On the CPU back end the counts must match exactly (the same IEEE operations in the
 * same order). A GPU may fuse z*z + c into fused multiply-adds, which moves points on
 * the set's boundary by an iteration or so: there up to 0.1% of pixels may differ.
 */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

enum { WIDTH = 640, HEIGHT = 480, MAX_ITER = 200 };
static const double MIN_X = -2.2, MAX_X = 0.8, MIN_Y = -1.2, MAX_Y = 1.2;

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "mandelbrot: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

static int32_t escape_time(double complex c) {
  double complex z = 0;
  for (int32_t n = 0; n < MAX_ITER; n++) {
    z = z * z + c;
    if (creal(z) * creal(z) + cimag(z) * cimag(z) > 4.0) return n;
  }
  return MAX_ITER;
}

static void write_pgm(const char *path, const int32_t *image) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    return;
  }
  fprintf(f, "P5\n%d %d\n255\n", WIDTH, HEIGHT);
  for (int i = 0; i < WIDTH * HEIGHT; i++)
    fputc(image[i] >= MAX_ITER ? 0 : 255 - (image[i] * 255) / MAX_ITER, f);
  fclose(f);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/mandelbrot.k";
  int32_t *image = calloc(WIDTH * HEIGHT, sizeof *image);
  if (!image) return 1;
  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("mandelbrot: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  kc_kernel *k = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "mandelbrot", &k)) != KC_OK)
    return fail(ctx, "get kernel", s);
  int64_t shape[2] = {HEIGHT, WIDTH};
  kc_array *dimage = NULL;
  if ((s = kc_array_new(ctx, KC_INT32, 2, shape, &dimage)) != KC_OK) return fail(ctx, "array", s);

  /* a grid smaller than the image: the grid-stride loops cover the rest */
  kc_arg args[] = {kc_arg_f64(MIN_X), kc_arg_f64(MAX_X), kc_arg_f64(MIN_Y), kc_arg_f64(MAX_Y),
                   kc_arg_array(dimage), kc_arg_i32(MAX_ITER)};
  if ((s = kc_launch(k, kc_dim2(8, 16), kc_dim2(16, 16), 0, NULL, args, 6)) != KC_OK)
    return fail(ctx, "launch", s);
  if ((s = kc_synchronize(ctx)) != KC_OK) return fail(ctx, "synchronize", s);
  if ((s = kc_array_to_host(dimage, image, sizeof(int32_t) * WIDTH * HEIGHT)) != KC_OK)
    return fail(ctx, "copy to host", s);

  const double dx = (MAX_X - MIN_X) / WIDTH, dy = (MAX_Y - MIN_Y) / HEIGHT;
  long bad = 0, inside = 0;
  for (int row = 0; row < HEIGHT; row++)
    for (int col = 0; col < WIDTH; col++) {
      int32_t want = escape_time((MIN_X + col * dx) + I * (MIN_Y + row * dy));
      bad += image[row * WIDTH + col] != want;
      inside += want == MAX_ITER;
    }
  int cuda = kc_context_device(ctx) == KC_DEVICE_CUDA;
  long allowed = cuda ? WIDTH * HEIGHT / 1000 : 0;
  if (bad > allowed)
    printf("mandelbrot: FAIL on %s: %ld of %d pixels differ from the C reference\n",
           cuda ? "cuda" : "cpu", bad, WIDTH * HEIGHT);
  else
    printf("mandelbrot: OK on %s: %dx%d pixels (%ld in the set) match the C reference"
           " (%ld differ)\n", cuda ? "cuda" : "cpu", WIDTH, HEIGHT, inside, bad);
  if (argc > 2) write_pgm(argv[2], image);
  kc_array_free(dimage);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(image);
  return bad > allowed ? 1 : 0;
}
