#include "wire_cursor.h"


wire_cursor wire_cursor_make(const uint8_t *payload, size_t length)
{
    wire_cursor cursor = {payload, length, false};

    return cursor;
}

/* The next `length` bytes, or NULL (and the cursor failed) when there are fewer. */
static const uint8_t *take(wire_cursor *cursor, size_t length)
{
    const uint8_t *bytes = cursor->next;

    if (cursor->failed || length > cursor->left) {
        cursor->failed = true;
        return NULL;
    }
    cursor->next += length;
    cursor->left -= length;
    return bytes;
}

static uint64_t read_little_endian(wire_cursor *cursor, size_t size)
{
    const uint8_t *bytes = take(cursor, size);
    uint64_t value = 0;
    size_t i;

    if (bytes == NULL) {
        return 0;
    }
    for (i = 0; i < size; i++) {
        value |= (uint64_t)bytes[i] << (8 * i);
    }
    return value;
}

uint8_t wire_read_u8(wire_cursor *cursor) { return (uint8_t)read_little_endian(cursor, 1); }

bool wire_read_bool(wire_cursor *cursor)
{
    uint8_t value = wire_read_u8(cursor);

    if (value > 1) {
        cursor->failed = true;
    }
    return value == 1;
}

uint32_t wire_read_u32(wire_cursor *cursor) { return (uint32_t)read_little_endian(cursor, 4); }

uint64_t wire_read_u64(wire_cursor *cursor) { return read_little_endian(cursor, 8); }

wire_bytes wire_read_bytes(wire_cursor *cursor)
{
    wire_bytes result;

    result.length = wire_read_u32(cursor);
    result.bytes = take(cursor, result.length);
    if (result.bytes == NULL) {
        result.length = 0;
    }
    return result;
}

bool wire_read_optional_bytes(wire_cursor *cursor, wire_bytes *bytes)
{
    bool present = wire_read_bool(cursor);

    *bytes = present ? wire_read_bytes(cursor) : (wire_bytes){NULL, 0};
    return present && !cursor->failed;
}

bool wire_cursor_finished(const wire_cursor *cursor) { return !cursor->failed && cursor->left == 0; }
