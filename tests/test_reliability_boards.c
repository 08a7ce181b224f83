/* Regression tests of issue 21's board and output-file findings: board values outside
 * their documented ranges (board.h) are refused naming the field and the range;
 * resource sums saturate instead of overflowing; a figure that is not finite fails the
 * design's JSON instead of silently dropping its key; design files that are missing or
 * are nn2FPGA reports are named as such; output files are never partial, never replace
 * a read-only file or a directory, and keep the permissions of the file they replace. */
#include <cnnmap/board.h>
#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/model.h>

#include "design/design_json.h"
#include "test_support.h"
#include "util/atomic_file.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
}

/* The ZC706's file with one value replaced by raw JSON text. */
static char *zc706_with(const char *key, const char *raw)
{
    char text[1024];
    const char *res = strncmp(key, "resources.", 10) == 0 ? key + 10 : NULL;
    char r[5][32] = {"218600", "437200", "900", "1090", "0"};
    const char *rk[5] = {"LUT", "FF", "DSP", "BRAM", "URAM"};
    char clock[32] = "125.0", bw[32] = "3.8", peak[32] = "8.5", reconf[32] = "0.6";
    for (int i = 0; i < 5; i++)
        if (res && strcmp(res, rk[i]) == 0)
            snprintf(r[i], sizeof r[i], "%s", raw);
    if (strcmp(key, "clock_mhz") == 0)
        snprintf(clock, sizeof clock, "%s", raw);
    if (strcmp(key, "bandwidth_gbps") == 0)
        snprintf(bw, sizeof bw, "%s", raw);
    if (strcmp(key, "peak_bandwidth_gbps") == 0)
        snprintf(peak, sizeof peak, "%s", raw);
    if (strcmp(key, "reconfiguration_s") == 0)
        snprintf(reconf, sizeof reconf, "%s", raw);
    snprintf(text, sizeof text,
             "{\"name\": \"edge\", \"display_name\": \"Edge\", \"part\": \"x\", \"memory\": \"x\","
             " \"resources\": {\"LUT\": %s, \"FF\": %s, \"DSP\": %s, \"BRAM\": %s, \"URAM\": %s},"
             " \"bram_unit\": \"BRAM18\", \"clock_mhz\": %s, \"bandwidth_gbps\": %s,"
             " \"peak_bandwidth_gbps\": %s, \"reconfiguration_s\": %s,"
             " \"reconfiguration_estimated\": true}",
             r[0], r[1], r[2], r[3], r[4], clock, bw, peak, reconf);
    char *copy = strdup(text);
    assert_non_null(copy);
    return copy;
}

/* Loads the variant from a file and expects CM_EINPUT with one line naming the file,
 * the field and `range` (the documented range as the message states it). */
static void expect_refused(const char *key, const char *raw, const char *range)
{
    char *text = zc706_with(key, raw);
    char path[256];
    cm_test_write_temp(text, strlen(text), ".json", path, sizeof path);
    free(text);
    cm_board b;
    cm_error err = {0};
    cm_status st = cm_board_load_file(path, &b, &err);
    unlink(path);
    if (st != CM_EINPUT)
        fail_msg("%s = %s: expected CM_EINPUT, got %d (%s)", key, raw, (int)st, err.message);
    assert_contains(err.message, path);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    assert_contains(err.message, quoted);
    assert_contains(err.message, range);
    assert_null(strchr(err.message, '\n'));
}

static void expect_accepted(const char *key, const char *raw, cm_board *b)
{
    char *text = zc706_with(key, raw);
    cm_error err = {0};
    cm_status st = cm_board_parse(text, strlen(text), "edge", b, &err);
    free(text);
    if (st != CM_OK)
        fail_msg("%s = %s: refused: %s", key, raw, err.message);
    assert_int_equal(cm_board_validate(b, "edge", &err), CM_OK);
}

