/* Little-endian integers and length-prefixed byte strings, as apphost_wire.h lays them out. */
#include "frame_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PREFIX_BYTES = 4 };

static void add_part(frame_builder *frame, const void *base, size_t length)
{
    if (frame->part_count == FRAME_MAX_PARTS) {
        /* The catalogue's messages have fixed numbers of parts: only a bug gets here. */
        fputs("internal error: a wire frame has too many parts\n", stderr);
        abort();
    }
    frame->parts[frame->part_count].iov_base = (void *)base;
    frame->parts[frame->part_count].iov_len = length;
    frame->part_count++;
}

/* Appends to the scratch area, extending the last part when it is the
 * scratch run just before. */
static void put_scratch(frame_builder *frame, const uint8_t *bytes, size_t length)
{
    uint8_t *start = frame->scratch + frame->scratch_used;
    struct iovec *last = frame->part_count > 0 ? &frame->parts[frame->part_count - 1] : NULL;

    if (frame->scratch_used + length > FRAME_SCRATCH_BYTES) {
        fputs("internal error: a wire frame's fixed fields overflow\n", stderr);
        abort();
    }
    memcpy(start, bytes, length);
    frame->scratch_used += length;
    if (last != NULL && (uint8_t *)last->iov_base + last->iov_len == start) {
        last->iov_len += length;
    } else {
        add_part(frame, start, length);
    }
}

static void put_little_endian(frame_builder *frame, uint64_t value, size_t size)
{
    uint8_t bytes[8];
    size_t i;

    for (i = 0; i < size; i++) {
        bytes[i] = (uint8_t)(value >> (8 * i));
    }
    put_scratch(frame, bytes, size);
    frame->length += size;
}

void frame_begin(frame_builder *frame, uint8_t type)
{
    static const uint8_t unknown_length[PREFIX_BYTES] = {0};

    frame->scratch_used = 0;
    frame->part_count = 0;
    frame->length = 0;
    frame->fd_count = 0;
    put_scratch(frame, unknown_length, PREFIX_BYTES);
    frame_put_u8(frame, type);
}

void frame_put_u8(frame_builder *frame, uint8_t value) { put_little_endian(frame, value, 1); }

void frame_put_bool(frame_builder *frame, bool value) { put_little_endian(frame, value ? 1 : 0, 1); }

void frame_put_u32(frame_builder *frame, uint32_t value) { put_little_endian(frame, value, 4); }

void frame_put_i32(frame_builder *frame, int32_t value) { put_little_endian(frame, (uint32_t)value, 4); }

void frame_put_u64(frame_builder *frame, uint64_t value) { put_little_endian(frame, value, 8); }

void frame_put_bytes(frame_builder *frame, const void *bytes, size_t length)
{
    frame_put_u32(frame, (uint32_t)length);
    if (length > 0) {
        add_part(frame, bytes, length);
        frame->length += length;
    }
}

void frame_put_optional_bytes(frame_builder *frame, const void *bytes, size_t length)
{
    frame_put_bool(frame, bytes != NULL);
    if (bytes != NULL) {
        frame_put_bytes(frame, bytes, length);
    }
}

void frame_finish(frame_builder *frame)
{
    size_t i;

    for (i = 0; i < PREFIX_BYTES; i++) {
        frame->scratch[i] = (uint8_t)(frame->length >> (8 * i));
    }
}

size_t frame_size(const frame_builder *frame) { return PREFIX_BYTES + frame->length; }

void frame_copy(const frame_builder *frame, uint8_t *destination)
{
    int i;

    for (i = 0; i < frame->part_count; i++) {
        if (frame->parts[i].iov_len > 0) {
            memcpy(destination, frame->parts[i].iov_base, frame->parts[i].iov_len);
            destination += frame->parts[i].iov_len;
        }
    }
}

void frame_put_fd(frame_builder *frame, int fd)
{
    if (frame->fd_count == FRAME_MAX_FDS) {
        fputs("internal error: a wire frame carries too many descriptors\n", stderr);
        abort();
    }
    frame_put_u8(frame, (uint8_t)frame->fd_count);
    frame->fds[frame->fd_count++] = fd;
}
