/* Decoding of ONNX TensorProto data (raw bytes, typed fields, external files) into
 * the executor's arrays: floats as doubles, integers and booleans as int64. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_internal.h"

static size_t element_size(int type)
{
    switch (type) {
    case CM_DTYPE_UINT8: case CM_DTYPE_INT8: case CM_DTYPE_BOOL: return 1;
    case CM_DTYPE_UINT16: case CM_DTYPE_INT16: return 2;
    case CM_DTYPE_FLOAT32: case CM_DTYPE_INT32: case CM_DTYPE_UINT32: return 4;
    case CM_DTYPE_INT64: case CM_DTYPE_FLOAT64: case CM_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

static void raw_element(const uint8_t *p, int type, int64_t k, cm_array *a)
{
    size_t size = element_size(type);
    union { uint8_t b[8]; float f; double d; int8_t i8; uint16_t u16; int16_t i16;
            int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; } u;
    memcpy(u.b, p + (size_t)k * size, size);
    switch (type) {
    case CM_DTYPE_FLOAT32: a->f[k] = u.f; break;
    case CM_DTYPE_FLOAT64: a->f[k] = u.d; break;
    case CM_DTYPE_UINT8: a->i[k] = u.b[0]; break;
    case CM_DTYPE_BOOL: a->i[k] = u.b[0] != 0; break;
    case CM_DTYPE_INT8: a->i[k] = u.i8; break;
    case CM_DTYPE_UINT16: a->i[k] = u.u16; break;
    case CM_DTYPE_INT16: a->i[k] = u.i16; break;
    case CM_DTYPE_INT32: a->i[k] = u.i32; break;
    case CM_DTYPE_UINT32: a->i[k] = u.u32; break;
    case CM_DTYPE_INT64: a->i[k] = u.i64; break;
    default: a->i[k] = (int64_t)u.u64; break;
    }
}

/* Typed fields per onnx.proto: narrow integers and bools in int32_data, uint32/uint64
 * in uint64_data. */
static size_t typed_count(const Onnx__TensorProto *tp)
{
    switch (tp->data_type) {
    case CM_DTYPE_FLOAT32: return tp->n_float_data;
    case CM_DTYPE_FLOAT64: return tp->n_double_data;
    case CM_DTYPE_INT64: return tp->n_int64_data;
    case CM_DTYPE_UINT32: case CM_DTYPE_UINT64: return tp->n_uint64_data;
    default: return tp->n_int32_data;
    }
}

static void typed_element(const Onnx__TensorProto *tp, int64_t k, cm_array *a)
{
    switch (tp->data_type) {
    case CM_DTYPE_FLOAT32: a->f[k] = tp->float_data[k]; break;
    case CM_DTYPE_FLOAT64: a->f[k] = tp->double_data[k]; break;
    case CM_DTYPE_INT64: a->i[k] = tp->int64_data[k]; break;
    case CM_DTYPE_UINT32: case CM_DTYPE_UINT64: a->i[k] = (int64_t)tp->uint64_data[k]; break;
    default: a->i[k] = cm_run_wrap_int((cm_dtype)tp->data_type, tp->int32_data[k]); break;
    }
}

static const char *external_field(const Onnx__TensorProto *tp, const char *key)
{
    for (size_t k = 0; k < tp->n_external_data; k++)
        if (tp->external_data[k]->key && strcmp(tp->external_data[k]->key, key) == 0)
            return tp->external_data[k]->value;
    return NULL;
}

