/* bench_load: how long cm_model_load takes and how much memory it needs.
 *
 *   bench_load [--repeat N] [--json] MODEL...
 *
 * Every model is measured by two child processes of its own, so that neither its
 * peak resident memory nor its allocator state depends on the models before it (the C
 * library keeps freed pages, raises its mmap threshold after large frees, and the RSS
 * high-water mark never goes down):
 *
 *   load child  pulls the file into the page cache through a small static buffer (no
 *               heap use), then calls cm_model_load N times, freeing each graph; the
 *               first load is reported apart (later ones reuse memory the allocator kept
 *               from it); its ru_maxrss, taken by the parent from wait4, is the peak of a
 *               load;
 *   read child  reads the whole file with read(2) into one buffer of the file's size:
 *               once into the fresh buffer (page faults included), then N times into
 *               the same, already resident buffer: the cost of just copying the bytes
 *               out of the page cache, the floor any loader pays.
 *
 * Each child sends its numbers back through a pipe. Times are wall-clock
 * (CLOCK_MONOTONIC). A row is printed as soon as its model is done. The exit status is
 * 0 when every model loaded, 2 when one failed, 1 on a usage error. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* wait4 */
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include <cnnmap/graph.h>
#include <cnnmap/model.h>

#define DEFAULT_REPEAT 5
#define MAX_REPEAT 100000

/* What a child sends back; its own process image, so a plain struct will do. */
typedef struct child_report {
    int ok;
    /* load child */
    int layers;
    uint64_t macs;
    uint64_t params;
    double load_first_s; /* the first load in the process: what one CLI run pays */
    double load_median_s, load_min_s, load_max_s;
    long base_rss_kib; /* VmRSS before the first load */
    long hwm_kib;      /* VmHWM after the last load (cross-check of ru_maxrss) */
    /* read child */
    double read_first_s; /* into the freshly allocated buffer */
    double read_median_s, read_min_s;
    char message[CM_ERROR_MESSAGE_MAX];
} child_report;

typedef struct model_result {
    const char *path;
    long long file_bytes;
    bool ok;
    child_report load, read;
    long peak_rss_kib; /* the load child's ru_maxrss */
    const char *error; /* points into load or read when !ok */
    char own_error[CM_ERROR_MESSAGE_MAX];
} model_result;

typedef void (*child_fn)(const char *path, int repeat, child_report *r);

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_load [--repeat N] [--json] MODEL...\n"
            "  Loads each MODEL N times (default %d) with cm_model_load in a child process\n"
            "  and reports layers, MACs, median/min time per load and peak resident memory,\n"
            "  beside the time to just read the file.\n"
            "  --repeat N  loads (and plain reads) per model, N >= 1\n"
            "  --json      print a JSON array instead of a table\n",
            DEFAULT_REPEAT);
}

