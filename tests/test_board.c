/* Board library tests: the built-in boards against the figures in docs/boards.md, name
 * matching, user board files, and every way a board file can be rejected. */
#include "test_support.h"

#include <cnnmap/board.h>

#include "platform/res_staircase.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What boards.md says about each board (BRAM in both units, to check the conversion),
 * plus the clock, bandwidth and reconfiguration figures the board files settle on. */
typedef struct expected_board {
    const char *name, *display_name, *part;
    int64_t lut, ff, dsp, bram36, bram18, uram;
    cm_bram_unit unit;
    double clock_mhz, bandwidth_gbps, peak_gbps, reconfiguration_s;
    bool estimated;
} expected_board;

static const expected_board expected[] = {
    {"zedboard", "ZedBoard", "xc7z020clg484-1", 53200, 106400, 220, 140, 280, 0,
     CM_BRAM_UNIT_18K, 100.0, 4.264, 4.26, 0.08255, false},
    {"pynq-z2", "PYNQ-Z2", "xc7z020clg400-1", 53200, 106400, 220, 140, 280, 0,
     CM_BRAM_UNIT_18K, 100.0, 2.1, 2.1, 0.028, true},
    {"zc706", "ZC706", "xc7z045ffg900-2", 218600, 437200, 900, 545, 1090, 0, CM_BRAM_UNIT_18K,
     125.0, 3.8, 8.5, 0.6, false},
    {"ultra96-v2", "Ultra96-V2", "xczu3eg-sbva484-1", 70560, 141120, 360, 216, 432, 0,
     CM_BRAM_UNIT_36K, 214.0, 8.5, 8.5, 0.014, true},
    {"kv260", "Kria KV260", "xck26-sfvc784-2LV-c", 117120, 234240, 1248, 144, 288, 64,
     CM_BRAM_UNIT_36K, 250.0, 19.2, 19.2, 0.019, true},
    {"zcu104", "ZCU104", "xczu7ev-ffvc1156-2-e", 230400, 460800, 1728, 312, 624, 96,
     CM_BRAM_UNIT_18K, 214.0, 16.98, 17.0, 0.048, true},
    {"zcu102", "ZCU102", "xczu9eg-ffvb1156-2-e", 274080, 548160, 2520, 912, 1824, 0,
     CM_BRAM_UNIT_18K, 214.0, 17.0, 17.0, 0.066, true},
    {"u200", "Alveo U200", "xcu200-fsgd2104-2-e", 1182240, 2364480, 6840, 2160, 4320, 960,
     CM_BRAM_UNIT_18K, 286.0, 77.0, 77.0, 0.191, true},
    {"u250", "Alveo U250", "xcu250-figd2104-2L-e", 1728000, 3456000, 12288, 2688, 5376, 1280,
     CM_BRAM_UNIT_18K, 286.0, 77.0, 77.0, 0.255, true},
};
#define N_EXPECTED (sizeof expected / sizeof expected[0])

/* A valid user board; the failure tests break one field of it at a time. */
static const char base_board[] =
    "{\"name\": \"myboard\", \"display_name\": \"My Board\", \"part\": \"xc7z020clg400-1\",\n"
    " \"memory\": \"DDR3, 16-bit\",\n"
    " \"resources\": {\"LUT\": 53200, \"FF\": 106400, \"DSP\": 220, \"BRAM\": 140, "
    "\"URAM\": 0},\n"
    " \"bram_unit\": \"BRAM36\", \"clock_mhz\": 150, \"bandwidth_gbps\": 1.5,\n"
    " \"peak_bandwidth_gbps\": 2.1, \"reconfiguration_s\": 0.05,\n"
    " \"reconfiguration_estimated\": true, \"notes\": \"test board\"}\n";

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.9g, expected %.9g", got, want);
}

