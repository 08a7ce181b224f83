/* ONNX conformance of the reference executor: every node test of ONNX's backend test
 * data (Debian's libonnx-testdata, /usr/include/onnx/backend/test/data/node) whose
 * operators the executor runs is run on each of its data sets, and its outputs are
 * compared with the expected ones. Tests known not to pass are listed below with the
 * reason; any other failure, and any listed test that passes, fails the run.
 *
 * usage: test_run_conformance [TEST_NAME...]   (default: every node test)
 * CM_ONNX_NODE_TESTS overrides the test data directory. Prints one line per failing
 * test, the operators that keep tests from running, the counts, and last the line
 * "N passed, N failed" that CI reads. Exits 77 (skipped) when the data is missing,
 * except under CI=true. */
#include <cnnmap/run.h>
#include <onnx/onnx.pb-c.h>

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NODE_TESTS_DIR "/usr/include/onnx/backend/test/data/node"
#define MAX_TENSORS 32

/* The operators of the default domain that the executor runs. */
static const char *const SUPPORTED[] = {
    "Conv", "Gemm", "MatMul", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
    "ReduceMean", "Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh",
    "Softmax", "BatchNormalization", "Add", "Sub", "Mul", "Div", "Concat", "Flatten", "Reshape",
    "Squeeze", "Unsqueeze", "Transpose", "Pad", "Resize", "Upsample", "Identity", "Dropout",
    "Constant", "Shape", "Gather", "Slice", "Cast", "Floor", "Ceil", "Sqrt", "Exp", "Neg", "Abs",
    "Pow", "Equal", "Where", "Expand", "ConstantOfShape", "Range", "Min", "Max", "Sum", "Mean",
    "ReduceSum", "ReduceMax", "ReduceL2", "Erf", "QuantizeLinear", "DequantizeLinear", "QLinearConv",
    "QLinearMatMul", "MatMulInteger", "ConvInteger", "LayerNormalization", "Reciprocal",
    "Size", "InstanceNormalization",
};

/* Tests of supported operators that are known not to pass, and why. */
typedef struct expected_failure {
    const char *test;
    const char *reason;
} expected_failure;

static const expected_failure EXPECTED_FAILURES[] = {
    {"test_batchnorm_epsilon_training_mode", "training-mode BatchNormalization"},
    {"test_batchnorm_example_training_mode", "training-mode BatchNormalization"},
    {"test_training_dropout", "training-mode Dropout draws random numbers"},
    {"test_training_dropout_default", "training-mode Dropout draws random numbers"},
    {"test_training_dropout_default_mask", "training-mode Dropout draws random numbers"},
    {"test_training_dropout_mask", "training-mode Dropout draws random numbers"},
    {"test_cast_DOUBLE_to_FLOAT16", "float16 tensors"},
    {"test_cast_FLOAT16_to_FLOAT", "float16 tensors"},
    {"test_castlike_FLOAT16_to_FLOAT_expanded", "float16 tensors"},
    {"test_cast_FLOAT16_to_DOUBLE", "float16 tensors"},
    {"test_cast_FLOAT_to_FLOAT16", "float16 tensors"},
    {"test_castlike_DOUBLE_to_FLOAT16_expanded", "float16 tensors"},
    {"test_castlike_FLOAT16_to_DOUBLE_expanded", "float16 tensors"},
    {"test_castlike_FLOAT_to_FLOAT16_expanded", "float16 tensors"},
    {"test_max_float16", "float16 tensors"},
    {"test_min_float16", "float16 tensors"},
    {"test_cast_BFLOAT16_to_FLOAT", "bfloat16 tensors"},
    {"test_castlike_BFLOAT16_to_FLOAT_expanded", "bfloat16 tensors"},
    {"test_cast_FLOAT_to_BFLOAT16", "bfloat16 tensors"},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", "bfloat16 tensors"},
    {"test_cast_STRING_to_FLOAT", "string tensors"},
    {"test_castlike_STRING_to_FLOAT_expanded", "string tensors"},
    {"test_cast_FLOAT_to_STRING", "string tensors"},
    {"test_castlike_FLOAT_to_STRING_expanded", "string tensors"},
    {"test_identity_opt", "optional values (not tensors)"},
    {"test_identity_sequence", "sequence values (not tensors)"},
    {"test_resize_downsample_scales_cubic", "Resize mode cubic"},
    {"test_resize_downsample_scales_cubic_A_n0p5_exclude_outside", "Resize mode cubic"},
    {"test_resize_downsample_scales_cubic_align_corners", "Resize mode cubic"},
    {"test_resize_downsample_sizes_cubic", "Resize mode cubic"},
    {"test_resize_upsample_scales_cubic", "Resize mode cubic"},
    {"test_resize_upsample_scales_cubic_A_n0p5_exclude_outside", "Resize mode cubic"},
    {"test_resize_upsample_scales_cubic_align_corners", "Resize mode cubic"},
    {"test_resize_upsample_scales_cubic_asymmetric", "Resize mode cubic"},
    {"test_resize_upsample_sizes_cubic", "Resize mode cubic"},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool op_supported(const char *domain, const char *op)
{
    if (domain && *domain && strcmp(domain, "ai.onnx") != 0)
        return false;
    for (size_t k = 0; k < COUNT_OF(SUPPORTED); k++)
        if (strcmp(SUPPORTED[k], op) == 0)
            return true;
    return false;
}

static const expected_failure *find_expected(const char *test)
{
    for (size_t k = 0; k < COUNT_OF(EXPECTED_FAILURES); k++)
        if (strcmp(EXPECTED_FAILURES[k].test, test) == 0)
            return &EXPECTED_FAILURES[k];
    return NULL;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    return strcpy(xmalloc(strlen(s) + 1), s);
}

/* dir/name into buf; paths of the test data are short, so a longer one is a bug. */
static void join_path(char *buf, size_t size, const char *dir, const char *name)
{
    int n = snprintf(buf, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        exit(1);
    }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir whose names start with prefix, sorted; NULL if dir cannot be read. */
static char **list_dir(const char *dir, const char *prefix, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 64;
    char **names = xmalloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (*n == cap) {
            cap *= 2;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                exit(1);
            names = grown;
        }
        names[(*n)++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, *n, sizeof *names, compare_names);
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free(names[k]);
    free(names);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = xmalloc((size_t)size);
        if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
            free(buf);
            buf = NULL;
        }
        *len = (size_t)size;
    }
    fclose(f);
    return buf;
}

