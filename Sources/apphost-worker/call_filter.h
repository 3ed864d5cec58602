/* The system calls a guest may not make (CONTRACT X6). */
#ifndef CALL_FILTER_H
#define CALL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

/* Installs the filter on every thread of the process: from now on each call
 * it refuses fails with EPERM in the thread that made it (a SIGSYS handler
 * of ours returns the error), and is remembered for call_filter_take. With
 * `refuse_network`, socket() of every family but AF_UNIX is refused too (no
 * network entitlement). `program`, when not NULL, is the filter as
 * call_filter_program gave it for the same `refuse_network`, loaded as it is
 * rather than made again. False with `error` set when the kernel or
 * libseccomp refuses the filter. */
bool call_filter_install(bool refuse_network, const char *program, char *error, size_t error_size);

/* The filter's BPF program as text, for a worker's pid to be put in
 * (filter_program.h); NULL when libseccomp fails. Free it with free(). */
char *call_filter_program(bool refuse_network);

/* The name of a refused call not yet taken, each name once in the
 * process's life ("socket(AF_INET)" for a network family); NULL when there
 * is none. Free it with free(). */
char *call_filter_take(void);

#endif