static void check_board(const cm_board *b, const expected_board *e)
{
    assert_string_equal(b->name, e->name);
    assert_string_equal(b->display_name, e->display_name);
    assert_string_equal(b->part, e->part);
    assert_true(b->memory[0] != '\0');
    assert_int_equal(e->bram18, 2 * e->bram36);
    assert_int_equal(b->resources.lut, e->lut);
    assert_int_equal(b->resources.ff, e->ff);
    assert_int_equal(b->resources.dsp, e->dsp);
    assert_int_equal(b->resources.bram18, e->bram18);
    assert_int_equal(b->resources.uram, e->uram);
    assert_int_equal(b->bram_unit, e->unit);
    assert_near(b->clock_mhz, e->clock_mhz, 1e-9);
    assert_near(b->bandwidth_gbps, e->bandwidth_gbps, 1e-9);
    /* boards.md rounds the data-sheet peaks to two digits (4.264 -> 4.26). */
    assert_near(b->peak_bandwidth_gbps, e->peak_gbps, 0.01);
    assert_true(b->bandwidth_gbps <= b->peak_bandwidth_gbps);
    assert_near(b->reconfiguration_s, e->reconfiguration_s, 1e-9);
    assert_int_equal(b->reconfiguration_estimated, e->estimated);
}

static void test_builtins_match_boards_md(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_EXPECTED; i++) {
        cm_board b;
        cm_error err = {0};
        if (cm_board_builtin(expected[i].name, &b, &err) != CM_OK)
            fail_msg("%s: %s", expected[i].name, err.message);
        check_board(&b, &expected[i]);
    }
}

/* Every built-in is listed, parses, and carries the name of the file it came from. */
static void test_builtin_listing(void **state)
{
    (void)state;
    assert_int_equal(cm_board_builtin_count(), N_EXPECTED);
    for (size_t i = 0; i < cm_board_builtin_count(); i++) {
        cm_board b;
        cm_error err = {0};
        if (cm_board_builtin_at(i, &b, &err) != CM_OK)
            fail_msg("built-in %zu: %s", i, err.message);
        size_t j = 0;
        while (j < N_EXPECTED && strcmp(expected[j].name, b.name) != 0)
            j++;
        if (j == N_EXPECTED)
            fail_msg("built-in board %s is not in the expected table", b.name);
        /* A name that reaches another board would make that board unreachable. */
        cm_board again;
        assert_int_equal(cm_board_builtin(b.name, &again, &err), CM_OK);
        assert_string_equal(again.name, b.name);
    }
    cm_error err = {0};
    cm_board b;
    assert_int_equal(cm_board_builtin_at(N_EXPECTED, &b, &err), CM_EUSAGE);
}

static void expect_builtin(const char *typed, const char *name)
{
    cm_board b;
    cm_error err = {0};
    if (cm_board_builtin(typed, &b, &err) != CM_OK)
        fail_msg("%s: %s", typed, err.message);
    assert_string_equal(b.name, name);
    memset(&b, 0, sizeof b);
    if (cm_board_resolve(typed, &b, &err) != CM_OK)
        fail_msg("resolve %s: %s", typed, err.message);
    assert_string_equal(b.name, name);
}

static void test_name_variants(void **state)
{
    (void)state;
    expect_builtin("ultra96-v2", "ultra96-v2");
    expect_builtin("Ultra96V2", "ultra96-v2");
    expect_builtin("ULTRA96_V2", "ultra96-v2");
    expect_builtin("pynq_z2", "pynq-z2");
    expect_builtin("PYNQ-Z2", "pynq-z2");
    expect_builtin("pynqz2", "pynq-z2");
    expect_builtin("ZedBoard", "zedboard");
    expect_builtin("ZC706", "zc706");
    expect_builtin("kv-260", "kv260");
    expect_builtin("U250", "u250");
}

