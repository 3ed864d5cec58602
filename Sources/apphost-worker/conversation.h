/* The conversation with the host, on the worker's main thread. */
#ifndef CONVERSATION_H
#define CONVERSATION_H

/*
 * Says HELLO on `fd`, then serves LOAD, START, CALL and STOP in the order
 * apphost_wire.h gives, on the calling thread, which is the guest's main
 * queue. Never returns: the process ends after STOP (WORKER_EXIT_OK), when
 * the host closes its end (WORKER_EXIT_OK), on a malformed or unexpected
 * frame (WORKER_EXIT_PROTOCOL) or on a failure of its own
 * (WORKER_EXIT_FAILURE).
 */
_Noreturn void conversation_serve(int fd);

#endif
