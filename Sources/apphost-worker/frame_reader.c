#include "frame_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "apphost_wire.h"
#include "worker_exit.h"

enum {
    /* The smallest buffer, and the largest one kept between frames. */
    MINIMUM_CAPACITY = 256,
    KEPT_CAPACITY = 64 * 1024
};

static void reserve(frame_reader *reader, size_t length)
{
    size_t capacity = reader->capacity * 2;
    uint8_t *buffer;

    if (length <= reader->capacity) {
        return;
    }
    if (capacity < MINIMUM_CAPACITY) {
        capacity = MINIMUM_CAPACITY;
    }
    if (capacity < length) {
        capacity = length;
    }
    buffer = realloc(reader->buffer, capacity);
    if (buffer == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "out of memory for a frame");
    }
    reader->buffer = buffer;
    reader->capacity = capacity;
}

/* Makes room for `length` buffered bytes from `start`: moves what is buffered
 * to the front, then grows the buffer if that is not enough. */
static void make_room(frame_reader *reader, size_t length)
{
    size_t buffered = reader->end - reader->start;

    if (reader->start > 0) {
        memmove(reader->buffer, reader->buffer + reader->start, buffered);
        reader->start = 0;
        reader->end = buffered;
    }
    reserve(reader, length);
}

/* Keeps the descriptors a read brought (close-on-exec, so that nothing the
 * guest starts inherits them). */
static void keep_fds(frame_reader *reader, struct msghdr *message)
{
    for (struct cmsghdr *header = CMSG_FIRSTHDR(message); header != NULL; header = CMSG_NXTHDR(message, header)) {
        size_t count;
        const unsigned char *data;

        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) {
            continue;
        }
        count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        data = CMSG_DATA(header);
        for (size_t index = 0; index < count; index++) {
            int fd;

            memcpy(&fd, data + index * sizeof fd, sizeof fd);
            if (reader->fd_count == FRAME_READER_MAX_FDS) {
                worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: more than %d descriptors not taken by a frame",
                            FRAME_READER_MAX_FDS);
            }
            reader->fds[reader->fd_count++] = fd;
        }
    }
    if ((message->msg_flags & MSG_CTRUNC) != 0) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: descriptors beyond what a read can take");
    }
}

/* One read of the socket's bytes and any descriptors sent with them. */
static ssize_t receive(frame_reader *reader)
{
    union {
        struct cmsghdr header;
        unsigned char bytes[CMSG_SPACE(sizeof(int) * FRAME_READER_MAX_FDS)];
    } control;
    struct iovec part = {reader->buffer + reader->end, reader->capacity - reader->end};
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = &control,
                             .msg_controllen = sizeof control};
    ssize_t count = recvmsg(reader->fd, &message, MSG_CMSG_CLOEXEC);

    if (count >= 0) {
        keep_fds(reader, &message);
    }
    return count;
}

void frame_reader_take_fds(frame_reader *reader, size_t count)
{
    if (count > reader->fd_count) {
        count = reader->fd_count;
    }
    memmove(reader->fds, reader->fds + count, (reader->fd_count - count) * sizeof reader->fds[0]);
    reader->fd_count -= count;
}

/* Reads what the socket holds, up to the buffer's end, until at least
 * `length` bytes are buffered. False at end of stream with nothing buffered;
 * the process ends on one inside a frame, or on an error. */
static bool fill(frame_reader *reader, size_t length)
{
    if (reader->start + length > reader->capacity) {
        make_room(reader, length);
    }
    while (reader->end - reader->start < length) {
        ssize_t count = receive(reader);

        if (count > 0) {
            reader->end += (size_t)count;
        } else if (count == 0 || errno == ECONNRESET) {
            if (reader->end == reader->start) {
                return false;
            }
            worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: the host closed the socket inside a frame");
        } else if (errno != EINTR) {
            worker_fail(WORKER_EXIT_FAILURE, "cannot read from the host's socket");
        }
    }
    return true;
}

wire_frame frame_read(frame_reader *reader)
{
    const uint8_t *prefix;
    uint32_t length;
    wire_frame result;

    if (reader->start == reader->end) {
        reader->start = 0;
        reader->end = 0;
    }
    if (!fill(reader, 4)) {
        /* The host closed its end: nobody is left to serve. */
        worker_exit_now(WORKER_EXIT_OK);
    }
    prefix = reader->buffer + reader->start;
    length = (uint32_t)prefix[0] | (uint32_t)prefix[1] << 8 | (uint32_t)prefix[2] << 16 | (uint32_t)prefix[3] << 24;
    if (length == 0 || length > APPHOST_WIRE_MAX_FRAME) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: a frame length out of range");
    }
    fill(reader, 4 + (size_t)length);
    result.type = reader->buffer[reader->start + 4];
    result.payload = reader->buffer + reader->start + 5;
    result.length = length - 1;
    reader->start += 4 + (size_t)length;
    return result;
}

void frame_reader_trim(frame_reader *reader)
{
    /* Only between frames that left nothing behind: a partial next frame
     * would have to be copied. */
    if (reader->capacity > KEPT_CAPACITY && reader->start == reader->end) {
        free(reader->buffer);
        reader->buffer = NULL;
        reader->capacity = 0;
        reader->start = 0;
        reader->end = 0;
    }
}
