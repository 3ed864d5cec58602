/*
 * The mixer (CONTRACT C13): a thread of its own that, once per period,
 * collects every mixed session's rendered period from its region
 * (mix_region.h), mixes them with their gains into the sink, measures
 * levels and asks each session for the next period. The host (Swift, on its
 * own queue) adds and removes sessions and sets their gains while it runs;
 * any thread reads the meters.
 *
 * Threads. The mixer thread is real-time (SCHED_FIFO when the system allows
 * it, else a normal thread: mix_engine_realtime says which). It never
 * allocates, never takes a lock another thread can hold and never waits for
 * a guest (but for the free clock's bounded wait, below): the host's changes
 * reach it through atomics it reads once per cycle, the meters reach readers
 * through seqlocks it never waits on. The host's functions (add, set,
 * remove, reap, start, stop, destroy) are for one host thread at a time, the
 * same one or serialized (a queue); the meters for any thread.
 *
 * One cycle c = 0, 1, 2, ...: c is also the period number asked of the
 * regions and the place in the sink, whose frames
 * [c * period_frames, (c + 1) * period_frames) are cycle c's output; a sink
 * gets one period per cycle, whatever the clock.
 *
 *   1. the clock: MIX_CLOCK_REAL waits for the period's deadline
 *      (mix_pacer_wait; periods it skipped after an overrun count as the
 *      engine's overruns, cycle numbers stay contiguous); MIX_CLOCK_FREE
 *      does not sleep
 *   2. publishes c as the current cycle, before it reads any session's state
 *      (what makes mix_engine_set exact, below)
 *   3. for each session in the table: when it was asked for period c - 1
 *      and is mixed now, collects c - 1 (not complete: silence, and one xrun
 *      for the session); a session not mixed now is not collected, so that
 *      it is silent from this cycle's output on (an interruption is silent
 *      from the first period after it)
 *   4. takes what it collected into its own memory, a period with a sample
 *      that is not a number being silence (mix_sanitize, CONTRACT X7),
 *      mixes it with the gains set now (mix_period_add, _clip), writes
 *      the period to the sink, adds each session's level as mixed (its
 *      samples times its gain) and the output's to the meters
 *   5. reads the period's input (config read_input, once; silence without
 *      it), copies it into each mixed session's region that wants input,
 *      and asks every mixed session for period c (mix_region_request)
 *
 * So a guest has one whole period to render c, and the output latency is
 * one period, as mix_region.h says: cycle c's output holds the sessions'
 * period c - 1, and cycle 0's output is silence.
 *
 * The free clock (`--audio-clock free`, offline deterministic renders):
 * after step 5, the thread waits until every session it asked that keeps up
 * has completed c (it polls mix_region_rendered every 50 µs), at most
 * free_wait_ns, then starts the next cycle at once. A session that did not
 * complete within that wait is not waited for again until it completes a
 * period again (it then keeps up), so a hung guest costs one wait, and its
 * xruns from then on. A cycle that waited for no session at all (none is
 * mixed, or none of those mixed keeps up) sleeps one period of real time
 * instead: an idle offline render advances at real time rather than spin
 * writing silence as fast as the disk takes it.
 *
 * Exactness: mix_engine_set stores the session's state, then loads the
 * published cycle (both sequentially consistent), and returns that cycle
 * plus one. The thread publishes c before it reads states, so the change is
 * in effect from the cycle returned on, certainly (possibly from the one
 * before): a session set unmixed at P is silent in the sink from frame
 * P * period_frames on, which is what lets the host say "silent from period
 * P" in its events.
 *
 * Slots. Sessions live in a table of `capacity` slots fixed at create. A
 * slot is free, in use, retiring (removed by the host, perhaps still
 * touched by the thread) or retired (the thread will not touch it again);
 * only mix_engine_reap frees a retired slot and closes its region, so a
 * slot is never reused while the thread may still touch it.
 *
 * A sink that fails (a full disk): the engine marks itself failed
 * (mix_engine_failed says why), writes nothing more and keeps cycling, so
 * that sessions are still driven and meters and xruns still count.
 */
