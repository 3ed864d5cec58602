#define _POSIX_C_SOURCE 200809L /* dprintf */

#include "worker_exit.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

_Noreturn void worker_exit_now(int status) { _exit(status); }

_Noreturn void worker_fail(int status, const char *format, ...)
{
    char line[512];
    va_list arguments;

    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    /* dprintf, not fprintf: a guest thread may hold stderr's lock. */
    dprintf(STDERR_FILENO, "apphost-worker: %s\n", line);
    _exit(status);
}
