#define _POSIX_C_SOURCE 200809L /* pread, O_CLOEXEC */

#include "mix_wav_source.h"

#include "mix_error.h"
#include "wav_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    /* The plain fmt chunk; WAVE_FORMAT_EXTENSIBLE's is 40 bytes, its
     * subformat GUID at 24. */
    FMT_BYTES = 16,
    FMT_EXTENSIBLE_BYTES = 40,
    SUBFORMAT_OFFSET = 24
};

/* The GUID of an extensible subformat but for its first two bytes, which
 * are the plain format tag (KSDATAFORMAT_SUBTYPE_PCM and _IEEE_FLOAT). */
static const unsigned char subformat_tail[14] = {
    0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};

typedef struct wav_source {
    mix_source base;
    /* The file's samples as float32, file_channels to a frame. */
    float *samples;
    uint32_t file_channels;
    uint64_t frames;
    /* The next frame a read gives, below `frames`. */
    uint64_t position;
} wav_source;

/* What the fmt chunk says, once checked. */
typedef struct wav_format {
    uint32_t tag;
    uint32_t channels;
    uint32_t rate;
    uint32_t bits;
} wav_format;

static uint32_t get_u16(const unsigned char *at) { return (uint32_t)at[0] | (uint32_t)at[1] << 8; }

static uint32_t get_u32(const unsigned char *at) { return get_u16(at) | get_u16(at + 2) << 16; }

/* Checks the fmt chunk's `size` bytes at `fmt` (at most
 * FMT_EXTENSIBLE_BYTES of them read); false with the error said. */
static bool parse_format(const unsigned char *fmt, uint32_t size, wav_format *format, const char *path,
    char *error, size_t error_size)
{
    uint32_t block;

    if (size < FMT_BYTES) {
        mix_set_error(error, error_size, "wav:%s: the fmt chunk is %u bytes, too short", path, size);
        return false;
    }
    format->tag = get_u16(fmt);
    format->channels = get_u16(fmt + 2);
    format->rate = get_u32(fmt + 4);
    block = get_u16(fmt + 12);
    format->bits = get_u16(fmt + 14);
    if (format->tag == WAVE_FORMAT_EXTENSIBLE) {
        if (size < FMT_EXTENSIBLE_BYTES
            || memcmp(fmt + SUBFORMAT_OFFSET + 2, subformat_tail, sizeof subformat_tail) != 0) {
            mix_set_error(error, error_size,
                "wav:%s: unsupported format: an extensible format that is not PCM or float",
                path);
            return false;
        }
        format->tag = get_u16(fmt + SUBFORMAT_OFFSET);
    }
    if (!(format->tag == WAVE_FORMAT_PCM && (format->bits == 16 || format->bits == 24 || format->bits == 32))
        && !(format->tag == WAVE_FORMAT_IEEE_FLOAT && format->bits == 32)) {
        mix_set_error(error, error_size,
            "wav:%s: unsupported format: tag %u, %u bits (it takes 16, 24 or 32-bit PCM, tag 1, or 32-bit float, "
            "tag 3)",
            path, format->tag, format->bits);
        return false;
    }
    if (format->channels == 0 || format->rate == 0 || block != format->channels * (format->bits / 8)) {
        mix_set_error(error, error_size, "wav:%s: the fmt chunk is inconsistent (%u channels, %u Hz, %u bytes a frame)",
            path, format->channels, format->rate, block);
        return false;
    }
    return true;
}

