/* Board files: parsing and validating the board JSON format, reading board files, and
 * finding the built-in boards embedded from the JSON files in boards/.
 *
 * The format (every key required except "notes"; no other key is accepted, so a
 * misspelt key is an error rather than a silently ignored setting):
 *   {"name": "zc706", "display_name": "ZC706", "part": "xc7z045ffg900-2",
 *    "memory": "DDR3, 64-bit (PS)",
 *    "resources": {"LUT": 218600, "FF": 437200, "DSP": 900, "BRAM": 1090, "URAM": 0},
 *    "bram_unit": "BRAM18", "clock_mhz": 125.0, "bandwidth_gbps": 3.8,
 *    "peak_bandwidth_gbps": 8.5, "reconfiguration_s": 0.6,
 *    "reconfiguration_estimated": false, "notes": "a string or an array of strings"}
 * Every number has a range (board.h); a value outside it is refused with the field and
 * the range named. */
#include <cnnmap/board.h>

#include "platform/board_builtin.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A board file is a few hundred bytes; the cap keeps a wrong path (a disk image, a
 * device) from being read into memory whole. */
#define CM_BOARD_FILE_MAX ((size_t)1 << 20)

/* Longest key or value echoed back in a message, so that messages stay one short line. */
#define CM_ECHO_MAX 40

static const char *const top_keys[] = {
    "name", "display_name", "part", "memory", "resources", "bram_unit", "clock_mhz",
    "bandwidth_gbps", "peak_bandwidth_gbps", "reconfiguration_s",
    "reconfiguration_estimated", "notes", NULL};

static const char *const resource_keys[] = {"LUT", "FF", "DSP", "BRAM", "URAM", NULL};

static bool is_plain(char c)
{
    return c >= 0x20 && c < 0x7f;
}

/* Copies text from a board file into buf for a message, keeping printable ASCII only:
 * a control byte would break the one-line message, a cut multi-byte character would
 * make it invalid UTF-8 for JSON output, and an enormous key would push the file name
 * out of the message. */
static const char *echo(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; *s && n + 4 < size && n < CM_ECHO_MAX; s++)
        buf[n++] = is_plain(*s) ? *s : '?';
    if (*s)
        for (int i = 0; i < 3 && n + 1 < size; i++)
            buf[n++] = '.';
    buf[n] = '\0';
    return buf;
}

static bool in_list(const char *key, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(key, *list) == 0)
            return true;
    return false;
}

/* `prefix` is "" at the top level and "resources." inside resources, so that the
 * message names the key as the user would look for it. */
static cm_status check_keys(json_t *obj, const char *const *allowed, const char *prefix,
                            const char *origin, cm_error *err)
{
    const char *key;
    json_t *value;
    char buf[CM_ECHO_MAX + 8];
    json_object_foreach(obj, key, value) {
        if (!in_list(key, allowed))
            return cm_error_set(err, CM_EINPUT, "%s: unknown key \"%s%s\"", origin, prefix,
                                echo(key, buf, sizeof buf));
    }
    return CM_OK;
}

static cm_status get_required(const json_t *obj, const char *key, const char *label,
                              const char *origin, json_t **value, cm_error *err)
{
    *value = json_object_get(obj, key);
    if (!*value)
        return cm_error_set(err, CM_EINPUT, "%s: missing required key \"%s\"", origin, label);
    return CM_OK;
}

static bool has_control_char(const char *s)
{
    for (; *s; s++)
        if (iscntrl((unsigned char)*s))
            return true;
    return false;
}

static cm_status get_text(const json_t *obj, const char *key, const char *origin, char *dst,
                          cm_error *err)
{
    json_t *v;
    cm_status st = get_required(obj, key, key, origin, &v, err);
    if (st != CM_OK)
        return st;
    if (!json_is_string(v))
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" must be a string", origin, key);
    /* jansson rejects \u0000 in strings by default, so the length is strlen's. */
    size_t len = json_string_length(v);
    const char *s = json_string_value(v);
    if (len == 0)
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" must not be empty", origin, key);
    if (len >= CM_BOARD_TEXT_MAX)
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" is %zu bytes long, more than %d",
                            origin, key, len, CM_BOARD_TEXT_MAX - 1);
    if (has_control_char(s))
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" contains a control character", origin,
                            key);
    memcpy(dst, s, len + 1);
    return CM_OK;
}

/* The name is typed on the command line and printed in tables, so it is kept to a
 * plain identifier. */
