/* File paths recorded in design files: made absolute when a design is written, so the
 * file works from any folder, and resolved against the design file's folder when a
 * recorded path is relative (a hand-written or moved design). */
#ifndef CM_UTIL_PATH_H
#define CM_UTIL_PATH_H

/* The canonical absolute path of an existing file, else a copy of path; NULL only when
 * out of memory. The caller frees it. */
char *cm_path_absolute(const char *path);

/* path itself when absolute, else path taken relative to the folder of `beside` (a
 * file); NULL when out of memory. The caller frees it. */
char *cm_path_beside(const char *beside, const char *path);

#endif
