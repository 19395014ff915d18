/*
 * _collio.c -- the C half of the Python bindings (package collio). Thin:
 * every function maps onto one collio call; the Python layer
 * (collio/__init__.py) holds the classes, names and documentation.
 *
 * Handles are PyCapsules holding a pointer to a heap cell that holds the
 * collio object pointer, so that an explicit free/close sets the cell to
 * NULL and later uses see a closed object. The capsule destructor of a
 * layout or of a set of hints frees it (local); plans and files are freed
 * by their collective calls only, which the Python layer makes (never
 * from a capsule destructor, which may run at different times on
 * different ranks).
 *
 * Arguments: the Python layer checks every argument (types, names, integer
 * ranges, closed handles, the array's order) and agrees on the verdict
 * across the ranks before it calls a collective function here, so that
 * one rank's bad argument raises on every rank. Plan options become one
 * set of hints (hints_*: local calls, made before that agreement), so the
 * library's catalogue checks every key and value. The checks here
 * (integer ranges of the C types, the buffer below) are a second line:
 * they raise before any communication, or turn into collio's own
 * agreement.
 *
 * Buffers: the buffer protocol on the user's object itself (any contiguous
 * array), never a copy; PyBUF_WRITABLE for reads. Whatever this rank finds
 * wrong with its buffer (not contiguous, not in the layout's order,
 * read-only, wrong item size) is turned into a collio call with a
 * mismatching size, so that collio's own agreement reports
 * COLLIO_ERR_BUFSIZE on every rank instead of one rank raising while the
 * others wait in the collective call.
 *
 * MPI: the extension is compiled and linked against one MPI library; the
 * MPI_Comm handles come from mpi4py (PyMPIComm_Get). The module refuses to
 * load (ImportError) when mpi4py runs on another MPI library (or ABI):
 * its C API does not match, or its MPI_COMM_WORLD is not this library's,
 * and its handles would mean nothing here (import_mpi4py_checked).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <mpi.h>
/* mpi4py >= 4: its limited C API (mpi4py/pycapi.h) imports just the
 * functions used here (PyMPIComm_Get, PyMPIInfo_Get, PyMPIDatatype_Get and
 * their types) by name, without checking object sizes, so an extension
 * compiled with the newest mpi4py (pip's isolated build environment) also
 * runs with an older one (Debian's 3.x). Older headers ignore these macros
 * and import mpi4py's whole C API of their own version. */
#define MPI4PY_LIMITED_API 1
#define MPI4PY_LIMITED_API_SKIP_STATUS 1
#define MPI4PY_LIMITED_API_SKIP_REQUEST 1
#define MPI4PY_LIMITED_API_SKIP_MESSAGE 1
#define MPI4PY_LIMITED_API_SKIP_OP 1
#define MPI4PY_LIMITED_API_SKIP_GROUP 1
#define MPI4PY_LIMITED_API_SKIP_ERRHANDLER 1
#define MPI4PY_LIMITED_API_SKIP_SESSION 1
#define MPI4PY_LIMITED_API_SKIP_WIN 1
#define MPI4PY_LIMITED_API_SKIP_FILE 1
#include <mpi4py/mpi4py.h>
#include <collio.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static PyObject *error_class; /* collio.Error, set by the Python layer */

#define CAP_LAYOUT "collio.layout"
#define CAP_PLAN "collio.plan"
#define CAP_FILE "collio.file"
#define CAP_HINTS "collio.hints"

/* Raise collio.Error(code, text, detail) (detail: collio_last_error, with
 * `local` appended when this rank has more to say). */
static PyObject *raise_collio(int code, const char *local)
{
    char detail[2048];
    snprintf(detail, sizeof detail, "%s%s%s", collio_last_error(),
             local != NULL && local[0] != '\0' ? "; this rank: " : "",
             local != NULL ? local : "");
    if (error_class == NULL) {
        PyErr_Format(PyExc_RuntimeError, "collio error %d: %s (%s)", code,
                     collio_strerror(code), detail);
        return NULL;
    }
    PyObject *exc =
        PyObject_CallFunction(error_class, "iss", code, collio_strerror(code), detail);
    if (exc != NULL) {
        PyErr_SetObject(error_class, exc);
        Py_DECREF(exc);
    }
    return NULL;
}

static PyObject *set_error_class(PyObject *self, PyObject *cls)
{
    (void)self;
    Py_XINCREF(cls);
    Py_XSETREF(error_class, cls);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ handles */

static void layout_capsule_free(PyObject *cap)
{
    collio_layout **cell = PyCapsule_GetPointer(cap, CAP_LAYOUT);
    if (cell != NULL) {
        collio_layout_free(cell); /* local */
        PyMem_Free(cell);
    }
}

static void cell_capsule_free(PyObject *cap)
{
    /* plans and files: the cell only; an object still open here is left
     * (leaked) -- its free is collective, the Python layer's business. */
    void *cell = PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
    PyMem_Free(cell);
}

static PyObject *new_handle(void *ptr, const char *name, PyCapsule_Destructor d)
{
    void **cell = PyMem_Malloc(sizeof *cell);
    if (cell == NULL)
        return PyErr_NoMemory();
    *cell = ptr;
    PyObject *cap = PyCapsule_New(cell, name, d);
    if (cap == NULL)
        PyMem_Free(cell);
    return cap;
}

/* The cell of a handle; *cell may be NULL (closed). */
static void **get_cell(PyObject *cap, const char *name)
{
    return PyCapsule_GetPointer(cap, name);
}

static void *get_open(PyObject *cap, const char *name, const char *what)
{
    void **cell = get_cell(cap, name);
    if (cell == NULL)
        return NULL;
    if (*cell == NULL) {
        PyErr_Format(PyExc_ValueError, "the %s is closed (freed)", what);
        return NULL;
    }
    return *cell;
}

static int get_comm(PyObject *obj, MPI_Comm *comm)
{
    MPI_Comm *c = PyMPIComm_Get(obj);
    if (c == NULL)
        return -1;
    *comm = *c;
    return 0;
}

/* A contiguous int64 buffer (index lists): count elements. */
static int get_i64(PyObject *obj, Py_buffer *view, int64_t *count)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != 8) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "index arrays must hold 8-byte integers");
        return -1;
    }
    *count = (int64_t)(view->len / 8);
    return 0;
}