static void test_unknown_names(void **state)
{
    (void)state;
    const char *names[] = {"zc707", "ultra96", "", "-", "zcu", "zedboard2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cm_board b;
        cm_error err = {0};
        assert_int_equal(cm_board_builtin(names[i], &b, &err), CM_EINPUT);
        assert_contains(err.message, "not a built-in board");
        assert_contains(err.message, "zedboard");
        assert_contains(err.message, "ultra96-v2");
    }
    char long_name[300];
    memset(long_name, 'z', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin(long_name, &b, &err), CM_EINPUT);
    assert_int_equal(cm_board_builtin(NULL, &b, &err), CM_EUSAGE);
    assert_int_equal(cm_board_resolve(NULL, &b, &err), CM_EUSAGE);
}

static void test_resolve_missing(void **state)
{
    (void)state;
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_resolve("zc707", &b, &err), CM_EINPUT);
    assert_string_equal(err.message,
                        "zc707: not a built-in board (kv260, pynq-z2, u200, u250, ultra96-v2, "
                        "zc706, zcu102, zcu104, zedboard) and no such file");
    assert_int_equal(cm_board_resolve("/nonexistent/dir/board.json", &b, &err), CM_EINPUT);
    assert_contains(err.message, "/nonexistent/dir/board.json: not a built-in board");
    assert_contains(err.message, "no such file");
    /* A path that exists but is no board file is reported as such, not as a name. */
    assert_int_equal(cm_board_resolve("/", &b, &err), CM_EINPUT);
    assert_contains(err.message, "/: cannot read: ");
}

/* A user board file, by path both directly and through resolve. */
static void test_user_board_file(void **state)
{
    (void)state;
    char path[256];
    cm_test_write_temp(base_board, strlen(base_board), ".json", path, sizeof path);
    cm_board b, r;
    cm_error err = {0};
    cm_status st = cm_board_load_file(path, &b, &err);
    cm_status st2 = cm_board_resolve(path, &r, &err);
    unlink(path);
    if (st != CM_OK || st2 != CM_OK)
        fail_msg("%s", err.message);
    const expected_board e = {"myboard", "My Board", "xc7z020clg400-1", 53200, 106400, 220,
                              140, 280, 0, CM_BRAM_UNIT_36K, 150.0, 1.5, 2.1, 0.05, true};
    check_board(&b, &e);
    check_board(&r, &e);
    assert_string_equal(b.memory, "DDR3, 16-bit");
}

static void test_load_missing_file(void **state)
{
    (void)state;
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_load_file("/nonexistent/board.json", &b, &err), CM_EINPUT);
    assert_string_equal(err.message,
                        "/nonexistent/board.json: cannot read: No such file or directory");
    assert_int_equal(cm_board_load_file(NULL, &b, &err), CM_EUSAGE);
}

/* The parser reads exactly len bytes, so the text need not end in NUL and whatever
 * follows it is not part of the document. */
