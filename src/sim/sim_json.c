/* The simulate command's flow and JSON (sim_json.h). */
#include "sim/sim_json.h"
#include "util/json_build.h"

const char *cm_sim_fifo_name(cm_sim_fifo_mode m)
{
    return m == CM_SIM_FIFO_AUTO ? "auto" : "design";
}

bool cm_sim_relative(int64_t simulated, int64_t analytic, double *out)
{
    if (analytic == 0 || simulated == 0)
        return false;
    *out = (double)simulated / (double)analytic - 1.0;
    return true;
}

cm_status cm_sim_design_file(const char *design, const cm_sim_options *o, const char *output,
                             cm_sim_result *r, cm_error *err)
{
    cm_status st = cm_simulate(design, o, r, err);
    if (st != CM_OK)
        return st;
    /* a deadlocked or partial run sized nothing */
    if (output && !r->deadlock && !r->partial) {
        st = cm_simulate_save_depths(design, r, output, err);
        if (st != CM_OK)
            cm_sim_result_free(r);
    }
    return st;
}

cm_status cm_sim_verdict(const char *design, const cm_sim_result *r, bool wrote, cm_error *err)
{
    const char *unwritten = wrote ? " (no design written)" : "";
    if (r->deadlock)
        return cm_error_set(err, CM_EINFEASIBLE, "%s: deadlock: %s%s", design, r->deadlock_cycle,
                            unwritten);
    if (r->partial)
        return cm_error_set(err, CM_EINFEASIBLE, "%s: %s%s", design, r->warning, unwritten);
    return CM_OK;
}

/* ---- JSON ---- */

static json_t *seconds_json(int64_t cycles, double clock_mhz)
{
    return clock_mhz > 0 ? json_real((double)cycles / (clock_mhz * 1e6)) : json_null();
}

static json_t *figures_json(const cm_sim_figures *f, double clock_mhz)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "latency_cycles", json_integer(f->latency_cycles), &ok);
    cm_json_put(o, "interval_cycles", json_integer(f->interval_cycles), &ok);
    cm_json_put(o, "latency_s", seconds_json(f->latency_cycles, clock_mhz), &ok);
    cm_json_put(o, "interval_s", seconds_json(f->interval_cycles, clock_mhz), &ok);
    return cm_json_finish(o, ok);
}

static json_t *relative_json(int64_t simulated, int64_t analytic)
{
    double d;
    return cm_sim_relative(simulated, analytic, &d) ? json_real(d) : json_null();
}

static json_t *difference_json(const cm_sim_figures *s, const cm_sim_figures *a)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "latency", relative_json(s->latency_cycles, a->latency_cycles), &ok);
    cm_json_put(o, "interval", relative_json(s->interval_cycles, a->interval_cycles), &ok);
    return cm_json_finish(o, ok);
}

static json_t *partition_json(const cm_sim_partition *p, double clock_mhz)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "label", json_string(p->label), &ok);
    cm_json_put(o, "frames", json_integer(p->frames), &ok);
    cm_json_put(o, "before_cycles", json_integer(p->before_cycles), &ok);
    cm_json_put(o, "simulated", figures_json(&p->simulated, clock_mhz), &ok);
    cm_json_put(o, "analytic", figures_json(&p->analytic, clock_mhz), &ok);
    return cm_json_finish(o, ok);
}

static json_t *task_json(const cm_sim_task *t)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "name", json_string(t->name), &ok);
    cm_json_put(o, "kind", json_string(t->kind), &ok);
    cm_json_put(o, "partition", json_integer(t->partition), &ok);
    cm_json_put(o, "iterations", json_integer(t->iterations), &ok);
    cm_json_put(o, "busy", json_real(t->busy), &ok);
    cm_json_put(o, "starved_cycles", json_integer(t->starved_cycles), &ok);
    cm_json_put(o, "blocked_cycles", json_integer(t->blocked_cycles), &ok);
    cm_json_put(o, "stalled_by", t->stalled_by ? json_string(t->stalled_by) : json_null(), &ok);
    cm_json_put(o, "simulated_cycles", json_integer(t->simulated_cycles), &ok);
    cm_json_put(o, "analytic_cycles", json_integer(t->analytic_cycles), &ok);
    return cm_json_finish(o, ok);
}

static json_t *stream_json(const cm_sim_stream *s)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "name", json_string(s->name), &ok);
    cm_json_put(o, "partition", json_integer(s->partition), &ok);
    cm_json_put(o, "depth", json_integer(s->depth), &ok);
    cm_json_put(o, "design_depth", json_integer(s->design_depth), &ok);
    cm_json_put(o, "max_occupancy", json_integer(s->max_occupancy), &ok);
    cm_json_put(o, "first_word_cycle", json_integer(s->first_word_cycle), &ok);
    cm_json_put(o, "last_word_cycle", json_integer(s->last_word_cycle), &ok);
    return cm_json_finish(o, ok);
}

/* the partitions, tasks and streams arrays into o */
static void put_tables(json_t *o, const cm_sim_result *r, bool *ok)
{
    json_t *parts = json_array(), *tasks = json_array(), *streams = json_array();
    for (int i = 0; i < r->n_partitions; i++)
        cm_json_append(parts, partition_json(&r->partitions[i], r->clock_mhz), ok);
    for (int i = 0; i < r->n_tasks; i++)
        cm_json_append(tasks, task_json(&r->tasks[i]), ok);
    for (int i = 0; i < r->n_streams; i++)
        cm_json_append(streams, stream_json(&r->streams[i]), ok);
    cm_json_put(o, "partitions", parts, ok);
    cm_json_put(o, "tasks", tasks, ok);
    cm_json_put(o, "streams", streams, ok);
}

json_t *cm_sim_result_json(const cm_sim_result *r)
{
    bool ok = true;
    json_t *o = json_object();
    cm_json_put(o, "architecture", json_string(cm_architecture_name(r->architecture)), &ok);
    cm_json_put(o, "clock_mhz", json_real(r->clock_mhz), &ok);
    cm_json_put(o, "frames", json_integer(r->frames), &ok);
    cm_json_put(o, "fifo_depths", json_string(cm_sim_fifo_name(r->fifo)), &ok);
    cm_json_put(o, "simulated", figures_json(&r->simulated, r->clock_mhz), &ok);
    cm_json_put(o, "analytic", figures_json(&r->analytic, r->clock_mhz), &ok);
    cm_json_put(o, "difference", difference_json(&r->simulated, &r->analytic), &ok);
    cm_json_put(o, "deadlock", json_boolean(r->deadlock), &ok);
    if (r->deadlock)
        cm_json_put(o, "deadlock_cycle", json_string(r->deadlock_cycle), &ok);
    put_tables(o, r, &ok);
    cm_json_put(o, "iterations", json_integer((json_int_t)r->iterations), &ok);
    cm_json_put(o, "cycles", json_integer(r->cycles), &ok);
    cm_json_put(o, "time_s", json_real(r->time_s), &ok);
    /* only a cut run adds keys: a finished one prints the key set of cli.md */
    if (r->stopped_early) {
        cm_json_put(o, "stopped_early", json_true(), &ok);
        cm_json_put(o, "partial", json_boolean(r->partial), &ok);
        cm_json_put(o, "time_limit_s", json_real(r->time_limit_s), &ok);
        cm_json_put(o, "warnings", json_pack("[s]", r->warning), &ok);
    }
    return cm_json_finish(o, ok);
}
