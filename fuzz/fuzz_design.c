/* libFuzzer target for design files (issue 19): any bytes, written as a design file in a
 * folder beside the test models (so that a relative "model_path" finds them), must load
 * or be refused with one line naming the file, never crash, leak or hit undefined
 * behaviour; a streaming design that loads is checked, summarised and exported to every
 * format it takes, and an nn2FPGA design has its skip FIFOs sized by the load. */
#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/export.h>
#include <cnnmap/nn2fpga.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fuzzing folder: set once at start-up (libFuzzer's harness state). */
static char folder[PATH_MAX];

static void link_model(const char *dir, const char *name)
{
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "%s/%s", dir, name);
    snprintf(to, sizeof to, "%s/%s", folder, name);
    if (access(from, R_OK) == 0 && symlink(from, to) != 0)
        perror(to);
}

static const char *const folder_files[] = {"cifar10_quick.onnx", "resnet8_a8w8b16.onnx",
                                           "lenet.onnx", "design.json", "export.out"};

static void remove_folder(void)
{
    for (size_t i = 0; i < sizeof folder_files / sizeof *folder_files; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", folder, folder_files[i]);
        unlink(p);
    }
    rmdir(folder);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(folder, sizeof folder, "%s/cm-fuzz-design-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(folder)) {
        perror(folder);
        abort();
    }
    link_model(CM_FUZZ_BUNDLED_MODELS, "cifar10_quick.onnx");
    link_model(CM_FUZZ_SHARED_MODELS, "resnet8_a8w8b16.onnx");
    link_model(CM_FUZZ_SHARED_MODELS, "lenet.onnx");
    atexit(remove_folder);
    return 0;
}

static void check_refusal(cm_status st, const cm_error *err, const char *path)
{
    if (st != CM_EINPUT && st != CM_EINFEASIBLE && st != CM_EUSAGE) {
        fprintf(stderr, "status %d: %s\n", (int)st, err->message);
        abort();
    }
    if (err->message[0] == '\0' || strchr(err->message, '\n') || !strstr(err->message, path)) {
        fprintf(stderr, "message does not name the file in one line: \"%s\"\n", err->message);
        abort();
    }
}

static void exercise_streaming(const cm_design *d)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    cm_violation v[4];
    cm_design_check(d, v, 4);
    for (int f = 0; f < CM_EXPORT_COUNT; f++) {
        char out[PATH_MAX];
        snprintf(out, sizeof out, "%s/export.out", folder);
        cm_error err = {0};
        cm_status st = cm_export(d, (cm_export_format)f, out, &err);
        if (st != CM_OK && st != CM_EUSAGE && st != CM_EINPUT) {
            fprintf(stderr, "export %s: status %d: %s\n", cm_export_format_name((cm_export_format)f),
                    (int)st, err.message);
            abort();
        }
        unlink(out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/design.json", folder);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    cm_error err = {0};
    if (cm_nn2fpga_is_design_file(path)) {
        cm_nn2fpga_design d;
        cm_status st = cm_nn2fpga_design_load(path, &d, &err);
        if (st == CM_OK)
            cm_nn2fpga_design_free(&d);
        else
            check_refusal(st, &err, path);
        return 0;
    }
    cm_design *d = NULL;
    cm_design_run run;
    cm_status st = cm_design_load(path, &d, &run, &err);
    if (st != CM_OK) {
        check_refusal(st, &err, path);
        return 0;
    }
    exercise_streaming(d);
    cm_design_free(d);
    return 0;
}