#ifndef MIX_ENGINE_H
#define MIX_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mix_pacer.h"
#include "mix_region.h"
#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif


/* Room for an engine's one-line error, NUL included. */
enum { MIX_ENGINE_ERROR_BYTES = 512 };

typedef struct mix_engine mix_engine;

typedef struct mix_engine_config {
    uint32_t sample_rate;
    uint32_t channels;
    uint32_t period_frames;
    mix_clock clock;
    /* Sessions at most: the table is fixed at create (1 to 1024). */
    uint32_t capacity;
    /* Owned by the engine from create on (even when create fails), closed
     * by mix_engine_stop or mix_engine_destroy. Its channels and rate must
     * be the engine's. */
    mix_sink *sink;
    /* The captured input, read once per cycle on the mixer thread:
     * mix_source_read and its source, or any function that fills exactly
     * `frames` frames and does not block. A NULL read_input is silence, as
     * is a period it returns false for. The source stays the caller's:
     * close it after mix_engine_stop. */
    bool (*read_input)(mix_source *input, float *samples, uint32_t frames);
    mix_source *input;
    /* The free clock only: how long a cycle waits for the sessions to
     * complete their period; 0 means 200 ms. */
    uint64_t free_wait_ns;
    /* The span the meters' levels are over; 0 means 1 second. */
    double meter_span_seconds;
    /* Cycles to run before the thread ends by itself (an offline render of
     * a set length; mix_output_meter's `finished` then says so), or 0 to
     * run until stopped. */
    uint64_t cycles;
} mix_engine_config;

/* A session's meters, as the mixer last published them. */
typedef struct mix_session_meter {
    /* The level as mixed (samples times gain, silence while not mixed or
     * not complete) over the last whole span; MIX_LEVEL_FLOOR_DBFS before
     * the first span closed. */
    double peak_dbfs;
    double rms_dbfs;
    /* Periods collected complete, and their frames. */
    uint64_t periods_collected;
    uint64_t frames_rendered;
    /* Periods asked for, mixed, and not complete at their deadline. */
    uint64_t xruns;
    /* The last cycle that handled the session (MIX_REGION_NONE before). */
    uint64_t last_cycle;
    /* Samples it rendered that were not numbers, or beyond MIX_SAMPLE_LIMIT
     * (mix_period.h), since its stream opened: each period that held one
     * was silence (CONTRACT X7). */
    uint64_t bad_samples;
} mix_session_meter;

/* The engine's own meters. */
typedef struct mix_output_meter {
    /* Cycles done: periods given to the sink (written, or dropped once the
     * sink failed). */
    uint64_t cycles;
    /* The output's level over the last whole span (MIX_LEVEL_FLOOR_DBFS
     * before the first). */
    double peak_dbfs;
    double rms_dbfs;
    /* Samples the mix clipped to full scale, since the start (a session's
     * NaNs never reach it: they are its bad samples). */
    uint64_t clipped_samples;
    /* Real clock: periods the pacer skipped because the mixer came back
     * after their end, and the latest wake after a deadline. */
    uint64_t overruns;
    uint64_t max_late_ns;
    /* The mixer thread's CPU time (CLOCK_THREAD_CPUTIME_ID) so far. */
    uint64_t cpu_ns;
    /* Periods read_input returned false for (silence instead). */
    uint64_t input_failures;
    /* 1 once the thread ended by itself after config `cycles`, else 0. */
    uint64_t finished;
} mix_output_meter;

/*
 * An engine for periods of `period_frames` frames of `channels` channels at
 * `sample_rate` (each at least 1, within mix_region.h's bounds), with an
 * empty table, not started. NULL when the config is out of bounds or memory
 * runs out, with `error` (when not NULL and `error_size` not 0) holding one
 * line saying why; the sink is closed then too. Host thread; allocates.
 */
