#include "wire_io.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void wire_io_require(wire_io *io, bool valid, const char *format, ...)
{
    va_list arguments;

    if (valid || !wire_io_reading(io) || io->cursor.failed) {
        return;
    }
    io->cursor.failed = true;
    va_start(arguments, format);
    vsnprintf(io->problem->text, sizeof io->problem->text, format, arguments);
    va_end(arguments);
}

/* After a read: a cursor that ran out says so, once. */
static void note_shortage(wire_io *io, bool failed_before)
{
    if (io->cursor.failed && !failed_before) {
        snprintf(io->problem->text, sizeof io->problem->text, "a field runs past the end of its frame");
    }
}

/* A little-endian number of `size` bytes (1, 4 or 8): written from *value,
 * or read into it. */
static void io_number(wire_io *io, uint64_t *value, size_t size)
{
    bool failed = io->cursor.failed;

    if (!wire_io_reading(io)) {
        if (size == 1) {
            frame_put_u8(io->frame, (uint8_t)*value);
        } else if (size == 4) {
            frame_put_u32(io->frame, (uint32_t)*value);
        } else {
            frame_put_u64(io->frame, *value);
        }
        return;
    }
    *value = size == 1   ? wire_read_u8(&io->cursor)
             : size == 4 ? wire_read_u32(&io->cursor)
                         : wire_read_u64(&io->cursor);
    note_shortage(io, failed);
}

void wire_io_u8(wire_io *io, uint8_t *value)
{
    uint64_t wide = *value;

    io_number(io, &wide, 1);
    *value = (uint8_t)wide;
}

void wire_io_bool(wire_io *io, bool *value)
{
    uint8_t byte = *value ? 1 : 0;

    wire_io_u8(io, &byte);
    wire_io_require(io, byte <= 1, "a bool field holds %u", (unsigned)byte);
    *value = byte == 1;
}

void wire_io_u32(wire_io *io, uint32_t *value)
{
    uint64_t wide = *value;

    io_number(io, &wide, 4);
    *value = (uint32_t)wide;
}

void wire_io_i32(wire_io *io, int32_t *value)
{
    uint32_t bits = (uint32_t)*value;

    wire_io_u32(io, &bits);
    *value = (int32_t)bits;
}

void wire_io_u64(wire_io *io, uint64_t *value) { io_number(io, value, 8); }

void wire_io_f64(wire_io *io, double *value)
{
    uint64_t bits;

    memcpy(&bits, value, sizeof bits);
    wire_io_u64(io, &bits);
    memcpy(value, &bits, sizeof bits);
}

void wire_io_id(wire_io *io, uint64_t *value, const char *what)
{
    wire_io_u64(io, value);
    wire_io_require(io, *value != 0, "a %s id of 0", what);
}

void wire_io_enum(wire_io *io, int32_t *value, int32_t lowest, int32_t highest, const char *what)
{
    uint8_t byte = (uint8_t)*value;

    wire_io_u8(io, &byte);
    wire_io_require(io, byte >= lowest && byte <= highest, "unknown %s %u", what, (unsigned)byte);
    *value = byte;
}

void wire_io_bytes(wire_io *io, const void **bytes, size_t *length, size_t limit)
{
    bool failed = io->cursor.failed;
    wire_bytes read;

    if (!wire_io_reading(io)) {
        frame_put_bytes(io->frame, *bytes, *length < limit ? *length : limit);
        return;
    }
    read = wire_read_bytes(&io->cursor);
    note_shortage(io, failed);
    *bytes = read.bytes;
    *length = read.length;
}

void wire_io_text(wire_io *io, const char **text, size_t *length)
{
    const void *bytes = *text;

    wire_io_bytes(io, &bytes, length, SIZE_MAX);
    *text = bytes;
}

void wire_io_wire_bytes(wire_io *io, wire_bytes *bytes)
{
    const void *pointer = bytes->bytes;

    wire_io_bytes(io, &pointer, &bytes->length, SIZE_MAX);
    bytes->bytes = pointer;
}

void wire_io_optional_bytes(wire_io *io, const char **bytes, size_t *length)
{
    bool present = *bytes != NULL;

    wire_io_bool(io, &present);
    if (present) {
        wire_io_text(io, bytes, length);
    } else if (wire_io_reading(io)) {
        *bytes = NULL;
        *length = 0;
    }
}

void wire_io_fd(wire_io *io, int *fd)
{
    uint8_t index = 0;
    wire_descriptors *descriptors = io->descriptors;

    if (!wire_io_reading(io)) {
        frame_put_fd(io->frame, *fd);
        return;
    }
    *fd = -1;
    wire_io_u8(io, &index);
    wire_io_require(io, descriptors != NULL && index == descriptors->taken && index < descriptors->count,
                    "descriptor field %u without its descriptor (%zu came with the frame)", (unsigned)index,
                    descriptors != NULL ? descriptors->count : 0);
    if (!io->cursor.failed) {
        *fd = descriptors->fds[index];
        descriptors->taken++;
    }
}
