/* Cutting guest text to a byte limit without splitting a character. */
#ifndef AHR_UTF8_CUT_H
#define AHR_UTF8_CUT_H

#include <stddef.h>

/*
 * The length of the longest prefix of `bytes` (`length` bytes) that is at
 * most `max` bytes long and does not end inside a UTF-8 sequence. Text that
 * fits is not looked at, so invalid UTF-8 is kept as it is; only the last
 * character before the cut is checked.
 */
size_t ahr_utf8_prefix_length(const char *bytes, size_t length, size_t max);

#endif
