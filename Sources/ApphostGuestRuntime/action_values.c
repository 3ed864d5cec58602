/*
 * The values of actions.h: its signature grammar and what a valid value of
 * each type is. The runtime checks a call's arguments with them, and the
 * host (DescriptorValidator, the conversion of an operator's arguments)
 * uses the same functions, so that both sides read signatures alike.
 */
#include <math.h>
#include <stdio.h>

#include "apphost_guest_runtime.h"

static void say(char *problem, size_t problem_size, const char *format, int code, size_t position)
{
    if (problem != NULL && problem_size > 0) {
        (void)snprintf(problem, problem_size, format, code, position + 1);
    }
}

static bool is_scalar_code(char code)
{
    switch (code) {
    case 'b':
    case 'y':
    case 'n':
    case 'q':
    case 'i':
    case 'u':
    case 'x':
    case 't':
    case 'd':
    case 's':
        return true;
    default:
        return false;
    }
}

bool ahr_parse_value_types(const char *text, size_t length, size_t max, ahr_value_type *types, size_t *count,
                           char *problem, size_t problem_size)
{
    size_t position = 0;

    *count = 0;
    if (problem != NULL && problem_size > 0) {
        problem[0] = '\0';
    }
    while (position < length) {
        char code = text[position];
        ahr_value_type type;

        if (code == 'a') {
            if (position + 1 >= length || text[position + 1] != 'y') {
                say(problem, problem_size, "'%c' at %zu is not followed by 'y' (only ay, bytes, is an array)", code,
                    position);
                return false;
            }
            type = AHR_VALUE_BYTES;
        } else if (is_scalar_code(code)) {
            type = (ahr_value_type)code;
        } else if (code >= 0x21 && code <= 0x7E) {
            say(problem, problem_size, "'%c' at %zu is no type code (b y n q i u x t d s ay)", code, position);
            return false;
        } else {
            say(problem, problem_size, "byte 0x%02x at %zu is no type code (b y n q i u x t d s ay)",
                (unsigned char)code, position);
            return false;
        }
        if (*count == max) {
            if (problem != NULL && problem_size > 0) {
                (void)snprintf(problem, problem_size, "more than %zu type%s", max, max == 1 ? "" : "s");
            }
            return false;
        }
        types[(*count)++] = type;
        position += type == AHR_VALUE_BYTES ? 2 : 1;
    }
    return true;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool is_utf8(const unsigned char *text, size_t length)
{
    size_t i = 0;

    while (i < length) {
        unsigned char lead = text[i];
        size_t extra;
        uint32_t point;
        uint32_t least;

        if (lead < 0x80) {
            i++;
            continue;
        }
        if (lead >= 0xC2 && lead <= 0xDF) {
            extra = 1;
            point = lead & 0x1F;
            least = 0x80;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            extra = 2;
            point = lead & 0x0F;
            least = 0x800;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            extra = 3;
            point = lead & 0x07;
            least = 0x10000;
        } else {
            return false;
        }
        if (length - i <= extra) {
            return false;
        }
        for (size_t k = 1; k <= extra; k++) {
            if ((text[i + k] & 0xC0) != 0x80) {
                return false;
            }
            point = (point << 6) | (text[i + k] & 0x3F);
        }
        if (point < least || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) {
            return false;
        }
        i += extra + 1;
    }
    return true;
}

static bool is_text(const ahr_value *value)
{
    const unsigned char *text = value->bytes;

    if (value->length > 0 && text == NULL) {
        return false;
    }
    for (size_t i = 0; i < value->length; i++) {
        if (text[i] == 0) {
            return false;
        }
    }
    return is_utf8(text, value->length);
}

bool ahr_value_is_valid(const ahr_value *value)
{
    switch (value->type) {
    case AHR_VALUE_NONE:
    case AHR_VALUE_BOOL:
        return true;
    case AHR_VALUE_UINT8:
        return value->unsigned_integer <= UINT8_MAX;
    case AHR_VALUE_INT16:
        return value->integer >= INT16_MIN && value->integer <= INT16_MAX;
    case AHR_VALUE_UINT16:
        return value->unsigned_integer <= UINT16_MAX;
    case AHR_VALUE_INT32:
        return value->integer >= INT32_MIN && value->integer <= INT32_MAX;
    case AHR_VALUE_UINT32:
        return value->unsigned_integer <= UINT32_MAX;
    case AHR_VALUE_INT64:
    case AHR_VALUE_UINT64:
        return true;
    case AHR_VALUE_DOUBLE:
        return isfinite(value->real);
    case AHR_VALUE_STRING:
        return value->length <= APPHOST_ACTION_VALUE_MAX_BYTES && is_text(value);
    case AHR_VALUE_BYTES:
        return value->length <= APPHOST_ACTION_VALUE_MAX_BYTES && (value->bytes != NULL || value->length == 0);
    }
    return false;
}
