#include "mix_source.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool mix_source_read(mix_source *source, float *samples, uint32_t frames)
{
    if (!source->failed && source->kind->read(source, samples, frames)) {
        source->frames_read += frames;
        return true;
    }
    /* A kind that forgot to say why still leaves a failed source. */
    mix_source_fail(source, "the source failed");
    /* Whatever the kind left half-filled, a record session then hears
     * nothing rather than garbage. */
    memset(samples, 0, (size_t)frames * source->channels * sizeof *samples);
    return false;
}

const char *mix_source_error(const mix_source *source) { return source->error; }

bool mix_source_close(mix_source *source, char *error, size_t error_size)
{
    bool finished;

    if (source == NULL) {
        return true;
    }
    if (!source->kind->finish(source)) {
        mix_source_fail(source, "the source failed to finish");
    }
    if (source->failed) {
        mix_set_error(error, error_size, "%s", source->error);
    }
    finished = !source->failed;
    free(source);
    return finished;
}

void mix_source_fail(mix_source *source, const char *format, ...)
{
    va_list arguments;

    va_start(arguments, format);
    mix_fail_once(&source->failed, source->error, sizeof source->error, format, arguments);
    va_end(arguments);
}