/* Sorts v in place; returns the median. */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cm_bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* A "Vm...:  1234 kB" line of /proc/self/status, in KiB, or -1. */
static long proc_status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    size_t klen = strlen(key);
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = strtol(line + klen + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* Reads up to size bytes of fd from offset 0 into buf; returns the count, or -1 with
 * message set. With buf == NULL, reads through a static buffer (page-cache warm-up). */
static long long read_fd(int fd, const char *path, char *buf, size_t size, char *message,
                         size_t message_size)
{
    static char scratch[1 << 16];
    if (lseek(fd, 0, SEEK_SET) != 0) {
        snprintf(message, message_size, "%s: cannot seek: %s", path, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < size) {
        char *dst = buf ? buf + done : scratch;
        size_t want = buf ? size - done : (size - done < sizeof scratch ? size - done : sizeof scratch);
        ssize_t got = read(fd, dst, want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(message, message_size, "%s: read error: %s", path, strerror(errno));
            return -1;
        }
        if (got == 0)
            break;
        done += (size_t)got;
    }
    return (long long)done;
}

/* Opens path and gets its size; returns the descriptor or -1 with message set. */
static int open_sized(const char *path, size_t *size, char *message, size_t message_size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(message, message_size, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(message, message_size, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    *size = (size_t)st.st_size;
    return fd;
}

static void measure_reads(const char *path, int repeat, child_report *r)
{
    size_t size = 0;
    int fd = open_sized(path, &size, r->message, sizeof r->message);
    if (fd < 0)
        return;
    double *t = malloc((size_t)repeat * sizeof *t);
    char *buf = malloc(size ? size : 1);
    if (!t || !buf) {
        snprintf(r->message, sizeof r->message, "%s: out of memory for %zu bytes", path, size);
        goto out;
    }
    for (int i = -1; i < repeat; i++) {
        double t0 = cm_bench_now();
        long long got = read_fd(fd, path, buf, size, r->message, sizeof r->message);
        double dt = cm_bench_now() - t0;
        if (got < 0)
            goto out;
        if (i < 0)
            r->read_first_s = dt;
        else
            t[i] = dt;
    }
    r->read_median_s = median_of(t, repeat);
    r->read_min_s = t[0];
    r->ok = 1;
out:
    free(buf);
    free(t);
    close(fd);
}

static void measure_loads(const char *path, int repeat, child_report *r)
{
    size_t size = 0;
    int fd = open_sized(path, &size, r->message, sizeof r->message);
    if (fd < 0)
        return;
    long long got = read_fd(fd, path, NULL, size, r->message, sizeof r->message);
    close(fd);
    if (got < 0)
        return;
    double *t = malloc((size_t)repeat * sizeof *t);
    if (!t) {
        snprintf(r->message, sizeof r->message, "out of memory");
        return;
    }
    r->base_rss_kib = proc_status_kib("VmRSS");
    for (int i = 0; i < repeat; i++) {
        cm_graph *g = NULL;
        cm_error err = {0};
        double t0 = cm_bench_now();
        cm_status st = cm_model_load(path, &g, &err);
        t[i] = cm_bench_now() - t0;
        if (i == 0)
            r->load_first_s = t[0];
        if (st != CM_OK) {
            snprintf(r->message, sizeof r->message, "%s", err.message);
            free(t);
            return;
        }
        cm_graph_totals tot = cm_graph_totals_of(g);
        r->layers = tot.layers;
        r->macs = tot.macs;
        r->params = tot.params;
        cm_graph_free(g);
    }
    r->hwm_kib = proc_status_kib("VmHWM");
    r->load_median_s = median_of(t, repeat);
    r->load_min_s = t[0];
    r->load_max_s = t[repeat - 1];
    r->ok = 1;
    free(t);
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads exactly len bytes; returns 0, or -1 on error or early end of file. */
static int read_all(int fd, void *data, size_t len)
{
    char *p = data;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Runs fn in a child process, filling r from its report; returns whether it succeeded.
 * *maxrss_kib gets the child's peak RSS. */
static bool run_child(child_fn fn, const char *path, int repeat, child_report *r,
                      long *maxrss_kib)
{
    memset(r, 0, sizeof *r);
    *maxrss_kib = 0;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(r->message, sizeof r->message, "pipe: %s", strerror(errno));
        return false;
    }
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->message, sizeof r->message, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        fn(path, repeat, r);
        int rc = write_all(fds[1], r, sizeof *r) == 0 ? 0 : 1;
        close(fds[1]);
        _exit(rc);
    }
    close(fds[1]);
    int got = read_all(fds[0], r, sizeof *r);
    close(fds[0]);

    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t w;
    do
        w = wait4(pid, &status, 0, &ru);
    while (w < 0 && errno == EINTR);
    if (w < 0) {
        snprintf(r->message, sizeof r->message, "wait4: %s", strerror(errno));
        r->ok = 0;
        return false;
    }
    *maxrss_kib = ru.ru_maxrss; /* KiB on Linux */
    if (got != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char why[64];
        if (WIFSIGNALED(status))
            snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(status));
        else
            snprintf(why, sizeof why, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (got != 0 || r->ok)
            snprintf(r->message, sizeof r->message, "%s: measuring child failed (%s%s)", path,
                     why, got != 0 ? ", no report" : "");
        r->ok = 0;
    }
    return r->ok != 0;
}

static void run_model(const char *path, int repeat, model_result *res)
{
    memset(res, 0, sizeof *res);
    res->path = path;
    res->file_bytes = -1;
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(res->own_error, sizeof res->own_error, "%s: cannot stat: %s", path,
                 strerror(errno));
        res->error = res->own_error;
        return;
    }
    res->file_bytes = (long long)st.st_size;
    long unused;
    if (!run_child(measure_loads, path, repeat, &res->load, &res->peak_rss_kib))
        res->error = res->load.message;
    else if (!run_child(measure_reads, path, repeat, &res->read, &unused))
        res->error = res->read.message;
    else
        res->ok = true;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void print_table_header(int repeat)
{
    printf("cm_model_load, %d load%s per model in a fresh child process. Times in ms: first "
           "load, median and min\nof all loads, median plain read(2) of the file into a resident "
           "buffer; x_read = load/read;\npeak = the child's max RSS; x_size = peak/file size.\n",
           repeat, repeat == 1 ? "" : "s");
    printf("%-28s %9s %6s %8s %9s %9s %9s %9s %9s %7s %8s %6s\n", "model", "size_MiB",
           "layers", "GMACs", "first_ms", "load_ms", "min_ms", "read_ms", "load_MB/s", "x_read",
           "peak_MiB", "x_size");
}

static void print_table_row(const model_result *m)
{
    const char *name = base_name(m->path);
    if (!m->ok) {
        printf("%-28s FAILED: %s\n", name, m->error);
        return;
    }
    double mib = (double)m->file_bytes / (1024.0 * 1024.0);
    double peak_mib = (double)m->peak_rss_kib / 1024.0;
    double load = m->load.load_median_s, rd = m->read.read_median_s;
    printf("%-28s %9.2f %6d %8.3f %9.3f %9.3f %9.3f %9.3f %9.1f %7.1f %8.1f %6.2f\n", name,
           mib, m->load.layers, (double)m->load.macs / 1e9, m->load.load_first_s * 1e3,
           load * 1e3, m->load.load_min_s * 1e3,
           rd * 1e3, load > 0 ? (double)m->file_bytes / 1e6 / load : 0.0,
           rd > 0 ? load / rd : 0.0, peak_mib, mib > 0 ? peak_mib / mib : 0.0);
}

static void print_json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void print_json_item(const model_result *m, int repeat, bool first)
{
    printf("%s\n  {\"model\": ", first ? "" : ",");
    print_json_string(m->path);
    printf(", \"ok\": %s, \"repeat\": %d, \"file_bytes\": %lld", m->ok ? "true" : "false",
           repeat, m->file_bytes);
    if (m->ok) {
        const child_report *l = &m->load, *r = &m->read;
        printf(", \"layers\": %d, \"macs\": %llu, \"params\": %llu"
               ", \"load_first_ms\": %.4f, \"load_median_ms\": %.4f, \"load_min_ms\": %.4f"
               ", \"load_max_ms\": %.4f"
               ", \"read_median_ms\": %.4f, \"read_min_ms\": %.4f, \"read_first_ms\": %.4f"
               ", \"peak_rss_kib\": %ld, \"base_rss_kib\": %ld, \"vm_hwm_kib\": %ld",
               l->layers, (unsigned long long)l->macs, (unsigned long long)l->params,
               l->load_first_s * 1e3, l->load_median_s * 1e3, l->load_min_s * 1e3,
               l->load_max_s * 1e3,
               r->read_median_s * 1e3, r->read_min_s * 1e3, r->read_first_s * 1e3,
               m->peak_rss_kib, l->base_rss_kib, l->hwm_kib);
    } else {
        printf(", \"error\": ");
        print_json_string(m->error);
    }
    printf("}");
}

int main(int argc, char **argv)
{
    int repeat = DEFAULT_REPEAT;
    bool json = false;
    int first_model = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--repeat") == 0 || strncmp(a, "--repeat=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            long n = v ? strtol(v, &end, 10) : 0;
            if (!v || !*v || *end || n < 1 || n > MAX_REPEAT) {
                fprintf(stderr, "bench_load: --repeat needs a whole number from 1 to %d\n",
                        MAX_REPEAT);
                return 1;
            }
            repeat = (int)n;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--") == 0) {
            first_model = i + 1;
            break;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "bench_load: unknown option '%s'\n", a);
            usage(stderr);
            return 1;
        } else {
            first_model = i;
            break;
        }
    }
    int n = argc - first_model;
    if (n <= 0) {
        usage(stderr);
        return 1;
    }
    /* Rows are printed as each model finishes, so nothing is held across forks. */
    int failed = 0;
    if (json)
        printf("[");
    else
        print_table_header(repeat);
    for (int i = 0; i < n; i++) {
        model_result res;
        run_model(argv[first_model + i], repeat, &res);
        if (!res.ok) {
            fprintf(stderr, "bench_load: %s\n", res.error);
            failed++;
        }
        if (json)
            print_json_item(&res, repeat, i == 0);
        else
            print_table_row(&res);
        fflush(stdout);
    }
    if (json)
        printf("\n]\n");
    return failed ? 2 : 0;
}
