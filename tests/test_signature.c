/*
 * test_signature.c — Numba signature strings (decorators, --sig, PTX headers) and the
 * type names they share with types.c: every accepted spelling, the error columns,
 * and type_name's Numba spelling of arrays and tuples.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "signature.h"
#include "types.h"

static char err[256];

START_TEST(kernel_signature) {
  sig_parsed s;
  ck_assert_int_eq(sig_parse("void(float32[:], float32[:, :], int32)", &s, err, sizeof err), 0);
  ck_assert_str_eq(s.name, "");
  ck_assert_int_eq(s.has_ret, 1);
  ck_assert_int_eq(s.ret.is_void, 1);
  ck_assert_int_eq(s.nparams, 3);
  ck_assert_int_eq(s.params[0].dtype, KC_FLOAT32);
  ck_assert_int_eq(s.params[0].ndim, 1);
  ck_assert_int_eq(s.params[1].ndim, 2);
  ck_assert_int_eq(s.params[2].dtype, KC_INT32);
  ck_assert_int_eq(s.params[2].ndim, 0);
}
END_TEST

START_TEST(named_signature) {
  sig_parsed s;
  ck_assert_int_eq(sig_parse(" add ( float64[::1] ,uint8 ) ", &s, err, sizeof err), 0);
  ck_assert_str_eq(s.name, "add");
  ck_assert_int_eq(s.has_ret, 0);
  ck_assert_int_eq(s.nparams, 2);
  ck_assert_int_eq(s.params[0].dtype, KC_FLOAT64);
  ck_assert_int_eq(s.params[0].ndim, 1);
  ck_assert_int_eq(s.params[1].dtype, KC_UINT8);
}
END_TEST

START_TEST(scalar_return_and_no_params) {
  sig_parsed s;
  ck_assert_int_eq(sig_parse("float32(float32, float32)", &s, err, sizeof err), 0);
  ck_assert_int_eq(s.has_ret, 1);
  ck_assert_int_eq(s.ret.is_void, 0);
  ck_assert_int_eq(s.ret.dtype, KC_FLOAT32);
  ck_assert_int_eq(s.nparams, 2);
  ck_assert_int_eq(sig_parse("k()", &s, err, sizeof err), 0);
  ck_assert_int_eq(s.nparams, 0);
  ck_assert_str_eq(s.name, "k");
  ck_assert_int_eq(sig_parse("(int64, f4[:,:,:])", &s, err, sizeof err), 0);
  ck_assert_int_eq(s.nparams, 2);
  ck_assert_int_eq(s.params[1].ndim, 3);
}
END_TEST

START_TEST(layouts) {
  sig_type t;
  size_t pos = 0;
  ck_assert_int_eq(sig_parse_type("float32[:,:]", &pos, &t, err, sizeof err), 0);
  ck_assert_int_eq(t.ndim, 2);
  ck_assert_int_eq(pos, 12);
  pos = 0;
  ck_assert_int_eq(sig_parse_type("float32[:, ::1]", &pos, &t, err, sizeof err), 0);
  ck_assert_int_eq(t.ndim, 2);
  pos = 0;
  ck_assert_int_eq(sig_parse_type("numba.int16[: , : , ::1]", &pos, &t, err, sizeof err), 0);
  ck_assert_int_eq(t.ndim, 3);
  ck_assert_int_eq(t.dtype, KC_INT16);
  pos = 0;
  ck_assert_int_eq(sig_parse_type("float32[::1, :]", &pos, &t, err, sizeof err), 0);
  ck_assert_int_eq(t.strided, 1);   /* Fortran order: read through strides, as 'A' */
  pos = 0;
  ck_assert_int_eq(sig_parse_type("float32[:, ::1, :]", &pos, &t, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 12: '::1' is allowed on the last dimension (C order) "
                        "or the first (Fortran order) only");
}
END_TEST

