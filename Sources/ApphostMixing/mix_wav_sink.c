#define _POSIX_C_SOURCE 200809L /* pwrite, O_CLOEXEC */

#include "mix_wav_sink.h"

#include "mix_error.h"
#include "wav_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    BYTES_PER_SAMPLE = 4,
    /* What the RIFF size counts besides the samples: "WAVE", then the fmt
     * (8 + 18), fact (8 + 4) and data (8) chunks' headers. */
    RIFF_OVERHEAD = MIX_WAV_HEADER_BYTES - 8,
    FACT_FRAMES_OFFSET = 46,
    DATA_SIZE_OFFSET = 54
};

typedef struct wav_sink {
    mix_sink base;
    int fd;
    uint32_t header_every;
    /* Writes since the header was last brought up to date. */
    uint32_t writes_since_header;
    /* Bytes of samples in the file. */
    uint64_t data_bytes;
    /* The header as last written; only its sizes change. */
    unsigned char header[MIX_WAV_HEADER_BYTES];
    /* For error texts, which name the file; NUL-terminated. */
    char path[];
} wav_sink;

static void put_u16(unsigned char *at, uint32_t value)
{
    at[0] = (unsigned char)(value & 0xFF);
    at[1] = (unsigned char)((value >> 8) & 0xFF);
}

static void put_u32(unsigned char *at, uint32_t value)
{
    put_u16(at, value & 0xFFFF);
    put_u16(at + 2, value >> 16);
}

static void build_header(wav_sink *wav)
{
    unsigned char *h = wav->header;
    uint32_t channels = wav->base.stream.channels;
    uint32_t block = channels * BYTES_PER_SAMPLE;

    memcpy(h, "RIFF", 4);
    put_u32(h + 4, RIFF_OVERHEAD);
    memcpy(h + 8, "WAVEfmt ", 8);
    put_u32(h + 16, 18);
    put_u16(h + 20, WAVE_FORMAT_IEEE_FLOAT);
    put_u16(h + 22, channels);
    put_u32(h + 24, wav->base.stream.sample_rate);
    put_u32(h + 28, wav->base.stream.sample_rate * block);
    put_u16(h + 32, block);
    put_u16(h + 34, BYTES_PER_SAMPLE * 8);
    /* cbSize: no extension to the fmt chunk. */
    put_u16(h + 36, 0);
    memcpy(h + 38, "fact", 4);
    put_u32(h + 42, 4);
    put_u32(h + FACT_FRAMES_OFFSET, 0);
    memcpy(h + 50, "data", 4);
    put_u32(h + DATA_SIZE_OFFSET, 0);
}

/* The header with the sizes of what is written so far, in one pwrite. */
static int update_header(wav_sink *wav)
{
    /* data_bytes never passes what the RIFF size can count (wav_write). */
    uint32_t data = (uint32_t)wav->data_bytes;

    put_u32(wav->header + 4, RIFF_OVERHEAD + data);
    put_u32(wav->header + FACT_FRAMES_OFFSET, data / (wav->base.stream.channels * BYTES_PER_SAMPLE));
    put_u32(wav->header + DATA_SIZE_OFFSET, data);
    wav->writes_since_header = 0;
    return wav_file_write(wav->fd, wav->header, sizeof wav->header, 0);
}

static bool wav_write(mix_stream *stream, const float *samples, uint32_t frames)
{
    wav_sink *wav = (wav_sink *)stream;
    uint64_t bytes = (uint64_t)frames * stream->channels * BYTES_PER_SAMPLE;
    int failure;

    if (wav->data_bytes + bytes > UINT32_MAX - RIFF_OVERHEAD) {
        mix_stream_fail(stream, "wav:%s: full: a WAV file holds at most 4 GiB", wav->path);
        return false;
    }
    failure = wav_file_write(wav->fd, samples, (size_t)bytes, -1);
    if (failure != 0) {
        mix_stream_fail(stream, "wav:%s: cannot write: %s", wav->path, strerror(failure));
        return false;
    }
    wav->data_bytes += bytes;
    if (++wav->writes_since_header >= wav->header_every) {
        failure = update_header(wav);
        if (failure != 0) {
            mix_stream_fail(stream, "wav:%s: cannot update the header: %s", wav->path, strerror(failure));
            return false;
        }
    }
    return true;
}

static bool wav_finish(mix_stream *stream)
{
    wav_sink *wav = (wav_sink *)stream;
    bool finished = true;
    int failure;

    /* Even after a failed write: the header then covers what did get
     * written, and the file stays readable. */
    failure = update_header(wav);
    if (failure != 0) {
        mix_stream_fail(stream, "wav:%s: cannot update the header: %s", wav->path, strerror(failure));
        finished = false;
    }
    /* close(2) is where some file systems (NFS) report a failed write. */
    if (close(wav->fd) != 0 && errno != EINTR) {
        mix_stream_fail(stream, "wav:%s: cannot close: %s", wav->path, strerror(errno));
        finished = false;
    }
    wav->fd = -1;
    return finished;
}

static const mix_stream_kind wav_kind = {.write = wav_write, .finish = wav_finish};

mix_sink *mix_wav_sink_open(const char *path, uint32_t sample_rate, uint32_t channels, uint32_t header_every,
    char *error, size_t error_size)
{
    size_t path_bytes = strlen(path) + 1;
    wav_sink *wav;
    int failure;

    mix_clear_error(error, error_size);
    wav = mix_stream_new(sizeof *wav + path_bytes, &wav_kind, sample_rate, channels);
    if (wav == NULL) {
        mix_set_error(error, error_size, "wav:%s: out of memory", path);
        return NULL;
    }
    memcpy(wav->path, path, path_bytes);
    wav->header_every = header_every == 0 ? 1 : header_every;
    build_header(wav);

    wav->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (wav->fd < 0) {
        mix_set_error(error, error_size, "wav:%s: cannot create: %s", path, strerror(errno));
        free(wav);
        return NULL;
    }
    /* The file's offset is then past the header, where samples go. */
    failure = wav_file_write(wav->fd, wav->header, sizeof wav->header, -1);
    if (failure != 0) {
        mix_set_error(error, error_size, "wav:%s: cannot write: %s", path, strerror(failure));
        close(wav->fd);
        free(wav);
        return NULL;
    }
    return &wav->base;
}
