/*
 * Cuts a guest's text at a character boundary, so that a long log line or
 * task name never ends inside a UTF-8 sequence.
 */
#include "utf8_cut.h"

#include <stdint.h>

static int is_continuation(uint8_t byte) { return (byte & 0xC0) == 0x80; }

/* The length of the sequence a lead byte (0xC0 or more) starts. */
static size_t sequence_length(uint8_t lead)
{
    if (lead >= 0xF0) {
        return 4;
    }
    return lead >= 0xE0 ? 3 : 2;
}

size_t ahr_utf8_prefix_length(const char *bytes, size_t length, size_t max)
{
    const uint8_t *text = (const uint8_t *)bytes;
    size_t start;

    if (length <= max) {
        return length;
    }
    /* Back up over the continuation bytes before the cut to the lead byte;
     * drop its sequence if it does not end before the cut. */
    start = max;
    while (start > 0 && is_continuation(text[start - 1])) {
        start--;
    }
    if (start > 0 && text[start - 1] >= 0xC0 && start - 1 + sequence_length(text[start - 1]) > max) {
        return start - 1;
    }
    return max;
}
