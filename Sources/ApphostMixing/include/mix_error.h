/*
 * The one way the opening functions here and in ApphostALSA answer a
 * caller's `char *error, size_t error_size`: one line saying why, cut to
 * fit, and nothing at all when `error` is NULL or `error_size` is 0.
 * Inline, so that a file compiled alone (the region's test renderer) needs
 * nothing more.
 */
#ifndef MIX_ERROR_H
#define MIX_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Marks a printf-like function whose format is argument `format_at` and
 * whose values start at `values_at`, for the compiler to check callers. */
#if defined(__GNUC__)
#define MIX_PRINTF(format_at, values_at) __attribute__((format(printf, format_at, values_at)))
#else
#define MIX_PRINTF(format_at, values_at)
#endif

static inline void mix_set_error(char *error, size_t error_size, const char *format, ...) MIX_PRINTF(3, 4);

/* Writes the printf `format` to `error`, NUL-terminated and cut to fit. */
static inline void mix_set_error(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;

    if (error == NULL || error_size == 0) {
        return;
    }
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
}

/* Empties `error`, so that a caller reads "" when nothing failed. */
static inline void mix_clear_error(char *error, size_t error_size)
{
    if (error != NULL && error_size > 0) {
        error[0] = '\0';
    }
}

#endif
