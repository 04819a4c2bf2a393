/* records.c — arrays of records against C structs of the same layout: the records are
 * described to kcc with offsetof from these structs (so the kernel's NumPy layout must
 * agree with C's: packed, and align=True), filled on the host, and every field the
 * kernels write is checked, with the fields they must not touch left as they were.
 * Expected values are computed here in C from the kernels' formulas (all exact). */
#include <stddef.h>

#include "harness.h"

#pragma pack(push, 1)
typedef struct packed { float x; int16_t n; int8_t f; double d; } packed;
#pragma pack(pop)
typedef struct particle { int8_t a; float v[3]; double b; } particle;
typedef struct outer { particle p; int32_t w; } outer;
typedef struct xy { float x; int32_t y; } xy;

static kc_record *record(const kc_record_field *f, int n, size_t size, int aligned) {
  kc_record *r;
  h_ok(kc_record_new(H.ctx, f, n, size, aligned, &r), "kc_record_new");
  return r;
}

static kc_record *packed_record(void) {
  kc_record_field f[] = {{"x", KC_FLOAT32, NULL, offsetof(packed, x), 0, {0}},
                         {"n", KC_INT16, NULL, offsetof(packed, n), 0, {0}},
                         {"f", KC_INT8, NULL, offsetof(packed, f), 0, {0}},
                         {"d", KC_FLOAT64, NULL, offsetof(packed, d), 0, {0}}};
  return record(f, 4, sizeof(packed), 0);
}

static kc_record *particle_record(void) {
  kc_record_field f[] = {{"a", KC_INT8, NULL, offsetof(particle, a), 0, {0}},
                         {"v", KC_FLOAT32, NULL, offsetof(particle, v), 1, {3}},
                         {"b", KC_FLOAT64, NULL, offsetof(particle, b), 0, {0}}};
  return record(f, 3, sizeof(particle), 1);
}

static void check_packed(void) {
  enum { N = 45 };
  packed a[N], want[N];
  double out[N], wout[N];
  for (int i = 0; i < N; i++) {
    a[i] = (packed){0.5f * i - 3, (int16_t)(7 - i), (int8_t)(i % 9 - 4), 0.25 * i};
    want[i] = a[i];
    wout[i] = (double)a[i].x + a[i].n * 10 + a[i].f * 100 + a[i].d;
    want[i].x = a[i].x * 2, want[i].d = a[i].d + 1.5, want[i].f = (int8_t)-a[i].f;
  }
  h_poison_f64(out, N);
  kc_record *rec = packed_record();
  if (strcmp(kc_record_spelling(rec), "Record(x[type=float32;offset=0],n[type=int16;"
             "offset=4],f[type=int8;offset=6],d[type=float64;offset=7];15;False)") != 0)
    h_die("packed record spelled %s", kc_record_spelling(rec));
  kc_array *da;
  int64_t n = N;
  h_ok(kc_array_from_host_records(H.ctx, rec, 1, &n, a, (size_t)n * sizeof *a, &da), "records from host");
  kc_array *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("packed_fields"), kc_dim(2), kc_dim(32), args, 2);
  h_fetch(da, a), h_fetch(dout, out);
  h_check_f64("a[i].x + a[i].n * 10 + a[i].f * 100 + a[i].d", wout, out, N, 0, 0);
  if (memcmp(a, want, sizeof a) != 0) h_die("packed records written wrongly");
  kc_array_free(da), kc_array_free(dout), kc_record_free(rec);
}

static void check_particles(void) {
  enum { N = 40 };
  particle p[N], want[N];
  float e[N], we[N];
  memset(p, 0, sizeof p);   /* padding too: the whole structs are compared */
  for (int i = 0; i < N; i++) {
    p[i].a = (int8_t)(i - 20), p[i].b = i * 3.0;
    for (int k = 0; k < 3; k++) p[i].v[k] = 0.5f * (float)(i + k);
    want[i] = p[i];
    we[i] = p[i].v[0] * p[i].v[0] + p[i].v[1] * p[i].v[1] + p[i].v[2] * p[i].v[2];
    for (int k = 0; k < 3; k++) want[i].v[k] = p[i].v[k] + p[i].a;
    want[i].b = p[i].b * 0.5;
  }
  h_poison_f32(e, N);
  kc_record *rec = particle_record();
  kc_array *dp;
  int64_t n = N;
  h_ok(kc_array_from_host_records(H.ctx, rec, 1, &n, p, (size_t)n * sizeof *p, &dp), "records from host");
  kc_array *de = h_array1(KC_FLOAT32, N, e);
  kc_arg args[] = {kc_arg_array(dp), kc_arg_array(de)};
  h_launch(h_kernel("particles"), kc_dim(2), kc_dim(32), args, 2);
  h_fetch(dp, p), h_fetch(de, e);
  h_check_f32("energy(ps[i]): a nested array through a device function", we, e, N, 0, 0);
  if (memcmp(p, want, sizeof p) != 0) h_die("p.v[k] =, p.b = wrote the wrong bytes");
  kc_array_free(dp), kc_array_free(de), kc_record_free(rec);
}

