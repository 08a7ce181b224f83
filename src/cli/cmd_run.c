/* `cnnmap run MODEL --input X.npy -o Y.npy`: executes a network with the reference
 * executor and writes its output. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/run.h>

#include "cli/cli.h"
#include "util/progress.h"

const char cm_cli_run_usage[] =
    "usage: cnnmap run MODEL --input X.npy [--input ...] -o Y.npy [--output NAME] [--json]\n"
    "                  [--quiet]\n\n"
    "Executes an ONNX or QONNX model on the CPU, exactly as the file says, and writes its\n"
    "output as a numpy .npy file. The first dimension of every input is the batch: each\n"
    "frame runs on its own, so a frame's output never depends on its batch. Float models\n"
    "compute in float32; QONNX models compute in float64, so that power-of-two scales are\n"
    "exact; QuantizeLinear/QLinearConv models compute their integers exactly.\n\n"
    "  --input X.npy   the input (numpy .npy, little-endian, C order), once per graph input\n"
    "                  in the model's order\n"
    "  -o Y.npy        where the output goes (written whole or not at all); optional with --json\n"
    "  --output NAME   write this tensor of the graph instead of the first graph output\n"
    "  --json          print {model, input_shape, output_shape, time_s, output_sha256}\n"
    "  --quiet         no progress bar\n";

typedef struct run_args {
    const char *model, *out, *output_name;
    const char *inputs[64];
    int n_inputs;
    bool json, quiet;
} run_args;

static int parse(int argc, char **argv, run_args *a)
{
    static const struct option options[] = {
        {"input", required_argument, NULL, 'i'}, {"output", required_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (a->n_inputs == 64)
                return cm_cli_usage_error("run", "at most 64 inputs");
            a->inputs[a->n_inputs++] = optarg;
            break;
        case 'n': a->output_name = optarg; break;
        case 'o': a->out = optarg; break;
        case 'j': a->json = true; break;
        case 'q': a->quiet = true; break;
        case ':': return cm_cli_usage_error("run", "'%s' needs a value", argv[optind - 1]);
        default: return cm_cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cm_cli_usage_error("run", optind >= argc ? "a model file is required"
                                                         : "one model file, not several");
    a->model = argv[optind];
    if (a->n_inputs == 0)
        return cm_cli_usage_error("run", "--input is required");
    if (!a->out && !a->json)
        return cm_cli_usage_error("run", "-o is required (or --json to print only the digest)");
    if (a->out && !*a->out)
        return cm_cli_usage_error("run", "-o needs a file name");
    return CM_OK;
}

static void show_progress(void *user, int64_t done, int64_t frames)
{
    char detail[64];
    snprintf(detail, sizeof detail, "frame %lld of %lld", (long long)done, (long long)frames);
    cm_progress_update(user, (double)done / (double)frames, detail);
}

static json_t *dims_json(const cm_array *a)
{
    json_t *j = json_array();
    for (int k = 0; k < a->rank; k++)
        json_array_append_new(j, json_integer(a->dims[k]));
    return j;
}

static void print_dims(const cm_array *a)
{
    printf("[");
    for (int k = 0; k < a->rank; k++)
        printf("%s%lld", k ? ", " : "", (long long)a->dims[k]);
    printf("]");
}

static int report(const run_args *a, const cm_array *x, const cm_array *y, double seconds)
{
    char digest[65];
    cm_error err = {0};
    if (cm_array_sha256(y, digest, &err) != CM_OK)
        return cm_cli_fail(&err);
    if (a->json)
        return cm_cli_print_json(json_pack("{s:s, s:o, s:o, s:s, s:f, s:s}", "model", a->model,
                                           "input_shape", dims_json(x), "output_shape",
                                           dims_json(y), "output_dtype", cm_dtype_name(y->dtype),
                                           "time_s", seconds, "output_sha256", digest));
    int64_t frames = x->rank ? x->dims[0] : 1;
    printf("model    %s\ninput    ", a->model);
    print_dims(x);
    printf(" %s\noutput   ", cm_dtype_name(x->dtype));
    print_dims(y);
    printf(" %s -> %s\ntime     %.3f s (%.3f ms per frame)\nsha256   %s\n",
           cm_dtype_name(y->dtype), a->out, seconds, 1e3 * seconds / (double)frames, digest);
    return CM_OK;
}

int cm_cli_run(int argc, char **argv)
{
    run_args a;
    int rc = parse(argc, argv, &a);
    if (rc != CM_OK)
        return rc;
    /* Every frame allocates the same large tensors: keeping freed memory in the heap
     * instead of returning it to the system spares a page fault per touched page. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    cm_error err = {0};
    cm_runner *r = NULL;
    cm_array *x[64] = {0}, *y = NULL;
    cm_status st = cm_runner_load(a.model, &r, &err);
    for (int k = 0; k < a.n_inputs && st == CM_OK; k++)
        st = cm_array_load_npy(a.inputs[k], &x[k], &err);
    double start = cm_seconds_now();
    if (st == CM_OK) {
        cm_progress bar;
        cm_progress_init(&bar, !a.quiet && isatty(STDERR_FILENO), "run");
        st = cm_runner_run_batch(r, (const cm_array *const *)x, a.n_inputs, a.output_name, &y,
                                 show_progress, &bar, &err);
        cm_progress_done(&bar);
        /* Shape and type mismatches are the input file's fault: name it. */
        if (st == CM_EINPUT && strncmp(err.message, a.model, strlen(a.model)) != 0)
            cm_error_prefix(&err, a.inputs[0]);
    }
    double seconds = cm_seconds_now() - start;
    if (st == CM_OK && a.out)
        st = cm_array_save_npy(a.out, y, &err);
    rc = st == CM_OK ? report(&a, x[0], y, seconds) : cm_cli_fail(&err);
    cm_array_free(y);
    for (int k = 0; k < a.n_inputs; k++)
        cm_array_free(x[k]);
    cm_runner_free(r);
    return rc;
}
