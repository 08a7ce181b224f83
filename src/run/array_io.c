/* The executor's tensors: allocation, numpy's .npy format (reading, writing, SHA-256 of
 * the written bytes) and reading ONNX TensorProto files. Element bytes go through explicit
 * little-endian loads and stores, so files mean the same on any host. */
#include <cnnmap/run.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "run/run_internal.h"
#include "util/atomic_file.h"
#include "util/mapped_file.h"

/* How each type is stored; descr is what numpy writes for it ('|' where byte order
 * does not apply). */
typedef struct dtype_info {
    cm_dtype dtype;
    const char *name;
    const char *descr;
    size_t size;
    bool is_signed;
} dtype_info;

#define MAX_ELEMENTS CM_RUN_ELEMENTS_MAX

static const dtype_info DTYPES[] = {
    {CM_DTYPE_FLOAT32, "float32", "<f4", 4, true}, {CM_DTYPE_FLOAT64, "float64", "<f8", 8, true},
    {CM_DTYPE_INT8, "int8", "|i1", 1, true},       {CM_DTYPE_UINT8, "uint8", "|u1", 1, false},
    {CM_DTYPE_INT16, "int16", "<i2", 2, true},     {CM_DTYPE_UINT16, "uint16", "<u2", 2, false},
    {CM_DTYPE_INT32, "int32", "<i4", 4, true},     {CM_DTYPE_UINT32, "uint32", "<u4", 4, false},
    {CM_DTYPE_INT64, "int64", "<i8", 8, true},     {CM_DTYPE_UINT64, "uint64", "<u8", 8, false},
    {CM_DTYPE_BOOL, "bool", "|b1", 1, false},
};

/* By number, since ONNX files hold any int where a cm_dtype is expected. */
static const dtype_info *dtype_find(int t)
{
    for (size_t k = 0; k < sizeof DTYPES / sizeof DTYPES[0]; k++)
        if ((int)DTYPES[k].dtype == t)
            return &DTYPES[k];
    return NULL;
}

int cm_dtype_is_float(cm_dtype t)
{
    return t == CM_DTYPE_FLOAT32 || t == CM_DTYPE_FLOAT64;
}

const char *cm_dtype_name(cm_dtype t)
{
    const dtype_info *d = dtype_find((int)t);
    return d ? d->name : "unknown";
}

