#define _POSIX_C_SOURCE 200809L /* pread, pwrite */

#include "wav_file.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <unistd.h>

/* One write(2), pwrite(2) or pread(2) of what is left of `part`. */
static ssize_t transfer(int fd, bool writing, struct iovec part, off_t offset)
{
    if (!writing) {
        return pread(fd, part.iov_base, part.iov_len, offset);
    }
    return offset < 0 ? write(fd, part.iov_base, part.iov_len) : pwrite(fd, part.iov_base, part.iov_len, offset);
}

/* Transfers all of `part`: 0, or the errno that stopped it; `stalled` for a
 * call that moved nothing. As for readv and writev, `part` only points at
 * what is written: it is read, never changed. */
static int transfer_fully(int fd, bool writing, struct iovec part, off_t offset, int stalled)
{
    while (part.iov_len > 0) {
        ssize_t moved = transfer(fd, writing, part, offset);

        if (moved < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        if (moved == 0) {
            return stalled;
        }
        part.iov_base = (unsigned char *)part.iov_base + moved;
        part.iov_len -= (size_t)moved;
        if (offset >= 0) {
            offset += moved;
        }
    }
    return 0;
}

int wav_file_write(int fd, const void *bytes, size_t length, off_t offset)
{
    return transfer_fully(fd, true, (struct iovec){(void *)bytes, length}, offset, ENOSPC);
}

int wav_file_read(int fd, void *bytes, size_t length, off_t offset)
{
    return transfer_fully(fd, false, (struct iovec){bytes, length}, offset, EIO);
}
