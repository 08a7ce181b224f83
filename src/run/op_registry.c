/* Which kernel runs which operator: the default ONNX domain, and the QONNX and FINN
 * domains whose quantisation operators the importer also reads. */
#include <string.h>

#include "run/run_internal.h"

typedef struct kernel_entry {
    const char *op_type;
    cm_run_kernel kernel;
} kernel_entry;

static const kernel_entry onnx_kernels[] = {
    {"Conv", cm_run_conv}, {"ConvInteger", cm_run_conv_integer},
    {"QLinearConv", cm_run_qlinear_conv}, {"Gemm", cm_run_gemm_op}, {"MatMul", cm_run_matmul},
    {"MatMulInteger", cm_run_matmul_integer}, {"QLinearMatMul", cm_run_qlinear_matmul},
    {"MaxPool", cm_run_max_pool}, {"AveragePool", cm_run_average_pool},
    {"GlobalAveragePool", cm_run_global_average_pool}, {"GlobalMaxPool", cm_run_global_max_pool},
    {"ReduceMean", cm_run_reduce_mean}, {"ReduceSum", cm_run_reduce_sum},
    {"ReduceL2", cm_run_reduce_l2},
    {"ReduceMax", cm_run_reduce_max}, {"Softmax", cm_run_softmax},
    {"BatchNormalization", cm_run_batch_norm}, {"LayerNormalization", cm_run_layer_norm},
    {"InstanceNormalization", cm_run_instance_norm},
    {"Resize", cm_run_resize},
    {"Upsample", cm_run_upsample},
    {"Relu", cm_run_relu}, {"Clip", cm_run_clip}, {"LeakyRelu", cm_run_leaky_relu},
    {"Sigmoid", cm_run_sigmoid}, {"HardSigmoid", cm_run_hard_sigmoid},
    {"HardSwish", cm_run_hard_swish}, {"Tanh", cm_run_tanh}, {"Exp", cm_run_exp},
    {"Sqrt", cm_run_sqrt}, {"Neg", cm_run_neg}, {"Abs", cm_run_abs}, {"Floor", cm_run_floor},
    {"Ceil", cm_run_ceil}, {"Erf", cm_run_erf}, {"Reciprocal", cm_run_reciprocal},
    {"Identity", cm_run_identity},
    {"Dropout", cm_run_dropout}, {"Cast", cm_run_cast},
    {"Add", cm_run_add}, {"Sub", cm_run_sub}, {"Mul", cm_run_mul}, {"Div", cm_run_div},
    {"Pow", cm_run_pow}, {"Equal", cm_run_equal}, {"Where", cm_run_where}, {"Min", cm_run_min},
    {"Max", cm_run_max}, {"Sum", cm_run_sum}, {"Mean", cm_run_mean},
    {"Reshape", cm_run_reshape}, {"Flatten", cm_run_flatten}, {"Squeeze", cm_run_squeeze},
    {"Unsqueeze", cm_run_unsqueeze}, {"Transpose", cm_run_transpose}, {"Concat", cm_run_concat},
    {"Split", cm_run_split},
    {"Shape", cm_run_shape}, {"Size", cm_run_size}, {"Gather", cm_run_gather},
    {"Slice", cm_run_slice},
    {"Expand", cm_run_expand}, {"ConstantOfShape", cm_run_constant_of_shape},
    {"Range", cm_run_range}, {"Constant", cm_run_constant}, {"Pad", cm_run_pad},
    {"QuantizeLinear", cm_run_quantize_linear}, {"DequantizeLinear", cm_run_dequantize_linear},
    {NULL, NULL}};

static const kernel_entry qonnx_kernels[] = {
    {"Quant", cm_run_quant}, {"IntQuant", cm_run_quant}, {"BipolarQuant", cm_run_bipolar_quant},
    {"Trunc", cm_run_trunc}, {"MultiThreshold", cm_run_multi_threshold}, {NULL, NULL}};

bool cm_run_is_qonnx_domain(const char *domain)
{
    return domain && (!strcmp(domain, "qonnx.custom_op.general") ||
                      !strcmp(domain, "onnx.brevitas") || !strcmp(domain, "finn.custom_op.general"));
}

static cm_run_kernel lookup(const kernel_entry *table, const char *op_type)
{
    for (const kernel_entry *e = table; e->op_type; e++)
        if (!strcmp(e->op_type, op_type))
            return e->kernel;
    return NULL;
}

cm_run_kernel cm_run_kernel_for(const char *domain, const char *op_type)
{
    if (!domain || !*domain || !strcmp(domain, "ai.onnx"))
        return lookup(onnx_kernels, op_type);
    if (cm_run_is_qonnx_domain(domain))
        return lookup(qonnx_kernels, op_type);
    return NULL;
}
