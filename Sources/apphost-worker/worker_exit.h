/* How the worker ends: its exit statuses, which the host reads. */
#ifndef WORKER_EXIT_H
#define WORKER_EXIT_H

enum worker_exit_status {
    /* STOP was handled, or the host closed its end of the socket. */
    WORKER_EXIT_OK = 0,
    /* Out of memory, or the socket failed in some other way. */
    WORKER_EXIT_FAILURE = 1,
    /* Not started by a host: file descriptor 3 is not a stream socket. */
    WORKER_EXIT_USAGE = 2,
    /* The host sent a malformed frame, or one the conversation does not allow now. */
    WORKER_EXIT_PROTOCOL = 3
};

/* Ends the process at once, from any thread: no atexit handlers and no
 * library destructors, which a guest could make hang. */
_Noreturn void worker_exit_now(int status);

/* Says "apphost-worker: " and the formatted text on stderr, in one line,
 * then ends the process at once with `status`. */
_Noreturn void worker_fail(int status, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