/* The two values of issue 21 and the edges of every range. */
static void test_board_ranges(void **state)
{
    (void)state;
    cm_board b;
    expect_refused("clock_mhz", "1e308", "from 1 to 2000 (MHz)");
    expect_refused("clock_mhz", "2000.001", "from 1 to 2000 (MHz)");
    expect_refused("clock_mhz", "0.999", "from 1 to 2000 (MHz)");
    expect_accepted("clock_mhz", "2000", &b);
    assert_true(b.clock_mhz == 2000.0);
    expect_accepted("clock_mhz", "1", &b);
    expect_refused("reconfiguration_s", "1e308", "from 0 to 1000 (seconds)");
    expect_refused("reconfiguration_s", "1000.5", "from 0 to 1000 (seconds)");
    expect_accepted("reconfiguration_s", "1000", &b);
    assert_true(b.reconfiguration_s == 1000.0);
    expect_accepted("reconfiguration_s", "0", &b);
    expect_refused("peak_bandwidth_gbps", "1e308", "from 0.001 to 10000 (GB/s)");
    expect_refused("peak_bandwidth_gbps", "10001", "from 0.001 to 10000 (GB/s)");
    expect_refused("bandwidth_gbps", "0.0009", "from 0.001 to 10000 (GB/s)");
    expect_accepted("peak_bandwidth_gbps", "10000", &b);
    expect_refused("bandwidth_gbps", "1e-300", "from 0.001 to 10000 (GB/s)");
    expect_accepted("bandwidth_gbps", "0.001", &b);

    expect_refused("resources.LUT", "1099511627776", "less than 2^40");
    expect_refused("resources.DSP", "9223372036854775807", "less than 2^40");
    expect_refused("resources.URAM", "1099511627776", "less than 2^40");
    expect_refused("resources.FF", "0", "greater than 0");
    expect_accepted("resources.LUT", "1099511627775", &b);
    assert_int_equal(b.resources.lut, (INT64_C(1) << 40) - 1);
    expect_accepted("resources.BRAM", "1099511627775", &b);
    expect_accepted("resources.URAM", "0", &b);
}

/* BRAM36 counts are checked in the file's unit, and doubling the largest cannot
 * overflow. */
static void test_bram36_range(void **state)
{
    (void)state;
    const char *fmt =
        "{\"name\": \"e\", \"display_name\": \"E\", \"part\": \"x\", \"memory\": \"x\","
        " \"resources\": {\"LUT\": 1, \"FF\": 1, \"DSP\": 1, \"BRAM\": %s, \"URAM\": 0},"
        " \"bram_unit\": \"BRAM36\", \"clock_mhz\": 100, \"bandwidth_gbps\": 1,"
        " \"peak_bandwidth_gbps\": 1, \"reconfiguration_s\": 0, \"reconfiguration_estimated\": true}";
    char text[512];
    cm_board b;
    cm_error err = {0};
    snprintf(text, sizeof text, fmt, "1099511627775");
    assert_int_equal(cm_board_parse(text, strlen(text), "b36", &b, &err), CM_OK);
    assert_int_equal(b.resources.bram18, 2 * ((INT64_C(1) << 40) - 1));
    snprintf(text, sizeof text, fmt, "4611686018427387904");
    assert_int_equal(cm_board_parse(text, strlen(text), "b36", &b, &err), CM_EINPUT);
    assert_contains(err.message, "\"resources.BRAM\" must be greater than 0 and less than 2^40");
}

/* A board built in code is held to the same ranges, NaN included. */
static void test_validate_in_code(void **state)
{
    (void)state;
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zc706", &b, &err), CM_OK);
    assert_int_equal(cm_board_validate(&b, "zc706", &err), CM_OK);
    cm_board bad = b;
    bad.clock_mhz = NAN;
    assert_int_equal(cm_board_validate(&bad, "mine", &err), CM_EINPUT);
    assert_contains(err.message, "mine: \"clock_mhz\" must be a finite number from 1 to 2000");
    bad = b;
    bad.reconfiguration_s = INFINITY;
    assert_int_equal(cm_board_validate(&bad, "mine", &err), CM_EINPUT);
    assert_contains(err.message, "\"reconfiguration_s\"");
    bad = b;
    bad.resources.ff = INT64_MAX;
    assert_int_equal(cm_board_validate(&bad, "mine", &err), CM_EINPUT);
    assert_contains(err.message, "\"resources.FF\"");
    bad = b;
    bad.bandwidth_gbps = bad.peak_bandwidth_gbps * 2;
    assert_int_equal(cm_board_validate(&bad, "mine", &err), CM_EINPUT);
    assert_contains(err.message, "is above \"peak_bandwidth_gbps\"");
    /* Every built-in board lies inside the ranges. */
    for (size_t i = 0; i < cm_board_builtin_count(); i++) {
        assert_int_equal(cm_board_builtin_at(i, &b, &err), CM_OK);
        assert_int_equal(cm_board_validate(&b, b.name, &err), CM_OK);
    }
}