static cm_status read_external(const Onnx__TensorProto *tp, const char *dir, const char *origin,
                               size_t need, uint8_t **bytes, cm_error *err)
{
    const char *name = tp->name ? tp->name : "";
    const char *location = external_field(tp, "location");
    const char *offset_s = external_field(tp, "offset");
    if (!location || !*location || strstr(location, ".."))
        return cm_error_set(err, CM_EINPUT, "%s: tensor '%s': external data has no usable location",
                            origin, name);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", location);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cm_error_set(err, CM_EINPUT, "%s: tensor '%s': cannot open external data %s: %s",
                            origin, name, path, strerror(errno));
    long offset = offset_s ? strtol(offset_s, NULL, 10) : 0;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    bool fits = offset >= 0 && size >= offset && (unsigned long)(size - offset) >= need &&
                fseek(f, offset, SEEK_SET) == 0;
    uint8_t *buf = fits ? malloc(need ? need : 1) : NULL;
    cm_status st = CM_OK;
    if (fits && !buf)
        st = cm_error_nomem(err);
    else if (!fits || fread(buf, 1, need, f) != need)
        st = cm_error_set(err, CM_EINPUT, "%s: tensor '%s': external file %s is shorter than "
                          "offset %ld + %zu bytes", origin, name, path, offset, need);
    fclose(f);
    if (st != CM_OK)
        free(buf);
    else
        *bytes = buf;
    return st;
}

cm_status cm_array_from_tensor_proto(const Onnx__TensorProto *tp, const char *dir,
                                     const char *origin, cm_array **out, cm_error *err)
{
    *out = NULL;
    const char *name = tp->name ? tp->name : "";
    size_t size = element_size(tp->data_type);
    if (size == 0)
        return cm_error_set(err, CM_EINPUT, "%s: tensor '%s' has data type %d, which the "
                            "executor does not run", origin, name, tp->data_type);
    if (tp->n_dims > CM_ARRAY_MAX_RANK)
        return cm_error_set(err, CM_EINPUT, "%s: tensor '%s' has rank %zu (at most %d)", origin,
                            name, tp->n_dims, CM_ARRAY_MAX_RANK);
    /* bounded as cm_array_new bounds it, on the product of the non-zero dims, so that an
     * empty tensor with huge other dims is refused here, naming the file */
    int64_t count = 1, nonzero = 1;
    for (size_t k = 0; k < tp->n_dims; k++) {
        if (tp->dims[k] < 0 || tp->dims[k] > (CM_RUN_ELEMENTS_MAX - 1) / nonzero)
            return cm_error_set(err, CM_EINPUT, "%s: tensor '%s' has dimension %lld at axis %zu",
                                origin, name, (long long)tp->dims[k], k);
        count *= tp->dims[k];
        nonzero *= tp->dims[k] > 0 ? tp->dims[k] : 1;
    }
    size_t need = (size_t)count * size;
    const uint8_t *raw = NULL;
    uint8_t *owned = NULL;
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        cm_status st = read_external(tp, dir, origin, need, &owned, err);
        if (st != CM_OK)
            return st;
        raw = owned;
    } else if (tp->has_raw_data && (tp->raw_data.len > 0 || typed_count(tp) == 0)) {
        if (tp->raw_data.len != need)
            return cm_error_set(err, CM_EINPUT, "%s: tensor '%s' holds %zu bytes where its dims "
                                "need %zu", origin, name, tp->raw_data.len, need);
        raw = tp->raw_data.data;
    } else if (typed_count(tp) != (size_t)count) {
        return cm_error_set(err, CM_EINPUT, "%s: tensor '%s' holds %zu values where its dims "
                            "need %lld", origin, name, typed_count(tp), (long long)count);
    }
    int64_t dims[CM_ARRAY_MAX_RANK];
    for (size_t k = 0; k < tp->n_dims; k++)
        dims[k] = tp->dims[k];
    cm_array *a;
    cm_status st = cm_array_new((cm_dtype)tp->data_type, (int)tp->n_dims, dims, &a, err);
    if (st != CM_OK) {
        free(owned);
        return st;
    }
    if (raw && tp->data_type == CM_DTYPE_FLOAT32) { /* weights: the bulk of a model */
        for (int64_t k = 0; k < count; k++) {
            float v;
            memcpy(&v, raw + (size_t)k * sizeof v, sizeof v);
            a->f[k] = v;
        }
    } else if (raw && tp->data_type == CM_DTYPE_INT8) { /* quantised weights */
        for (int64_t k = 0; k < count; k++)
            a->i[k] = (int8_t)raw[k];
    } else {
        for (int64_t k = 0; k < count; k++) {
            if (raw)
                raw_element(raw, tp->data_type, k, a);
            else
                typed_element(tp, k, a);
        }
    }
    free(owned);
    *out = a;
    return CM_OK;
}
