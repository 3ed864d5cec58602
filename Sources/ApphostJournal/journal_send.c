#define _GNU_SOURCE
#include "apphost_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int address_of(const char *path, struct sockaddr_un *address) {
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof address->sun_path) return ENAMETOOLONG;
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path, path, length);
    return 0;
}

/* The entry in a memfd, sealed so that journald may map it without fearing
 * that it changes; returns the descriptor or -errno. */
static int sealed_copy(const uint8_t *data, size_t size) {
    int memfd = memfd_create("apphost-journal", MFD_ALLOW_SEALING | MFD_CLOEXEC);
    if (memfd < 0) return -errno;
    size_t done = 0;
    while (done < size) {
        ssize_t written = write(memfd, data + done, size - done);
        if (written < 0) {
            if (errno == EINTR) continue;
            int error = errno;
            close(memfd);
            return -error;
        }
        done += (size_t)written;
    }
    if (fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        int error = errno;
        close(memfd);
        return -error;
    }
    return memfd;
}

int apphost_journal_send(int fd, const char *path, const uint8_t *data, size_t size) {
    struct sockaddr_un address;
    int failure = address_of(path, &address);
    if (failure != 0) return failure;

    struct iovec vector = {.iov_base = (void *)data, .iov_len = size};
    struct msghdr message = {
        .msg_name = &address,
        .msg_namelen = sizeof address,
        .msg_iov = &vector,
        .msg_iovlen = 1,
    };
    for (;;) {
        if (sendmsg(fd, &message, MSG_NOSIGNAL) >= 0) return 0;
        if (errno == EINTR) continue;
        if (errno != EMSGSIZE && errno != ENOBUFS) return errno;
        break;
    }

    /* Too large for a datagram: no payload, the entry in a sealed memfd. */
    int memfd = sealed_copy(data, size);
    if (memfd < 0) return -memfd;
    union {
        struct cmsghdr header;
        uint8_t space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    message.msg_iov = NULL;
    message.msg_iovlen = 0;
    message.msg_control = &control;
    message.msg_controllen = sizeof control;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &memfd, sizeof(int));
    int result = 0;
    while (sendmsg(fd, &message, MSG_NOSIGNAL) < 0) {
        if (errno == EINTR) continue;
        result = errno;
        break;
    }
    close(memfd);
    return result;
}

int apphost_journal_listening(const char *path) {
    struct sockaddr_un address;
    if (address_of(path, &address) != 0) return 0;
    int probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return 0;
    int connected = connect(probe, (struct sockaddr *)&address, sizeof address) == 0;
    close(probe);
    return connected;
}
