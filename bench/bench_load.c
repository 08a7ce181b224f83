/* bench_load: how long cm_model_load takes and how much memory it needs.
 *
 *   bench_load [--repeat N] [--json] MODEL...
 *
 * Each model is measured in a child process of its own, so that its peak resident
 * memory is not hidden by an earlier, larger model (the C library keeps freed pages
 * and the high-water mark never goes down). The child first reads the file N times
 * with plain read(2) (which also warms the page cache), then loads it N times with
 * cm_model_load, freeing each graph; it sends its timings back through a pipe and the
 * parent takes the child's peak RSS from wait4's rusage. Times are wall-clock
 * (CLOCK_MONOTONIC). A row is printed as soon as its model is done. The exit status is
 * 0 when every model loaded, 2 when one failed, 1 on a usage error. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* wait4, struct rusage fields */
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

#include <cnnmap/graph.h>
#include <cnnmap/model.h>

#define DEFAULT_REPEAT 5
#define MAX_REPEAT 100000

/* What a child sends back: fixed size, written with one write(2) of < PIPE_BUF. */
typedef struct child_report {
    int ok;
    int layers;
    uint64_t macs;
    uint64_t params;
    double read_median_s, read_min_s;
    double load_median_s, load_min_s, load_max_s;
    long base_rss_kib; /* VmRSS before the first load */
    long hwm_kib;      /* VmHWM after the last load (cross-check of ru_maxrss) */
    char message[CM_ERROR_MESSAGE_MAX];
} child_report;

typedef struct model_result {
    const char *path;
    long long file_bytes;
    bool ok;
    child_report r;
    long peak_rss_kib; /* the child's ru_maxrss */
} model_result;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_load [--repeat N] [--json] MODEL...\n"
            "  Loads each MODEL N times (default %d) with cm_model_load in a child process\n"
            "  and reports layers, MACs, median/min time per load and peak resident memory.\n"
            "  --repeat N  loads (and plain reads) per model, N >= 1\n"
            "  --json      print a JSON array instead of a table\n",
            DEFAULT_REPEAT);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place; returns the median. */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
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

/* Reads the whole file into a buffer of its size, as a baseline for the load time. */
static int read_file_once(const char *path, char *message, size_t message_size)
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
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size ? size : 1);
    if (!buf) {
        snprintf(message, message_size, "%s: out of memory reading %zu bytes", path, size);
        close(fd);
        return -1;
    }
    size_t done = 0;
    int rc = 0;
    while (done < size) {
        ssize_t got = read(fd, buf + done, size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            snprintf(message, message_size, "%s: read error: %s", path,
                     got < 0 ? strerror(errno) : "unexpected end of file");
            rc = -1;
            break;
        }
        done += (size_t)got;
    }
    free(buf);
    close(fd);
    return rc;
}