/* Operators that keep tests from running, with how many tests each. */
typedef struct op_tally {
    char *op;
    int tests;
} op_tally;

typedef struct tallies {
    op_tally *items;
    size_t n, cap;
} tallies;

static void tally_add(tallies *t, const char *op)
{
    for (size_t k = 0; k < t->n; k++)
        if (strcmp(t->items[k].op, op) == 0) {
            t->items[k].tests++;
            return;
        }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        op_tally *grown = realloc(t->items, t->cap * sizeof *grown);
        if (!grown)
            exit(1);
        t->items = grown;
    }
    t->items[t->n++] = (op_tally){xstrdup(op), 1};
}

static int compare_tallies(const void *a, const void *b)
{
    const op_tally *x = a, *y = b;
    if (x->tests != y->tests)
        return y->tests - x->tests;
    return strcmp(x->op, y->op);
}

/* The model's operators: *ops gets a comma-separated list of them (each once), and
 * unsupported ones are added to skipped. Returns false when the model cannot be read. */
static bool model_ops(const char *path, char *ops, size_t size, tallies *skipped,
                      bool *supported)
{
    size_t len;
    uint8_t *data = read_file(path, &len);
    Onnx__ModelProto *m = data ? onnx__model_proto__unpack(NULL, len, data) : NULL;
    free(data);
    if (!m || !m->graph)
        return false;
    *supported = true;
    ops[0] = '\0';
    /* Each unsupported operator counts once per test. */
    char seen[2048] = ",";
    for (size_t k = 0; k < m->graph->n_node; k++) {
        const Onnx__NodeProto *node = m->graph->node[k];
        char name[256];
        if (node->domain && *node->domain && strcmp(node->domain, "ai.onnx") != 0)
            snprintf(name, sizeof name, "%s.%s", node->domain, node->op_type);
        else
            snprintf(name, sizeof name, "%s", node->op_type);
        char key[260];
        snprintf(key, sizeof key, ",%s,", name);
        if (strstr(seen, key))
            continue;
        size_t used = strlen(seen);
        snprintf(seen + used, sizeof seen - used, "%s,", name);
        size_t at = strlen(ops);
        snprintf(ops + at, size - at, "%s%s", at ? "," : "", name);
        if (!op_supported(node->domain, node->op_type)) {
            *supported = false;
            tally_add(skipped, name);
        }
    }
    onnx__model_proto__free_unpacked(m, NULL);
    return true;
}