static void test_parse_uses_len(void **state)
{
    (void)state;
    size_t len = strlen(base_board);
    char *text = malloc(len + 8);
    assert_non_null(text);
    memcpy(text, base_board, len);
    memcpy(text + len, "garbage!", 8);
    cm_board b;
    cm_error err = {0};
    cm_status st = cm_board_parse(text, len, "buffer", &b, &err);
    free(text);
    if (st != CM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(b.name, "myboard");
}

/* The base board with the value at `path` ("clock_mhz", "resources.DSP") replaced by
 * the raw JSON text `raw`, or deleted when raw is NULL. The caller frees the result. */
static char *board_variant(const char *path, const char *raw)
{
    json_error_t jerr;
    json_t *root = json_loads(base_board, 0, &jerr);
    assert_non_null(root);
    json_t *parent = root;
    const char *key = path;
    if (strncmp(path, "resources.", 10) == 0) {
        parent = json_object_get(root, "resources");
        key = path + 10;
    }
    if (raw)
        json_object_set_new(parent, key, json_string("@RAW@"));
    else
        assert_int_equal(json_object_del(parent, key), 0);
    char *dumped = json_dumps(root, JSON_PRESERVE_ORDER);
    json_decref(root);
    assert_non_null(dumped);
    const char *mark = raw ? strstr(dumped, "\"@RAW@\"") : NULL;
    size_t size = strlen(dumped) + (raw ? strlen(raw) : 0) + 1;
    char *text = malloc(size);
    assert_non_null(text);
    if (mark)
        snprintf(text, size, "%.*s%s%s", (int)(mark - dumped), dumped, raw, mark + 7);
    else
        snprintf(text, size, "%s", dumped);
    free(dumped);
    return text;
}

/* Writes `len` bytes of `text` to a board file, loads it, and checks the rejection:
 * CM_EINPUT, one line, naming the file and containing `what` (the field). */
static void expect_rejected_bytes(const void *text, size_t len, const char *what)
{
    char path[256];
    cm_test_write_temp(text, len, ".json", path, sizeof path);
    cm_board b;
    memset(&b, 0x5a, sizeof b);
    cm_error err = {0};
    cm_status st = cm_board_load_file(path, &b, &err);
    unlink(path);
    if (st != CM_EINPUT)
        fail_msg("expected CM_EINPUT for %s, got %d (%s)", what, (int)st, err.message);
    assert_contains(err.message, path);
    assert_contains(err.message, what);
    assert_null(strchr(err.message, '\n'));
    /* A rejected file leaves the caller's board as it was. */
    for (size_t i = 0; i < sizeof b; i++)
        assert_int_equal(((const unsigned char *)&b)[i], 0x5a);
}

static void expect_rejected(const char *text, const char *what)
{
    expect_rejected_bytes(text, strlen(text), what);
}

static void expect_variant_rejected(const char *path, const char *raw, const char *what)
{
    char *text = board_variant(path, raw);
    expect_rejected(text, what);
    free(text);
}

static void expect_variant_accepted(const char *path, const char *raw, cm_board *b)
{
    char *text = board_variant(path, raw);
    cm_error err = {0};
    cm_status st = cm_board_parse(text, strlen(text), "variant", b, &err);
    free(text);
    if (st != CM_OK)
        fail_msg("%s = %s: %s", path, raw, err.message);
}

static void test_not_json(void **state)
{
    (void)state;
    expect_rejected("", "invalid JSON at line 1");
    size_t half = strlen(base_board) / 2;
    expect_rejected_bytes(base_board, half, "invalid JSON");
    unsigned char noise[512];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof noise; i++) {
        x = x * 1103515245u + 12345u;
        noise[i] = (unsigned char)(x >> 16);
    }
    expect_rejected_bytes(noise, sizeof noise, "invalid JSON");
    expect_rejected("[1, 2]", "must hold a JSON object");
    expect_rejected("\"zc706\"", "invalid JSON");
    expect_rejected("{\"name\": \"a\", \"name\": \"b\"}", "duplicate object key");
    char *text = board_variant("clock_mhz", "100");
    size_t len = strlen(text);
    text[len - 1] = ',';
    expect_rejected(text, "invalid JSON");
    free(text);
}

static const char *const required_keys[] = {
    "name", "display_name", "part", "memory", "resources", "bram_unit", "clock_mhz",
    "bandwidth_gbps", "peak_bandwidth_gbps", "reconfiguration_s",
    "reconfiguration_estimated", "resources.LUT", "resources.FF", "resources.DSP",
    "resources.BRAM", "resources.URAM"};

static void test_missing_keys(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof required_keys / sizeof required_keys[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "missing required key \"%s\"", required_keys[i]);
        expect_variant_rejected(required_keys[i], NULL, what);
    }
    /* notes alone is optional. */
    cm_board b;
    expect_variant_accepted("notes", "[]", &b);
    char *text = board_variant("notes", NULL);
    cm_error err = {0};
    assert_int_equal(cm_board_parse(text, strlen(text), "no-notes", &b, &err), CM_OK);
    free(text);
}

