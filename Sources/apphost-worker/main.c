/*
 * apphost-worker: one guest in a process of its own (CONTRACT X2, B7).
 *
 * The host starts it with its end of a socketpair on file descriptor 3 and
 * speaks the protocol of apphost_wire.h. The guest runs on this process's
 * main thread, which is its main queue; a guest that crashes or hangs takes
 * only this process down, and the host can freeze the whole process while
 * the guest is suspended. Written in C to stay small: an idle worker costs
 * little memory.
 *
 * With the one argument --spawner it is instead the host's spawner, which
 * starts workers for it (apphost_spawner.h); with --version it prints
 * apphost's version (apphost_version.h) and exits; with --sandbox-support
 * it says which parts of a guest's container this machine can enforce
 * (sandbox.h) and exits.
 */
#include <stdio.h>
#include <string.h>

#include "apphost_spawner.h"
#include "apphost_version.h"
#include "apphost_wire.h"
#include "conversation.h"
#include "process_setup.h"
#include "sandbox.h"
#include "spawner.h"

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        puts(APPHOST_VERSION);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (argc == 2 && strcmp(argv[1], APPHOST_SPAWNER_ARGUMENT) == 0) {
        spawner_serve();
    }
    if (argc == 2 && strcmp(argv[1], APPHOST_SANDBOX_SUPPORT_ARGUMENT) == 0) {
        sandbox_print_support();
    }
    process_setup();
    conversation_serve(APPHOST_WIRE_WORKER_FD);
}
