#include "frame_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "apphost_wire.h"
#include "worker_exit.h"

enum {
    /* The smallest buffer, and the largest one kept between frames. */
    MINIMUM_CAPACITY = 256,
    KEPT_CAPACITY = 64 * 1024
};

/* Fills `bytes` completely. False at end of stream before the first byte;
 * the process ends on one later, or on an error. */
static bool read_fully(int fd, uint8_t *bytes, size_t length)
{
    size_t done = 0;

    while (done < length) {
        ssize_t count = read(fd, bytes + done, length - done);

        if (count > 0) {
            done += (size_t)count;
        } else if (count == 0 || errno == ECONNRESET) {
            if (done == 0) {
                return false;
            }
            worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: the host closed the socket inside a frame");
        } else if (errno != EINTR) {
            worker_fail(WORKER_EXIT_FAILURE, "cannot read from the host's socket");
        }
    }
    return true;
}

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
    if (capacity > APPHOST_WIRE_MAX_FRAME) {
        capacity = APPHOST_WIRE_MAX_FRAME;
    }
    buffer = realloc(reader->buffer, capacity);
    if (buffer == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "out of memory for a frame");
    }
    reader->buffer = buffer;
    reader->capacity = capacity;
}

wire_frame frame_read(frame_reader *reader)
{
    uint8_t prefix[4];
    uint32_t length;
    wire_frame result;

    if (!read_fully(reader->fd, prefix, sizeof prefix)) {
        /* The host closed its end: nobody is left to serve. */
        worker_exit_now(WORKER_EXIT_OK);
    }
    length = (uint32_t)prefix[0] | (uint32_t)prefix[1] << 8 | (uint32_t)prefix[2] << 16 | (uint32_t)prefix[3] << 24;
    if (length == 0 || length > APPHOST_WIRE_MAX_FRAME) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: a frame length out of range");
    }
    reserve(reader, length);
    if (!read_fully(reader->fd, reader->buffer, length)) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: the host closed the socket inside a frame");
    }
    result.type = reader->buffer[0];
    result.payload = reader->buffer + 1;
    result.length = length - 1;
    return result;
}

void frame_reader_trim(frame_reader *reader)
{
    if (reader->capacity > KEPT_CAPACITY) {
        free(reader->buffer);
        reader->buffer = NULL;
        reader->capacity = 0;
    }
}