static void test_wrong_types(void **state)
{
    (void)state;
    expect_variant_rejected("name", "5", "\"name\" must be a string");
    expect_variant_rejected("display_name", "true", "\"display_name\" must be a string");
    expect_variant_rejected("part", "null", "\"part\" must be a string");
    expect_variant_rejected("memory", "[\"DDR3\"]", "\"memory\" must be a string");
    expect_variant_rejected("resources", "[1, 2]", "\"resources\" must be an object");
    expect_variant_rejected("bram_unit", "18", "\"bram_unit\" must be a string");
    expect_variant_rejected("clock_mhz", "\"100\"", "\"clock_mhz\" must be a number");
    expect_variant_rejected("bandwidth_gbps", "{}", "\"bandwidth_gbps\" must be a number");
    expect_variant_rejected("peak_bandwidth_gbps", "false", "\"peak_bandwidth_gbps\" must be");
    expect_variant_rejected("reconfiguration_s", "\"0.5\"", "\"reconfiguration_s\" must be");
    expect_variant_rejected("reconfiguration_estimated", "\"yes\"",
                            "\"reconfiguration_estimated\" must be true or false");
    expect_variant_rejected("reconfiguration_estimated", "1", "\"reconfiguration_estimated\"");
    expect_variant_rejected("notes", "3", "\"notes\" must be a string or an array of strings");
    expect_variant_rejected("notes", "[\"ok\", 1]", "\"notes\"");
    expect_variant_rejected("resources.DSP", "220.5", "\"resources.DSP\" must be an integer");
    expect_variant_rejected("resources.LUT", "\"53200\"", "\"resources.LUT\" must be an integer");
    expect_variant_rejected("resources.URAM", "null", "\"resources.URAM\" must be an integer");
}

static void test_resource_values(void **state)
{
    (void)state;
    expect_variant_rejected("resources.DSP", "0", "\"resources.DSP\" must be greater than 0");
    expect_variant_rejected("resources.LUT", "-1", "\"resources.LUT\" must be greater than 0");
    expect_variant_rejected("resources.FF", "0", "\"resources.FF\"");
    expect_variant_rejected("resources.BRAM", "0", "\"resources.BRAM\"");
    expect_variant_rejected("resources.BRAM", "-140", "\"resources.BRAM\"");
    expect_variant_rejected("resources.URAM", "-1", "\"resources.URAM\" must be 0 or more");
    /* Counts stay below 2^40 (board.h), in the file's unit: 2^40 - 1 BRAM36 doubles
     * to a BRAM18 count without overflow. */
    expect_variant_rejected("resources.BRAM", "4611686018427387904",
                            "\"resources.BRAM\" must be greater than 0 and less than 2^40");
    expect_variant_rejected("resources.DSP", "9223372036854775808", "too big integer");
    expect_variant_rejected("resources.DSP", "9223372036854775807", "less than 2^40");

    cm_board b;
    expect_variant_accepted("resources.BRAM", "1099511627775", &b);
    assert_int_equal(b.resources.bram18, 2 * ((INT64_C(1) << 40) - 1));
    expect_variant_accepted("resources.URAM", "0", &b);
    expect_variant_accepted("resources.DSP", "1099511627775", &b);
    assert_int_equal(b.resources.dsp, (INT64_C(1) << 40) - 1);
}