/* The child's work: repeat reads, then repeat loads, filling r. */
static void measure(const char *path, int repeat, child_report *r)
{
    memset(r, 0, sizeof *r);
    double *t = malloc((size_t)repeat * sizeof *t);
    if (!t) {
        snprintf(r->message, sizeof r->message, "out of memory");
        return;
    }
    for (int i = 0; i < repeat; i++) {
        double t0 = now_s();
        if (read_file_once(path, r->message, sizeof r->message) != 0)
            goto out;
        t[i] = now_s() - t0;
    }
    r->read_median_s = median_of(t, repeat);
    r->read_min_s = t[0];

    r->base_rss_kib = proc_status_kib("VmRSS");
    for (int i = 0; i < repeat; i++) {
        cm_graph *g = NULL;
        cm_error err = {0};
        double t0 = now_s();
        cm_status st = cm_model_load(path, &g, &err);
        t[i] = now_s() - t0;
        if (st != CM_OK) {
            snprintf(r->message, sizeof r->message, "%s", err.message);
            goto out;
        }
        cm_graph_totals tot = cm_graph_totals_of(g);
        r->layers = tot.layers;
        r->macs = tot.macs;
        r->params = tot.params;
        cm_graph_free(g);
    }
    r->load_median_s = median_of(t, repeat);
    r->load_min_s = t[0];
    r->load_max_s = t[repeat - 1];
    r->hwm_kib = proc_status_kib("VmHWM");
    r->ok = 1;
out:
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

static void run_model(const char *path, int repeat, model_result *res)
{
    memset(res, 0, sizeof *res);
    res->path = path;
    res->file_bytes = -1;
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(res->r.message, sizeof res->r.message, "%s: cannot stat: %s", path,
                 strerror(errno));
        return;
    }
    res->file_bytes = (long long)st.st_size;

    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(res->r.message, sizeof res->r.message, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(res->r.message, sizeof res->r.message, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child_report *r = malloc(sizeof *r);
        int rc = 1;
        if (r) {
            measure(path, repeat, r);
            rc = write_all(fds[1], r, sizeof *r) == 0 ? 0 : 1;
            free(r);
        }
        close(fds[1]);
        _exit(rc);
    }
    close(fds[1]);
    int got = read_all(fds[0], &res->r, sizeof res->r);
    close(fds[0]);

    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t w;
    do
        w = wait4(pid, &status, 0, &ru);
    while (w < 0 && errno == EINTR);
    if (w < 0) {
        snprintf(res->r.message, sizeof res->r.message, "wait4: %s", strerror(errno));
        return;
    }
    res->peak_rss_kib = ru.ru_maxrss; /* KiB on Linux */
    if (got != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char why[64];
        if (WIFSIGNALED(status))
            snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(status));
        else
            snprintf(why, sizeof why, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (got != 0 || res->r.ok)
            snprintf(res->r.message, sizeof res->r.message, "%s: measuring child failed (%s%s)",
                     path, why, got != 0 ? ", no report" : "");
        res->r.ok = 0;
        return;
    }
    res->ok = res->r.ok != 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void print_table_header(int repeat)
{
    printf("cm_model_load, %d load%s per model (times: median / min, ms; RSS: child peak, MiB)\n",
           repeat, repeat == 1 ? "" : "s");
    printf("%-28s %9s %6s %8s %9s %9s %9s %9s %6s %8s %6s\n", "model", "size_MiB", "layers",
           "GMACs", "read_ms", "load_ms", "min_ms", "MB/s", "x_read", "peak_MiB", "x_size");
}

static void print_table_row(const model_result *m)
{
    const char *name = base_name(m->path);
    if (!m->ok) {
        printf("%-28s FAILED: %s\n", name, m->r.message);
        return;
    }
    double mib = (double)m->file_bytes / (1024.0 * 1024.0);
    double peak_mib = (double)m->peak_rss_kib / 1024.0;
    double mbps = m->r.load_median_s > 0 ? (double)m->file_bytes / 1e6 / m->r.load_median_s : 0;
    double x_read = m->r.read_median_s > 0 ? m->r.load_median_s / m->r.read_median_s : 0;
    printf("%-28s %9.2f %6d %8.3f %9.3f %9.3f %9.3f %9.1f %6.1f %8.1f %6.2f\n", name, mib,
           m->r.layers, (double)m->r.macs / 1e9, m->r.read_median_s * 1e3,
           m->r.load_median_s * 1e3, m->r.load_min_s * 1e3, mbps, x_read, peak_mib,
           mib > 0 ? peak_mib / mib : 0.0);
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
    if (m->ok)
        printf(", \"layers\": %d, \"macs\": %llu, \"params\": %llu"
               ", \"read_median_ms\": %.4f, \"read_min_ms\": %.4f"
               ", \"load_median_ms\": %.4f, \"load_min_ms\": %.4f, \"load_max_ms\": %.4f"
               ", \"peak_rss_kib\": %ld, \"base_rss_kib\": %ld, \"vm_hwm_kib\": %ld",
               m->r.layers, (unsigned long long)m->r.macs, (unsigned long long)m->r.params,
               m->r.read_median_s * 1e3, m->r.read_min_s * 1e3, m->r.load_median_s * 1e3,
               m->r.load_min_s * 1e3, m->r.load_max_s * 1e3, m->peak_rss_kib,
               m->r.base_rss_kib, m->r.hwm_kib);
    else {
        printf(", \"error\": ");
        print_json_string(m->r.message);
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
            fprintf(stderr, "bench_load: %s\n", res.r.message);
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
