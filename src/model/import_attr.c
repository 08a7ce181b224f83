/* Access to ONNX node attributes, with the defaults the operator specs give. */
#include <stdio.h>
#include <string.h>

#include "model/import.h"

const Onnx__AttributeProto *cm_attr(const Onnx__NodeProto *node, const char *name)
{
    for (size_t i = 0; i < node->n_attribute; i++)
        if (node->attribute[i]->name && strcmp(node->attribute[i]->name, name) == 0)
            return node->attribute[i];
    return NULL;
}

int64_t cm_to_int64(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

int64_t cm_attr_int(const Onnx__NodeProto *node, const char *name, int64_t dflt)
{
    const Onnx__AttributeProto *a = cm_attr(node, name);
    if (!a)
        return dflt;
    if (a->has_i)
        return a->i;
    if (a->has_f)
        return cm_to_int64(a->f);
    return dflt;
}

double cm_attr_float(const Onnx__NodeProto *node, const char *name, double dflt)
{
    const Onnx__AttributeProto *a = cm_attr(node, name);
    if (!a)
        return dflt;
    if (a->has_f)
        return a->f;
    if (a->has_i)
        return (double)a->i;
    return dflt;
}

void cm_attr_string(const Onnx__NodeProto *node, const char *name, char *buf, size_t size)
{
    const Onnx__AttributeProto *a = cm_attr(node, name);
    buf[0] = '\0';
    if (a && a->has_s)
        snprintf(buf, size, "%.*s", (int)a->s.len, (const char *)a->s.data);
}

int cm_attr_ints(const Onnx__NodeProto *node, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = cm_attr(node, name);
    if (!a)
        return -1;
    int n = (int)(a->n_ints < (size_t)max ? a->n_ints : (size_t)max);
    for (int i = 0; i < n; i++)
        out[i] = a->ints[i];
    return a->n_ints > (size_t)max ? max + 1 : n;
}
