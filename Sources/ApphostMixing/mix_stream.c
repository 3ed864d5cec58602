#include "mix_stream.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* What a stream is called in the lines a kind that forgot to say why gets. */
static const char *noun(const mix_stream *stream) { return stream->kind->write != NULL ? "sink" : "source"; }

bool mix_sink_write(mix_sink *sink, const float *samples, uint32_t frames)
{
    mix_stream *stream = &sink->stream;

    if (stream->failed) {
        return false;
    }
    if (!stream->kind->write(stream, samples, frames)) {
        /* A kind that forgot to say why still leaves a failed sink. */
        mix_stream_fail(stream, "the sink failed");
        return false;
    }
    stream->frames += frames;
    return true;
}

bool mix_source_read(mix_source *source, float *samples, uint32_t frames)
{
    mix_stream *stream = &source->stream;

    if (!stream->failed && stream->kind->read(stream, samples, frames)) {
        stream->frames += frames;
        return true;
    }
    mix_stream_fail(stream, "the source failed");
    /* Whatever the kind left half-filled, a record session then hears
     * nothing rather than garbage. */
    memset(samples, 0, (size_t)frames * stream->channels * sizeof *samples);
    return false;
}

const char *mix_sink_error(const mix_sink *sink) { return sink->stream.error; }

const char *mix_source_error(const mix_source *source) { return source->stream.error; }

/* Finishes and frees `stream`, the first member of its block. */
static bool close_stream(mix_stream *stream, char *error, size_t error_size)
{
    bool closed;

    if (stream == NULL) {
        return true;
    }
    if (stream->kind->finish != NULL && !stream->kind->finish(stream)) {
        mix_stream_fail(stream, "the %s failed to finish", noun(stream));
    }
    if (stream->failed) {
        mix_set_error(error, error_size, "%s", stream->error);
    }
    closed = !stream->failed;
    free(stream);
    return closed;
}

bool mix_sink_close(mix_sink *sink, char *error, size_t error_size)
{
    return close_stream((mix_stream *)sink, error, error_size);
}

bool mix_source_close(mix_source *source, char *error, size_t error_size)
{
    return close_stream((mix_stream *)source, error, error_size);
}

void *mix_stream_new(size_t size, const mix_stream_kind *kind, uint32_t sample_rate, uint32_t channels)
{
    mix_stream *stream = calloc(1, size);

    if (stream != NULL) {
        stream->kind = kind;
        stream->sample_rate = sample_rate;
        stream->channels = channels;
    }
    return stream;
}

void mix_stream_fail(mix_stream *stream, const char *format, ...)
{
    va_list arguments;

    if (stream->failed) {
        return;
    }
    stream->failed = true;
    va_start(arguments, format);
    vsnprintf(stream->error, sizeof stream->error, format, arguments);
    va_end(arguments);
}