mix_engine *mix_engine_create(const mix_engine_config *config, char *error, size_t error_size);

/*
 * Starts the mixer thread: SCHED_FIFO at priority MIX_ENGINE_PRIORITY when
 * the system permits it, else (EPERM, no real-time budget) a normal thread,
 * never a failure for that. False when the thread cannot be created at all,
 * or the engine was started before, with `error` saying why. Host thread.
 */
enum { MIX_ENGINE_PRIORITY = 70 };
bool mix_engine_start(mix_engine *engine, char *error, size_t error_size);

/* Whether the started thread got SCHED_FIFO. Any thread. */
bool mix_engine_realtime(const mix_engine *engine);

/*
 * Stops and joins the thread (if it runs), then closes the sink. False when
 * the sink failed, while the engine ran or at closing, with `error` holding
 * its one line. Regions stay in the table (removed and reaped at once from
 * now on). Idempotent: later calls return true. Host thread; blocks a
 * period at most.
 */
bool mix_engine_stop(mix_engine *engine, char *error, size_t error_size);

/* Stops (a sink's failure unreported: stop first to hear of it), closes
 * every region still in the table and frees the engine; NULL is fine. Host
 * thread. */
void mix_engine_destroy(mix_engine *engine);

/*
 * Whether the sink failed while the engine ran; when it did and `error` is
 * not NULL and `error_size` not 0, `error` holds the sink's one line. Any
 * thread.
 */
bool mix_engine_failed(const mix_engine *engine, char *error, size_t error_size);

/*
 * Puts `region` (the host side, mix_region_create) into a free slot: the
 * session's index, not mixed, gain 0, not asked for anything yet. The
 * engine owns the region from then on (mix_engine_reap or destroy closes
 * it). -1 when the table is full or the region's frames or channels are not
 * the engine's: the region stays the caller's. Host thread; real-time safe
 * (no allocation), but the host's.
 */
int32_t mix_engine_add(mix_engine *engine, mix_region *region);

/*
 * Sets a session's mix state: whether it is mixed at all (an interrupted,
 * paused or silenced session is not: it is neither collected nor asked),
 * its gain (C8 ducking, C9 silence, C12 volumes: the host multiplies them)
 * and whether its region gets the captured input. One atomic store, read
 * by the thread at its next cycle.
 *
 * Returns the first cycle (period) that certainly uses the new state, see
 * "Exactness" above: the published cycle plus one, or 0 before the thread
 * ran its first cycle. Ignored (and the same return) for a slot not in
 * use. Host thread.
 */
uint64_t mix_engine_set(mix_engine *engine, int32_t slot, bool mixed, float gain, bool wants_input);

/*
 * Removes a session: the thread stops touching it at its next cycle and
 * marks it retired, for mix_engine_reap. Before the thread started, after
 * it stopped or ended, retired at once. A slot not in use: nothing. Host
 * thread.
 */
void mix_engine_remove(mix_engine *engine, int32_t slot);

/*
 * Closes the regions of retired slots (mix_region_close) and frees the
 * slots for mix_engine_add; returns how many. Host thread; not real-time
 * safe (munmap, close).
 */
size_t mix_engine_reap(mix_engine *engine);

/*
 * A copy of a session's meters: what the mixer last published, kept after
 * the session was removed until its slot is reaped. False when the slot is
 * free. Any thread: a torn read is retried, never waited for by the
 * mixer; a reader spins only while the mixer writes (a few hundred
 * nanoseconds).
 */
bool mix_engine_session_meter(const mix_engine *engine, int32_t slot, mix_session_meter *out);

/* A copy of the engine's meters. Any thread, as above. */
void mix_engine_output_meter(const mix_engine *engine, mix_output_meter *out);

#ifdef __cplusplus
}
#endif

#endif