static cm_resources all(int64_t v)
{
    return (cm_resources){.dsp = v, .bram18 = v, .uram = v, .lut = v, .ff = v};
}

static void assert_all(const cm_resources *r, int64_t v)
{
    assert_int_equal(r->dsp, v);
    assert_int_equal(r->bram18, v);
    assert_int_equal(r->uram, v);
    assert_int_equal(r->lut, v);
    assert_int_equal(r->ff, v);
}

/* Issue 19's 1778 + INT64_MAX, and the edges on both sides. */
static void test_resources_saturate(void **state)
{
    (void)state;
    cm_resources acc = all(1778), big = all(INT64_MAX), one = all(1);
    cm_resources_add(&acc, &big);
    assert_all(&acc, INT64_MAX);
    cm_board b;
    assert_int_equal(cm_board_builtin("u250", &b, NULL), CM_OK);
    assert_false(cm_resources_fit(&acc, &b.resources));
    /* A saturated sum stays saturated: what overflowed cannot be taken back out. */
    cm_resources_sub(&acc, &big);
    assert_all(&acc, INT64_MAX);
    cm_resources_sub(&acc, &one);
    assert_all(&acc, INT64_MAX);

    acc = all(INT64_MAX - 1);
    cm_resources_add(&acc, &one);
    assert_all(&acc, INT64_MAX); /* exact, not saturated */
    acc = all(INT64_MAX - 1);
    cm_resources_sub(&acc, &one);
    assert_all(&acc, INT64_MAX - 2);

    cm_resources two = all(2), least = all(INT64_MIN);
    acc = all(INT64_MIN + 1);
    cm_resources_sub(&acc, &two);
    assert_all(&acc, INT64_MIN);
    acc = all(-5);
    cm_resources_add(&acc, &least);
    assert_all(&acc, INT64_MIN);
    acc = all(5);
    cm_resources_sub(&acc, &least);
    assert_all(&acc, INT64_MAX);

    /* Below saturation the arithmetic is exact and sub undoes add. */
    acc = all(1000);
    cm_resources r = all((INT64_C(1) << 40) - 1);
    for (int i = 0; i < 1000; i++)
        cm_resources_add(&acc, &r);
    for (int i = 0; i < 1000; i++)
        cm_resources_sub(&acc, &r);
    assert_all(&acc, 1000);
}

/* A board that bypasses validation (a clock of 1e308 MHz makes every time 0 and the
 * throughput infinite) must fail the JSON as a whole, not print it without the key. */
static void test_non_finite_figure_fails_json(void **state)
{
    (void)state;
    char path[1024];
    cm_test_shared_model("lenet.onnx", path, sizeof path);
    cm_graph *g = NULL;
    cm_error err = {0};
    assert_int_equal(cm_model_load(path, &g, &err), CM_OK);
    cm_board b;
    assert_int_equal(cm_board_builtin("zc706", &b, &err), CM_OK);
    b.clock_mhz = 1e308;
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = CM_BACKEND_FINN;
    cm_design *d = NULL;
    assert_int_equal(cm_design_create(g, &b, &o, &d, &err), CM_OK);
    assert_int_equal(cm_design_set_sources(d, path, "zc706", &err), CM_OK);
    cm_design_run run;
    memset(&run, 0, sizeof run);
    json_t *j = cm_design_report_json(d, &run);
    if (j) {
        char *text = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        fail_msg("a report with an infinite throughput was built: %.200s", text ? text : "");
    }
    char out[256];
    snprintf(out, sizeof out, "%s/cm_rel_inf_%d.json", P_tmpdir, (int)getpid());
    assert_int_equal(cm_design_save(d, &run, out, &err), CM_EINTERNAL);
    assert_contains(err.message, "not a finite number");
    assert_int_equal(access(out, F_OK), -1);
    cm_design_free(d);
}

/* A fresh empty folder for the file tests, so that counting its entries shows any
 * temporary file left behind. */
