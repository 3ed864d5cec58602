/*
 * What the WAV sink and source share: the format's tags, its byte order,
 * and whole reads and writes of the file (the loop that goes on after a
 * short transfer or EINTR, once).
 */
#ifndef WAV_FILE_H
#define WAV_FILE_H

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the WAV sink and source take float samples as they lie in memory: WAV is little-endian"
#endif

enum { WAVE_FORMAT_PCM = 1, WAVE_FORMAT_IEEE_FLOAT = 3, WAVE_FORMAT_EXTENSIBLE = 0xFFFE };

#include <stddef.h>
#include <sys/types.h>

/* Writes all of `length` bytes at the file's offset, or at `offset` when it
 * is not negative. 0, or the errno that stopped it (ENOSPC for a write that
 * took nothing, as a full disk does). */
int wav_file_write(int fd, const void *bytes, size_t length, off_t offset);

/* Reads all of `length` bytes at `offset`: 0, or the errno that stopped it
 * (EIO for a file that ended first). */
int wav_file_read(int fd, void *bytes, size_t length, off_t offset);

#endif
