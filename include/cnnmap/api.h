/* The commands as library calls, for other languages (the Python package python/cnnmap
 * uses it through ctypes).
 *
 * A call names a command of cli.md and hands its request as a JSON object: the
 * command's positional arguments by name ("model", "design", "board", ...) and its long
 * options with '-' written '_' ("time_limit", "max_util"); a flag is true or false, an
 * absent or null key takes the command's default. The reply is the JSON object the
 * command prints with --json, built by the same code, so the two are equal for the same
 * inputs. A call writes nothing on standard output or standard error and shows no
 * progress bar; calls may run in parallel threads. */
#ifndef CNNMAP_API_H
#define CNNMAP_API_H

#include <cnnmap/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs command with request (JSON text). On success *reply is the reply's JSON text,
 * which the caller releases with cm_api_free. On failure *reply is NULL and err holds
 * the one line the CLI would print (without its "cnnmap: ") and the CLI's exit code. */
cm_status cm_api_call(const char *command, const char *request, char **reply, cm_error *err);

void cm_api_free(char *reply);

/* The library's version ("0.1.0"). */
const char *cm_api_version(void);

#ifdef __cplusplus
}
#endif
#endif
