#include "mix_period.h"

#include <string.h>

uint32_t mix_period(float *out, const float *const *sources, const float *gains, size_t count, uint32_t frames,
    uint32_t channels)
{
    size_t samples = (size_t)frames * channels;
    uint32_t clipped = 0;
    size_t source;
    size_t i;

    /* All bits 0 is 0.0f in IEEE 754: the empty mix. */
    memset(out, 0, samples * sizeof *out);
    for (source = 0; source < count; source++) {
        const float *in = sources[source];
        float gain = gains[source];

        /* Skipping a muted source is more than a saving: 0 * NaN is NaN. */
        if (in == NULL || gain == 0.0f) {
            continue;
        }
        for (i = 0; i < samples; i++) {
            out[i] += in[i] * gain;
        }
    }
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
