/* The system calls a guest may not make (CONTRACT X6). */
#ifndef CALL_FILTER_H
#define CALL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

/* Installs the filter on every thread of the process: from now on each call
 * it refuses fails with EPERM in the thread that made it (a SIGSYS handler
 * of ours returns the error), and is remembered for call_filter_take. With
 * `refuse_network`, socket() of every family but AF_UNIX and AF_NETLINK is
 * refused too (no network entitlement). False with `error` set when the
 * kernel or libseccomp refuses the filter. */
bool call_filter_install(bool refuse_network, char *error, size_t error_size);

/* The name of a refused call not yet taken, each name once in the
 * process's life ("socket(AF_INET)" for a network family); NULL when there
 * is none. Free it with free(). */
char *call_filter_take(void);

#endif