/* ------------------------------------------------------------ layouts */

static PyObject *layout_done(int rc, collio_layout *l)
{
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    PyObject *cap = new_handle(l, CAP_LAYOUT, layout_capsule_free);
    if (cap == NULL)
        collio_layout_free(&l);
    return cap;
}

static PyObject *py_layout_block_cyclic(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pcomm;
    long long nx, bx;
    Py_ssize_t esize;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OLLn", &pcomm, &nx, &bx, &esize)
        || get_comm(pcomm, &comm) < 0)
        return NULL;
    collio_layout *l = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_layout_block_cyclic(comm, nx, bx, esize < 0 ? 0 : (size_t)esize, &l);
    Py_END_ALLOW_THREADS;
    return layout_done(rc, l);
}

/* A sequence of at most COLLIO_MAX_DIMS integers. */
static int seq_i64(PyObject *seq, int64_t out[], int *n)
{
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of integers");
    if (fast == NULL)
        return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > COLLIO_MAX_DIMS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "at most %d dimensions", COLLIO_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    *n = (int)len;
    Py_DECREF(fast);
    return 0;
}

static PyObject *py_layout_darray(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pcomm, *pg, *pd, *pa, *pp;
    int order;
    Py_ssize_t esize;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OOOOOin", &pcomm, &pg, &pd, &pa, &pp, &order, &esize)
        || get_comm(pcomm, &comm) < 0)
        return NULL;
    int64_t g[COLLIO_MAX_DIMS], d[COLLIO_MAX_DIMS], a[COLLIO_MAX_DIMS],
        p[COLLIO_MAX_DIMS];
    int ng, nd, na, np;
    if (seq_i64(pg, g, &ng) < 0 || seq_i64(pd, d, &nd) < 0 || seq_i64(pa, a, &na) < 0
        || seq_i64(pp, p, &np) < 0)
        return NULL;
    if (nd != ng || na != ng || np != ng) {
        PyErr_SetString(PyExc_ValueError,
                        "gsizes, distribs, dargs and psizes must have one entry per "
                        "dimension");
        return NULL;
    }
    collio_distrib dist[COLLIO_MAX_DIMS];
    int psz[COLLIO_MAX_DIMS];
    for (int i = 0; i < ng; i++) {
        if (d[i] < INT_MIN || d[i] > INT_MAX || p[i] < INT_MIN || p[i] > INT_MAX) {
            PyErr_SetString(PyExc_OverflowError,
                            "distribs and psizes must fit in a C int");
            return NULL;
        }
        dist[i] = (collio_distrib)d[i];
        psz[i] = (int)p[i];
    }
    collio_layout *l = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_layout_darray(comm, ng, g, dist, a, psz, (collio_order)order,
                              esize < 0 ? 0 : (size_t)esize, &l);
    Py_END_ALLOW_THREADS;
    return layout_done(rc, l);
}

static PyObject *py_layout_index_list(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pcomm, *pidx, *powned = Py_None;
    long long nglobal;
    Py_ssize_t esize;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OLOn|O", &pcomm, &nglobal, &pidx, &esize, &powned)
        || get_comm(pcomm, &comm) < 0)
        return NULL;
    Py_buffer iv, ov;
    int64_t n;
    if (get_i64(pidx, &iv, &n) < 0)
        return NULL;
    int replicated = powned != Py_None;
    if (replicated) {
        if (PyObject_GetBuffer(powned, &ov, PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&iv);
            return NULL;
        }
        if (ov.itemsize != 1 || ov.len != (Py_ssize_t)n) {
            PyBuffer_Release(&iv);
            PyBuffer_Release(&ov);
            PyErr_SetString(PyExc_ValueError,
                            "owned must hold one byte (0 or 1) per index");
            return NULL;
        }
    }
    collio_layout *l = NULL;
    int rc;
    size_t es = esize < 0 ? 0 : (size_t)esize;
    Py_BEGIN_ALLOW_THREADS;
    if (replicated)
        rc =
            collio_layout_index_list_replicated(comm, nglobal, n, iv.buf, ov.buf, es, &l);
    else
        rc = collio_layout_index_list(comm, nglobal, n, iv.buf, es, &l);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&iv);
    if (replicated)
        PyBuffer_Release(&ov);
    return layout_done(rc, l);
}

/* layout_extents(comm, offsets, lengths, esize): both int64 buffers of
 * one length (checked by the Python layer). */
static PyObject *py_layout_extents(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pcomm, *poff, *plen;
    Py_ssize_t esize;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OOOn", &pcomm, &poff, &plen, &esize)
        || get_comm(pcomm, &comm) < 0)
        return NULL;
    Py_buffer ov, lv;
    int64_t n, nl;
    if (get_i64(poff, &ov, &n) < 0)
        return NULL;
    if (get_i64(plen, &lv, &nl) < 0) {
        PyBuffer_Release(&ov);
        return NULL;
    }
    if (nl != n) {
        PyBuffer_Release(&ov);
        PyBuffer_Release(&lv);
        PyErr_SetString(PyExc_ValueError, "offsets and lengths differ in length");
        return NULL;
    }
    collio_layout *l = NULL;
    int rc;
    size_t es = esize < 0 ? 0 : (size_t)esize;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_layout_extents(comm, n, ov.buf, lv.buf, es, &l);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&ov);
    PyBuffer_Release(&lv);
    return layout_done(rc, l);
}

