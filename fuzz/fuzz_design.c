/* libFuzzer target for design files of every architecture (issue 19): any bytes, written
 * as a design file in a folder beside the test models (so that a relative "model_path"
 * finds them), must load or be refused with one line naming the file, never crash, leak
 * or hit undefined behaviour. A design that loads is exported to every format its
 * architecture takes: a streaming design is also checked and summarised, an nn2FPGA
 * design has its skip FIFOs sized by the load, a latency-driven design is costed again
 * from its point, an overlay design from its mapping, a multi design from its engines
 * and schedule. */
#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/export.h>
#include <cnnmap/latency.h>
#include <cnnmap/map.h>
#include <cnnmap/multi.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/overlay.h>
#include <cnnmap/simulate.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fuzz_simulate is this file built with CM_FUZZ_SIMULATE=1 */
#ifndef CM_FUZZ_SIMULATE
#define CM_FUZZ_SIMULATE 0
#endif

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

/* An exporter's failure must be a refusal or bad input, never an internal error. */
static void check_export(cm_status st, const cm_error *err, const char *what)
{
    if (st != CM_OK && st != CM_EUSAGE && st != CM_EINPUT && st != CM_EINFEASIBLE) {
        fprintf(stderr, "export %s: status %d: %s\n", what, (int)st, err->message);
        abort();
    }
}

static void exercise_latency(const char *path, const char *out)
{
    cm_error err = {0};
    cm_latency_file f;
    cm_status st = cm_latency_design_load(path, &f, &err);
    if (st != CM_OK) {
        check_refusal(st, &err, path);
        return;
    }
    check_export(cm_latency_export_report_md(&f, out, &err), &err, "latency report-md");
    check_export(cm_latency_export_fpgaconvnet(&f, out, &err), &err, "latency fpgaconvnet");
    cm_latency_file_free(&f);
}

static void exercise_overlay(const char *path, const char *out)
{
    cm_error err = {0};
    cm_overlay_design d;
    cm_status st = cm_overlay_design_load(path, &d, &err);
    if (st != CM_OK) {
        check_refusal(st, &err, path);
        return;
    }
    check_export(cm_overlay_export_md(&d, out, &err), &err, "overlay report-md");
    cm_overlay_design_free(&d);
}

static void exercise_multi(const char *path)
{
    /* the loader only: exporting a version 1 file would map its inputs (a search) */
    cm_error err = {0};
    cm_multi_result *r = NULL;
    cm_status st = cm_multi_design_load(path, &r, &err);
    if (st != CM_OK)
        check_refusal(st, &err, path);
    cm_multi_result_free(r);
}

static void exercise_nn2fpga(const char *path, const char *out)
{
    cm_error err = {0};
    cm_status st = cm_export_nn2fpga_file(path, "report-md", out, &err);
    if (st != CM_OK)
        check_refusal(st, &err, path);
}

static void exercise_file(const char *path, const char *out)
{
    cm_error err = {0};
    cm_design *d = NULL;
    cm_design_run run;
    cm_status st = cm_design_load(path, &d, &run, &err);
    if (st != CM_OK) {
        check_refusal(st, &err, path);
        return;
    }
    exercise_streaming(d);
    cm_design_free(d);
    /* fpgaConvNet's latency objective: the latency-driven alternative it records */
    if (cm_latency_is_choice_file(path)) {
        cm_latency_choice c;
        cm_design *p = NULL;
        st = cm_latency_choice_load(path, &p, &run, &c, &err);
        if (st == CM_OK) {
            cm_latency_choice_free(&c);
            cm_design_free(p);
        } else {
            check_refusal(st, &err, path);
        }
    }
    (void)out;
}

/* fuzz_simulate (this file built with CM_FUZZ_SIMULATE) simulates each design instead
 * (two frames, a bounded number of iterations): a deadlock is an answer, anything else
 * must be a refusal naming the file. */
static void exercise_simulate(const char *path)
{
    cm_sim_options o;
    cm_sim_options_init(&o);
    o.frames = 2;
    o.max_iterations = 200000; /* a big batch is slow under the sanitizers, not wrong */
    cm_sim_result r;
    cm_error err = {0};
    cm_status st = cm_simulate(path, &o, &r, &err);
    if (st == CM_OK)
        cm_sim_result_free(&r);
    else
        check_refusal(st, &err, path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[PATH_MAX], out[PATH_MAX];
    snprintf(path, sizeof path, "%s/design.json", folder);
    snprintf(out, sizeof out, "%s/export.out", folder);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    cm_error err = {0};
    cm_architecture arch = CM_ARCH_STREAMING;
    cm_design_file_architecture(path, &arch, &err);
    if (CM_FUZZ_SIMULATE) {
        if (arch != CM_ARCH_OVERLAY && arch != CM_ARCH_MULTI)
            exercise_simulate(path);
    } else {
        switch (arch) {
        case CM_ARCH_LATENCY_DRIVEN: exercise_latency(path, out); break;
        case CM_ARCH_OVERLAY: exercise_overlay(path, out); break;
        case CM_ARCH_MULTI: exercise_multi(path); break;
        case CM_ARCH_NN2FPGA: exercise_nn2fpga(path, out); break;
        default: exercise_file(path, out); break;
        }
    }
    unlink(out);
    return 0;
}
