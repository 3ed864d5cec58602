/*
 * A message's fields, walked once for both directions: the same walk writes
 * a frame when `frame` is set and reads a payload otherwise. That is what
 * lets wire_catalogue.c describe each message once.
 *
 * Reading checks what the field's kind promises (a bool is 0 or 1, an id is
 * not 0, an enum value is in range) and, at the first failure, keeps one
 * line saying what was wrong; later reads then give zeros.
 */
#ifndef WIRE_IO_H
#define WIRE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame_builder.h"
#include "wire_cursor.h"
#include "wire_messages.h"

typedef struct wire_io {
    /* Writing: the frame being built; NULL when reading. */
    frame_builder *frame;
    /* Reading: the payload left. */
    wire_cursor cursor;
    wire_problem *problem;
    /* Reading: the descriptors that came with the frame, and how many of
     * them its "fd" fields took; NULL when none can come. */
    wire_descriptors *descriptors;
} wire_io;

static inline bool wire_io_reading(const wire_io *io) { return io->frame == NULL; }

/* Reading: refuses the payload, with a printf-style reason, unless `valid`
 * (only the first reason is kept). Writing: does nothing. */
void wire_io_require(wire_io *io, bool valid, const char *format, ...) __attribute__((format(printf, 3, 4)));

void wire_io_u8(wire_io *io, uint8_t *value);
void wire_io_bool(wire_io *io, bool *value);
void wire_io_u32(wire_io *io, uint32_t *value);
void wire_io_i32(wire_io *io, int32_t *value);
void wire_io_u64(wire_io *io, uint64_t *value);

/* An IEEE 754 binary64, as the u64 of its bits. */
void wire_io_f64(wire_io *io, double *value);

/* A task, timer, work or modal id: a u64 that is never 0. */
void wire_io_id(wire_io *io, uint64_t *value, const char *what);

/* An enum value of the ABI's, as a u8, from `lowest` to `highest`. */
void wire_io_enum(wire_io *io, int32_t *value, int32_t lowest, int32_t highest, const char *what);

/* A "str" or "bytes"; writing, at most `limit` bytes of it go out. Read, it
 * points into the payload. */
void wire_io_bytes(wire_io *io, const void **bytes, size_t *length, size_t limit);
void wire_io_text(wire_io *io, const char **text, size_t *length);
void wire_io_wire_bytes(wire_io *io, wire_bytes *bytes);

/* An "fd": writing, the descriptor goes beside the frame; reading, the
 * field's index must be the next descriptor that came with it. */
void wire_io_fd(wire_io *io, int *fd);

/* An "opt str" / "opt bytes": absent when `*bytes` is NULL. */
void wire_io_optional_bytes(wire_io *io, const char **bytes, size_t *length);

#endif