static void test_number_values(void **state)
{
    (void)state;
    expect_variant_rejected("clock_mhz", "-100", "\"clock_mhz\" must be a finite number");
    expect_variant_rejected("clock_mhz", "0", "\"clock_mhz\"");
    expect_variant_rejected("clock_mhz", "0.0", "\"clock_mhz\"");
    expect_variant_rejected("clock_mhz", "\"NaN\"", "\"clock_mhz\" must be a number");
    expect_variant_rejected("clock_mhz", "NaN", "invalid JSON");
    expect_variant_rejected("clock_mhz", "Infinity", "invalid JSON");
    expect_variant_rejected("clock_mhz", "1e999", "real number overflow");
    expect_variant_rejected("bandwidth_gbps", "0", "\"bandwidth_gbps\"");
    expect_variant_rejected("peak_bandwidth_gbps", "-2.1", "\"peak_bandwidth_gbps\"");
    expect_variant_rejected("reconfiguration_s", "-0.001", "\"reconfiguration_s\"");
    /* Usable bandwidth above the peak: typically Gb/s written where GB/s belongs. */
    expect_variant_rejected("bandwidth_gbps", "16.8", "\"bandwidth_gbps\" (16.8) is above");

    cm_board b;
    expect_variant_accepted("reconfiguration_s", "0", &b);
    assert_near(b.reconfiguration_s, 0.0, 0.0);
    expect_variant_accepted("clock_mhz", "214", &b);
    assert_near(b.clock_mhz, 214.0, 0.0);
}