static cm_status fail(cm_error *err, const char *origin, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A CM_EINPUT "ORIGIN: what is wrong" message. */
static cm_status fail(cm_error *err, const char *origin, const char *fmt, ...)
{
    char what[CM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cm_error_set(err, CM_EINPUT, "%s: %s", origin, what);
}

/* Up to 32 bytes of text from a file, for a message: anything but printable ASCII
 * becomes '?', so that the message stays one line whatever the file holds. */
#define SHOW_MAX 40
static void show(const char *s, size_t n, char out[SHOW_MAX])
{
    size_t m = n < 32 ? n : 32;
    for (size_t k = 0; k < m; k++) {
        unsigned char ch = (unsigned char)s[k];
        out[k] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    strcpy(out + m, n > m ? "..." : "");
}

/* A shape as Python writes a tuple: "()", "(5,)", "(1, 10)". */
#define SHAPE_TEXT_MAX (4 + CM_ARRAY_MAX_RANK * 22)
static void shape_text(int rank, const int64_t *dims, char out[SHAPE_TEXT_MAX])
{
    char *p = out;
    *p++ = '(';
    for (int k = 0; k < rank; k++)
        p += sprintf(p, "%s%" PRId64, k ? ", " : "", dims[k]);
    strcpy(p, rank == 1 ? ",)" : ")");
}

/* Checks a shape and gives its element count. Messages name no origin: callers that
 * read a file put it in front. */
static cm_status check_shape(int rank, const int64_t *dims, int64_t *count, cm_error *err)
{
    if (rank < 0 || rank > CM_ARRAY_MAX_RANK)
        return cm_error_set(err, CM_EINPUT, "rank %d is beyond the %d dimensions supported",
                            rank, CM_ARRAY_MAX_RANK);
    /* The bound holds for the product of the non-zero dims, so that products of some
     * of the dims of an empty tensor cannot overflow either. */
    int64_t product = 1;
    bool empty = false;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0)
            return cm_error_set(err, CM_EINPUT, "dimension %" PRId64 " at axis %d is negative",
                                dims[k], k);
        if (dims[k] == 0) {
            empty = true;
            continue;
        }
        if (dims[k] > (MAX_ELEMENTS - 1) / product)
            return cm_error_set(err, CM_EINPUT,
                                "shape holds 2^40 elements or more (dimension %" PRId64
                                " at axis %d overflows)", dims[k], k);
        product *= dims[k];
    }
    *count = empty ? 0 : product;
    return CM_OK;
}

cm_status cm_array_new(cm_dtype dtype, int rank, const int64_t *dims, cm_array **out,
                       cm_error *err)
{
    return cm_array_alloc(dtype, rank, dims, true, out, err);
}

cm_status cm_array_alloc(cm_dtype dtype, int rank, const int64_t *dims, bool zero,
                         cm_array **out, cm_error *err)
{
    *out = NULL;
    if (!dtype_find((int)dtype))
        return cm_error_set(err, CM_EINPUT, "data type %d is not supported", (int)dtype);
    if (rank > 0 && !dims)
        return cm_error_set(err, CM_EUSAGE, "an array of rank %d needs its dims", rank);
    int64_t count;
    cm_status st = check_shape(rank, dims, &count, err);
    if (st != CM_OK)
        return st;
    if ((uint64_t)count > SIZE_MAX / sizeof(double))
        return cm_error_nomem(err);
    cm_array *a = calloc(1, sizeof *a);
    if (!a)
        return cm_error_nomem(err);
    a->dtype = dtype;
    a->rank = rank;
    for (int k = 0; k < rank; k++)
        a->dims[k] = dims[k];
    a->count = count;
    if (count > 0) {
        if (cm_dtype_is_float(dtype))
            a->f = zero ? calloc((size_t)count, sizeof *a->f) : malloc((size_t)count * sizeof *a->f);
        else
            a->i = zero ? calloc((size_t)count, sizeof *a->i) : malloc((size_t)count * sizeof *a->i);
        if (!a->f && !a->i) {
            free(a);
            return cm_error_nomem(err);
        }
    }
    *out = a;
    return CM_OK;
}

void cm_array_free(cm_array *a)
{
    if (!a)
        return;
    free(a->f);
    free(a->i);
    free(a);
}

static uint64_t load_le(const uint8_t *p, size_t size)
{
    uint64_t v = 0;
    for (size_t b = size; b-- > 0;)
        v = v << 8 | p[b];
    return v;
}

static void store_le(uint8_t *p, uint64_t v, size_t size)
{
    for (size_t b = 0; b < size; b++, v >>= 8)
        p[b] = (uint8_t)v;
}

/* An integer type's value from the low bytes of bits (two's complement for the signed
 * types). uint64 values above INT64_MAX keep their bit pattern in the int64_t. */
static int64_t int_from_bits(const dtype_info *d, uint64_t bits)
{
    if (d->dtype == CM_DTYPE_BOOL)
        return bits != 0;
    int64_t v;
    if (d->size == 8) {
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    unsigned width = 8u * (unsigned)d->size;
    bits &= ((uint64_t)1 << width) - 1;
    if (!d->is_signed)
        return (int64_t)bits;
    uint64_t sign = (uint64_t)1 << (width - 1);
    return (int64_t)(bits ^ sign) - (int64_t)sign;
}

/* Element k of a from the little-endian bits of its stored type. */
static void set_from_bits(cm_array *a, const dtype_info *d, int64_t k, uint64_t bits)
{
    if (a->dtype == CM_DTYPE_FLOAT32) {
        uint32_t u = (uint32_t)bits;
        float x;
        memcpy(&x, &u, sizeof x);
        a->f[k] = x;
    } else if (a->dtype == CM_DTYPE_FLOAT64) {
        double x;
        memcpy(&x, &bits, sizeof x);
        a->f[k] = x;
    } else {
        a->i[k] = int_from_bits(d, bits);
    }
}

static uint64_t bits_of(const cm_array *a, int64_t k)
{
    uint64_t bits;
    if (a->dtype == CM_DTYPE_FLOAT32) {
        double v = a->f[k];
        /* Beyond float's range the C conversion is undefined; IEEE rounding would give
         * the infinity. */
        float x = v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
        uint32_t u;
        memcpy(&u, &x, sizeof u);
        return u;
    }
    if (a->dtype == CM_DTYPE_FLOAT64) {
        memcpy(&bits, &a->f[k], sizeof bits);
        return bits;
    }
    if (a->dtype == CM_DTYPE_BOOL)
        return a->i[k] != 0;
    return (uint64_t)a->i[k];
}

static void decode_le(cm_array *a, const dtype_info *d, const uint8_t *src)
{
    for (int64_t k = 0; k < a->count; k++)
        set_from_bits(a, d, k, load_le(src + (size_t)k * d->size, d->size));
}

/* ---- .npy header ----------------------------------------------------------------
 * The header is the repr of a Python dict. numpy evaluates it as a Python literal; we
 * take the subset that literal can hold for the arrays we read: string keys, a string
 * 'descr', True/False 'fortran_order' and a tuple of integers 'shape', in any order,
 * with any whitespace and an optional trailing comma. */

typedef struct npy_header {
    const char *descr;
    size_t descr_len;
    bool has_descr, has_fortran, has_shape;
    bool fortran_order;
    int rank; /* as written, which may exceed CM_ARRAY_MAX_RANK */
    int64_t dims[CM_ARRAY_MAX_RANK];
} npy_header;

typedef struct cursor {
    const char *start, *p, *end;
    const char *origin;
    cm_error *err;
} cursor;

static cm_status syntax(const cursor *c, const char *expected)
{
    return fail(c->err, c->origin, "malformed .npy header: expected %s at offset %zu", expected,
                (size_t)(c->p - c->start));
}

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r' ||
                             *c->p == '\f'))
        c->p++;
}