static cm_status check_name(const char *name, const char *origin, cm_error *err)
{
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            return cm_error_set(err, CM_EINPUT,
                                "%s: \"name\" may hold only letters, digits, '-', '_' and '.'",
                                origin);
    return CM_OK;
}

/* Board counts are checked in the file's unit, so that a message quotes the number the
 * user wrote. */
static cm_status check_count(const char *label, int64_t n, bool positive, const char *origin,
                             cm_error *err)
{
    if (n < (positive ? 1 : 0) || n >= CM_BOARD_COUNT_LIMIT)
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" must be %s and less than 2^40, not %lld",
                            origin, label, positive ? "greater than 0" : "0 or more",
                            (long long)n);
    return CM_OK;
}

static cm_status get_count(const json_t *res, const char *key, bool positive,
                           const char *origin, int64_t *dst, cm_error *err)
{
    char label[32];
    json_t *v;
    snprintf(label, sizeof label, "resources.%s", key);
    cm_status st = get_required(res, key, label, origin, &v, err);
    if (st != CM_OK)
        return st;
    if (!json_is_integer(v))
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" must be an integer", origin, label);
    json_int_t n = json_integer_value(v);
    if ((st = check_count(label, (int64_t)n, positive, origin, err)) != CM_OK)
        return st;
    *dst = (int64_t)n;
    return CM_OK;
}

static cm_status get_bram_unit(const json_t *obj, const char *origin, cm_bram_unit *dst,
                               cm_error *err)
{
    json_t *v;
    char buf[CM_ECHO_MAX + 8];
    cm_status st = get_required(obj, "bram_unit", "bram_unit", origin, &v, err);
    if (st != CM_OK)
        return st;
    if (!json_is_string(v))
        return cm_error_set(err, CM_EINPUT, "%s: \"bram_unit\" must be a string", origin);
    const char *s = json_string_value(v);
    if (strcmp(s, "BRAM18") == 0)
        *dst = CM_BRAM_UNIT_18K;
    else if (strcmp(s, "BRAM36") == 0)
        *dst = CM_BRAM_UNIT_36K;
    else
        return cm_error_set(err, CM_EINPUT,
                            "%s: \"bram_unit\" must be \"BRAM18\" or \"BRAM36\", not \"%s\"",
                            origin, echo(s, buf, sizeof buf));
    return CM_OK;
}

static cm_status get_resources(const json_t *obj, const char *origin, cm_board *b,
                               cm_error *err)
{
    json_t *res;
    cm_status st = get_required(obj, "resources", "resources", origin, &res, err);
    if (st != CM_OK)
        return st;
    if (!json_is_object(res))
        return cm_error_set(err, CM_EINPUT, "%s: \"resources\" must be an object", origin);
    cm_resources *r = &b->resources;
    int64_t bram;
    if ((st = check_keys(res, resource_keys, "resources.", origin, err)) != CM_OK ||
        (st = get_count(res, "LUT", true, origin, &r->lut, err)) != CM_OK ||
        (st = get_count(res, "FF", true, origin, &r->ff, err)) != CM_OK ||
        (st = get_count(res, "DSP", true, origin, &r->dsp, err)) != CM_OK ||
        (st = get_count(res, "BRAM", true, origin, &bram, err)) != CM_OK ||
        (st = get_count(res, "URAM", false, origin, &r->uram, err)) != CM_OK ||
        (st = get_bram_unit(obj, origin, &b->bram_unit, err)) != CM_OK)
        return st;
    /* Below 2^40 BRAM36, the doubling cannot overflow. */
    r->bram18 = b->bram_unit == CM_BRAM_UNIT_36K ? 2 * bram : bram;
    return CM_OK;
}

/* The real-valued fields and their ranges (board.h says why they are bounded). */
typedef struct real_field {
    const char *key;
    size_t offset; /* of the double in cm_board */
    double lo, hi;
    const char *unit;
} real_field;

static const real_field real_fields[] = {
    {"clock_mhz", offsetof(cm_board, clock_mhz), CM_BOARD_CLOCK_MHZ_MIN, CM_BOARD_CLOCK_MHZ_MAX,
     "MHz"},
    {"bandwidth_gbps", offsetof(cm_board, bandwidth_gbps), CM_BOARD_BANDWIDTH_GBPS_MIN,
     CM_BOARD_BANDWIDTH_GBPS_MAX, "GB/s"},
    {"peak_bandwidth_gbps", offsetof(cm_board, peak_bandwidth_gbps), CM_BOARD_BANDWIDTH_GBPS_MIN,
     CM_BOARD_BANDWIDTH_GBPS_MAX, "GB/s"},
    {"reconfiguration_s", offsetof(cm_board, reconfiguration_s), 0.0,
     CM_BOARD_RECONFIGURATION_S_MAX, "seconds"},
};

