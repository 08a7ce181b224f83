/* Error codes and the error record every cnnmap function fills on failure.
 *
 * Each function that can fail returns a cm_status and, when given a cm_error, leaves
 * a one-line message there for the caller. The codes are the command-line exit codes
 * (see cli.md), so the CLI returns them unchanged. */
#ifndef CNNMAP_ERROR_H
#define CNNMAP_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cm_status {
    CM_OK = 0,
    CM_EUSAGE = 1,      /* the caller asked for something malformed */
    CM_EINPUT = 2,      /* a file cannot be read, parsed or validated */
    CM_EINFEASIBLE = 3, /* no design fits the board under the options */
    CM_EINTERNAL = 4    /* out of memory or a broken invariant */
} cm_status;

#define CM_ERROR_MESSAGE_MAX 512

typedef struct cm_error {
    cm_status code;
    char message[CM_ERROR_MESSAGE_MAX];
} cm_error;

/* Records code and a printf-style message in err (which may be NULL) and returns
 * code, so that a failing path reads `return cm_error_set(err, CM_EINPUT, ...)`. */
cm_status cm_error_set(cm_error *err, cm_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Puts "prefix: " in front of the message already in err. */
void cm_error_prefix(cm_error *err, const char *prefix);

void cm_error_clear(cm_error *err);

/* The common out-of-memory failure. */
cm_status cm_error_nomem(cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