static PyObject *py_layout_set_memory_global(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_layout *l = get_open(cap, CAP_LAYOUT, "layout");
    if (l == NULL)
        return NULL;
    int rc = collio_layout_set_memory_global(l);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_layout_set_memory_datatype(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *ptype;
    int count;
    if (!PyArg_ParseTuple(args, "OOi", &cap, &ptype, &count))
        return NULL;
    collio_layout *l = get_open(cap, CAP_LAYOUT, "layout");
    if (l == NULL)
        return NULL;
    MPI_Datatype *t = PyMPIDatatype_Get(ptype);
    if (t == NULL)
        return NULL;
    int rc = collio_layout_set_memory_datatype(l, *t, count);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_layout_info(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_layout *l = get_open(cap, CAP_LAYOUT, "layout");
    if (l == NULL)
        return NULL;
    return Py_BuildValue("LLnn", (long long)collio_layout_local_count(l),
                         (long long)collio_layout_global_count(l),
                         (Py_ssize_t)collio_layout_esize(l),
                         (Py_ssize_t)collio_layout_buffer_bytes(l));
}

/* All global indices of this rank's elements, in layout order, into an
 * int64 buffer of local_count entries. */
static PyObject *py_layout_global_indices(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *pout;
    if (!PyArg_ParseTuple(args, "OO", &cap, &pout))
        return NULL;
    collio_layout *l = get_open(cap, CAP_LAYOUT, "layout");
    if (l == NULL)
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(pout, &v, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    int64_t n = collio_layout_local_count(l);
    if (v.itemsize != 8 || v.len != (Py_ssize_t)(n * 8)) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "out must hold local_count int64 values");
        return NULL;
    }
    int64_t *o = v.buf;
    for (int64_t i = 0; i < n; i++)
        o[i] = collio_layout_global_index(l, i);
    PyBuffer_Release(&v);
    Py_RETURN_NONE;
}

static PyObject *py_layout_free(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_layout **cell = (collio_layout **)get_cell(cap, CAP_LAYOUT);
    if (cell == NULL)
        return NULL;
    collio_layout_free(cell);
    Py_RETURN_NONE;
}

/* -------------------------------------------------------------- files */

static PyObject *py_file_open(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pcomm, *pinfo;
    const char *path; /* bytes: os.fsencode(path) */
    int mode, backend, sync;
    long long base;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OyiiLiO", &pcomm, &path, &mode, &backend, &base, &sync,
                          &pinfo)
        || get_comm(pcomm, &comm) < 0)
        return NULL;
    collio_file_options o;
    collio_file_options_init(&o);
    o.backend = (collio_backend)backend;
    o.base_offset = base;
    o.sync = sync;
    if (pinfo != Py_None) {
        MPI_Info *info = PyMPIInfo_Get(pinfo);
        if (info == NULL)
            return NULL;
        o.info = *info;
    }
    collio_file *f = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_file_open(comm, path, (collio_file_mode)mode, &o, &f);
    Py_END_ALLOW_THREADS;
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    PyObject *cap = new_handle(f, CAP_FILE, cell_capsule_free);
    if (cap == NULL)
        collio_file_abort(&f); /* collective: every rank's malloc failed? best effort */
    return cap;
}

