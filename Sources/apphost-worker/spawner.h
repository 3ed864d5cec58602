/* apphost-worker --spawner: starts workers for the host (apphost_spawner.h). */
#ifndef SPAWNER_H
#define SPAWNER_H

/* Serves the host's requests on APPHOST_SPAWNER_FD until it closes its end;
 * then exits 0. Exits WORKER_EXIT_USAGE when that descriptor is not a
 * SOCK_SEQPACKET socket. */
_Noreturn void spawner_serve(void);

#endif
