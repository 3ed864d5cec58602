/* Making the process a worker before it serves the host. */
#ifndef PROCESS_SETUP_H
#define PROCESS_SETUP_H

/*
 * Checks that file descriptor APPHOST_WIRE_WORKER_FD is a stream socket
 * (else says so on stderr and exits WORKER_EXIT_USAGE), keeps it from
 * leaking into programs a guest starts, closes every other inherited
 * descriptor but 0, 1 and 2 (opening /dev/null on those when closed), names
 * the process "apphost-worker", sets no_new_privs, asks the kernel to kill
 * it when the host dies, and makes stdout line-buffered, so that what a
 * guest prints reaches wherever the host pointed it line by line.
 */
void process_setup(void);

#endif