static bool accept(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* A quoted string; numpy writes no escapes, so none are taken. */
static cm_status parse_string(cursor *c, const char *what, const char **s, size_t *n)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return syntax(c, what);
    char quote = *c->p++;
    const char *begin = c->p;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\' || *c->p == '\n')
            return syntax(c, "a string without escapes or line breaks");
        c->p++;
    }
    if (c->p >= c->end)
        return syntax(c, "the closing quote of a string");
    *s = begin;
    *n = (size_t)(c->p - begin);
    c->p++;
    return CM_OK;
}

static bool is_digit(const cursor *c)
{
    return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

static cm_status parse_int(cursor *c, int64_t *v)
{
    skip_space(c);
    bool negative = false;
    if (c->p < c->end && (*c->p == '-' || *c->p == '+')) {
        negative = *c->p == '-';
        c->p++;
        skip_space(c);
    }
    if (!is_digit(c))
        return syntax(c, "an integer in 'shape'");
    const char *begin = c->p;
    uint64_t m = 0;
    for (; is_digit(c); c->p++) {
        unsigned digit = (unsigned)(*c->p - '0');
        if (m > ((uint64_t)INT64_MAX - digit) / 10) {
            while (is_digit(c))
                c->p++;
            char shown[SHOW_MAX];
            show(begin, (size_t)(c->p - begin), shown);
            return fail(c->err, c->origin, "dimension %s%s in 'shape' is too large",
                        negative ? "-" : "", shown);
        }
        m = m * 10 + digit;
    }
    /* Python 2 wrote long integers with an L; numpy still reads such headers. */
    if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
        c->p++;
    *v = negative ? -(int64_t)m : (int64_t)m;
    return CM_OK;
}

static cm_status parse_shape(cursor *c, npy_header *h)
{
    if (!accept(c, '('))
        return syntax(c, "a tuple for 'shape'");
    h->rank = 0;
    if (accept(c, ')'))
        return CM_OK;
    bool comma;
    for (;;) {
        int64_t v = 0;
        cm_status st = parse_int(c, &v);
        if (st != CM_OK)
            return st;
        if (h->rank < CM_ARRAY_MAX_RANK)
            h->dims[h->rank] = v;
        if (h->rank == INT32_MAX)
            return syntax(c, "fewer dimensions");
        h->rank++;
        comma = accept(c, ',');
        if (accept(c, ')'))
            break;
        if (!comma)
            return syntax(c, "',' or ')' in 'shape'");
    }
    if (h->rank == 1 && !comma)
        return fail(c->err, c->origin, "'shape' is (%" PRId64 "), an integer, not a tuple",
                    h->dims[0]);
    return CM_OK;
}

static cm_status parse_bool(cursor *c, bool *v)
{
    skip_space(c);
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
        c->p += 4;
        *v = true;
    } else if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
        c->p += 5;
        *v = false;
    } else {
        return syntax(c, "True or False for 'fortran_order'");
    }
    return CM_OK;
}

