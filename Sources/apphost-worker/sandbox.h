/* The guest's container (CONTRACT X6): what the host asks the worker to
 * enforce, at LOAD before the guest's library is loaded, and at START. */
#ifndef SANDBOX_H
#define SANDBOX_H

/* Reads and forgets APPHOST_WORKER_SANDBOX and APPHOST_WORKER_GRANTS
 * (apphost_wire.h), so that the guest does not see them; a part it does not
 * know is the host's mistake. */
void sandbox_read_policy(void);

/* At LOAD, before the guest's user is taken (which may take the right to):
 * out of the host's network, unless the guest has the network entitlement.
 * Ends the process when the kernel refuses. */
void sandbox_cut_network(void);

/* Before dlopen of `library`: the file system its loader needs, and
 * `guests_directory` to read and write; then the call filter. Ends the
 * process when a part the host asked for cannot be enforced. */
void sandbox_enter(const char *library, const char *guests_directory);

/* At START: the same, but of the guests directory only `data_directory`. */
void sandbox_narrow(const char *data_directory);

/* The name of a call the filter refused, not yet reported, or NULL; free
 * it with free(). */
char *sandbox_take_refusal(void);

/* --sandbox-support: enforces each part in this process and prints a line
 * per part, "<part> ok: <what>" or "<part> missing: <why>", then exits. */
_Noreturn void sandbox_print_support(void);

#endif