/* The file's `bytes` of samples at `raw` as float32, in `out`. */
static void convert(const unsigned char *raw, size_t bytes, const wav_format *format, float *out)
{
    size_t width = format->bits / 8;
    size_t count = bytes / width;

    for (size_t i = 0; i < count; i++) {
        const unsigned char *at = raw + i * width;

        if (format->tag == WAVE_FORMAT_IEEE_FLOAT) {
            memcpy(&out[i], at, sizeof out[i]);
        } else if (width == 2) {
            out[i] = (float)(int16_t)get_u16(at) / 32768.0f;
        } else if (width == 3) {
            /* Shifted up to sign-extend through int32_t, then back. */
            int32_t value = (int32_t)((uint32_t)at[0] << 8 | (uint32_t)at[1] << 16 | (uint32_t)at[2] << 24);

            out[i] = (float)((double)value / 2147483648.0);
        } else {
            out[i] = (float)((double)(int32_t)get_u32(at) / 2147483648.0);
        }
    }
}

/* Walks the chunks of the open file `fd` of `file_size` bytes: finds and
 * checks fmt against the host's `sample_rate` and `channels`, and reads the
 * data chunk as float32 into a new block at *samples (the caller frees
 * it). False with the error said. */
static bool load(int fd, uint64_t file_size, const char *path, uint32_t sample_rate, uint32_t channels,
    wav_format *format, float **samples, uint64_t *sample_count, char *error, size_t error_size)
{
    unsigned char header[12];
    unsigned char fmt[FMT_EXTENSIBLE_BYTES];
    bool have_format = false;
    uint64_t data_offset = 0;
    uint64_t data_bytes = 0;
    bool have_data = false;
    uint64_t offset = sizeof header;
    unsigned char *raw;
    int failure;

    if (file_size < sizeof header || (failure = wav_file_read(fd, header, sizeof header, 0)) != 0
        || memcmp(header, "RIFF", 4) != 0 || memcmp(header + 8, "WAVE", 4) != 0) {
        mix_set_error(error, error_size, "wav:%s: not a WAV file (no RIFF WAVE header)", path);
        return false;
    }
    /* The RIFF size is not trusted (writers that were killed leave it
     * wrong): the file's own size bounds the walk. */
    while (offset + 8 <= file_size && !(have_format && have_data)) {
        unsigned char chunk[8];
        uint64_t size;

        failure = wav_file_read(fd, chunk, sizeof chunk, (off_t)offset);
        if (failure != 0) {
            mix_set_error(error, error_size, "wav:%s: cannot read: %s", path, strerror(failure));
            return false;
        }
        size = get_u32(chunk + 4);
        if (offset + 8 + size > file_size) {
            mix_set_error(error, error_size,
                "wav:%s: truncated: its \"%.4s\" chunk claims %llu bytes, the file has %llu",
                path, (const char *)chunk, (unsigned long long)size,
                (unsigned long long)(file_size - offset - 8));
            return false;
        }
        if (memcmp(chunk, "fmt ", 4) == 0 && !have_format) {
            uint32_t wanted = size < sizeof fmt ? (uint32_t)size : (uint32_t)sizeof fmt;

            failure = wav_file_read(fd, fmt, wanted, (off_t)(offset + 8));
            if (failure != 0) {
                mix_set_error(error, error_size, "wav:%s: cannot read: %s", path, strerror(failure));
                return false;
            }
            if (!parse_format(fmt, (uint32_t)size, format, path, error, error_size)) {
                return false;
            }
            have_format = true;
        } else if (memcmp(chunk, "data", 4) == 0 && !have_data) {
            data_offset = offset + 8;
            data_bytes = size;
            have_data = true;
        }
        /* Chunks are padded to an even size; the pad byte is not counted. */
        offset += 8 + size + (size & 1);
    }
    if (!have_format) {
        mix_set_error(error, error_size, "wav:%s: no fmt chunk", path);
        return false;
    }
    if (!have_data) {
        mix_set_error(error, error_size, "wav:%s: no data chunk", path);
        return false;
    }
    /* Checked before the samples are read: a refused file costs no
     * memory. */
    if (format->rate != sample_rate) {
        mix_set_error(error, error_size, "wav:%s: the file is at %u Hz, not %u Hz (no resampling)", path, format->rate,
            sample_rate);
        return false;
    }
    if (format->channels != 1 && format->channels != channels) {
        mix_set_error(error, error_size,
            "wav:%s: the file has %u channels, not %u (or 1, which feeds every channel)", path,
            format->channels, channels);
        return false;
    }
    if (data_bytes > MIX_WAV_SOURCE_MAX_BYTES) {
        mix_set_error(error, error_size, "wav:%s: too long: %llu bytes of samples, more than the %u MiB a source holds",
            path, (unsigned long long)data_bytes, MIX_WAV_SOURCE_MAX_BYTES / (1024u * 1024u));
        return false;
    }
    /* Whole frames only: a partial last frame is left out. */
    *sample_count = data_bytes / (format->channels * (format->bits / 8)) * format->channels;
    if (*sample_count == 0) {
        mix_set_error(error, error_size, "wav:%s: no samples", path);
        return false;
    }
    raw = malloc((size_t)data_bytes);
    *samples = malloc((size_t)*sample_count * sizeof **samples);
    if (raw == NULL || *samples == NULL) {
        mix_set_error(error, error_size, "wav:%s: out of memory", path);
        free(raw);
        free(*samples);
        *samples = NULL;
        return false;
    }
    failure = wav_file_read(fd, raw, (size_t)data_bytes, (off_t)data_offset);
    if (failure != 0) {
        mix_set_error(error, error_size, "wav:%s: cannot read: %s", path, strerror(failure));
        free(raw);
        free(*samples);
        *samples = NULL;
        return false;
    }
    convert(raw, (size_t)*sample_count * (format->bits / 8), format, *samples);
    free(raw);
    return true;
}