/* A shape as "(2, 3)". */
static void shape_text(const cm_array *a, char *buf, size_t size)
{
    size_t at = (size_t)snprintf(buf, size, "(");
    for (int k = 0; k < a->rank && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s%" PRId64, k ? ", " : "", a->dims[k]);
    if (at < size)
        snprintf(buf + at, size - at, ")");
}

/* Flat index k of a as "[i, j, ...]". */
static void index_text(const cm_array *a, int64_t k, char *buf, size_t size)
{
    int64_t idx[CM_ARRAY_MAX_RANK];
    for (int d = a->rank - 1; d >= 0; d--) {
        idx[d] = a->dims[d] ? k % a->dims[d] : 0;
        k = a->dims[d] ? k / a->dims[d] : 0;
    }
    size_t at = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < a->rank && at < size; d++)
        at += (size_t)snprintf(buf + at, size - at, "%s%" PRId64, d ? ", " : "", idx[d]);
    if (at < size)
        snprintf(buf + at, size - at, "]");
}

static bool close_enough(double got, double want)
{
    if (got == want || (isnan(got) && isnan(want)))
        return true;
    return fabs(got - want) <= 1e-5 + 1e-3 * fabs(want);
}

/* Compares output k; on a mismatch writes why into why and returns false. */
static bool compare_output(int k, const cm_array *got, const cm_array *want, char *why,
                           size_t size)
{
    char gs[256], ws[256];
    shape_text(got, gs, sizeof gs);
    shape_text(want, ws, sizeof ws);
    if (strcmp(gs, ws) != 0) {
        snprintf(why, size, "output %d: shape %s, expected %s", k, gs, ws);
        return false;
    }
    bool got_float = cm_dtype_is_float(got->dtype), want_float = cm_dtype_is_float(want->dtype);
    if (got_float != want_float) {
        snprintf(why, size, "output %d: %s, expected %s", k, cm_dtype_name(got->dtype),
                 cm_dtype_name(want->dtype));
        return false;
    }
    for (int64_t e = 0; e < want->count; e++) {
        bool ok = want_float ? close_enough(got->f[e], want->f[e]) : got->i[e] == want->i[e];
        if (ok)
            continue;
        char idx[256];
        index_text(want, e, idx, sizeof idx);
        if (want_float)
            snprintf(why, size, "output %d: element %" PRId64 " %s is %.9g, expected %.9g", k, e,
                     idx, got->f[e], want->f[e]);
        else
            snprintf(why, size, "output %d: element %" PRId64 " %s is %" PRId64 ", expected %"
                     PRId64, k, e, idx, got->i[e], want->i[e]);
        return false;
    }
    return true;
}

/* Loads dir/PREFIX_0.pb, dir/PREFIX_1.pb, ... while they exist. */
static bool load_tensors(const char *dir, const char *prefix, cm_array **out, int *n,
                         char *why, size_t size)
{
    *n = 0;
    for (int k = 0; k < MAX_TENSORS; k++) {
        char file[64], path[4096];
        snprintf(file, sizeof file, "%s_%d.pb", prefix, k);
        join_path(path, sizeof path, dir, file);
        if (access(path, F_OK) != 0)
            break;
        cm_error err = {0};
        if (cm_array_load_tensor_proto(path, &out[k], NULL, &err) != CM_OK) {
            snprintf(why, size, "%s", err.message);
            return false;
        }
        *n = k + 1;
    }
    return true;
}

static void free_arrays(cm_array **a, int n)
{
    for (int k = 0; k < n; k++)
        cm_array_free(a[k]);
}

/* Runs one data set; on a failure writes why and returns false. */
static bool run_data_set(cm_runner *r, const char *dir, char *why, size_t size)
{
    cm_array *inputs[MAX_TENSORS] = {0}, *wants[MAX_TENSORS] = {0}, *gots[MAX_TENSORS] = {0};
    int n_in = 0, n_want = 0;
    bool ok = load_tensors(dir, "input", inputs, &n_in, why, size) &&
              load_tensors(dir, "output", wants, &n_want, why, size);
    if (ok && n_in != cm_runner_n_inputs(r)) {
        snprintf(why, size, "the model has %d inputs, the data set %d", cm_runner_n_inputs(r),
                 n_in);
        ok = false;
    }
    if (ok && n_want != cm_runner_n_outputs(r)) {
        snprintf(why, size, "the model has %d outputs, the data set %d", cm_runner_n_outputs(r),
                 n_want);
        ok = false;
    }
    if (ok) {
        cm_error err = {0};
        if (cm_runner_execute(r, (const cm_array *const *)inputs, n_in, NULL, n_want, gots,
                              &err) != CM_OK) {
            snprintf(why, size, "execute: %s", err.message);
            ok = false;
        }
        for (int k = 0; ok && k < n_want; k++)
            ok = compare_output(k, gots[k], wants[k], why, size);
    }
    free_arrays(inputs, MAX_TENSORS);
    free_arrays(wants, MAX_TENSORS);
    free_arrays(gots, MAX_TENSORS);
    return ok;
}

