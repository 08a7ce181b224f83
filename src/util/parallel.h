/* Running a fixed set of independent tasks on a number of threads. Which thread runs a
 * task never changes what the task computes (each task owns its inputs and outputs),
 * so the results of its callers (the optimisers, the CLI's two writers) do not depend
 * on the number of threads. */
#ifndef CM_UTIL_PARALLEL_H
#define CM_UTIL_PARALLEL_H

#include <cnnmap/error.h>

/* Threads beyond this many are not started (their tasks run on the lanes there are). */
#define CM_PARALLEL_MAX_LANES 64

/* One task: the caller's context, the task's index in [0, tasks) and the lane running
 * it, in [0, min(threads, tasks)): tasks of one lane run one after another, so a lane
 * may own scratch that its tasks reuse. */
typedef void (*cm_parallel_task)(void *ctx, int task, int lane);

/* Runs fn(ctx, t, lane) for t = 0 .. tasks - 1 on min(threads, tasks) threads (lane 0
 * the calling thread) and returns when all have finished. A thread that cannot be
 * started leaves its lane to the calling thread, so every task always runs. thread_end,
 * when not NULL, runs at the end of every thread started here (e.g. to free a library's
 * per-thread state). */
void cm_parallel_run(int tasks, int threads, cm_parallel_task fn, void *ctx,
                     void (*thread_end)(void));

#endif
