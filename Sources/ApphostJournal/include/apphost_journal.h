/*
 * Sending one entry to journald's native socket
 * (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/), as libsystemd's
 * sd_journal_sendv does, but to a socket the caller names: the host's
 * JournalSocket, whose tests bind a socket of their own. In C because the
 * fallback for an entry too large for a datagram hands journald a sealed
 * memfd through SCM_RIGHTS, and Glibc's Swift module has no memfd_create.
 */
#ifndef APPHOST_JOURNAL_H
#define APPHOST_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

/* Sends `size` bytes (fields in the native format) from the SOCK_DGRAM socket
 * `fd` to the AF_UNIX socket at `path`: as one datagram, or, when that is too
 * large (EMSGSIZE, ENOBUFS), as a sealed memfd holding them. Waits while
 * journald's queue is full, as sd_journal_sendv does. Returns 0, or the errno
 * of the failure (ENAMETOOLONG for a path that does not fit). */
int apphost_journal_send(int fd, const char *path, const uint8_t *data, size_t size);

/* Whether a socket that takes datagrams is bound at `path`: a connect that
 * sends nothing. */
int apphost_journal_listening(const char *path);

#endif
