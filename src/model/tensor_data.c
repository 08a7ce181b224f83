/* Decoding of ONNX tensor data: raw bytes, typed fields and external data files, into
 * doubles (small constants) or floats (weights). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/import.h"

enum {
    DT_FLOAT = 1, DT_UINT8 = 2, DT_INT8 = 3, DT_UINT16 = 4, DT_INT16 = 5, DT_INT32 = 6,
    DT_INT64 = 7, DT_BOOL = 9, DT_FLOAT16 = 10, DT_DOUBLE = 11, DT_UINT32 = 12, DT_UINT64 = 13,
    DT_BFLOAT16 = 16
};

static size_t element_size(int type)
{
    switch (type) {
    case DT_UINT8: case DT_INT8: case DT_BOOL: return 1;
    case DT_UINT16: case DT_INT16: case DT_FLOAT16: case DT_BFLOAT16: return 2;
    case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
    case DT_INT64: case DT_DOUBLE: case DT_UINT64: return 8;
    default: return 0;
    }
}

static double half_to_double(uint16_t h)
{
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0)
        return sign * ldexp(mantissa, -24);
    if (exponent == 31)
        return mantissa ? NAN : sign * INFINITY;
    return sign * ldexp(mantissa + 1024, exponent - 25);
}

/* Element i of little-endian raw bytes of the given type. */
static double raw_element(const uint8_t *p, int type, int64_t i)
{
    size_t size = element_size(type);
    union { uint8_t b[8]; float f; double d; int8_t i8; uint16_t u16; int16_t i16;
            int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; } u;
    memcpy(u.b, p + (size_t)i * size, size);
    switch (type) {
    case DT_FLOAT: return u.f;
    case DT_DOUBLE: return u.d;
    case DT_UINT8: case DT_BOOL: return u.b[0];
    case DT_INT8: return u.i8;
    case DT_UINT16: return u.u16;
    case DT_INT16: return u.i16;
    case DT_INT32: return u.i32;
    case DT_UINT32: return u.u32;
    case DT_INT64: return (double)u.i64;
    case DT_UINT64: return (double)u.u64;
    case DT_FLOAT16: return half_to_double(u.u16);
    case DT_BFLOAT16: {
        uint32_t bits = (uint32_t)u.u16 << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    default: return 0.0;
    }
}

/* Element i from the typed repeated fields, per onnx.proto's storage rules. */
static double typed_element(const Onnx__TensorProto *tp, int64_t i)
{
    switch (tp->data_type) {
    case DT_FLOAT: return tp->float_data[i];
    case DT_DOUBLE: return tp->double_data[i];
    case DT_INT64: return (double)tp->int64_data[i];
    case DT_UINT32: case DT_UINT64: return (double)tp->uint64_data[i];
    case DT_FLOAT16: return half_to_double((uint16_t)tp->int32_data[i]);
    case DT_BFLOAT16: { /* the upper half of a float32, stored as int32 like float16 */
        uint32_t bits = (uint32_t)(uint16_t)tp->int32_data[i] << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    default: return tp->int32_data[i];
    }
}

static size_t typed_count(const Onnx__TensorProto *tp)
{
    switch (tp->data_type) {
    case DT_FLOAT: return tp->n_float_data;
    case DT_DOUBLE: return tp->n_double_data;
    case DT_INT64: return tp->n_int64_data;
    case DT_UINT32: case DT_UINT64: return tp->n_uint64_data;
    default: return tp->n_int32_data;
    }
}

static const char *external_field(const Onnx__TensorProto *tp, const char *key)
{
    for (size_t i = 0; i < tp->n_external_data; i++)
        if (tp->external_data[i]->key && strcmp(tp->external_data[i]->key, key) == 0)
            return tp->external_data[i]->value;
    return NULL;
}

/* Reads an external tensor's bytes; *bytes stays NULL when its file is absent. */
static cm_status read_external(cm_import *im, const Onnx__TensorProto *tp, size_t need,
                               uint8_t **bytes)
{
    *bytes = NULL;
    const char *location = external_field(tp, "location");
    const char *offset_s = external_field(tp, "offset");
    if (!location || !*location)
        return cm_error_set(im->err, CM_EINPUT, "%s: initializer '%s': external data has no location",
                            im->origin, tp->name ? tp->name : "");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", im->dir, location);
    FILE *f = fopen(path, "rb");
    if (!f)
        return CM_OK;
    long offset = offset_s ? strtol(offset_s, NULL, 10) : 0;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    /* The file must hold the bytes before we allocate for them. */
    bool fits = offset >= 0 && size >= offset && (unsigned long)(size - offset) >= need &&
                fseek(f, offset, SEEK_SET) == 0;
    uint8_t *buf = fits ? malloc(need ? need : 1) : NULL;
    cm_status st = CM_OK;
    if (fits && !buf)
        st = cm_error_nomem(im->err);
    else if (!fits || fread(buf, 1, need, f) != need)
        st = cm_error_set(im->err, CM_EINPUT, "%s: initializer '%s': external file %s is shorter "
                          "than offset %ld + %zu bytes", im->origin, tp->name ? tp->name : "",
                          path, offset, need);
    fclose(f);
    if (st != CM_OK)
        free(buf);
    else
        *bytes = buf;
    return st;
}

typedef struct tensor_source {
    const Onnx__TensorProto *tp;
    const uint8_t *raw; /* little-endian bytes, or NULL for typed fields */
    uint8_t *owned;     /* external bytes we read */
    bool absent;
} tensor_source;

static cm_status open_source(cm_import *im, const Onnx__TensorProto *tp, int64_t count,
                             tensor_source *src)
{
    memset(src, 0, sizeof *src);
    src->tp = tp;
    size_t size = element_size(tp->data_type);
    if (size == 0)
        return cm_error_set(im->err, CM_EINPUT, "%s: tensor '%s' has unsupported data type %d",
                            im->origin, tp->name ? tp->name : "", tp->data_type);
    size_t need = (size_t)count * size;
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        cm_status st = read_external(im, tp, need, &src->owned);
        src->raw = src->owned;
        src->absent = src->owned == NULL;
        return st;
    }
    if (tp->has_raw_data && tp->raw_data.len > 0) {
        if (tp->raw_data.len != need)
            return cm_error_set(im->err, CM_EINPUT,
                                "%s: tensor '%s' holds %zu bytes of data where its dims need %zu",
                                im->origin, tp->name ? tp->name : "", tp->raw_data.len, need);
        src->raw = tp->raw_data.data;
        return CM_OK;
    }
    size_t have = typed_count(tp);
    if (have != (size_t)count)
        return cm_error_set(im->err, CM_EINPUT,
                            "%s: tensor '%s' holds %zu values where its dims need %lld",
                            im->origin, tp->name ? tp->name : "", have, (long long)count);
    return CM_OK;
}

static double source_element(const tensor_source *src, int64_t i)
{
    return src->raw ? raw_element(src->raw, src->tp->data_type, i) : typed_element(src->tp, i);
}

cm_status cm_tensor_decode_values(cm_import *im, cm_tensor *t)
{
    if (!t->proto || t->count > CM_CONST_VALUES_MAX)
        return CM_OK;
    tensor_source src;
    cm_status st = open_source(im, t->proto, t->count, &src);
    if (st != CM_OK || src.absent) {
        t->data_absent = src.absent;
        return st;
    }
    t->values = malloc((size_t)t->count * sizeof *t->values);
    if (!t->values) {
        free(src.owned);
        return cm_error_nomem(im->err);
    }
    for (int64_t i = 0; i < t->count; i++)
        t->values[i] = source_element(&src, i);
    free(src.owned);
    return CM_OK;
}

cm_status cm_tensor_read_floats(cm_import *im, const cm_tensor *t, float **out)
{
    *out = NULL;
    if (t->data_absent || (!t->proto && !t->values))
        return CM_OK;
    tensor_source src = {0};
    if (!t->values) {
        /* Opened first: the file must hold the data before we allocate for it. */
        cm_status st = open_source(im, t->proto, t->count, &src);
        if (st != CM_OK || src.absent)
            return st;
    }
    float *dst = malloc((size_t)t->count * sizeof *dst);
    if (!dst) {
        free(src.owned);
        return cm_error_nomem(im->err);
    }
    if (t->values)
        for (int64_t i = 0; i < t->count; i++)
            dst[i] = (float)t->values[i];
    else if (src.raw && t->proto->data_type == DT_FLOAT)
        memcpy(dst, src.raw, (size_t)t->count * sizeof *dst);
    else if (src.raw && t->proto->data_type == DT_INT8) /* quantised weights */
        for (int64_t i = 0; i < t->count; i++)
            dst[i] = (float)(int8_t)src.raw[i];
    else
        for (int64_t i = 0; i < t->count; i++)
            dst[i] = (float)source_element(&src, i);
    free(src.owned);
    *out = dst;
    return CM_OK;
}
