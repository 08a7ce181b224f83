/* See progress.h. */
#include "util/progress.h"

#include <stdio.h>
#include <time.h>

double cm_seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cm_progress_init(cm_progress *p, bool enabled, const char *label)
{
    p->enabled = enabled;
    p->drawn = false;
    p->start = p->last = cm_seconds_now();
    p->label = label;
}

void cm_progress_update(cm_progress *p, double fraction, const char *detail)
{
    if (!p->enabled)
        return;
    double now = cm_seconds_now();
    if (p->drawn && now - p->last < 0.1)
        return;
    p->last = now;
    p->drawn = true;
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    int full = (int)(fraction * WIDTH);
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < full ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r%s [%s] %3.0f%% %.1fs %s\033[K", p->label, bar, 100 * fraction,
            now - p->start, detail ? detail : "");
    fflush(stderr);
}

void cm_progress_done(cm_progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->drawn = false;
}