static bool key_is(const char *key, size_t n, const char *name)
{
    return n == strlen(name) && memcmp(key, name, n) == 0;
}

static cm_status parse_value(cursor *c, const char *key, size_t n, npy_header *h)
{
    bool *seen;
    if (key_is(key, n, "descr"))
        seen = &h->has_descr;
    else if (key_is(key, n, "fortran_order"))
        seen = &h->has_fortran;
    else if (key_is(key, n, "shape"))
        seen = &h->has_shape;
    else {
        char shown[SHOW_MAX];
        show(key, n, shown);
        return fail(c->err, c->origin, "unexpected key '%s' in the .npy header", shown);
    }
    if (*seen) {
        char shown[SHOW_MAX];
        show(key, n, shown);
        return fail(c->err, c->origin, "key '%s' appears twice in the .npy header", shown);
    }
    *seen = true;
    if (seen == &h->has_fortran)
        return parse_bool(c, &h->fortran_order);
    if (seen == &h->has_shape)
        return parse_shape(c, h);
    skip_space(c);
    if (c->p < c->end && *c->p == '[')
        return fail(c->err, c->origin, "structured dtypes (a list for 'descr') are not supported");
    return parse_string(c, "a string for 'descr'", &h->descr, &h->descr_len);
}

static cm_status parse_header(cursor *c, npy_header *h)
{
    if (!accept(c, '{'))
        return syntax(c, "'{'");
    while (!accept(c, '}')) {
        const char *key;
        size_t n;
        cm_status st = parse_string(c, "a quoted key or '}'", &key, &n);
        if (st != CM_OK)
            return st;
        if (!accept(c, ':'))
            return syntax(c, "':'");
        st = parse_value(c, key, n, h);
        if (st != CM_OK)
            return st;
        if (!accept(c, ',')) {
            if (!accept(c, '}'))
                return syntax(c, "',' or '}'");
            break;
        }
    }
    skip_space(c);
    if (c->p != c->end)
        return syntax(c, "nothing but spaces after '}'");
    const char *missing = !h->has_descr ? "descr" : !h->has_fortran ? "fortran_order"
                          : !h->has_shape ? "shape" : NULL;
    if (missing)
        return fail(c->err, c->origin, "the .npy header has no '%s'", missing);
    return CM_OK;
}

/* The type of a descr; a single byte has no byte order, so any order mark goes. */
static cm_status resolve_descr(const char *s, size_t n, const char *origin,
                               const dtype_info **out, cm_error *err)
{
    char shown[SHOW_MAX];
    show(s, n, shown);
    if ((n >= 1 && s[0] == 'O') || (n >= 2 && s[1] == 'O'))
        return fail(err, origin, "object arrays ('%s') are not supported", shown);
    if (n == 3) {
        for (size_t k = 0; k < sizeof DTYPES / sizeof DTYPES[0]; k++) {
            const dtype_info *d = &DTYPES[k];
            if (memcmp(s + 1, d->descr + 1, 2) != 0)
                continue;
            if (d->size == 1 ? memchr("<>|=", s[0], 4) != NULL : s[0] == '<') {
                *out = d;
                return CM_OK;
            }
            if (s[0] == '>')
                return fail(err, origin, "big-endian data ('%s') is not supported", shown);
            break;
        }
    }
    return fail(err, origin, "unsupported dtype '%s' (float32, float64, int8-int64, "
                "uint8-uint64 and bool are supported)", shown);
}

static const char NPY_MAGIC[6] = "\x93NUMPY";

