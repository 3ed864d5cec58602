/* Reading the fields of a frame's payload (apphost_wire.h), strictly. */
#ifndef WIRE_CURSOR_H
#define WIRE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reads fields in order. Reading past the end, or a bool or present flag
 * other than 0 or 1, marks the cursor failed; later reads then return zeros,
 * so that a decoder checks once, at the end, with wire_cursor_finished.
 */
typedef struct wire_cursor {
    const uint8_t *next;
    size_t left;
    bool failed;
} wire_cursor;

/* A byte string inside the payload; not NUL-terminated. */
typedef struct wire_bytes {
    const uint8_t *bytes;
    size_t length;
} wire_bytes;

wire_cursor wire_cursor_make(const uint8_t *payload, size_t length);

uint8_t wire_read_u8(wire_cursor *cursor);
bool wire_read_bool(wire_cursor *cursor);
uint32_t wire_read_u32(wire_cursor *cursor);
uint64_t wire_read_u64(wire_cursor *cursor);

/* A "str" or "bytes". */
wire_bytes wire_read_bytes(wire_cursor *cursor);

/* An "opt str" / "opt bytes": false when absent. */
bool wire_read_optional_bytes(wire_cursor *cursor, wire_bytes *bytes);

/* True when every read succeeded and the payload is used up: a payload with
 * bytes left over is as malformed as one cut short. */
bool wire_cursor_finished(const wire_cursor *cursor);

#endif