static PyObject *file_end(PyObject *cap, int abort)
{
    collio_file **cell = (collio_file **)get_cell(cap, CAP_FILE);
    if (cell == NULL)
        return NULL;
    if (*cell == NULL)
        Py_RETURN_NONE; /* closed already: a no-op, on every rank */
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = abort ? collio_file_abort(cell) : collio_file_close(cell);
    Py_END_ALLOW_THREADS;
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_file_close(PyObject *self, PyObject *cap)
{
    (void)self;
    return file_end(cap, 0);
}

static PyObject *py_file_abort(PyObject *self, PyObject *cap)
{
    (void)self;
    return file_end(cap, 1);
}

static PyObject *py_file_path(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_file *f = get_open(cap, CAP_FILE, "file");
    if (f == NULL)
        return NULL;
    return PyUnicode_DecodeFSDefault(collio_file_path(f));
}

/* -------------------------------------------------------------- hints */

/* A set of hints (collio_hints, local): the capsule's destructor frees it
 * (local, always safe). */
static void hints_capsule_free(PyObject *cap)
{
    collio_hints **cell = PyCapsule_GetPointer(cap, CAP_HINTS);
    if (cell != NULL) {
        collio_hints_free(cell);
        PyMem_Free(cell);
    }
}

static PyObject *py_hints_create(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    collio_hints *h = NULL;
    int rc = collio_hints_create(&h);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    PyObject *cap = new_handle(h, CAP_HINTS, hints_capsule_free);
    if (cap == NULL)
        collio_hints_free(&h);
    return cap;
}

/* A str as UTF-8 without NUL characters (ValueError for one). */
static const char *text_of(PyObject *s, const char *what)
{
    Py_ssize_t n;
    const char *t = PyUnicode_AsUTF8AndSize(s, &n);
    if (t != NULL && strlen(t) != (size_t)n) {
        PyErr_Format(PyExc_ValueError, "%s contains a NUL character", what);
        return NULL;
    }
    return t;
}

/* hints_set(hints, key, value): a str value through collio_hints_set, an
 * integer through collio_hints_set_int (outside int64_t: OverflowError,
 * never truncated). Errors: collio.Error with the library's code and
 * text (an unknown key, a value the key does not take). */
static PyObject *py_hints_set(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *pkey, *val;
    if (!PyArg_ParseTuple(args, "OUO", &cap, &pkey, &val))
        return NULL;
    collio_hints *h = get_open(cap, CAP_HINTS, "hints");
    const char *key = h != NULL ? text_of(pkey, "a hint's key") : NULL;
    if (key == NULL)
        return NULL;
    int rc;
    if (PyUnicode_Check(val)) {
        const char *text = text_of(val, "a hint's value");
        if (text == NULL)
            return NULL;
        rc = collio_hints_set(h, key, text);
    } else {
        PyObject *i = PyNumber_Index(val);
        if (i == NULL)
            return NULL;
        long long v = PyLong_AsLongLong(i);
        Py_DECREF(i);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        rc = collio_hints_set_int(h, key, (int64_t)v);
    }
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_hints_parse(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *plist;
    if (!PyArg_ParseTuple(args, "OU", &cap, &plist))
        return NULL;
    collio_hints *h = get_open(cap, CAP_HINTS, "hints");
    const char *list = h != NULL ? text_of(plist, "hints") : NULL;
    if (list == NULL)
        return NULL;
    int rc = collio_hints_parse(h, list);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_hints_set_info(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *pinfo;
    if (!PyArg_ParseTuple(args, "OO", &cap, &pinfo))
        return NULL;
    collio_hints *h = get_open(cap, CAP_HINTS, "hints");
    if (h == NULL)
        return NULL;
    MPI_Info *info = PyMPIInfo_Get(pinfo);
    if (info == NULL)
        return NULL;
    int rc = collio_hints_set_info(h, *info);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

/* Every (key, value) of a set, in the order the keys were first set. */
static PyObject *hints_items(const collio_hints *h)
{
    int n = collio_hints_count(h);
    PyObject *l = PyList_New(0);
    for (int i = 0; l != NULL && i < n; i++) {
        const char *key = collio_hints_key(h, i);
        char value[1024];
        int flag = 0;
        int rc = collio_hints_get(h, key, value, sizeof value, &flag);
        if (rc != COLLIO_OK) {
            Py_DECREF(l);
            return raise_collio(rc, NULL);
        }
        PyObject *t = Py_BuildValue("(ss)", key, flag ? value : "");
        if (t == NULL || PyList_Append(l, t) < 0)
            Py_CLEAR(l);
        Py_XDECREF(t);
    }
    return l;
}

static PyObject *py_hints_items(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_hints *h = get_open(cap, CAP_HINTS, "hints");
    return h != NULL ? hints_items(h) : NULL;
}

/* ---------------------------------------------------------- catalogue */

/* The option catalogue: [(key, type, default, range, doc)], in
 * collio_option_describe's order. */
static PyObject *py_option_catalogue(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    int n = collio_option_count();
    PyObject *l = PyList_New(0);
    for (int i = 0; l != NULL && i < n; i++) {
        collio_option_info o;
        int rc = collio_option_describe(i, &o);
        if (rc != COLLIO_OK) {
            Py_DECREF(l);
            return raise_collio(rc, NULL);
        }
        PyObject *t = Py_BuildValue("(sssss)", o.key, o.type, o.deflt, o.range,
                                    o.doc != NULL ? o.doc : "");
        if (t == NULL || PyList_Append(l, t) < 0)
            Py_CLEAR(l);
        Py_XDECREF(t);
    }
    return l;
}

/* The statistics catalogue: [(key, per_call, doc, count, length or None)]. */
static PyObject *py_stat_catalogue(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    int n = collio_stat_count();
    PyObject *l = PyList_New(0);
    for (int i = 0; l != NULL && i < n; i++) {
        collio_stat_info s;
        int rc = collio_stat_describe(i, &s);
        if (rc != COLLIO_OK) {
            Py_DECREF(l);
            return raise_collio(rc, NULL);
        }
        PyObject *t = Py_BuildValue("(sOsiz)", s.key, s.per_call ? Py_True : Py_False,
                                    s.doc != NULL ? s.doc : "", s.count, s.length);
        if (t == NULL || PyList_Append(l, t) < 0)
            Py_CLEAR(l);
        Py_XDECREF(t);
    }
    return l;
}

/* -------------------------------------------------------------- plans */

/* plan_create(comm, layout, strategy, hints or None). The Python layer
 * has checked and agreed on every argument; the hints set was made (and
 * every key and value checked by the library) before the agreement. */
static PyObject *py_plan_create(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pcomm, *lcap, *hcap;
    const char *strategy;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OOsO", &pcomm, &lcap, &strategy, &hcap)
        || get_comm(pcomm, &comm) < 0)
        return NULL;
    collio_layout *l = get_open(lcap, CAP_LAYOUT, "layout");
    if (l == NULL)
        return NULL;
    collio_hints *h = NULL;
    if (hcap != Py_None && (h = get_open(hcap, CAP_HINTS, "hints")) == NULL)
        return NULL;
    collio_plan *p = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_plan_create(comm, l, strategy, h, &p);
    Py_END_ALLOW_THREADS;
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    PyObject *cap = new_handle(p, CAP_PLAN, cell_capsule_free);
    if (cap == NULL)
        collio_plan_free(&p);
    return cap;
}

/* Every option with the value the plan runs with: [(key, value)]. */
static PyObject *py_plan_hints(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_plan *p = get_open(cap, CAP_PLAN, "plan");
    if (p == NULL)
        return NULL;
    collio_hints *h = NULL;
    int rc = collio_plan_hints(p, &h);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    PyObject *l = hints_items(h);
    collio_hints_free(&h);
    return l;
}

/* The arguments (plan, key) of the stat calls: the open plan, or NULL
 * with an exception set. */
static collio_plan *plan_and_key(PyObject *args, const char **key)
{
    PyObject *cap;
    if (!PyArg_ParseTuple(args, "Os", &cap, key))
        return NULL;
    return get_open(cap, CAP_PLAN, "plan");
}

/* One statistic by key (collio_plan_stat), a float. */
static PyObject *py_plan_stat(PyObject *self, PyObject *args)
{
    (void)self;
    const char *key;
    collio_plan *p = plan_and_key(args, &key);
    if (p == NULL)
        return NULL;
    double v = 0;
    int rc = collio_plan_stat(p, key, &v);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    return PyFloat_FromDouble(v);
}

/* Every value of one statistic by key (collio_plan_stat_values): a list
 * of floats, the values in use. */
static PyObject *py_plan_stat_values(PyObject *self, PyObject *args)
{
    (void)self;
    const char *key;
    collio_plan *p = plan_and_key(args, &key);
    if (p == NULL)
        return NULL;
    int n = 0;
    double one;
    int rc = collio_plan_stat_values(p, key, &one, 0, &n);
    double *v = rc == COLLIO_OK ? malloc((size_t)(n > 0 ? n : 1) * sizeof *v) : NULL;
    if (rc == COLLIO_OK && v == NULL)
        return PyErr_NoMemory();
    if (rc == COLLIO_OK)
        rc = collio_plan_stat_values(p, key, v, n, &n);
    if (rc != COLLIO_OK) {
        free(v);
        return raise_collio(rc, NULL);
    }
    PyObject *l = PyList_New(n);
    for (int i = 0; l != NULL && i < n; i++) {
        PyObject *x = PyFloat_FromDouble(v[i]);
        if (x == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, x);
    }
    free(v);
    return l;
}

/* The arguments (plan, file, writing) of predict and prepare: the open
 * plan and file, or 0 with an exception set. */
static int plan_file_op(PyObject *args, collio_plan **p, collio_file **f, int *writing)
{
    PyObject *pcap, *fcap;
    if (!PyArg_ParseTuple(args, "OOp", &pcap, &fcap, writing))
        return 0;
    *p = get_open(pcap, CAP_PLAN, "plan");
    *f = *p != NULL ? get_open(fcap, CAP_FILE, "file") : NULL;
    return *f != NULL;
}

/* plan_predict(plan, file, writing): (candidate, seconds), -1 and -1.0
 * where the strategy does not choose (collio_plan_predict). */
static PyObject *py_plan_predict(PyObject *self, PyObject *args)
{
    (void)self;
    collio_plan *p;
    collio_file *f;
    int writing, cand = -1;
    double secs = -1;
    if (!plan_file_op(args, &p, &f, &writing))
        return NULL;
    int rc = collio_plan_predict(p, f, writing, &cand, &secs);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    return Py_BuildValue("(id)", cand, secs);
}

/* plan_prepare(plan, file, writing): collective (collio_plan_prepare). */
static PyObject *py_plan_prepare(PyObject *self, PyObject *args)
{
    (void)self;
    collio_plan *p;
    collio_file *f;
    int writing, rc;
    if (!plan_file_op(args, &p, &f, &writing))
        return NULL;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_plan_prepare(p, f, writing);
    Py_END_ALLOW_THREADS;
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

static PyObject *py_plan_free(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_plan **cell = (collio_plan **)get_cell(cap, CAP_PLAN);
    if (cell == NULL)
        return NULL;
    Py_BEGIN_ALLOW_THREADS;
    collio_plan_free(cell);
    Py_END_ALLOW_THREADS;
    Py_RETURN_NONE;
}

static PyObject *py_plan_strategy(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_plan *p = get_open(cap, CAP_PLAN, "plan");
    if (p == NULL)
        return NULL;
    return PyUnicode_FromString(collio_plan_strategy(p));
}

/* A call's buffer: the buffer protocol on `obj` itself. itemsizes: the
 * array item sizes this layout accepts (a tuple); order: the memory order
 * the buffer must have, 'C' or 'F' (an array with at most one axis longer
 * than 1 is both), or 'A' (any contiguous buffer). A buffer that cannot be
 * used is not raised here, on this rank alone: bytes becomes a size that
 * cannot match, and `local` (512 bytes) says why, so that the library's
 * error says it on every rank. b->have: b->view is held (release it).
 * 0, or -1 with a Python error. */
typedef struct call_buf {
    Py_buffer view;
    int have;
    void *buf;
    size_t bytes;
} call_buf;

static int buffer_of(PyObject *obj, PyObject *sizes, int order, int writing, call_buf *b,
                     char *local)
{
    static char dummy[1];
    Py_buffer v;
    int have = 0;
    void *buf = dummy;
    size_t bytes = 0;
    local[0] = '\0';
    int flags = PyBUF_ANY_CONTIGUOUS | (writing ? 0 : PyBUF_WRITABLE);
    if (PyObject_GetBuffer(obj, &v, flags) < 0) {
        /* this rank's buffer is unusable: say so in collio's error on every
         * rank (a size that cannot match), rather than raise here alone */
        PyObject *t, *val, *tb;
        PyErr_Fetch(&t, &val, &tb);
        PyObject *s = val != NULL ? PyObject_Str(val) : NULL;
        snprintf(local, 512, "the array cannot be used as a %s buffer: %s",
                 writing ? "contiguous" : "writable contiguous",
                 s != NULL ? PyUnicode_AsUTF8(s) : "?");
        Py_XDECREF(s);
        Py_XDECREF(t);
        Py_XDECREF(val);
        Py_XDECREF(tb);
        PyErr_Clear();
        bytes = (size_t)-1;
    } else {
        have = 1;
        buf = v.buf != NULL ? v.buf : dummy;
        bytes = (size_t)v.len;
        int ok = 0;
        Py_ssize_t first = -1;
        PyObject *fast = PySequence_Fast(sizes, "itemsizes must be a sequence");
        if (fast == NULL) {
            PyBuffer_Release(&v);
            return -1;
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
            Py_ssize_t sz = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, i));
            if (i == 0)
                first = sz;
            if (sz == v.itemsize)
                ok = 1;
        }
        Py_DECREF(fast);
        PyErr_Clear();
        if (!ok) {
            snprintf(local, 512,
                     "the array's item size is %zd bytes, the layout's element %zd",
                     v.itemsize, first);
            bytes = (size_t)-1;
        } else if ((order == 'C' || order == 'F')
                   && !PyBuffer_IsContiguous(&v, (char)order)) {
            snprintf(local, 512,
                     "the array is not %s-contiguous: the layout's element order is %s",
                     order == 'C' ? "C" : "Fortran", order == 'C' ? "C" : "Fortran");
            bytes = (size_t)-1;
        }
    }
    b->view = v;
    b->have = have;
    b->buf = buf;
    b->bytes = bytes;
    return 0;
}

/* write (writing = 1) or read of plan on file from/into obj (buffer_of). */
/* The arguments of a write or read, blocking or not: (plan, file, obj,
 * itemsizes[, order[, offset]]). 0, or -1 with a Python error. */
typedef struct call_args {
    collio_plan *p;
    collio_file *f;
    PyObject *obj, *sizes;
    int order;
    long long offset;
} call_args;

static int parse_call(PyObject *args, call_args *a)
{
    PyObject *pcap, *fcap;
    a->order = 'A';
    a->offset = 0;
    if (!PyArg_ParseTuple(args, "OOOO|CL", &pcap, &fcap, &a->obj, &a->sizes, &a->order,
                          &a->offset))
        return -1;
    a->p = get_open(pcap, CAP_PLAN, "plan");
    a->f = a->p != NULL ? get_open(fcap, CAP_FILE, "file") : NULL;
    return a->f != NULL ? 0 : -1;
}

static PyObject *execute(PyObject *args, int writing)
{
    call_args a;
    if (parse_call(args, &a) < 0)
        return NULL;
    collio_plan *p = a.p;
    collio_file *f = a.f;
    long long offset = a.offset;
    char local[512];
    call_buf b;
    if (buffer_of(a.obj, a.sizes, a.order, writing, &b, local) < 0)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = writing ? collio_write_at(p, f, offset, b.buf, b.bytes)
                 : collio_read_at(p, f, offset, b.buf, b.bytes);
    Py_END_ALLOW_THREADS;
    if (b.have)
        PyBuffer_Release(&b.view);
    if (rc != COLLIO_OK)
        return raise_collio(rc, local);
    Py_RETURN_NONE;
}

/* ----------------------------------------------------------- requests */

/* A request and what it holds until it completes: the caller's buffer
 * (its view, so that the memory stays), and this rank's word on a buffer
 * that could not be used. A request collected before its completion is
 * left (leaked): completing it is collective, the Python layer's. */
#define CAP_REQUEST "collio.request"
typedef struct py_request {
    collio_request *r;
    call_buf b;
    char local[512];
} py_request;

static void request_capsule_free(PyObject *cap)
{
    py_request *q = PyCapsule_GetPointer(cap, CAP_REQUEST);
    if (q != NULL && q->r == NULL)
        PyMem_Free(q);
}

static PyObject *start_request(PyObject *args, int writing)
{
    call_args a;
    if (parse_call(args, &a) < 0)
        return NULL;
    py_request *q = PyMem_Calloc(1, sizeof *q);
    if (q == NULL)
        return PyErr_NoMemory();
    if (buffer_of(a.obj, a.sizes, a.order, writing, &q->b, q->local) < 0) {
        PyMem_Free(q);
        return NULL;
    }
    int rc = writing ? collio_iwrite_at(a.p, a.f, a.offset, q->b.buf, q->b.bytes, &q->r)
                     : collio_iread_at(a.p, a.f, a.offset, q->b.buf, q->b.bytes, &q->r);
    PyObject *cap =
        rc == COLLIO_OK ? PyCapsule_New(q, CAP_REQUEST, request_capsule_free) : NULL;
    if (cap == NULL) { /* (started: the others' completes it; this one is left) */
        if (rc != COLLIO_OK)
            return raise_collio(rc, NULL);
        return NULL;
    }
    return cap;
}

static PyObject *py_plan_iwrite(PyObject *self, PyObject *args)
{
    (void)self;
    return start_request(args, 1);
}

static PyObject *py_plan_iread(PyObject *self, PyObject *args)
{
    (void)self;
    return start_request(args, 0);
}

/* After a completion: the buffer goes back, the code raised or None. */
static PyObject *request_done(py_request *q, int rc)
{
    if (q->b.have)
        PyBuffer_Release(&q->b.view);
    q->b.have = 0;
    if (rc != COLLIO_OK)
        return raise_collio(rc, q->local[0] != '\0' ? q->local : NULL);
    Py_RETURN_NONE;
}

static py_request *get_request(PyObject *cap)
{
    py_request *q = PyCapsule_GetPointer(cap, CAP_REQUEST);
    if (q != NULL && q->r == NULL) {
        PyErr_SetString(PyExc_ValueError, "the request is completed");
        return NULL;
    }
    return q;
}

static PyObject *py_request_wait(PyObject *self, PyObject *cap)
{
    (void)self;
    py_request *q = get_request(cap);
    if (q == NULL)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_wait(&q->r);
    Py_END_ALLOW_THREADS;
    return request_done(q, rc);
}

/* True (completed: raises its error if it failed) or False. */
static PyObject *py_request_test(PyObject *self, PyObject *cap)
{
    (void)self;
    py_request *q = get_request(cap);
    if (q == NULL)
        return NULL;
    int rc, done = 0;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_test(&q->r, &done);
    Py_END_ALLOW_THREADS;
    if (!done)
        Py_RETURN_FALSE;
    PyObject *r = request_done(q, rc);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_TRUE;
}

/* waitall(list of request capsules): None, or the first failing
 * request's error raised (every request is completed either way). */
static PyObject *py_waitall(PyObject *self, PyObject *list)
{
    (void)self;
    PyObject *fast = PySequence_Fast(list, "requests must be a sequence");
    if (fast == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    py_request **q = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *q);
    collio_request **r = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *r);
    int *codes = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *codes);
    PyObject *out = NULL;
    if (q == NULL || r == NULL || codes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        q[i] = get_request(PySequence_Fast_GET_ITEM(fast, i));
        if (q[i] == NULL)
            goto done;
        r[i] = q[i]->r;
    }
    Py_BEGIN_ALLOW_THREADS;
    collio_waitall((int)n, r, codes);
    Py_END_ALLOW_THREADS;
    int bad = COLLIO_OK;
    char local[512] = "";
    for (Py_ssize_t i = 0; i < n; i++) {
        q[i]->r = NULL;
        if (q[i]->b.have)
            PyBuffer_Release(&q[i]->b.view);
        q[i]->b.have = 0;
        if (codes[i] != COLLIO_OK && bad == COLLIO_OK) {
            bad = codes[i];
            snprintf(local, sizeof local, "%s", q[i]->local);
        }
    }
    if (bad != COLLIO_OK) /* the first failing request's */
        raise_collio(bad, local[0] != '\0' ? local : NULL);
    else
        out = Py_None, Py_INCREF(out);
done:
    Py_DECREF(fast);
    PyMem_Free(q);
    PyMem_Free(r);
    PyMem_Free(codes);
    return out;
}