cm_status cm_array_read_npy(const void *data, size_t len, const char *origin, cm_array **out,
                            cm_error *err)
{
    *out = NULL;
    const uint8_t *b = data;
    if (len == 0)
        return fail(err, origin, "empty file");
    if (memcmp(b, NPY_MAGIC, len < 6 ? len : 6) != 0)
        return fail(err, origin, "not a .npy file (no \\x93NUMPY magic)");
    if (len < 8)
        return fail(err, origin, "truncated .npy header");
    int major = b[6], minor = b[7];
    if (major < 1 || major > 3 || minor != 0)
        return fail(err, origin, "unsupported .npy format version %d.%d", major, minor);
    /* Version 1.0 has a 2-byte header length, 2.0 and 3.0 (a UTF-8 header) 4 bytes;
     * a UTF-8 header holds nothing we accept beyond ASCII, so both parse alike. */
    size_t prefix = major == 1 ? 10 : 12;
    if (len < prefix)
        return fail(err, origin, "truncated .npy header");
    size_t hlen = (size_t)load_le(b + 8, prefix - 8);
    if (hlen > len - prefix)
        return fail(err, origin, "truncated .npy header: it declares %zu bytes, %zu follow",
                    hlen, len - prefix);
    npy_header h = {0};
    const char *text = (const char *)b + prefix;
    cursor c = {.start = text, .p = text, .end = text + hlen, .origin = origin, .err = err};
    cm_status st = parse_header(&c, &h);
    const dtype_info *d = NULL;
    if (st == CM_OK)
        st = resolve_descr(h.descr, h.descr_len, origin, &d, err);
    if (st != CM_OK)
        return st;
    if (h.fortran_order)
        return fail(err, origin, "Fortran-order arrays are not supported");
    if (h.rank > CM_ARRAY_MAX_RANK)
        return fail(err, origin, "shape has %d dimensions, beyond the %d supported", h.rank,
                    CM_ARRAY_MAX_RANK);
    int64_t count;
    st = check_shape(h.rank, h.dims, &count, err);
    if (st != CM_OK) {
        cm_error_prefix(err, origin);
        return st;
    }
    size_t have = len - prefix - hlen;
    char shape[SHAPE_TEXT_MAX];
    shape_text(h.rank, h.dims, shape);
    if ((uint64_t)count > SIZE_MAX / d->size)
        return fail(err, origin, "shape %s is too large for memory", shape);
    size_t need = (size_t)count * d->size;
    if (have != need)
        return fail(err, origin, "%s: %zu bytes where shape %s of %s needs %zu",
                    have < need ? "data is truncated" : "data size does not match the shape",
                    have, shape, d->name, need);
    cm_array *a;
    st = cm_array_new(d->dtype, h.rank, h.dims, &a, err);
    if (st != CM_OK)
        return st;
    decode_le(a, d, b + prefix + hlen);
    *out = a;
    return CM_OK;
}

cm_status cm_array_load_npy(const char *path, cm_array **out, cm_error *err)
{
    *out = NULL;
    void *data;
    size_t len;
    cm_status st = cm_map_file(path, &data, &len, err);
    if (st != CM_OK)
        return st;
    st = cm_array_read_npy(data, len, path, out, err);
    cm_unmap_file(data, len);
    return st;
}

/* Checks that a is what its fields claim before its storage is read. */
static cm_status check_array(const cm_array *a, const dtype_info **d, cm_error *err)
{
    *d = dtype_find((int)a->dtype);
    if (!*d)
        return cm_error_set(err, CM_EUSAGE, "cannot write an array of data type %d",
                            (int)a->dtype);
    int64_t count;
    cm_status st = check_shape(a->rank, a->dims, &count, err);
    if (st != CM_OK)
        return st;
    bool stored = cm_dtype_is_float(a->dtype) ? a->f != NULL : a->i != NULL;
    if (count != a->count || (count > 0 && !stored))
        return cm_error_set(err, CM_EUSAGE, "array of %s: count %" PRId64
                            " or storage does not match its shape", (*d)->name, a->count);
    return CM_OK;
}

/* numpy pads the header with spaces and a newline to a multiple of this, so that the
 * data is aligned for mapping. */
#define NPY_ALIGN 64
/* numpy leaves room for the first dimension to grow to this many digits, so that a
 * file can be appended to in place; matching it makes our bytes (and so the SHA-256)
 * those of numpy.save. */
#define NPY_GROWTH_DIGITS 21