#define N_REAL_FIELDS (sizeof real_fields / sizeof real_fields[0])

/* JSON has no NaN or infinity, but a board built in code can hold them, and the
 * negated comparison rejects NaN too. */
static cm_status check_real(const real_field *f, double x, const char *origin, cm_error *err)
{
    if (!(x >= f->lo && x <= f->hi))
        return cm_error_set(err, CM_EINPUT,
                            "%s: \"%s\" must be a finite number from %g to %g (%s), not %g",
                            origin, f->key, f->lo, f->hi, f->unit, x);
    return CM_OK;
}

static double *real_slot(cm_board *b, const real_field *f)
{
    return (double *)(void *)((char *)b + f->offset);
}

static double real_value(const cm_board *b, const real_field *f)
{
    return *(const double *)(const void *)((const char *)b + f->offset);
}

static cm_status get_number(const json_t *obj, const real_field *f, const char *origin,
                            cm_board *b, cm_error *err)
{
    json_t *v;
    cm_status st = get_required(obj, f->key, f->key, origin, &v, err);
    if (st != CM_OK)
        return st;
    if (!json_is_number(v))
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" must be a number", origin, f->key);
    double x = json_number_value(v);
    if ((st = check_real(f, x, origin, err)) != CM_OK)
        return st;
    *real_slot(b, f) = x;
    return CM_OK;
}

/* A usable figure above the data-sheet peak is a unit mix-up (Gb/s for GB/s). */
static cm_status check_bandwidths(const cm_board *b, const char *origin, cm_error *err)
{
    if (b->bandwidth_gbps > b->peak_bandwidth_gbps)
        return cm_error_set(err, CM_EINPUT,
                            "%s: \"bandwidth_gbps\" (%g) is above \"peak_bandwidth_gbps\" (%g)",
                            origin, b->bandwidth_gbps, b->peak_bandwidth_gbps);
    return CM_OK;
}

static cm_status get_bool(const json_t *obj, const char *key, const char *origin, bool *dst,
                          cm_error *err)
{
    json_t *v;
    cm_status st = get_required(obj, key, key, origin, &v, err);
    if (st != CM_OK)
        return st;
    if (!json_is_boolean(v))
        return cm_error_set(err, CM_EINPUT, "%s: \"%s\" must be true or false", origin, key);
    *dst = json_is_true(v);
    return CM_OK;
}

/* Notes are free text for people, but still typed, so that a stray number or object
 * there is reported rather than taken for documentation. */
static cm_status check_notes(const json_t *obj, const char *origin, cm_error *err)
{
    json_t *notes = json_object_get(obj, "notes");
    size_t i;
    json_t *item;
    if (!notes || json_is_string(notes))
        return CM_OK;
    if (json_is_array(notes)) {
        json_array_foreach(notes, i, item) {
            if (!json_is_string(item))
                break;
        }
        if (i == json_array_size(notes))
            return CM_OK;
    }
    return cm_error_set(err, CM_EINPUT, "%s: \"notes\" must be a string or an array of strings",
                        origin);
}

static cm_status get_texts(const json_t *obj, const char *origin, cm_board *b, cm_error *err)
{
    cm_status st;
    if ((st = get_text(obj, "name", origin, b->name, err)) != CM_OK ||
        (st = check_name(b->name, origin, err)) != CM_OK ||
        (st = get_text(obj, "display_name", origin, b->display_name, err)) != CM_OK ||
        (st = get_text(obj, "part", origin, b->part, err)) != CM_OK ||
        (st = get_text(obj, "memory", origin, b->memory, err)) != CM_OK)
        return st;
    return CM_OK;
}

static cm_status get_timing(const json_t *obj, const char *origin, cm_board *b, cm_error *err)
{
    cm_status st;
    for (size_t i = 0; i < N_REAL_FIELDS; i++)
        if ((st = get_number(obj, &real_fields[i], origin, b, err)) != CM_OK)
            return st;
    if ((st = get_bool(obj, "reconfiguration_estimated", origin, &b->reconfiguration_estimated,
                       err)) != CM_OK)
        return st;
    return check_bandwidths(b, origin, err);
}

