/* Making the process a worker before it serves the host. */
#ifndef PROCESS_SETUP_H
#define PROCESS_SETUP_H

/*
 * Checks that file descriptor APPHOST_WIRE_WORKER_FD is a stream socket
 * (else says so on stderr and exits WORKER_EXIT_USAGE), keeps it from
 * leaking into programs a guest starts, closes every other inherited
 * descriptor but 0, 1 and 2 (opening /dev/null on those when closed), reads
 * which user to take at LOAD (process_take_guest_user), names
 * the process "apphost-worker", sets no_new_privs, asks the kernel to kill
 * it when the host dies, and makes stdout line-buffered, so that what a
 * guest prints reaches wherever the host pointed it line by line.
 */
void process_setup(void);

/* With a user of its own (the host set APPHOST_WORKER_USER, read and unset
 * by process_setup): takes that uid and the gid of the same number, with the
 * workers' shared group as its only supplementary group, keeping no privilege, then asks again
 * to die with the host (a change of user clears that). Call it once the host
 * has set the worker's limits and before the guest's code runs; it ends the
 * process when the change fails. Without one it does nothing. */
void process_take_guest_user(void);

/* Whether `fd` is a socket of `type` (SOCK_STREAM, SOCK_SEQPACKET): what the
 * host hands the worker, and the spawner, on descriptor 3. */
int process_is_socket(int fd, int type);

#endif