/* Runs every data set of a test; on a failure writes why and returns false. */
static bool run_test(const char *test_dir, char *why, size_t size)
{
    char path[4096];
    join_path(path, sizeof path, test_dir, "model.onnx");
    cm_runner *r = NULL;
    cm_error err = {0};
    if (cm_runner_load(path, &r, &err) != CM_OK) {
        snprintf(why, size, "load: %s", err.message);
        return false;
    }
    size_t n_sets;
    char **sets = list_dir(test_dir, "test_data_set_", &n_sets);
    bool ok = true;
    for (size_t k = 0; ok && k < n_sets; k++) {
        char set_dir[4096], set_why[1024];
        join_path(set_dir, sizeof set_dir, test_dir, sets[k]);
        ok = run_data_set(r, set_dir, set_why, sizeof set_why);
        if (!ok)
            snprintf(why, size, "%s: %s", sets[k], set_why);
    }
    if (ok && n_sets == 0) {
        snprintf(why, size, "no test_data_set_* directory");
        ok = false;
    }
    free_names(sets, n_sets);
    cm_runner_free(r);
    return ok;
}

typedef struct counts {
    int total, supported, passed, expected, unexpected, unexpected_passes;
} counts;

static bool selected(const char *name, int argc, char **argv)
{
    if (argc < 2)
        return true;
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], name) == 0)
            return true;
    return false;
}

static void run_one(const char *root, const char *name, counts *c, tallies *skipped)
{
    char dir[4096], model[4096], ops[1024];
    join_path(dir, sizeof dir, root, name);
    join_path(model, sizeof model, dir, "model.onnx");
    bool supported = false;
    c->total++;
    if (!model_ops(model, ops, sizeof ops, skipped, &supported)) {
        printf("FAIL %s: cannot read %s\n", name, model);
        c->supported++;
        c->unexpected++;
        return;
    }
    if (!supported)
        return;
    c->supported++;
    const expected_failure *xf = find_expected(name);
    char why[1200] = "";
    bool ok = run_test(dir, why, sizeof why);
    if (ok && !xf) {
        c->passed++;
    } else if (ok) {
        c->unexpected_passes++;
        printf("XPASS %s [%s]: passes, but is listed as an expected failure (%s)\n", name, ops,
               xf->reason);
    } else if (xf) {
        c->expected++;
        printf("expected failure %s [%s]: %s (%s)\n", name, ops, xf->reason, why);
    } else {
        c->unexpected++;
        printf("FAIL %s [%s]: %s\n", name, ops, why);
    }
}

int main(int argc, char **argv)
{
    const char *root = getenv("CM_ONNX_NODE_TESTS");
    if (!root || !*root)
        root = NODE_TESTS_DIR;
    size_t n_tests;
    char **tests = list_dir(root, "test_", &n_tests);
    if (!tests || n_tests == 0) {
        free_names(tests, n_tests);
        const char *ci = getenv("CI");
        printf("%s: no ONNX node tests (install libonnx-testdata)\n", root);
        if (ci && strcmp(ci, "true") == 0) {
            printf("0 passed, 1 failed\n");
            return 1;
        }
        return 77;
    }
    counts c = {0};
    tallies skipped = {0};
    for (size_t k = 0; k < n_tests; k++)
        if (selected(tests[k], argc, argv))
            run_one(root, tests[k], &c, &skipped);
    free_names(tests, n_tests);

    if (skipped.n) /* items is NULL when every selected test ran */
        qsort(skipped.items, skipped.n, sizeof *skipped.items, compare_tallies);
    printf("operators not supported (node tests using each):\n");
    for (size_t k = 0; k < skipped.n; k++) {
        printf("  %s %d\n", skipped.items[k].op, skipped.items[k].tests);
        free(skipped.items[k].op);
    }
    free(skipped.items);
    printf("node tests: %d\n", c.total);
    printf("tests whose operators are all supported: %d\n", c.supported);
    printf("passed: %d\n", c.passed);
    printf("expected failures: %d\n", c.expected);
    printf("unexpected failures: %d\n", c.unexpected);
    printf("unexpected passes (listed as expected failures): %d\n", c.unexpected_passes);
    int failed = c.unexpected + c.unexpected_passes;
    printf("%d passed, %d failed\n", c.passed, failed);
    return failed ? 1 : 0;
}
