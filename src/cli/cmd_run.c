/* `cnnmap run MODEL --input X.npy -o Y.npy`: executes a network with the reference
 * executor and writes its output. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/run.h>

#include "cli/cli.h"
#include "run/run_report.h"
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

/* The job's strings (model, inputs, output), and the flags that only the CLI has. */
typedef struct run_args {
    cm_run_job job;
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
            if (a->job.n_inputs == CM_RUN_MAX_INPUTS)
                return cm_cli_usage_error("run", "at most 64 inputs");
            a->job.inputs[a->job.n_inputs++] = optarg;
            break;
        case 'n': a->job.output_name = optarg; break;
        case 'o': a->job.out = optarg; break;
        case 'j': a->json = true; break;
        case 'q': a->quiet = true; break;
        case ':': return cm_cli_usage_error("run", "'%s' needs a value", argv[optind - 1]);
        default: return cm_cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cm_cli_usage_error("run", optind >= argc ? "a model file is required"
                                                         : "one model file, not several");
    a->job.model = argv[optind];
    if (a->job.n_inputs == 0)
        return cm_cli_usage_error("run", "--input is required");
    if (!a->job.out && !a->json)
        return cm_cli_usage_error("run", "-o is required (or --json to print only the digest)");
    if (a->job.out && !*a->job.out)
        return cm_cli_usage_error("run", "-o needs a file name");
    return CM_OK;
}

static void show_progress(void *user, int64_t done, int64_t frames)
{
    char detail[64];
    snprintf(detail, sizeof detail, "frame %lld of %lld", (long long)done, (long long)frames);
    cm_progress_update(user, (double)done / (double)frames, detail);
}

static void print_dims(const cm_array *a)
{
    printf("[");
    for (int k = 0; k < a->rank; k++)
        printf("%s%lld", k ? ", " : "", (long long)a->dims[k]);
    printf("]");
}

static int report(const run_args *a)
{
    const cm_run_job *j = &a->job;
    if (a->json)
        return cm_cli_print_json(cm_run_job_json(j));
    const cm_array *x = j->x[0], *y = j->y;
    int64_t frames = x->rank ? x->dims[0] : 1;
    printf("model    %s\ninput    ", j->model);
    print_dims(x);
    printf(" %s\noutput   ", cm_dtype_name(x->dtype));
    print_dims(y);
    printf(" %s -> %s\ntime     %.3f s (%.3f ms per frame)\nsha256   %s\n",
           cm_dtype_name(y->dtype), j->out, j->seconds, 1e3 * j->seconds / (double)frames,
           j->digest);
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
    cm_status st = cm_run_job_load(&a.job, &err);
    if (st == CM_OK) {
        cm_progress bar;
        cm_progress_init(&bar, !a.quiet && isatty(STDERR_FILENO), "run");
        st = cm_run_job_execute(&a.job, show_progress, &bar, &err);
        cm_progress_done(&bar);
    }
    rc = st == CM_OK ? cm_cli_printed(report(&a), a.job.out) : cm_cli_fail(&err);
    cm_run_job_free(&a.job);
    return rc;
}
