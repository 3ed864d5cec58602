/* A Landlock layer: what a process may do to the file system from now on. */
#ifndef LANDLOCK_LAYER_H
#define LANDLOCK_LAYER_H

#include <stdbool.h>
#include <stddef.h>

/* What a rule lets the process do beneath a path. */
typedef enum landlock_access {
    /* Read files and list directories. */
    LANDLOCK_READ,
    /* Read and execute (map as code) files, list directories: libraries. */
    LANDLOCK_READ_EXECUTE,
    /* Read and write files, list, make and remove what is beneath. */
    LANDLOCK_READ_WRITE
} landlock_access;

/* The kernel's Landlock ABI, 0 where it has none (or it is disabled). */
int landlock_abi(void);

/* A layer under construction; NULL-safe. */
typedef struct landlock_layer landlock_layer;

/* A layer that handles every file system right the kernel knows and, from
 * ABI 6, keeps signals and abstract UNIX sockets within the process's own
 * domain. NULL with `error` set when the kernel refuses one. */
landlock_layer *landlock_layer_new(char *error, size_t error_size);

/* Allows `access` beneath `path` (a directory) or to it (a file). A path
 * that does not exist is skipped: not every system has /lib64. False with
 * `error` set when the kernel refuses the rule. */
bool landlock_layer_allow(landlock_layer *layer, const char *path, landlock_access access, char *error,
                          size_t error_size);

/* Enforces the layer on the calling thread and, as it is called before any
 * other thread exists, on the whole process and all it starts; frees the
 * layer either way. No new privileges must be set (process_setup does). */
bool landlock_layer_enforce(landlock_layer *layer, char *error, size_t error_size);

#endif
