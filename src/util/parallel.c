/* Tasks over threads (parallel.h): thread t of T runs tasks t, t + T, t + 2T, ... */
#include "util/parallel.h"

#include <pthread.h>
#include <stdbool.h>

typedef struct lane {
    int first, stride, tasks;
    cm_parallel_task fn;
    void *ctx;
    void (*thread_end)(void);
} lane;

static void run_lane(const lane *l)
{
    for (int t = l->first; t < l->tasks; t += l->stride)
        l->fn(l->ctx, t, l->first);
}

static void *lane_main(void *arg)
{
    const lane *l = arg;
    run_lane(l);
    if (l->thread_end)
        l->thread_end();
    return NULL;
}

void cm_parallel_run(int tasks, int threads, cm_parallel_task fn, void *ctx,
                     void (*thread_end)(void))
{
    int n = threads < 1 ? 1 : threads > CM_PARALLEL_MAX_LANES ? CM_PARALLEL_MAX_LANES : threads;
    n = n > tasks ? tasks : n;
    if (n <= 1) {
        run_lane(&(lane){0, 1, tasks, fn, ctx, NULL});
        return;
    }
    lane lanes[CM_PARALLEL_MAX_LANES];
    pthread_t tid[CM_PARALLEL_MAX_LANES];
    bool started[CM_PARALLEL_MAX_LANES] = {false};
    for (int t = 0; t < n; t++)
        lanes[t] = (lane){t, n, tasks, fn, ctx, thread_end};
    for (int t = 1; t < n; t++)
        started[t] = pthread_create(&tid[t], NULL, lane_main, &lanes[t]) == 0;
    run_lane(&lanes[0]);
    for (int t = 1; t < n; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_lane(&lanes[t]); /* no thread for it: its tasks run here */
    }
}
