/* A worker without the network (CONTRACT X6, A6): a network namespace in
 * which no interface is up. */
#ifndef NETWORK_CUT_H
#define NETWORK_CUT_H

#include <stdbool.h>
#include <stddef.h>

/* Moves this process out of its host's network: it stays where the spawner
 * put it (the spawner's own empty namespace, network_cut_spawner), or
 * enters a namespace of its own, of a user namespace of its own where it is
 * not root. Call while the process has one thread, before it takes the
 * guest's user. False with `error` set when the kernel refuses. */
bool network_cut(char *error, size_t error_size);

/* For the spawner, at its start: enters an empty network namespace, which
 * the workers it clones share (setns costs some 5 us, a namespace of one's
 * own 320 us on the 2-core VM), and keeps the host's to give back to a
 * worker with the network entitlement. Needs root; without, each worker
 * makes its own. */
void network_cut_spawner(void);

/* In the spawner's child, before its exec: back to the host's network for a
 * worker whose environment does not ask for APPHOST_SANDBOX_NETWORK. Only
 * what is safe after a fork. False with errno set when that fails. */
bool network_cut_restore_for(char *const environment[]);

#endif