cm_status cm_board_validate(const cm_board *b, const char *origin, cm_error *err)
{
    if (!origin)
        origin = "board";
    if (!b)
        return cm_error_set(err, CM_EINTERNAL, "%s: no board given", origin);
    const cm_resources *r = &b->resources;
    int64_t bram = b->bram_unit == CM_BRAM_UNIT_36K ? r->bram18 / 2 : r->bram18;
    cm_status st;
    if ((st = check_count("resources.LUT", r->lut, true, origin, err)) != CM_OK ||
        (st = check_count("resources.FF", r->ff, true, origin, err)) != CM_OK ||
        (st = check_count("resources.DSP", r->dsp, true, origin, err)) != CM_OK ||
        (st = check_count("resources.BRAM", bram, true, origin, err)) != CM_OK ||
        (st = check_count("resources.URAM", r->uram, false, origin, err)) != CM_OK)
        return st;
    for (size_t i = 0; i < N_REAL_FIELDS; i++)
        if ((st = check_real(&real_fields[i], real_value(b, &real_fields[i]), origin, err)) !=
            CM_OK)
            return st;
    return check_bandwidths(b, origin, err);
}

static cm_status board_from_json(json_t *root, const char *origin, cm_board *b,
                                 cm_error *err)
{
    cm_status st;
    if (!json_is_object(root))
        return cm_error_set(err, CM_EINPUT, "%s: a board file must hold a JSON object",
                            origin);
    if ((st = check_keys(root, top_keys, "", origin, err)) != CM_OK ||
        (st = get_texts(root, origin, b, err)) != CM_OK ||
        (st = get_resources(root, origin, b, err)) != CM_OK ||
        (st = get_timing(root, origin, b, err)) != CM_OK ||
        (st = check_notes(root, origin, err)) != CM_OK)
        return st;
    /* Each field was checked as it was read, for messages in file order; this keeps
     * the parser and cm_board_validate from ever disagreeing. */
    return cm_board_validate(b, origin, err);
}

cm_status cm_board_parse(const char *json, size_t len, const char *origin, cm_board *out,
                         cm_error *err)
{
    if (!origin)
        origin = "board";
    if (!json || !out)
        return cm_error_set(err, CM_EINTERNAL, "%s: no board text or no result given", origin);
    json_error_t jerr;
    /* Duplicate keys are rejected: with last-one-wins, an edit that adds a second
     * "clock_mhz" would silently override the first. */
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        /* jansson quotes the offending bytes, which may be anything. */
        for (char *p = jerr.text; *p; p++)
            if (!is_plain(*p))
                *p = '?';
        return cm_error_set(err, CM_EINPUT, "%s: invalid JSON at line %d, column %d: %s",
                            origin, jerr.line, jerr.column, jerr.text);
    }
    /* Filled aside so that a failed parse leaves *out untouched. */
    cm_board b;
    memset(&b, 0, sizeof b);
    cm_status st = board_from_json(root, origin, &b, err);
    json_decref(root);
    if (st == CM_OK)
        *out = b;
    return st;
}

/* Reads the whole file into a NUL-terminated buffer, growing it as needed because
 * pipes and /dev/stdin have no size to ask for up front. */
static cm_status read_whole(FILE *f, const char *path, char **text, size_t *len, cm_error *err)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return cm_error_nomem(err);
    for (;;) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f)) {
            int e = errno;
            free(buf);
            return cm_error_set(err, CM_EINPUT, "%s: cannot read: %s", path, strerror(e));
        }
        if (feof(f))
            break;
        if (cap >= CM_BOARD_FILE_MAX) {
            free(buf);
            return cm_error_set(err, CM_EINPUT, "%s: larger than %zu bytes, not a board file",
                                path, CM_BOARD_FILE_MAX);
        }
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            return cm_error_nomem(err);
        }
        buf = grown;
        cap *= 2;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return CM_OK;
}

cm_status cm_board_load_file(const char *path, cm_board *out, cm_error *err)
{
    if (!path)
        return cm_error_set(err, CM_EUSAGE, "no board file given");
    FILE *f = fopen(path, "rb");
    if (!f)
        return cm_error_set(err, CM_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0;
    cm_status st = read_whole(f, path, &text, &len, err);
    fclose(f);
    if (st != CM_OK)
        return st;
    st = cm_board_parse(text, len, path, out, err);
    free(text);
    return st;
}

/* Folds a name for comparison, so that "Ultra96V2", "ultra96_v2" and "ultra96-v2" are
 * one board. False when the name is empty or too long to be a board name. */
static bool fold_name(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; *s; s++) {
        if (*s == '-' || *s == '_')
            continue;
        if (n + 1 >= size)
            return false;
        buf[n++] = (char)tolower((unsigned char)*s);
    }
    buf[n] = '\0';
    return n > 0;
}

