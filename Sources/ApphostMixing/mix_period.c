#include "mix_period.h"

#include <math.h>
#include <string.h>

uint32_t mix_sanitize(float *out, const float *in, size_t samples)
{
    uint32_t bad = 0;
    size_t i;

    /* The copy is checked, not `in`: a guest may write its shared memory
     * while the mixer reads it, so what is mixed must be what was checked. */
    for (i = 0; i < samples; i++) {
        float sample = in[i];

        out[i] = sample;
        /* False for a NaN too: every comparison with one is. */
        if (!(fabsf(sample) <= MIX_SAMPLE_LIMIT)) {
            bad++;
        }
    }
    if (bad != 0) {
        memset(out, 0, samples * sizeof *out);
    }
    return bad;
}

void mix_period_add(float *out, const float *in, float gain, size_t samples)
{
    size_t i;

    for (i = 0; i < samples; i++) {
        out[i] += in[i] * gain;
    }
}

uint32_t mix_period_clip(float *out, size_t samples)
{
    uint32_t clipped = 0;
    size_t i;

    for (i = 0; i < samples; i++) {
        float sample = out[i];

        if (sample > 1.0f) {
            out[i] = 1.0f;
            clipped++;
        } else if (sample < -1.0f) {
            out[i] = -1.0f;
            clipped++;
        } else if (sample != sample) {
            out[i] = 0.0f;
            clipped++;
        }
    }
    return clipped;
}

uint32_t mix_period(float *out, const float *const *sources, const float *gains, size_t count, uint32_t frames,
    uint32_t channels)
{
    size_t samples = (size_t)frames * channels;
    size_t source;

    /* All bits 0 is 0.0f in IEEE 754: the empty mix. */
    memset(out, 0, samples * sizeof *out);
    for (source = 0; source < count; source++) {
        /* Skipping a muted source is more than a saving: 0 * NaN is NaN. */
        if (sources[source] == NULL || gains[source] == 0.0f) {
            continue;
        }
        mix_period_add(out, sources[source], gains[source], samples);
    }
    return mix_period_clip(out, samples);
}
