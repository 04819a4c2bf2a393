/*
 * _kcc.h — what the files of the extension kcc._kcc share: the module state, the
 * Context and DeviceArray objects, and the helpers that raise libkc's errors. _kcc.c
 * defines them (and the module); streams.c adds Stream and Event, views.c the array
 * views and the interop (__cuda_array_interface__, DLPack). Internal: not installed.
 */
#ifndef KCC_PY_KCC_H
#define KCC_PY_KCC_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "kc.h"

/* ---- module state ------------------------------------------------------------------ */
typedef struct {
  PyObject *error;           /* KccError */
  PyObject *warning;         /* KccWarning */
  PyObject *warnings;        /* list: the texts of compile warnings not yet issued */
  PyTypeObject *context_type;
  PyTypeObject *module_type;
  PyTypeObject *kernel_type;
  PyTypeObject *array_type;
  PyTypeObject *stream_type; /* streams.c */
  PyTypeObject *event_type;  /* streams.c */
  PyTypeObject *record_type;     /* records.c */
  PyTypeObject *record_arg_type; /* records.c */
  PyObject *array_class;     /* the subclass arrays made here are of (set_array_class) */
  PyObject *context;         /* the Context, made lazily; NULL until then */
  int cuda_device;           /* the CUDA ordinal select_device asked for (default 0) */
} kcc_state;

/* The Context: owns the kc_context, freed after the last object that holds it. */
typedef struct {
  PyObject_HEAD
  kc_context *ctx;
} ContextObject;

/* A DeviceArray: a kc_array. A view (a slice, a reshape, an array over memory another
 * object owns) holds what it views in base, so that memory outlives it. */
typedef struct {
  PyObject_HEAD
  PyObject *context;   /* ContextObject: freed after the array */
  kc_array *array;
  PyObject *base;      /* NULL, or the object whose memory the array views */
} ArrayObject;

/* A Stream: a kc_stream, or the default stream (stream NULL). pending holds the host
 * buffers (memoryviews) of copies queued on it, released by its synchronize: an async
 * copy reads or writes them after the call that queued it has returned. */
typedef struct {
  PyObject_HEAD
  PyObject *context;
  kc_stream *stream;
  PyObject *pending;   /* list */
} StreamObject;

kcc_state *state_of_type(PyTypeObject *tp);
kcc_state *state_of_module(PyObject *module);
/* A heap type made from spec for the module, in *out; public: added to the module. */
int add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out, int public);
/* An array object of type tp over a (taken: freed on failure), holding context and, for
 * a view, base (NULL or what owns the memory). */
PyObject *new_array_object(PyTypeObject *tp, PyObject *context, kc_array *a,
                           PyObject *base);
/* Raise KccError for status s, with ctx's message (every diagnostic for a compilation);
 * returns NULL. */
PyObject *raise_status(kcc_state *st, kc_context *ctx, kc_status s);
/* The interpreter's Context, made at the first call; a borrowed reference, NULL (with
 * the error raised) when no context can be made. */
ContextObject *get_context(kcc_state *st);
/* A PEP 3118 format with its item size as a kc_dtype, or -1; a NumPy dtype name as a
 * kc_dtype, or -1. */
int dtype_from_format(const char *fmt, Py_ssize_t itemsize);
int dtype_from_name(const char *name);

/* streams.c: the Stream and Event types, made by kcc_exec. */
int kcc_streams_exec(PyObject *module, kcc_state *st);
/* The kc_stream that obj names for a launch or a copy: None or 0 is the default stream
 * (NULL), a Stream its own. -1 with TypeError for anything else. */
int stream_of(kcc_state *st, PyObject *obj, kc_stream **out);
/* records.c: a record type (kc_record), and one record passed by value. */
typedef struct {
  PyObject_HEAD
  PyObject *context;
  kc_record *record;
} RecordObject;

typedef struct {
  PyObject_HEAD
  PyObject *record;    /* RecordObject */
  PyObject *data;      /* bytes: the record's */
} RecordArgObject;

/* records.c: Record, RecordArg and the record-array functions, made by kcc_exec. */
int kcc_records_exec(PyObject *module, kcc_state *st);
/* 1 and *out set when obj is a RecordArg (kc_arg_record over its bytes), else 0. */
int record_arg_of(kcc_state *st, PyObject *obj, kc_arg *out);
/* views.c: the functions over arrays' layout, views and interop, added by kcc_exec. */
int kcc_views_exec(PyObject *module);

#endif /* KCC_PY_KCC_H */
