/* FPGA boards: device resources, clock, off-chip bandwidth, reconfiguration time.
 *
 * Built-in boards come from the JSON files in boards/ (compiled in); a user's board
 * file has the same format and goes through the same validation. BRAM is kept in
 * 18 Kb halves internally; a board file says which unit its count is in. */
#ifndef CNNMAP_BOARD_H
#define CNNMAP_BOARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <cnnmap/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device resources. BRAM is counted in 18 Kb blocks (BRAM18). */
typedef struct cm_resources {
    int64_t dsp;
    int64_t bram18;
    int64_t uram;
    int64_t lut;
    int64_t ff;
} cm_resources;

/* acc += r and acc -= r, component by component, saturating at INT64_MAX and
 * INT64_MIN instead of overflowing (a cost model that saturates a figure at INT64_MAX
 * must not wrap a sum to a negative use that fits any board). A component at INT64_MAX
 * stands for "too large to count": cm_resources_sub leaves it there, because the parts
 * that overflowed are lost and only summing them again can recover the true value. */
void cm_resources_add(cm_resources *acc, const cm_resources *r);
void cm_resources_sub(cm_resources *acc, const cm_resources *r);
/* True when no component of r exceeds the same component of max. */
bool cm_resources_fit(const cm_resources *r, const cm_resources *max);
/* acc = the componentwise least of acc and r. */
void cm_resources_min(cm_resources *acc, const cm_resources *r);

typedef enum cm_bram_unit { CM_BRAM_UNIT_18K = 18, CM_BRAM_UNIT_36K = 36 } cm_bram_unit;

#define CM_BOARD_TEXT_MAX 96

/* The ranges a board must lie in (cm_board_validate; board files are checked at load).
 * Far wider than any real board, they exist so that nothing derived from a board
 * overflows: a clock or bandwidth near 1e308 made latencies 0 and throughputs
 * infinite, and a reconfiguration time near 1e308 made latencies infinite.
 *   resources.LUT, FF, DSP, BRAM  integers, 1 to 2^40 - 1 (BRAM in the file's unit)
 *   resources.URAM                integer, 0 to 2^40 - 1
 *   clock_mhz                     1 to 2000 MHz (the range of --clock)
 *   bandwidth_gbps                0.001 to 10000 GB/s, and at most peak_bandwidth_gbps
 *   peak_bandwidth_gbps           0.001 to 10000 GB/s
 *   reconfiguration_s             0 to 1000 s
 * Today's largest devices hold about 2^23 LUTs, fabrics close timing below 1 GHz, HBM
 * boards reach about 500 GB/s and a full reconfiguration over JTAG takes minutes. */
#define CM_BOARD_COUNT_LIMIT (INT64_C(1) << 40) /* counts stay below this */
#define CM_BOARD_CLOCK_MHZ_MIN 1.0
#define CM_BOARD_CLOCK_MHZ_MAX 2000.0
#define CM_BOARD_BANDWIDTH_GBPS_MIN 0.001
#define CM_BOARD_BANDWIDTH_GBPS_MAX 10000.0
#define CM_BOARD_RECONFIGURATION_S_MAX 1000.0

typedef struct cm_board {
    char name[CM_BOARD_TEXT_MAX];         /* short id used on the command line: "zc706" */
    char display_name[CM_BOARD_TEXT_MAX]; /* "ZC706" */
    char part[CM_BOARD_TEXT_MAX];         /* "xc7z045ffg900-2" */
    char memory[CM_BOARD_TEXT_MAX];       /* "DDR3, 64-bit (PS)" */
    cm_resources resources;               /* device totals, BRAM in BRAM18 */
    cm_bram_unit bram_unit;               /* the unit the board file stated BRAM in */
    double clock_mhz;                     /* default design clock */
    double bandwidth_gbps;                /* usable off-chip bandwidth, GB/s */
    double peak_bandwidth_gbps;           /* data-sheet peak, GB/s */
    double reconfiguration_s;             /* full reconfiguration time, seconds */
    bool reconfiguration_estimated;       /* true when estimated, not measured */
} cm_board;

/* Parses and validates a board JSON document; `origin` names it in messages. */
cm_status cm_board_parse(const char *json, size_t len, const char *origin, cm_board *out,
                         cm_error *err);

/* Checks every numeric field of a board against the ranges above (and the usable
 * bandwidth against the peak); `origin` names the board in the message, which names
 * the field as the board file spells it. Board files are checked at load; a board
 * built in code should be checked before use. */
cm_status cm_board_validate(const cm_board *b, const char *origin, cm_error *err);

/* Reads a board file from a path. */
cm_status cm_board_load_file(const char *path, cm_board *out, cm_error *err);

/* Finds a built-in board by name (case-insensitive; "ultra96-v2" and "ultra96v2" alike). */
cm_status cm_board_builtin(const char *name, cm_board *out, cm_error *err);

/* A built-in name if it is one, otherwise a path to a board file. */
cm_status cm_board_resolve(const char *name_or_path, cm_board *out, cm_error *err);

/* Number of built-in boards, and the i-th one in a stable order. */
size_t cm_board_builtin_count(void);
cm_status cm_board_builtin_at(size_t i, cm_board *out, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