START_TEST(errors_name_the_column) {
  sig_parsed s;
  ck_assert_int_eq(sig_parse("void(flaot32[:])", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 6: unknown type 'flaot32'");
  ck_assert_int_eq(sig_parse("void(float32[:] int32)", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 17: expected ',' or ')', found 'int32'");
  ck_assert_int_eq(sig_parse("void(float32[:]", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 16: expected ',' or ')', found end of text");
  ck_assert_int_eq(sig_parse("void(float32[:, :, :, :, :, :, :, :])", &s, err, sizeof err), 0);
  ck_assert_int_eq(s.params[0].ndim, 8);
  char buf[64];
  sig_format_type(s.params[0], buf, sizeof buf);
  ck_assert_str_eq(buf, "float32[:, :, :, :, :, :, :, :]");
  ck_assert_int_eq(sig_parse("void(float32[:, :, :, :, :, :, :, :, :])", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 38: arrays have at most 8 dimensions");
  ck_assert_int_eq(sig_parse("void(float32[1])", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 14: expected ':', found '1'");
  ck_assert_int_eq(sig_parse("float32", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 8: expected '(', found end of text");
  ck_assert_int_eq(sig_parse("void(int32) x", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 13: unexpected 'x' after the signature");
  ck_assert_int_eq(sig_parse("void(void)", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 6: 'void' is not a parameter type");
  ck_assert_int_eq(sig_parse("void(float32[:, ::2])", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 19: expected '1' in '::1' (C-contiguous layout)");
  ck_assert_int_eq(sig_parse("", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 1: expected '(', found end of text");
  ck_assert_int_eq(sig_parse("void(,)", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 6: expected a type name, found ','");
  /* a tiny buffer is truncated, never overrun */
  char small[8];
  ck_assert_int_eq(sig_parse("void(bad)", &s, small, sizeof small), -1);
  ck_assert_uint_eq(strlen(small), 7);
}
END_TEST

/* Tuples of scalars in Numba's spellings, and back to types.c's. */
START_TEST(tuples) {
  sig_parsed s;
  char buf[200];
  ck_assert_int_eq(sig_parse("k(UniTuple(float32, 3), Tuple((int32, float64)), "
                             "types.Tuple(int8,), float32[:])", &s, err, sizeof err), 0);
  ck_assert_int_eq(s.nparams, 4);
  ck_assert_int_eq(s.params[0].nelems, 3);
  ck_assert_int_eq(s.params[0].elems[2], KC_FLOAT32);
  ck_assert_int_eq(s.params[0].ndim, 0);
  ck_assert_int_eq(s.params[1].nelems, 2);
  ck_assert_int_eq(s.params[1].elems[0], KC_INT32);
  ck_assert_int_eq(s.params[1].elems[1], KC_FLOAT64);
  ck_assert_int_eq(s.params[2].nelems, 1);
  ck_assert_int_eq(s.params[3].nelems, 0);
  sig_format_type(s.params[0], buf, sizeof buf);
  ck_assert_str_eq(buf, "UniTuple(float32, 3)");
  sig_format_type(s.params[1], buf, sizeof buf);
  ck_assert_str_eq(buf, "Tuple(int32, float64)");
  ck_assert_int_eq(sig_parse("k(Tuple(int32, float64))", &s, err, sizeof err), 0);
  ck_assert_int_eq(s.params[0].elems[1], KC_FLOAT64);
  /* Numba's printed spelling, as its messages show it */
  ck_assert_int_eq(sig_parse("k(UniTuple(int64 x 3), UniTuple(float32 x2))", &s, err,
                             sizeof err), 0);
  ck_assert_int_eq(s.params[0].nelems, 3);
  ck_assert_int_eq(s.params[0].elems[2], KC_INT64);
  ck_assert_int_eq(s.params[1].nelems, 2);
  ck_assert_int_eq(sig_parse("k(UniTuple(int64 y 3))", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 18: expected ',' or 'x', found 'y'");
  ck_assert_int_eq(sig_parse("k(UniTuple(float32, 17))", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 21: a UniTuple's count is 1 to 16");
  ck_assert_int_eq(sig_parse("k(UniTuple(float32, 0))", &s, err, sizeof err), -1);
  ck_assert_int_eq(sig_parse("k(Tuple(float32[:]))", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 9: a tuple parameter holds scalars (numbers and bools)");
  ck_assert_int_eq(sig_parse("k(Tuple(UniTuple(int32, 2)))", &s, err, sizeof err), -1);
  ck_assert_int_eq(sig_parse("k(Tuple)", &s, err, sizeof err), -1);
  ck_assert_str_eq(err, "column 8: expected '(' after 'Tuple'");
  ck_assert_int_eq(sig_parse("k(Tuple((int32, float64))", &s, err, sizeof err), -1);
}
END_TEST

START_TEST(too_many_params) {
  char text[2048] = "k(";
  for (int i = 0; i < SIG_MAX_PARAMS + 1; i++)
    strcat(text, i ? ", int32" : "int32");
  strcat(text, ")");
  sig_parsed s;
  ck_assert_int_eq(sig_parse(text, &s, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "more than 64 parameters"));
}
END_TEST

START_TEST(all_names) {
  static const struct { const char *name; kc_dtype d; } cases[] = {
    {"bool", KC_BOOL}, {"boolean", KC_BOOL}, {"bool_", KC_BOOL}, {"b1", KC_BOOL},
    {"int8", KC_INT8}, {"int16", KC_INT16}, {"int32", KC_INT32}, {"int64", KC_INT64},
    {"uint8", KC_UINT8}, {"uint16", KC_UINT16}, {"uint32", KC_UINT32},
    {"uint64", KC_UINT64}, {"float32", KC_FLOAT32}, {"float64", KC_FLOAT64},
    {"float_", KC_FLOAT64}, {"double", KC_FLOAT64}, {"int_", KC_INT64},
    {"intp", KC_INT64}, {"uintp", KC_UINT64},
    {"i1", KC_INT8}, {"i2", KC_INT16}, {"i4", KC_INT32}, {"i8", KC_INT64},
    {"u1", KC_UINT8}, {"u2", KC_UINT16}, {"u4", KC_UINT32}, {"u8", KC_UINT64},
    {"f4", KC_FLOAT32}, {"f8", KC_FLOAT64},
    {"i16", KC_INT16}, {"i32", KC_INT32}, {"i64", KC_INT64},
    {"u16", KC_UINT16}, {"u32", KC_UINT32}, {"u64", KC_UINT64},
    {"f32", KC_FLOAT32}, {"f64", KC_FLOAT64},
    {"complex64", KC_COMPLEX64}, {"complex128", KC_COMPLEX128}, {"c8", KC_COMPLEX64},
    {"c16", KC_COMPLEX128}, {"complex_", KC_COMPLEX128},
    {"float16", KC_FLOAT16}, {"f2", KC_FLOAT16}, {"f16", KC_FLOAT16}, {"half", KC_FLOAT16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_msg(sig_dtype_from_name(cases[i].name, strlen(cases[i].name)) == (int)cases[i].d,
                  "%s", cases[i].name);
    const type *t = type_from_name(cases[i].name);
    ck_assert_msg(t == type_from_dtype(cases[i].d), "%s", cases[i].name);
  }
  ck_assert_int_eq(sig_dtype_from_name("float", 5), -1);
  ck_assert_int_eq(sig_dtype_from_name("int32x", 6), -1);
  ck_assert_int_eq(sig_dtype_from_name("int32x", 5), KC_INT32);
  ck_assert_ptr_null(type_from_name("complex"));
  ck_assert_ptr_null(type_from_name(""));
}
END_TEST

START_TEST(format_type) {
  char buf[64];
  sig_type t = {.dtype = KC_FLOAT32, .ndim = 2};
  sig_format_type(t, buf, sizeof buf);
  ck_assert_str_eq(buf, "float32[:, :]");
  t.dtype = KC_UINT16;
  t.ndim = 0;
  sig_format_type(t, buf, sizeof buf);
  ck_assert_str_eq(buf, "uint16");
  t.is_void = 1;
  sig_format_type(t, buf, sizeof buf);
  ck_assert_str_eq(buf, "void");
  ck_assert_str_eq(sig_dtype_name(KC_BOOL), "bool");
  ck_assert_str_eq(sig_dtype_name(KC_DTYPE_COUNT), "?");
}
END_TEST

START_TEST(type_names_and_equality) {
  arena a;
  jmp_buf jb;
  arena_init(&a, NULL, NULL);
  arena_set_oom(&a, &jb);
  const type *a1 = type_array(&a, &ty_f32, 1), *a2 = type_array(&a, &ty_f32, 2);
  const type *a3 = type_array(&a, &ty_i64, 3);
  ck_assert_str_eq(type_name(&a, a1), "float32[:]");
  ck_assert_str_eq(type_name(&a, a2), "float32[:, :]");
  ck_assert_str_eq(type_name(&a, a3), "int64[:, :, :]");
  ck_assert(type_equal(a1, type_array(&a, &ty_f32, 1)));
  ck_assert(!type_equal(a1, a2));
  ck_assert(!type_equal(a1, type_array(&a, &ty_f64, 1)));
  const type *uni[] = {&ty_f32, &ty_f32}, *mixed[] = {&ty_i32, &ty_f64};
  ck_assert_str_eq(type_name(&a, type_tuple(&a, uni, 2)), "UniTuple(float32, 2)");
  ck_assert_str_eq(type_name(&a, type_tuple(&a, mixed, 2)), "Tuple(int32, float64)");
  ck_assert_str_eq(type_name(&a, type_tuple(&a, NULL, 0)), "Tuple()");
  ck_assert(type_equal(type_tuple(&a, uni, 2), type_tuple(&a, uni, 2)));
  ck_assert(!type_equal(type_tuple(&a, uni, 2), type_tuple(&a, mixed, 2)));
  ck_assert(!type_equal(type_tuple(&a, uni, 2), type_tuple(&a, uni, 1)));
  ck_assert_str_eq(type_name(&a, &ty_bool), "bool");
  ck_assert_str_eq(type_name(&a, &ty_u8), "uint8");
  ck_assert_str_eq(type_name(&a, &ty_void), "void");
  ck_assert(!type_equal(&ty_i32, &ty_u32));
  ck_assert(!type_equal(&ty_i32, &ty_f32));
  for (int d = 0; d < KC_DTYPE_COUNT; d++) {
    ck_assert_int_eq(type_to_dtype(type_from_dtype((kc_dtype)d)), d);
    ck_assert(type_is_scalar(type_from_dtype((kc_dtype)d)));
  }
  ck_assert_int_eq(type_to_dtype(a1), KC_DTYPE_COUNT);
  ck_assert_ptr_null(type_from_dtype(KC_DTYPE_COUNT));
  arena_free(&a);
}
END_TEST

static Suite *signature_suite(void) {
  Suite *s = suite_create("signature");
  TCase *t = tcase_create("sig");
  tcase_add_test(t, kernel_signature);
  tcase_add_test(t, named_signature);
  tcase_add_test(t, scalar_return_and_no_params);
  tcase_add_test(t, layouts);
  tcase_add_test(t, errors_name_the_column);
  tcase_add_test(t, tuples);
  tcase_add_test(t, too_many_params);
  tcase_add_test(t, all_names);
  tcase_add_test(t, format_type);
  tcase_add_test(t, type_names_and_equality);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(signature_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
