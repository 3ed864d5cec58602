/* Reading the host's frames from the socket. */
#ifndef FRAME_READER_H
#define FRAME_READER_H

#include <stddef.h>
#include <stdint.h>

/* Descriptors received and not yet taken: more is a protocol error (the
 * host sends two per AUDIO_STREAM, and the frame takes them at once). */
enum { FRAME_READER_MAX_FDS = 16 };

/* One buffer, grown on demand up to APPHOST_WIRE_MAX_FRAME and given back
 * after a large frame, so that an idle worker holds little memory. Each read
 * takes all the socket holds that fits, so a small frame costs one read, and
 * frames that arrived together cost one read between them. */
typedef struct frame_reader {
    int fd;
    /* Descriptors that came with the bytes (SCM_RIGHTS), oldest first, not
     * yet taken by a frame's "fd" fields (frame_reader_take_fds). */
    int fds[FRAME_READER_MAX_FDS];
    size_t fd_count;
    uint8_t *buffer;
    size_t capacity;
    /* Bytes [start, end) are read and not yet returned as frames. */
    size_t start;
    size_t end;
} frame_reader;

/* One frame: its type and payload. The payload lives in the reader's buffer
 * until the next frame_read or frame_reader_trim. */
typedef struct wire_frame {
    uint8_t type;
    const uint8_t *payload;
    size_t length;
} wire_frame;

/*
 * Reads the next frame. The descriptors that came with it, and with any
 * frame before it that did not take them, are in `fds`. When the host closed its end (or reset it) between
 * frames, ends the process with WORKER_EXIT_OK; on a frame that is cut short
 * or whose length is out of range, with WORKER_EXIT_PROTOCOL; on any other
 * failure, with WORKER_EXIT_FAILURE. It never returns without a frame.
 */
wire_frame frame_read(frame_reader *reader);

/* Forgets the first `count` received descriptors: a decoded frame took
 * them, and their new owner closes them. */
void frame_reader_take_fds(frame_reader *reader, size_t count);

/* Gives back a buffer that grew large for one frame. */
void frame_reader_trim(frame_reader *reader);

#endif
