/* Mapping a model onto a board across architectures: the one entry point that decides
 * which of cnnmap's hardware architectures should carry a network. Each architecture is
 * searched with the best optimiser it has (streaming partitions on fpgaConvNet, FINN and
 * hls4ml; fpgaConvNet's latency-driven reference architecture with weights reloading;
 * nn2FPGA's dataflow accelerator for quantised models; DYNAMAP's systolic-array overlay);
 * each candidate carries its figures, what was proved about it, or why the architecture
 * cannot take the model; the best for the objective is marked. `cnnmap compare` prints
 * this; no single published tool answers it, since each of the five systems only maps
 * onto its own hardware. f-CNNx's several engines take several networks and so are not
 * a candidate for one model. */
#ifndef CNNMAP_MAP_H
#define CNNMAP_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/board.h>
#include <cnnmap/design.h>
#include <cnnmap/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_architecture {
    CM_ARCH_STREAMING,      /* partitions of streaming building blocks (SAMO's backends) */
    CM_ARCH_LATENCY_DRIVEN, /* fpgaConvNet's reference architecture, weights reloaded */
    CM_ARCH_NN2FPGA,        /* nn2FPGA's integer dataflow accelerator */
    CM_ARCH_OVERLAY,        /* DYNAMAP's systolic array with per-layer algorithms */
    CM_ARCH_MULTI,          /* f-CNNx: several networks, one engine each */
    CM_ARCH_COUNT
} cm_architecture;

/* "streaming", "latency_driven", "nn2fpga", "overlay", "multi" */
const char *cm_architecture_name(cm_architecture a);

/* Which architecture a design file holds, from its "format" key. CM_EINPUT naming the
 * file when it cannot be read, is not JSON, or is no cnnmap design file. */
cm_status cm_design_file_architecture(const char *path, cm_architecture *out, cm_error *err);

/* Bits of cm_map_options.spaces: one per candidate below. */
enum {
    CM_MAP_FPGACONVNET = 1u << 0,   /* streaming on fpgaConvNet */
    CM_MAP_FINN = 1u << 1,          /* streaming on FINN */
    CM_MAP_HLS4ML = 1u << 2,        /* streaming on hls4ml */
    CM_MAP_LATENCY_DRIVEN = 1u << 3,
    CM_MAP_NN2FPGA = 1u << 4,
    CM_MAP_OVERLAY = 1u << 5,
    CM_MAP_ALL = (1u << 6) - 1
};

#define CM_MAP_CANDIDATES 6
/* A user's time limit is shared out among the candidates as they run. Without one
 * (time_limit_s 0, the default) each candidate's search stops by its own budget, so the
 * same inputs give the same comparison on any machine; this is then no cap at all (it
 * names the old default and stays for the API). */
#define CM_MAP_DEFAULT_TIME_LIMIT_S 60.0

typedef struct cm_map_options {
    unsigned spaces;       /* CM_MAP_* bits; 0 means all */
    cm_objective objective;
    int batch;             /* throughput objective: samples per run (latency: 1) */
    double time_limit_s;   /* the user's cap on the whole mapping, model loading included;
                            * 0 (the default): none, every search stops by its budget */
    bool progress;         /* draw a progress bar on stderr */
} cm_map_options;

/* All spaces, latency objective, batch 256 for throughput, the default limit. */
void cm_map_options_init(cm_map_options *o);

/* Parses a comma-separated list of "fpgaconvnet", "finn", "hls4ml" (streaming),
 * "latency-driven", "nn2fpga", "overlay" into CM_MAP_* bits. */
cm_status cm_map_parse_spaces(const char *list, unsigned *spaces, cm_error *err);

typedef struct cm_map_candidate {
    cm_architecture architecture;
    const char *backend;   /* "fpgaconvnet", "finn", "hls4ml", "nn2fpga", "dynamap" */
    const char *optimiser; /* the optimiser that produced it ("exact", "rule", "bip", "pbqp") */
    bool searched;         /* in the requested spaces */
    bool available;        /* the architecture can take the model (else: reason) */
    bool feasible;         /* a design that fits the board was found (else: reason) */
    double latency_s;      /* one run of `batch` samples */
    double throughput_fps;
    cm_resources resources;
    bool has_memory;       /* resources.bram18 and .uram are costed */
    bool has_logic;        /* resources.lut and .ff are costed (else only what is above) */
    bool optimal;          /* the optimiser proved latency_s optimal (within its gap) */
    bool has_lower_bound;  /* no design of this space is below lower_bound_s */
    double lower_bound_s;
    bool stopped_early;    /* its share of the time limit ended its search */
    double time_s;
    char reason[512];      /* why not available or not feasible; else a remark or "" */
} cm_map_candidate;

typedef struct cm_map_result {
    char model[256];       /* the graph's name */
    char board[96];        /* the board's name */
    cm_objective objective;
    int batch;
    int n_candidates;
    cm_map_candidate candidates[CM_MAP_CANDIDATES];
    int best;              /* index of the best feasible candidate, -1 when none fits */
    double time_s;
    struct cm_map_state *state; /* the candidates' designs, for cm_map_save */
} cm_map_result;

/* Maps the model file onto the board (a built-in name or a board file) in every
 * requested space, and keeps each candidate's design. CM_EINPUT for a model or board
 * that cannot be read (nothing to free then); an architecture that refuses the model or
 * finds nothing that fits is a candidate with its reason, never a failure of the whole.
 * On success the caller frees the result with cm_map_result_free. */
cm_status cm_map_model(const char *model_path, const char *board_ref, const cm_map_options *o,
                       cm_map_result *out, cm_error *err);

/* Writes a feasible candidate's design file, the one its architecture's command writes
 * with -o (optimise, overlay), for evaluate and export. CM_EUSAGE for a candidate with
 * no design (not searched, refused, nothing fits). */
cm_status cm_map_save(const cm_map_result *r, int candidate, const char *path, cm_error *err);

/* Frees the designs (the figures are plain data). */
void cm_map_result_free(cm_map_result *r);

#ifdef __cplusplus
}
#endif
#endif