static PyObject *py_plan_write(PyObject *self, PyObject *args)
{
    (void)self;
    return execute(args, 1);
}

static PyObject *py_plan_read(PyObject *self, PyObject *args)
{
    (void)self;
    return execute(args, 0);
}

/* dict helpers for stats: each returns -1 on failure */
static int put(PyObject *d, const char *k, PyObject *v)
{
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItemString(d, k, v);
    Py_DECREF(v);
    return rc;
}
#define PUT_D(d, k, x) put(d, k, PyFloat_FromDouble(x))
#define PUT_I(d, k, x) put(d, k, PyLong_FromLongLong((long long)(x)))

/* The generic statistics (collio_stats, its fields with their C types)
 * as a flat dict; the sections' own come by key (plan_stat) in the
 * Python layer, from the catalogue. */
static PyObject *py_plan_stats(PyObject *self, PyObject *cap)
{
    (void)self;
    collio_plan *p = get_open(cap, CAP_PLAN, "plan");
    if (p == NULL)
        return NULL;
    collio_stats s;
    int rc = collio_plan_stats(p, &s);
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (PUT_D(d, "inspect_s", s.inspect_s) || PUT_D(d, "exchange_s", s.exchange_s)
        || PUT_D(d, "copy_s", s.copy_s) || PUT_D(d, "file_s", s.file_s)
        || PUT_D(d, "total_s", s.total_s) || PUT_I(d, "bytes_sent", s.bytes_sent)
        || PUT_I(d, "messages", s.messages) || PUT_I(d, "file_requests", s.file_requests)
        || PUT_I(d, "file_bytes", s.file_bytes) || PUT_I(d, "plan_bytes", s.plan_bytes)
        || PUT_I(d, "work_bytes", s.work_bytes) || PUT_I(d, "nnodes", s.nnodes)
        || PUT_I(d, "messages_offnode", s.messages_offnode)
        || PUT_I(d, "bytes_offnode", s.bytes_offnode)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* -------------------------------------------------------------- HDF5 */

static PyObject *py_have_h5(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyBool_FromLong(collio_have_h5());
}

static PyObject *py_describe_h5(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pcomm, *pdims;
    const char *h5, *raw, *dataset; /* paths: bytes (os.fsencode) */
    long long base;
    int type, fortran;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OyyLiOis", &pcomm, &h5, &raw, &base, &type, &pdims,
                          &fortran, &dataset)
        || get_comm(pcomm, &comm) < 0)
        return NULL;
    PyObject *fast = PySequence_Fast(pdims, "shape must be a sequence of integers");
    if (fast == NULL)
        return NULL;
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(fast);
    int64_t dims[64];
    if (nd > 64) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "at most 64 dimensions");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nd; i++) {
        dims[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (dims[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = collio_describe_h5(comm, h5, raw, base, type, (int)nd, dims, fortran, dataset);
    Py_END_ALLOW_THREADS;
    if (rc != COLLIO_OK)
        return raise_collio(rc, NULL);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------- registry */

static PyObject *py_strategies(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    int n = collio_strategy_count();
    PyObject *l = PyList_New(0);
    for (int i = 0; l != NULL && i < n; i++) {
        const char *name = collio_strategy_name(i);
        const char *sum = collio_strategy_summary(name);
        PyObject *t = Py_BuildValue("(ssi)", name, sum != NULL ? sum : "",
                                    collio_strategy_is_canonical(name));
        if (t == NULL || PyList_Append(l, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(t);
    }
    return l;
}

/* Every name fn gives, from 0 to its first NULL: the library's own count
 * (a transport added to multiphase's table is listed without a change
 * here). */
/* The names an option of type "name" takes, as a list (the catalogue's). */
static PyObject *names(const char *key)
{
    PyObject *l = PyList_New(0);
    for (int i = 0; l != NULL && collio_option_value_name(key, i) != NULL; i++) {
        PyObject *s = PyUnicode_FromString(collio_option_value_name(key, i));
        if (s == NULL || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyObject *py_option_values(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *key = PyUnicode_AsUTF8(arg);
    return key != NULL ? names(key) : NULL;
}

static PyObject *py_strerror(PyObject *self, PyObject *arg)
{
    (void)self;
    long code = PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    if (code < INT_MIN || code > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "an error code must fit in a C int");
        return NULL;
    }
    return PyUnicode_FromString(collio_strerror((int)code));
}

static PyMethodDef methods[] = {
    {"_set_error_class", set_error_class, METH_O, NULL},
    {"layout_block_cyclic", py_layout_block_cyclic, METH_VARARGS, NULL},
    {"layout_darray", py_layout_darray, METH_VARARGS, NULL},
    {"layout_index_list", py_layout_index_list, METH_VARARGS, NULL},
    {"layout_extents", py_layout_extents, METH_VARARGS, NULL},
    {"plan_predict", py_plan_predict, METH_VARARGS, NULL},
    {"plan_prepare", py_plan_prepare, METH_VARARGS, NULL},
    {"layout_set_memory_global", py_layout_set_memory_global, METH_O, NULL},
    {"layout_set_memory_datatype", py_layout_set_memory_datatype, METH_VARARGS, NULL},
    {"layout_info", py_layout_info, METH_O, NULL},
    {"layout_global_indices", py_layout_global_indices, METH_VARARGS, NULL},
    {"layout_free", py_layout_free, METH_O, NULL},
    {"file_open", py_file_open, METH_VARARGS, NULL},
    {"file_close", py_file_close, METH_O, NULL},
    {"file_abort", py_file_abort, METH_O, NULL},
    {"file_path", py_file_path, METH_O, NULL},
    {"plan_create", py_plan_create, METH_VARARGS, NULL},
    {"plan_free", py_plan_free, METH_O, NULL},
    {"plan_strategy", py_plan_strategy, METH_O, NULL},
    {"plan_write", py_plan_write, METH_VARARGS, NULL},
    {"plan_read", py_plan_read, METH_VARARGS, NULL},
    {"plan_iwrite", py_plan_iwrite, METH_VARARGS, NULL},
    {"plan_iread", py_plan_iread, METH_VARARGS, NULL},
    {"request_wait", py_request_wait, METH_O, NULL},
    {"request_test", py_request_test, METH_O, NULL},
    {"waitall", py_waitall, METH_O, NULL},
    {"plan_stats", py_plan_stats, METH_O, NULL},
    {"plan_stat", py_plan_stat, METH_VARARGS, NULL},
    {"plan_stat_values", py_plan_stat_values, METH_VARARGS, NULL},
    {"plan_hints", py_plan_hints, METH_O, NULL},
    {"hints_create", py_hints_create, METH_NOARGS, NULL},
    {"hints_set", py_hints_set, METH_VARARGS, NULL},
    {"hints_parse", py_hints_parse, METH_VARARGS, NULL},
    {"hints_set_info", py_hints_set_info, METH_VARARGS, NULL},
    {"hints_items", py_hints_items, METH_O, NULL},
    {"option_catalogue", py_option_catalogue, METH_NOARGS, NULL},
    {"stat_catalogue", py_stat_catalogue, METH_NOARGS, NULL},
    {"strategies", py_strategies, METH_NOARGS, NULL},
    {"option_values", py_option_values, METH_O, NULL},
    {"strerror", py_strerror, METH_O, NULL},
    {"have_h5", py_have_h5, METH_NOARGS, NULL},
    {"describe_h5", py_describe_h5, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "collio._collio",
    .m_doc = "C half of the collio bindings (use the package collio).",
    .m_size = -1,
    .m_methods = methods,
};

/* The first line of an MPI library version text, into out. */
static void first_line(const char *text, char *out, size_t n)
{
    size_t k = strcspn(text, "\n");
    snprintf(out, n, "%.*s", (int)(k < n ? k : n - 1), text);
}

#define ABI_HINT                                                                         \
    "Use an mpi4py on collio's MPI (pip install --no-binary mpi4py --force-reinstall "   \
    "mpi4py with that MPI's mpicc first on PATH, or point the binary wheel at it: "      \
    "MPI4PY_LIBMPI=<its libmpi>), or rebuild collio with mpi4py's MPI (docs/python.md, " \
    "Install)."

/* Raises ImportError: mpi4py runs on another MPI library (`theirs`, or the
 * error pending, which becomes the ImportError's __cause__). */
static void abi_error(const char *theirs)
{
    char ours[MPI_MAX_LIBRARY_VERSION_STRING] = "?", line[256];
    int len = 0;
    MPI_Get_library_version(ours, &len); /* allowed before MPI_Init */
    first_line(ours, line, sizeof line);
    PyObject *t = NULL, *v = NULL, *tb = NULL, *s = NULL;
    if (PyErr_Occurred()) {
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        s = v != NULL ? PyObject_Str(v) : NULL;
        PyErr_Clear();
    }
    const char *why = s != NULL ? PyUnicode_AsUTF8(s) : NULL;
    PyErr_Clear();
    if (why != NULL)
        PyErr_Format(PyExc_ImportError,
                     "collio: mpi4py runs on another MPI library than the one collio was "
                     "built with, or is another version: mpi4py.MPI does not match the "
                     "mpi4py.h collio was compiled with (%s). collio: %s. " ABI_HINT,
                     why, line);
    else
        PyErr_Format(PyExc_ImportError,
                     "collio: mpi4py runs on another MPI library than the one collio was "
                     "built with, so their MPI handles cannot be exchanged. collio: %s; "
                     "mpi4py: %s. " ABI_HINT,
                     line, theirs != NULL ? theirs : "?");
    if (v != NULL) { /* chain: raise ImportError(...) from the original */
        PyObject *t2, *v2, *tb2;
        PyErr_Fetch(&t2, &v2, &tb2);
        PyErr_NormalizeException(&t2, &v2, &tb2);
        if (v2 != NULL)
            PyException_SetCause(v2, v); /* steals v */
        else
            Py_DECREF(v);
        PyErr_Restore(t2, v2, tb2);
    }
    Py_XDECREF(s);
    Py_XDECREF(t);
    Py_XDECREF(tb);
}

/* mpi4py's C API, from an mpi4py on the MPI library this extension is
 * linked with: its MPI_COMM_WORLD handle must be this library's. An mpi4py
 * on another library shows as a C API that does not match (Cython's check
 * of the object sizes, which differ with the handle types) or as another
 * MPI_COMM_WORLD handle. ImportError in both cases, naming the libraries. */
static int import_mpi4py_checked(void)
{
    if (import_mpi4py() < 0) {
        /* mpi4py missing: as it is; a C API that does not match (object
         * sizes, functions missing): why, in collio's words */
        if (!PyErr_ExceptionMatches(PyExc_ModuleNotFoundError))
            abi_error(NULL);
        return -1;
    }
    PyObject *mpi = PyImport_ImportModule("mpi4py.MPI");
    if (mpi == NULL)
        return -1;
    PyObject *world = PyObject_GetAttrString(mpi, "COMM_WORLD");
    MPI_Comm *c = world != NULL ? PyMPIComm_Get(world) : NULL;
    int rc = c == NULL ? -1 : 0;
    if (c != NULL && *c != MPI_COMM_WORLD) {
        char theirs[256] = "?";
        PyObject *v = PyObject_CallMethod(mpi, "Get_library_version", NULL);
        const char *tv = v != NULL ? PyUnicode_AsUTF8(v) : NULL;
        if (tv != NULL)
            first_line(tv, theirs, sizeof theirs);
        PyErr_Clear();
        Py_XDECREF(v);
        abi_error(theirs);
        rc = -1;
    }
    Py_XDECREF(world);
    Py_DECREF(mpi);
    return rc;
}

PyMODINIT_FUNC PyInit__collio(void)
{
    if (import_mpi4py_checked() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    static const char *codes[] = {
        "OK",           "ERR_ARG",      "ERR_NOMEM",       "ERR_RANGE",
        "ERR_OVERLAP",  "ERR_COVERAGE", "ERR_OVERFLOW",    "ERR_MISMATCH",
        "ERR_STRATEGY", "ERR_BUFSIZE",  "ERR_OPEN",        "ERR_IO",
        "ERR_EOF",      "ERR_MPI",      "ERR_UNSUPPORTED", "ERR_STATE"};
    _Static_assert(sizeof codes / sizeof codes[0] == COLLIO_ERR__COUNT,
                   "one name per collio_error");
    for (int i = 0; i < COLLIO_ERR__COUNT; i++)
        if (PyModule_AddIntConstant(m, codes[i], i) < 0)
            goto fail;
    if (PyModule_AddIntConstant(m, "MAX_DIMS", COLLIO_MAX_DIMS) < 0
        || PyModule_AddIntConstant(m, "VERSION_MAJOR", COLLIO_VERSION_MAJOR) < 0
        || PyModule_AddIntConstant(m, "VERSION_MINOR", COLLIO_VERSION_MINOR) < 0
        || PyModule_AddIntConstant(m, "VERSION_PATCH", COLLIO_VERSION_PATCH) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
