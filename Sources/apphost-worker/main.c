/*
 * apphost-worker: one guest in a process of its own (CONTRACT X2, B7).
 *
 * The host starts it with its end of a socketpair on file descriptor 3 and
 * speaks the protocol of apphost_wire.h. The guest runs on this process's
 * main thread, which is its main queue; a guest that crashes or hangs takes
 * only this process down, and the host can freeze the whole process while
 * the guest is suspended. Written in C to stay small: an idle worker costs
 * little memory.
 */
#include "apphost_wire.h"
#include "process_setup.h"
#include "conversation.h"

int main(void)
{
    process_setup();
    conversation_serve(APPHOST_WIRE_WORKER_FD);
}