static void make_dir(char *buf, size_t size)
{
    snprintf(buf, size, "%s/cm_rel_XXXXXX", P_tmpdir);
    assert_non_null(mkdtemp(buf));
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void assert_file_is(const char *path, const char *text)
{
    char buf[256] = {0};
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, text);
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_output_files(void **state)
{
    (void)state;
    char dir[256], path[512];
    cm_error err = {0};
    make_dir(dir, sizeof dir);

    /* Read-only: refused even for root (who passes access()), left as it was. */
    snprintf(path, sizeof path, "%s/ro.json", dir);
    write_text(path, "old\n", 0444);
    assert_int_equal(cm_write_file_atomic(path, "new\n", 4, &err), CM_EINPUT);
    assert_contains(err.message, path);
    assert_contains(err.message, "read-only");
    assert_file_is(path, "old\n");
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0444);
    assert_int_equal(count_entries(dir), 1);

    /* A directory, and a file in a folder that does not exist. */
    assert_int_equal(cm_write_file_atomic(dir, "x", 1, &err), CM_EINPUT);
    assert_contains(err.message, "Is a directory");
    snprintf(path, sizeof path, "%s/missing/out.json", dir);
    assert_int_equal(cm_write_file_atomic(path, "x", 1, &err), CM_EINPUT);
    assert_contains(err.message, "No such file or directory");
    assert_int_equal(count_entries(dir), 1);

    /* A writable file is replaced and keeps its own permissions. */
    snprintf(path, sizeof path, "%s/mine.json", dir);
    write_text(path, "old\n", 0600);
    assert_int_equal(cm_write_file_atomic(path, "new\n", 4, &err), CM_OK);
    assert_file_is(path, "new\n");
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(count_entries(dir), 2);

    assert_int_equal(cm_write_file_atomic("", "x", 1, &err), CM_EUSAGE);
    remove_dir(dir);
}

/* A FIFO is written through, not replaced by a regular file. */
static void test_output_fifo(void **state)
{
    (void)state;
    char dir[256], path[512];
    cm_error err = {0};
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/pipe", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    FILE *reader = NULL;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        cm_status st = cm_write_file_atomic(path, "through\n", 8, &err);
        _exit(st == CM_OK ? 0 : 1);
    }
    reader = fopen(path, "r");
    assert_non_null(reader);
    char buf[32] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, reader);
    fclose(reader);
    buf[n] = '\0';
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_equal(buf, "through\n");
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    remove_dir(dir);
}

static void write_design_like(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_design_file_messages(void **state)
{
    (void)state;
    char dir[256], path[512], want[600];
    cm_error err = {0};
    cm_design *d = NULL;
    cm_design_run run;
    make_dir(dir, sizeof dir);

    snprintf(path, sizeof path, "%s/none.json", dir);
    assert_int_equal(cm_design_load(path, &d, &run, &err), CM_EINPUT);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    assert_string_equal(err.message, want);

    /* What `optimise --backend nn2fpga -o` writes: no "format", optimiser "bip". */
    snprintf(path, sizeof path, "%s/report.json", dir);
    write_design_like(path, "{\"model\": \"m\", \"board\": \"zc706\", \"backend\": \"nn2fpga\","
                            " \"optimiser\": {\"name\": \"bip\", \"evaluations\": 3,"
                            " \"time_s\": 0.1, \"seed\": 0}, \"period_cycles\": 10}");
    assert_int_equal(cm_design_load(path, &d, &run, &err), CM_EINPUT);
    assert_contains(err.message, path);
    assert_contains(err.message, "not a design file (an nn2FPGA report");
    assert_null(strstr(err.message, "bip"));

    snprintf(path, sizeof path, "%s/empty.json", dir);
    write_design_like(path, "");
    assert_int_equal(cm_design_load(path, &d, &run, &err), CM_EINPUT);
    assert_contains(err.message, "empty file");

    assert_int_equal(cm_design_load(dir, &d, &run, &err), CM_EINPUT);
    assert_contains(err.message, "Is a directory");
    assert_null(d);
    remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board_ranges),
        cmocka_unit_test(test_bram36_range),
        cmocka_unit_test(test_validate_in_code),
        cmocka_unit_test(test_resources_saturate),
        cmocka_unit_test(test_non_finite_figure_fails_json),
        cmocka_unit_test(test_output_files),
        cmocka_unit_test(test_output_fifo),
        cmocka_unit_test(test_design_file_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