static bool wav_read(mix_stream *stream, float *samples, uint32_t frames)
{
    wav_source *wav = (wav_source *)stream;
    uint32_t channels = stream->channels;
    uint32_t done = 0;

    while (done < frames) {
        uint64_t left = wav->frames - wav->position;
        uint32_t now = frames - done < left ? frames - done : (uint32_t)left;
        const float *from = wav->samples + wav->position * wav->file_channels;
        float *to = samples + (size_t)done * channels;

        if (wav->file_channels == channels) {
            memcpy(to, from, (size_t)now * channels * sizeof *to);
        } else {
            /* A mono file: its one sample on every channel. */
            for (uint32_t frame = 0; frame < now; frame++) {
                for (uint32_t channel = 0; channel < channels; channel++) {
                    to[(size_t)frame * channels + channel] = from[frame];
                }
            }
        }
        done += now;
        wav->position += now;
        if (wav->position == wav->frames) {
            wav->position = 0;
        }
    }
    return true;
}

static bool wav_finish(mix_stream *stream)
{
    wav_source *wav = (wav_source *)stream;

    free(wav->samples);
    wav->samples = NULL;
    return true;
}

static const mix_stream_kind wav_kind = {.read = wav_read, .finish = wav_finish};

mix_source *mix_wav_source_open(const char *path, uint32_t sample_rate, uint32_t channels, char *error,
    size_t error_size)
{
    wav_format format = {0};
    float *samples = NULL;
    uint64_t sample_count = 0;
    struct stat status;
    wav_source *wav;
    bool loaded;
    int fd;

    mix_clear_error(error, error_size);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        mix_set_error(error, error_size, "wav:%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &status) != 0) {
        mix_set_error(error, error_size, "wav:%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(status.st_mode)) {
        mix_set_error(error, error_size, "wav:%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    loaded = load(fd, (uint64_t)status.st_size, path, sample_rate, channels, &format, &samples, &sample_count,
        error, error_size);
    close(fd);
    if (!loaded) {
        return NULL;
    }
    wav = mix_stream_new(sizeof *wav, &wav_kind, sample_rate, channels);
    if (wav == NULL) {
        mix_set_error(error, error_size, "wav:%s: out of memory", path);
        free(samples);
        return NULL;
    }
    wav->samples = samples;
    wav->file_channels = format.channels;
    wav->frames = sample_count / format.channels;
    return &wav->base;
}