static void test_bram_unit(void **state)
{
    (void)state;
    const char *bad[] = {"\"BRAM\"", "\"bram18\"", "\"36\"", "\"\"", "\"BRAM36 \""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_variant_rejected("bram_unit", bad[i],
                                "\"bram_unit\" must be \"BRAM18\" or \"BRAM36\"");
    cm_board b;
    expect_variant_accepted("bram_unit", "\"BRAM18\"", &b);
    assert_int_equal(b.resources.bram18, 140);
    assert_int_equal(b.bram_unit, CM_BRAM_UNIT_18K);
    expect_variant_accepted("bram_unit", "\"BRAM36\"", &b);
    assert_int_equal(b.resources.bram18, 280);
    assert_int_equal(b.bram_unit, CM_BRAM_UNIT_36K);
}

static void test_unknown_keys(void **state)
{
    (void)state;
    expect_variant_rejected("clock_mz", "100", "unknown key \"clock_mz\"");
    expect_variant_rejected("resources.LUTs", "1", "unknown key \"resources.LUTs\"");
    expect_variant_rejected("resources.BRAM18", "280", "unknown key \"resources.BRAM18\"");
    /* A hostile key comes back short and on one line. */
    char *text = board_variant("bad\nkey\001xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                               "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                               "1");
    expect_rejected(text, "unknown key \"bad?key?xxx");
    cm_error err = {0};
    cm_board b;
    assert_int_equal(cm_board_parse(text, strlen(text), "f", &b, &err), CM_EINPUT);
    assert_true(strlen(err.message) < 80);
    free(text);
}

static void test_text_fields(void **state)
{
    (void)state;
    char name[CM_BOARD_TEXT_MAX + 3];
    memset(name, 'a', sizeof name);
    name[0] = '"';
    name[CM_BOARD_TEXT_MAX + 1] = '"';
    name[CM_BOARD_TEXT_MAX + 2] = '\0'; /* a quoted name of CM_BOARD_TEXT_MAX characters */
    expect_variant_rejected("name", name, "\"name\" is 96 bytes long, more than 95");
    expect_variant_rejected("part", name, "\"part\" is 96 bytes long");
    name[CM_BOARD_TEXT_MAX] = '"';
    name[CM_BOARD_TEXT_MAX + 1] = '\0'; /* the longest name that fits */
    cm_board b;
    expect_variant_accepted("name", name, &b);
    assert_int_equal(strlen(b.name), CM_BOARD_TEXT_MAX - 1);

    expect_variant_rejected("name", "\"\"", "\"name\" must not be empty");
    expect_variant_rejected("name", "\"my board\"", "\"name\" may hold only");
    expect_variant_rejected("name", "\"zc706/x\"", "\"name\" may hold only");
    expect_variant_rejected("display_name", "\"ZC\\u0007706\"",
                            "\"display_name\" contains a control character");
    expect_variant_rejected("memory", "\"DDR3\\n64-bit\"", "\"memory\" contains a control");
    expect_variant_rejected("part", "\"xc7z\\u0000020\"", "invalid JSON");
    expect_variant_accepted("display_name", "\"Zynq\\u00e9 board\"", &b);
    expect_variant_accepted("name", "\"my_board-2.v1\"", &b);
}

static void test_oversized_file(void **state)
{
    (void)state;
    size_t len = ((size_t)1 << 20) + 100;
    char *text = malloc(len);
    assert_non_null(text);
    memset(text, ' ', len);
    memcpy(text + len - strlen(base_board), base_board, strlen(base_board));
    expect_rejected_bytes(text, len, "not a board file");
    free(text);
}

/* The least resources by figure, worked by hand: points (figure; DSP, LUT)
 * (4; 1, 90), (1; 8, 10), (2; 5, 40), (2; 6, 30), (3; 2, 70) give the steps
 * 1 -> (8, 10), 2 -> (5, 10) (both points at 2: one step), 3 -> (2, 10), 4 -> (1, 10). */
static void test_res_staircase(void **state)
{
    (void)state;
    cm_res_point pts[] = {{4, {.dsp = 1, .lut = 90}}, {1, {.dsp = 8, .lut = 10}},
                          {2, {.dsp = 5, .lut = 40}}, {2, {.dsp = 6, .lut = 30}},
                          {3, {.dsp = 2, .lut = 70}}};
    cm_res_staircase s;
    cm_error err = {0};
    assert_int_equal(cm_res_staircase_build(&s, pts, 5, &err), CM_OK);
    assert_int_equal(s.n, 4);
    const double val[] = {1, 2, 3, 4};
    const int64_t dsp[] = {8, 5, 2, 1};
    for (int i = 0; i < 4; i++) {
        assert_true(s.val[i] == val[i]);
        assert_int_equal(s.least[i].dsp, dsp[i]);
        assert_int_equal(s.least[i].lut, 10);
    }
    assert_null(cm_res_staircase_at_most(&s, 0.5));
    assert_int_equal(cm_res_staircase_at_most(&s, 2.0)->dsp, 5);
    assert_int_equal(cm_res_staircase_at_most(&s, 2.9)->dsp, 5);
    assert_int_equal(cm_res_staircase_at_most(&s, 1e9)->dsp, 1);
    /* the least figure within a budget: 6 DSPs reach 2, 1 DSP only 4, none below 1 */
    assert_int_equal(cm_res_staircase_first_fitting(&s, &(cm_resources){.dsp = 6, .lut = 10}), 1);
    assert_int_equal(cm_res_staircase_first_fitting(&s, &(cm_resources){.dsp = 1, .lut = 10}), 3);
    assert_int_equal(cm_res_staircase_first_fitting(&s, &(cm_resources){.dsp = 0, .lut = 10}), -1);
    assert_int_equal(cm_res_staircase_first_fitting(&s, &(cm_resources){.dsp = 9, .lut = 9}), -1);
    cm_res_staircase_free(&s);
    assert_int_equal(cm_res_staircase_build(&s, pts, 0, &err), CM_OK);
    assert_null(cm_res_staircase_at_most(&s, 1e9));
    assert_int_equal(cm_res_staircase_first_fitting(&s, &(cm_resources){.dsp = 9, .lut = 99}), -1);
    cm_res_staircase_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins_match_boards_md),
        cmocka_unit_test(test_builtin_listing),
        cmocka_unit_test(test_name_variants),
        cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_resolve_missing),
        cmocka_unit_test(test_user_board_file),
        cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_parse_uses_len),
        cmocka_unit_test(test_not_json),
        cmocka_unit_test(test_missing_keys),
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_resource_values),
        cmocka_unit_test(test_number_values),
        cmocka_unit_test(test_bram_unit),
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_text_fields),
        cmocka_unit_test(test_oversized_file),
        cmocka_unit_test(test_res_staircase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
