/*
 * Not a guest: a program that plays the guest side of an audio session
 * region (Sources/ApphostMixing/mix_region.h) in a process of its own, for
 * the cross-process tests of Tests/ApphostMixingTests (C13, C14). Built with
 * mix_region.c: cc -std=gnu11 -I Sources/ApphostMixing/include region_renderer.c
 * Sources/ApphostMixing/mix_region.c -lm.
 *
 *   region_renderer MEMFD WAKE_FD FREQUENCY AMPLITUDE SAMPLE_RATE
 *
 * Maps the region of the inherited fds and, for every period requested,
 * renders frames period * frames ... of a sine of FREQUENCY Hz (the same
 * sample on every channel, computed in double as the test does), until it
 * is killed. Exits 2 with a line on stderr when the region is refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mix_region.h"

int main(int argc, char **argv)
{
    char error[MIX_REGION_ERROR_BYTES] = "";
    mix_region *region;
    double frequency;
    double amplitude;
    double rate;

    if (argc != 6) {
        fprintf(stderr, "usage: region_renderer MEMFD WAKE_FD FREQUENCY AMPLITUDE SAMPLE_RATE\n");
        return 2;
    }
    region = mix_region_map(atoi(argv[1]), atoi(argv[2]), error, sizeof error);
    if (region == NULL) {
        fprintf(stderr, "region_renderer: %s\n", error);
        return 2;
    }
    frequency = atof(argv[3]);
    amplitude = atof(argv[4]);
    rate = atof(argv[5]);
    for (;;) {
        uint64_t period = mix_region_wait(region, -1);
        uint32_t frames = mix_region_frames(region);
        uint32_t channels = mix_region_channels(region);
        float *samples;

        if (period == MIX_REGION_NONE) {
            continue;
        }
        samples = mix_region_buffer(region, period);
        for (uint32_t frame = 0; frame < frames; frame++) {
            double time = (double)(period * frames + frame) / rate;
            float value = (float)(amplitude * sin(2 * M_PI * frequency * time));

            for (uint32_t channel = 0; channel < channels; channel++) {
                samples[frame * channels + channel] = value;
            }
        }
        mix_region_done(region, period);
    }
}