cm_status cm_array_to_npy(const cm_array *a, char **data, size_t *len, cm_error *err)
{
    *data = NULL;
    *len = 0;
    const dtype_info *d;
    cm_status st = check_array(a, &d, err);
    if (st != CM_OK)
        return st;
    char shape[SHAPE_TEXT_MAX];
    shape_text(a->rank, a->dims, shape);
    char dict[SHAPE_TEXT_MAX + 128];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     d->descr, shape);
    size_t dict_len = (size_t)n;
    if (a->rank > 0)
        dict_len += NPY_GROWTH_DIGITS - (size_t)snprintf(NULL, 0, "%" PRId64, a->dims[0]);
    /* At most a few hundred bytes: version 1.0's 16-bit header length always does. */
    size_t text_len = dict_len + 1; /* the final newline */
    size_t prefix = 10;
    size_t pad = NPY_ALIGN - (prefix + text_len) % NPY_ALIGN;
    size_t head = prefix + text_len + pad;
    if ((uint64_t)a->count > (SIZE_MAX - head) / d->size)
        return cm_error_nomem(err);
    size_t total = head + (size_t)a->count * d->size;
    uint8_t *buf = malloc(total);
    if (!buf)
        return cm_error_nomem(err);
    memcpy(buf, NPY_MAGIC, sizeof NPY_MAGIC);
    buf[6] = 1;
    buf[7] = 0;
    store_le(buf + 8, text_len + pad, prefix - 8);
    memcpy(buf + prefix, dict, (size_t)n);
    memset(buf + prefix + n, ' ', head - 1 - prefix - (size_t)n);
    buf[head - 1] = '\n';
    for (int64_t k = 0; k < a->count; k++)
        store_le(buf + head + (size_t)k * d->size, bits_of(a, k), d->size);
    *data = (char *)buf;
    *len = total;
    return CM_OK;
}

cm_status cm_array_save_npy(const char *path, const cm_array *a, cm_error *err)
{
    char *data;
    size_t len;
    cm_status st = cm_array_to_npy(a, &data, &len, err);
    if (st != CM_OK)
        return st;
    st = cm_write_file_atomic(path, data, len, err);
    free(data);
    return st;
}

cm_status cm_array_sha256(const cm_array *a, char hex[65], cm_error *err)
{
    hex[0] = '\0';
    char *data;
    size_t len;
    cm_status st = cm_array_to_npy(a, &data, &len, err);
    if (st != CM_OK)
        return st;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    int ok = EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL);
    free(data);
    if (!ok || md_len != 32)
        return cm_error_set(err, CM_EINTERNAL, "SHA-256 failed in OpenSSL");
    for (unsigned k = 0; k < md_len; k++)
        snprintf(hex + 2 * k, 3, "%02x", md[k]);
    return CM_OK;
}

/* ---- ONNX TensorProto files (the decoding is tensor_proto.c's) ---------------- */

cm_status cm_array_load_tensor_proto(const char *path, cm_array **out, char **name,
                                     cm_error *err)
{
    *out = NULL;
    if (name)
        *name = NULL;
    void *data;
    size_t len;
    cm_status st = cm_map_file(path, &data, &len, err);
    if (st != CM_OK)
        return st;
    if (len == 0)
        return cm_error_set(err, CM_EINPUT, "%s: empty file", path);
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, data);
    cm_unmap_file(data, len); /* protobuf-c copies what it keeps */
    if (!tp)
        return cm_error_set(err, CM_EINPUT,
                            "%s: not a serialized ONNX TensorProto (truncated or corrupt)", path);
    char *dir = strdup(path);
    if (!dir) {
        onnx__tensor_proto__free_unpacked(tp, NULL);
        return cm_error_nomem(err);
    }
    char *slash = strrchr(dir, '/');
    const char *data_dir = ".";
    if (slash) {
        *slash = '\0';
        data_dir = slash == dir ? "/" : dir;
    }
    st = cm_array_from_tensor_proto(tp, data_dir, path, out, err);
    if (st == CM_OK && name && !(*name = strdup(tp->name ? tp->name : ""))) {
        cm_array_free(*out);
        *out = NULL;
        st = cm_error_nomem(err);
    }
    free(dir);
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return st;
}