/* Index of the built-in board called `name`, or cm_board_sources_count. */
static size_t find_builtin(const char *name)
{
    char want[CM_BOARD_TEXT_MAX], have[CM_BOARD_TEXT_MAX];
    if (!fold_name(name, want, sizeof want))
        return cm_board_sources_count;
    for (size_t i = 0; i < cm_board_sources_count; i++)
        if (fold_name(cm_board_sources[i].name, have, sizeof have) && strcmp(want, have) == 0)
            return i;
    return cm_board_sources_count;
}

/* "zedboard, pynq-z2, ..." for messages that tell the user what they could have typed. */
static const char *builtin_list(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cm_board_sources_count && n < size; i++) {
        int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "", cm_board_sources[i].name);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    return buf;
}

size_t cm_board_builtin_count(void)
{
    return cm_board_sources_count;
}

cm_status cm_board_builtin_at(size_t i, cm_board *out, cm_error *err)
{
    if (i >= cm_board_sources_count)
        return cm_error_set(err, CM_EUSAGE, "built-in board %zu does not exist (there are %zu)",
                            i, cm_board_sources_count);
    const cm_board_source *src = &cm_board_sources[i];
    char origin[CM_BOARD_TEXT_MAX + 16];
    snprintf(origin, sizeof origin, "builtin:%s", src->name);
    return cm_board_parse(src->json, strlen(src->json), origin, out, err);
}

cm_status cm_board_builtin(const char *name, cm_board *out, cm_error *err)
{
    char list[256];
    if (!name)
        return cm_error_set(err, CM_EUSAGE, "no board name given");
    size_t i = find_builtin(name);
    if (i == cm_board_sources_count)
        return cm_error_set(err, CM_EINPUT, "%s: not a built-in board (%s)", name,
                            builtin_list(list, sizeof list));
    return cm_board_builtin_at(i, out, err);
}

cm_status cm_board_resolve(const char *name_or_path, cm_board *out, cm_error *err)
{
    char list[256];
    if (!name_or_path)
        return cm_error_set(err, CM_EUSAGE, "no board name or file given");
    size_t i = find_builtin(name_or_path);
    if (i < cm_board_sources_count)
        return cm_board_builtin_at(i, out, err);
    /* A missing file most likely means a mistyped board name, so the message lists the
     * names; any other failure (permissions, a directory) is reported as it is. */
    if (access(name_or_path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR))
        return cm_error_set(err, CM_EINPUT, "%s: not a built-in board (%s) and no such file",
                            name_or_path, builtin_list(list, sizeof list));
    return cm_board_load_file(name_or_path, out, err);
}

static int64_t add_saturating(int64_t a, int64_t b)
{
    int64_t s;
    if (!__builtin_add_overflow(a, b, &s))
        return s;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

/* INT64_MAX stays: see board.h. */
static int64_t sub_saturating(int64_t a, int64_t b)
{
    int64_t s;
    if (a == INT64_MAX)
        return a;
    if (!__builtin_sub_overflow(a, b, &s))
        return s;
    return b < 0 ? INT64_MAX : INT64_MIN;
}

void cm_resources_add(cm_resources *acc, const cm_resources *r)
{
    acc->dsp = add_saturating(acc->dsp, r->dsp);
    acc->bram18 = add_saturating(acc->bram18, r->bram18);
    acc->uram = add_saturating(acc->uram, r->uram);
    acc->lut = add_saturating(acc->lut, r->lut);
    acc->ff = add_saturating(acc->ff, r->ff);
}

void cm_resources_sub(cm_resources *acc, const cm_resources *r)
{
    acc->dsp = sub_saturating(acc->dsp, r->dsp);
    acc->bram18 = sub_saturating(acc->bram18, r->bram18);
    acc->uram = sub_saturating(acc->uram, r->uram);
    acc->lut = sub_saturating(acc->lut, r->lut);
    acc->ff = sub_saturating(acc->ff, r->ff);
}

bool cm_resources_fit(const cm_resources *r, const cm_resources *max)
{
    return r->dsp <= max->dsp && r->bram18 <= max->bram18 && r->uram <= max->uram &&
           r->lut <= max->lut && r->ff <= max->ff;
}

void cm_resources_min(cm_resources *acc, const cm_resources *r)
{
    if (r->dsp < acc->dsp) acc->dsp = r->dsp;
    if (r->bram18 < acc->bram18) acc->bram18 = r->bram18;
    if (r->uram < acc->uram) acc->uram = r->uram;
    if (r->lut < acc->lut) acc->lut = r->lut;
    if (r->ff < acc->ff) acc->ff = r->ff;
}
