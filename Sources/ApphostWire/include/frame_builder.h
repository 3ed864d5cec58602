/* Assembling one outgoing frame (apphost_wire.h) without copying its large fields. */
#ifndef FRAME_BUILDER_H
#define FRAME_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <apphost/actions.h>

enum {
    /* Room for the length prefix, the type and every fixed-size field of the
     * largest message, LOADED with a table of APPHOST_ACTIONS_MAX actions:
     * 81 bytes, and 29 per action (4 optional texts' presence and length,
     * flags, has_function), 1937 in all. */
    FRAME_SCRATCH_BYTES = 81 + 29 * APPHOST_ACTIONS_MAX,
    /* Scratch runs and borrowed byte strings, a run after each string:
     * LOADED has 6 strings, and 4 per action, 525 parts at most (below
     * IOV_MAX, 1024). So a builder takes about 10 KiB: keep it off small
     * stacks (the worker's guest threads send through one their writer
     * owns). */
    FRAME_MAX_PARTS = 2 * (6 + 4 * APPHOST_ACTIONS_MAX) + 1,
    /* Descriptors one frame carries: AUDIO_STREAM has 2. */
    FRAME_MAX_FDS = 4
};

/*
 * Integers go into `scratch`; byte strings are borrowed, not copied, and
 * must stay valid until the frame is sent. The parts point into the builder
 * itself: never copy or move one after frame_begin.
 */
typedef struct frame_builder {
    /* The counts and descriptors first, then scratch, then parts, each
     * filled from its start: a frame of a few fields touches the first
     * kilobytes of the builder only, a page or two, which matters on a cold
     * cache (the host encodes each call in one on its stack). */
    size_t scratch_used;
    int part_count;
    /* The bytes after the length prefix. */
    size_t length;
    int fd_count;
    /* The descriptors the frame carries beside its bytes (SCM_RIGHTS),
     * borrowed: the sender owns them. */
    int fds[FRAME_MAX_FDS];
    uint8_t scratch[FRAME_SCRATCH_BYTES];
    struct iovec parts[FRAME_MAX_PARTS];
} frame_builder;

/* Starts a frame of `type` (enum apphost_wire_type). */
void frame_begin(frame_builder *frame, uint8_t type);

void frame_put_u8(frame_builder *frame, uint8_t value);
void frame_put_bool(frame_builder *frame, bool value);
void frame_put_u32(frame_builder *frame, uint32_t value);
void frame_put_i32(frame_builder *frame, int32_t value);
void frame_put_u64(frame_builder *frame, uint64_t value);

/* A "str" or "bytes": u32 length, then the bytes. */
void frame_put_bytes(frame_builder *frame, const void *bytes, size_t length);

/* An "opt str" / "opt bytes": absent when `bytes` is NULL. */
void frame_put_optional_bytes(frame_builder *frame, const void *bytes, size_t length);

/* An "fd": the descriptor goes into `fds`, its index into the bytes. */
void frame_put_fd(frame_builder *frame, int fd);

/* Writes the length prefix; the frame is then ready in parts[0..part_count). */
void frame_finish(frame_builder *frame);

/* A finished frame's size, length prefix included. */
size_t frame_size(const frame_builder *frame);

/* Copies a finished frame, length prefix included, to `destination`, which
 * holds frame_size bytes: for a sender that wants it in one piece. */
void frame_copy(const frame_builder *frame, uint8_t *destination);

#endif
