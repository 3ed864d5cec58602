/*
 * A session region: the shared memory one audio session's periods cross from
 * the guest's process to the host's mixer (CONTRACT C13), the way PipeWire
 * and JACK move audio between processes: one memfd mapped by both sides, one
 * wake per period, never a socket message per period.
 *
 * The two sides. The host side (the mixer's real-time thread) publishes at
 * each deadline the period it asks for, mix_region_request, and collects the
 * one it asked for at the previous deadline, mix_region_collect, which never
 * waits: a period not complete by then is silence (NULL) and one xrun for
 * the session. The guest side (a real-time thread of the worker, or of the
 * host itself with --isolation none) waits for a request, mix_region_wait,
 * renders into mix_region_buffer and publishes it with mix_region_done. A
 * frozen (SIGSTOP, cgroup freezer), hung or dead guest therefore costs the
 * mixer nothing but xruns: the host never reads anything the guest has not
 * marked complete, and never waits for it (C13, C14).
 *
 * Latency: the host asks for period N at deadline N and reads it at deadline
 * N + 1, so the guest has one whole period to render and the output latency
 * is one period (PipeWire's target; 10 ms at 48 kHz with 480 frames).
 *
 * Layout (all little integers in the host's byte order, version 2):
 *
 *   offset 0     the header, MIX_REGION_HEADER_BYTES (256): magic, version,
 *                sizes (written once by the host, copied and checked by
 *                mix_region_map, never read again from shared memory), then
 *                on cache lines of their own what the host writes (the
 *                period requested, xruns) and what the guest writes (the
 *                period last rendered, periods rendered)
 *   offset 256   `ring` slots of mix_region_slot_bytes each: a 64-byte slot
 *                header holding the period the slot holds complete, then the
 *                period's frames * channels interleaved float32 samples the
 *                guest renders, then as many the host captured for the guest
 *                to record (its input), each padded to 64 bytes
 *
 * Why a ring of slots, each stamped with its period, rather than one buffer:
 * period N lives in slot N % ring. While the host reads slot N % ring, the
 * guest may already render N + 1 into the next slot (the host asks for N + 1
 * before or after it collects N, either way), so with 2 slots nothing the
 * host reads is being written by a guest that keeps to the protocol, with no
 * copy and no extra period of latency. The stamp says which period a slot
 * holds complete, so a guest that finished N + 1 early does not hide N, and a
 * late guest's N - 1 is never taken for N. More than 2 slots only matter to a
 * host that asks further ahead (more latency); 2 is the default to use.
 *
 * The wake: an eventfd per region (EFD_CLOEXEC | EFD_NONBLOCK). The host
 * writes it after publishing the period; the guest's thread sleeps in
 * ppoll(2) on it. Chosen over a futex on the sequence word because an
 * eventfd is pollable (the guest's real-time thread can wait on it and on a
 * quit fd together, and the host could poll many), it crosses the worker's
 * socket with SCM_RIGHTS like the memfd, and a write to it never raises
 * SIGPIPE nor blocks when the guest is dead or frozen (unlike a pipe). It
 * costs the host one write(2) per session per period (about a microsecond,
 * 100 times a second), which a futex would save only when no guest sleeps.
 * Completion needs no wake: the host reads at its deadline anyway.
 *
 * The guest can write anything into the region, the header included: the
 * host trusts none of it. Sizes come from the host's own copy, the host's
 * xruns are counted in its handle (the header holds a copy), the counters
 * the guest writes are only reported, a slot is read only when its stamp is
 * the period due, samples are floats mix_period cleans (a NaN becomes 0),
 * and the memfd is sealed (F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_SEAL) so that
 * no one can truncate it under the host's mapping and raise SIGBUS.
 *
 * Threads: one thread per side (the mixer's, the guest's renderer). The
 * per-period functions (request, collect, wait, buffer, done) allocate
 * nothing and take no lock: C11 atomics on the shared words, and the
 * eventfd's write(2), read(2) and ppoll(2). Create, map and close allocate
 * and make system calls: do them off the real-time threads.
 */
#ifndef MIX_REGION_H
#define MIX_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "AHMR" in a little-endian word, and the layout's version. */
#define MIX_REGION_MAGIC 0x524d4841u
#define MIX_REGION_VERSION 2u

/* No period: what mix_region_wait returns when it timed out, and the
 * requested and rendered periods before the first. */
#define MIX_REGION_NONE 0xffffffffffffffffULL /* UINT64_MAX, as Swift imports it */

enum {
    MIX_REGION_HEADER_BYTES = 256,
    /* Room for a one-line error, NUL included. */
    MIX_REGION_ERROR_BYTES = 256,
    /* Bounds create and map enforce: a region is at most a few MB. */
    MIX_REGION_MAX_FRAMES = 16384,
    MIX_REGION_MAX_CHANNELS = 64,
    MIX_REGION_MAX_RING = 16
};

