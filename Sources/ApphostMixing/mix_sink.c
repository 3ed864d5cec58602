#include "mix_sink.h"

#include <stdarg.h>
#include <stdlib.h>

bool mix_sink_write(mix_sink *sink, const float *samples, uint32_t frames)
{
    if (sink->failed) {
        return false;
    }
    if (!sink->kind->write(sink, samples, frames)) {
        /* A kind that forgot to say why still leaves a failed sink. */
        mix_sink_fail(sink, "the sink failed");
        return false;
    }
    sink->frames_written += frames;
    return true;
}

const char *mix_sink_error(const mix_sink *sink) { return sink->error; }

bool mix_sink_close(mix_sink *sink, char *error, size_t error_size)
{
    bool finished;

    if (sink == NULL) {
        return true;
    }
    finished = sink->kind->finish(sink);
    if (!finished) {
        mix_sink_fail(sink, "the sink failed to finish");
    }
    if (sink->failed) {
        mix_set_error(error, error_size, "%s", sink->error);
    }
    finished = !sink->failed;
    free(sink);
    return finished;
}

void mix_sink_fail(mix_sink *sink, const char *format, ...)
{
    va_list arguments;

    va_start(arguments, format);
    mix_fail_once(&sink->failed, sink->error, sizeof sink->error, format, arguments);
    va_end(arguments);
}
