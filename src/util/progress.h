/* A progress bar on stderr for long searches: drawn only when enabled (the caller
 * enables it when stderr is a terminal and --quiet is absent), redrawn at most ten
 * times a second, and erased when done so that no trace is left in the output. */
#ifndef CM_UTIL_PROGRESS_H
#define CM_UTIL_PROGRESS_H

#include <stdbool.h>

typedef struct cm_progress {
    bool enabled;
    bool drawn;
    double start, last;
    const char *label;
} cm_progress;

void cm_progress_init(cm_progress *p, bool enabled, const char *label);
/* fraction in [0, 1]; detail (may be NULL) is printed after the bar. */
void cm_progress_update(cm_progress *p, double fraction, const char *detail);
void cm_progress_done(cm_progress *p);

/* Seconds on a monotonic clock. */
double cm_seconds_now(void);

#endif