/* One side's handle on a region: its mapping, its two fds and its own copy
 * of the sizes. Owned by the side that made it; mix_region_close frees it. */
typedef struct mix_region mix_region;

/*
 * The host side: a new region for periods of `frames` frames of `channels`
 * channels, `ring` slots (at least 2), in a sealed memfd (MFD_CLOEXEC) of
 * its own and with an eventfd for the wake. Nothing requested, nothing
 * rendered yet. NULL when an argument is out of bounds or a system call
 * failed, with `error` (when not NULL and `error_size` not 0) holding one
 * line saying why.
 */
mix_region *mix_region_create(uint32_t frames, uint32_t channels, uint32_t ring, char *error, size_t error_size);

/*
 * The guest side: maps the region of `memfd` (the host's memfd, or any file
 * holding a region) and wakes on `wake_fd` (its eventfd). Checks the header:
 * magic, version, header size, bounds, and that the file is exactly the size
 * the sizes make. On success the region owns both fds (mix_region_close
 * closes them); on failure they stay the caller's, NULL is returned and
 * `error` holds one line saying why.
 */
mix_region *mix_region_map(int memfd, int wake_fd, char *error, size_t error_size);

/* Unmaps, closes both fds and frees the handle; NULL is fine. Once the
 * side's thread is done with it. The other side's mapping stays valid. */
void mix_region_close(mix_region *region);

/* The fds to hand the other side (SCM_RIGHTS, or inherited): still the
 * region's, duplicate them to keep them past mix_region_close. */
int mix_region_memfd(const mix_region *region);
int mix_region_wake_fd(const mix_region *region);

uint32_t mix_region_frames(const mix_region *region);
uint32_t mix_region_channels(const mix_region *region);
uint32_t mix_region_ring(const mix_region *region);
/* Bytes between slots, and the memfd's whole size. */
size_t mix_region_slot_bytes(const mix_region *region);
size_t mix_region_total_bytes(const mix_region *region);

/* The counters, as either side sees them now: periods the host found not
 * ready (its xruns: on the host's handle its own count, on the guest's the
 * header's copy), periods the guest completed, the period last requested
 * and the period last rendered (MIX_REGION_NONE before the first). What the
 * guest writes is a report, not to be trusted. */
uint64_t mix_region_xruns(const mix_region *region);
uint64_t mix_region_periods_rendered(const mix_region *region);
uint64_t mix_region_requested(const mix_region *region);
uint64_t mix_region_rendered(const mix_region *region);

/* --- The host side, on the mixer's thread. --- */

/*
 * Asks the guest for `period` (periods increase from 0): publishes it and
 * wakes the guest. Never blocks; true unless the eventfd write failed (it
 * cannot fill in practice: its counter holds 2^64 - 2). A dead or frozen
 * guest changes nothing here.
 */
bool mix_region_request(mix_region *region, uint64_t period);

/*
 * The samples of `period` (frames * channels interleaved floats, which a
 * guest keeping to the protocol leaves alone until the host requests
 * period + ring) when the guest completed it, else NULL and one more xrun.
 * Never waits. Call it at the deadline of period + 1, once per period.
 */
const float *mix_region_collect(mix_region *region, uint64_t period);

/* --- The guest side, on its renderer thread. --- */

/*
 * Waits until the host has requested a period this side has not returned
 * yet, and returns it: the latest requested (periods asked for while this
 * thread was late or stopped are skipped, they are the host's xruns
 * already). MIX_REGION_NONE when `timeout_ns` nanoseconds passed first
 * (negative: wait for ever). Resumes after signals (SIGSTOP/SIGCONT
 * included).
 */
uint64_t mix_region_wait(mix_region *region, int64_t timeout_ns);

/* Where `period`'s frames * channels samples go: its slot. */
float *mix_region_buffer(mix_region *region, uint64_t period);

/* Publishes `period` as complete (its samples written before this call). */
void mix_region_done(mix_region *region, uint64_t period);

/*
 * Makes mix_region_wait return MIX_REGION_NONE now and from then on: how
 * the thread that owns this side's handle is told to stop (its owner then
 * joins it and closes the region). Any thread; once.
 */
void mix_region_interrupt(mix_region *region);

/* --- Both sides. --- */

/*
 * Where `period`'s captured input goes: frames * channels interleaved
 * floats in its slot beside the output. The host writes it before it
 * requests the period (mix_region_request orders it); the guest reads it
 * while it renders the period. What a guest that records nothing finds
 * there is whatever was last written: silence until the host writes.
 */
float *mix_region_input(mix_region *region, uint64_t period);

#ifdef __cplusplus
}
#endif

#endif