static void check_nested(void) {
  enum { N = 33 };
  outer src[N], dst[N], want[N];
  memset(src, 0, sizeof src);
  memset(dst, 0x5a, sizeof dst);
  for (int i = 0; i < N; i++) {
    src[i].p.a = (int8_t)(3 * i - 50), src[i].p.b = -1.5 * i, src[i].w = 1000 + i;
    for (int k = 0; k < 3; k++) src[i].p.v[k] = (float)(i * k);
    want[i] = src[i];
    want[i].w = src[i].p.a + src[i].w;
    want[i].p.v[1] = (float)src[i].p.b;
  }
  kc_record *prec = particle_record();
  kc_record_field f[] = {{"p", KC_RECORD, prec, offsetof(outer, p), 0, {0}},
                         {"w", KC_INT32, NULL, offsetof(outer, w), 0, {0}}};
  kc_record *rec = record(f, 2, sizeof(outer), 1);
  kc_record_free(prec);   /* the nested layout was copied */
  kc_array *ds, *dd;
  int64_t n = N;
  h_ok(kc_array_from_host_records(H.ctx, rec, 1, &n, src, (size_t)n * sizeof *src, &ds), "records from host");
  h_ok(kc_array_from_host_records(H.ctx, rec, 1, &n, dst, (size_t)n * sizeof *dst, &dd), "records from host");
  kc_arg args[] = {kc_arg_array(ds), kc_arg_array(dd)};
  h_launch(h_kernel("nested"), kc_dim(1), kc_dim(64), args, 2);
  h_fetch(dd, dst);
  if (memcmp(dst, want, sizeof dst) != 0) h_die("nested records copied or written wrongly");
  kc_array_free(ds), kc_array_free(dd), kc_record_free(rec);
}

/* by_spelling (a signature in Numba's Record spelling) and untyped_sum (specialised at
 * launch from the array's record) on the same array; a float32 array is refused. */
static void check_spelled(void) {
  enum { N = 50 };
  xy a[N];
  float out[N], wmul[N], wsum[N];
  for (int i = 0; i < N; i++) {
    a[i] = (xy){0.5f * i, 3 - i};
    wmul[i] = a[i].x * (float)a[i].y, wsum[i] = a[i].x + (float)a[i].y;
  }
  kc_record_field f[] = {{"y", KC_INT32, NULL, offsetof(xy, y), 0, {0}},
                         {"x", KC_FLOAT32, NULL, offsetof(xy, x), 0, {0}}};
  kc_record *rec = record(f, 2, sizeof(xy), 0);
  kc_array *da, *dout = h_array1(KC_FLOAT32, N, out);
  int64_t n = N;
  h_ok(kc_array_from_host_records(H.ctx, rec, 1, &n, a, (size_t)n * sizeof *a, &da), "records from host");
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("by_spelling"), kc_dim(1), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_f32("a[i].x * a[i].y (Record spelling)", wmul, out, N, 0, 0);
  h_launch(h_kernel("untyped_sum"), kc_dim(1), kc_dim(64), args, 2);
  h_launch(h_kernel("untyped_sum"), kc_dim(1), kc_dim(64), args, 2);   /* found again */
  h_fetch(dout, out);
  h_check_f32("a[i].x + a[i].y (untyped)", wsum, out, N, 0, 0);
  kc_arg wrong[] = {kc_arg_array(dout), kc_arg_array(dout)};
  if (kc_launch(h_kernel("by_spelling"), kc_dim(1), kc_dim(64), 0, NULL, wrong, 2) !=
          KC_ERR_LAUNCH ||
      !strstr(kc_last_error(H.ctx), "expected Record(x[type=float32;offset=0]"))
    h_die("a float32 array passed for records: %s", kc_last_error(H.ctx));
  kc_array_free(da), kc_array_free(dout), kc_record_free(rec);
}

/* a record scalar argument: the kernel reads it, and writes its own copy only */
static void check_scalar(void) {
  enum { N = 20 };
  particle p;
  memset(&p, 0, sizeof p);
  p.a = -3, p.v[0] = 1.5f, p.v[1] = -2.25f, p.v[2] = 4, p.b = 0.125;
  double out[N], want[N];
  for (int i = 0; i < N; i++) want[i] = p.b * i + p.v[i % 3] + p.a;
  h_poison_f64(out, N);
  kc_record *rec = particle_record();
  kc_array *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_record(rec, &p), kc_arg_array(dout)};
  h_launch(h_kernel("scalar_record"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f64("p.b * i + p.v[i % 3] + p.a (a record argument)", want, out, N, 0, 0);
  if (p.b != 0.125) h_die("the kernel wrote the caller's record");
  kc_array_free(dout), kc_record_free(rec);
}

int main(int argc, char **argv) {
  h_begin("records", argc, argv);
  check_packed();
  check_particles();
  check_nested();
  check_spelled();
  check_scalar();
  return h_end();
}
