#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif /* memfd_create, MFD_*, F_ADD_SEALS, ppoll */
#include "mix_region.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mix_error.h"

/* The shared words must be lock-free: a lock in shared memory would let a
 * frozen guest hold it. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

enum { CACHE_LINE = 64 };

/* The region's layout: the header's first words, written once by the host
 * before the guest has the fd, and each side's own copy of them, never
 * re-read from shared memory. */
typedef struct region_layout {
    uint32_t magic;
    uint32_t version;
    uint32_t header_bytes;
    uint32_t frames;
    uint32_t channels;
    uint32_t ring;
    uint64_t slot_bytes;
    uint64_t total_bytes;
} region_layout;

_Static_assert(sizeof(region_layout) == 40, "the layout's words as MIX_REGION_VERSION has them");

/* The header at offset 0, as both sides map it. */
typedef struct region_header {
    region_layout layout;
    uint8_t pad0[CACHE_LINE - sizeof(region_layout)];
    /* Written by the host. */
    _Alignas(CACHE_LINE) _Atomic uint64_t requested;
    _Atomic uint64_t xruns;
    uint8_t pad1[CACHE_LINE - 16];
    /* Written by the guest. */
    _Alignas(CACHE_LINE) _Atomic uint64_t rendered;
    _Atomic uint64_t periods_rendered;
    uint8_t pad2[CACHE_LINE - 16];
} region_header;

_Static_assert(sizeof(region_header) <= MIX_REGION_HEADER_BYTES, "header fits");

/* The start of each slot: the period it holds complete. */
typedef struct slot_header {
    _Atomic uint64_t period;
} slot_header;

struct mix_region {
    int memfd;
    int wake_fd;
    /* The mapping, which starts with the header. */
    unsigned char *base;
    region_layout layout;
    /* The guest side: the last period mix_region_wait returned, and whether
     * mix_region_interrupt asked the waiting thread to come back. */
    uint64_t last_waited;
    _Atomic bool interrupted;
    /* The host side (the handle mix_region_create made): its own count of
     * xruns, which the guest can read in the header but not change here. */
    bool is_host;
    uint64_t xruns;
};

/* The bytes of one period's samples, padded to whole cache lines. */
static size_t samples_bytes_for(uint32_t frames, uint32_t channels)
{
    size_t samples = (size_t)frames * channels * sizeof(float);

    return (samples + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
}

/* A slot: its header, the output the guest renders, the input the host
 * captured for it. */
static size_t slot_bytes_for(uint32_t frames, uint32_t channels)
{
    return CACHE_LINE + 2 * samples_bytes_for(frames, channels);
}

/* The layout of a region of `ring` periods of `frames` frames of
 * `channels` channels. */
static region_layout layout_for(uint32_t frames, uint32_t channels, uint32_t ring)
{
    uint64_t slot_bytes = slot_bytes_for(frames, channels);

    return (region_layout){MIX_REGION_MAGIC, MIX_REGION_VERSION, MIX_REGION_HEADER_BYTES, frames, channels, ring,
        slot_bytes, MIX_REGION_HEADER_BYTES + ring * slot_bytes};
}

static const char *check_sizes(uint32_t frames, uint32_t channels, uint32_t ring)
{
    if (frames < 1 || frames > MIX_REGION_MAX_FRAMES) {
        return "frames per period";
    }
    if (channels < 1 || channels > MIX_REGION_MAX_CHANNELS) {
        return "channels";
    }
    if (ring < 2 || ring > MIX_REGION_MAX_RING) {
        return "periods in the ring";
    }
    return NULL;
}

static mix_region *make_handle(int memfd, int wake_fd, void *base, const region_layout *layout)
{
    mix_region *region = calloc(1, sizeof *region);

    if (region == NULL) {
        return NULL;
    }
    region->memfd = memfd;
    region->wake_fd = wake_fd;
    region->base = base;
    region->layout = *layout;
    region->last_waited = MIX_REGION_NONE;
    return region;
}

static region_header *header_of(const mix_region *region) { return (region_header *)region->base; }

static slot_header *slot_of(const mix_region *region, uint64_t period)
{
    size_t offset = MIX_REGION_HEADER_BYTES + (size_t)(period % region->layout.ring) * region->layout.slot_bytes;

    return (slot_header *)(region->base + offset);
}

mix_region *mix_region_create(uint32_t frames, uint32_t channels, uint32_t ring, char *error, size_t error_size)
{
    const char *bad = check_sizes(frames, channels, ring);
    size_t total;
    int memfd;
    int wake_fd;
    void *base;
    region_header *header;
    region_layout layout;
    mix_region *region;

    if (bad != NULL) {
        mix_set_error(error, error_size,
            "audio region: %s out of bounds (%u frames, %u channels, %u periods)", bad, frames, channels, ring);
        return NULL;
    }
    layout = layout_for(frames, channels, ring);
    total = (size_t)layout.total_bytes;
    memfd = memfd_create("apphost-audio", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (memfd < 0) {
        mix_set_error(error, error_size, "audio region: memfd_create: %s", strerror(errno));
        return NULL;
    }
    if (ftruncate(memfd, (off_t)total) != 0) {
        mix_set_error(error, error_size, "audio region: ftruncate to %zu bytes: %s", total, strerror(errno));
        close(memfd);
        return NULL;
    }
    /* Sealed before anyone else has the fd: its size can never change under
     * a mapping (no SIGBUS), nor the seals be undone. */
    if (fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        mix_set_error(error, error_size, "audio region: sealing the memfd: %s", strerror(errno));
        close(memfd);
        return NULL;
    }
    base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (base == MAP_FAILED) {
        mix_set_error(error, error_size, "audio region: mmap of %zu bytes: %s", total, strerror(errno));
        close(memfd);
        return NULL;
    }
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd < 0) {
        mix_set_error(error, error_size, "audio region: eventfd: %s", strerror(errno));
        munmap(base, total);
        close(memfd);
        return NULL;
    }
    /* A new memfd reads as zeros: only what is not zero is written. */
    header = base;
    header->layout = layout;
    atomic_store_explicit(&header->requested, MIX_REGION_NONE, memory_order_relaxed);
    atomic_store_explicit(&header->rendered, MIX_REGION_NONE, memory_order_relaxed);
    region = make_handle(memfd, wake_fd, base, &layout);
    if (region == NULL) {
        mix_set_error(error, error_size, "audio region: out of memory");
        munmap(base, total);
        close(memfd);
        close(wake_fd);
        return NULL;
    }
    region->is_host = true;
    for (uint32_t slot = 0; slot < ring; slot++) {
        atomic_store_explicit(&slot_of(region, slot)->period, MIX_REGION_NONE, memory_order_relaxed);
    }
    /* The guest maps it later, through a system call that orders this. */
    atomic_thread_fence(memory_order_release);
    return region;
}

mix_region *mix_region_map(int memfd, int wake_fd, char *error, size_t error_size)
{
    struct stat status;
    region_header header;
    /* What the host wrote, read once: this side's copy from here. */
    const region_layout *seen = &header.layout;
    region_layout expected;
    const char *bad;
    size_t total;
    void *base;
    mix_region *region;

    if (memfd < 0 || wake_fd < 0) {
        mix_set_error(error, error_size, "audio region: no fd (memfd %d, wake fd %d)", memfd, wake_fd);
        return NULL;
    }
    if (fstat(memfd, &status) != 0) {
        mix_set_error(error, error_size, "audio region: fstat of fd %d: %s", memfd, strerror(errno));
        return NULL;
    }
    /* The header read with pread, not through a mapping: a file too short
     * for it must fail here, not raise SIGBUS. */
    if (status.st_size < MIX_REGION_HEADER_BYTES) {
        mix_set_error(error, error_size, "audio region: %lld bytes, shorter than the %d-byte header",
            (long long)status.st_size, MIX_REGION_HEADER_BYTES);
        return NULL;
    }
    if (pread(memfd, &header, sizeof header, 0) != (ssize_t)sizeof header) {
        mix_set_error(error, error_size, "audio region: reading the header: %s", strerror(errno));
        return NULL;
    }
    if (seen->magic != MIX_REGION_MAGIC) {
        mix_set_error(error, error_size, "audio region: wrong magic 0x%08x (expected 0x%08x)", seen->magic,
            MIX_REGION_MAGIC);
        return NULL;
    }
    if (seen->version != MIX_REGION_VERSION) {
        mix_set_error(error, error_size, "audio region: version %u, expected %u", seen->version, MIX_REGION_VERSION);
        return NULL;
    }
    if (seen->header_bytes != MIX_REGION_HEADER_BYTES) {
        mix_set_error(error, error_size, "audio region: header of %u bytes, expected %d", seen->header_bytes,
            MIX_REGION_HEADER_BYTES);
        return NULL;
    }
    bad = check_sizes(seen->frames, seen->channels, seen->ring);
    if (bad != NULL) {
        mix_set_error(error, error_size, "audio region: %s out of bounds (%u frames, %u channels, %u periods)", bad,
            seen->frames, seen->channels, seen->ring);
        return NULL;
    }
    expected = layout_for(seen->frames, seen->channels, seen->ring);
    total = (size_t)expected.total_bytes;
    if (seen->slot_bytes != expected.slot_bytes || seen->total_bytes != expected.total_bytes) {
        mix_set_error(error, error_size,
            "audio region: header sizes %llu and %llu do not match %u frames of %u channels",
            (unsigned long long)seen->slot_bytes, (unsigned long long)seen->total_bytes, seen->frames,
            seen->channels);
        return NULL;
    }
    if ((uint64_t)status.st_size != total) {
        mix_set_error(error, error_size,
            "audio region: wrong size: %lld bytes, expected %zu for %u periods of %u frames",
            (long long)status.st_size, total, seen->ring, seen->frames);
        return NULL;
    }
    base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (base == MAP_FAILED) {
        mix_set_error(error, error_size, "audio region: mmap of %zu bytes: %s", total, strerror(errno));
        return NULL;
    }
    region = make_handle(memfd, wake_fd, base, seen);
    if (region == NULL) {
        mix_set_error(error, error_size, "audio region: out of memory");
        munmap(base, total);
        return NULL;
    }
    return region;
}

void mix_region_close(mix_region *region)
{
    if (region == NULL) {
        return;
    }
    munmap(region->base, (size_t)region->layout.total_bytes);
    close(region->memfd);
    close(region->wake_fd);
    free(region);
}

int mix_region_memfd(const mix_region *region) { return region->memfd; }
int mix_region_wake_fd(const mix_region *region) { return region->wake_fd; }
uint32_t mix_region_frames(const mix_region *region) { return region->layout.frames; }
uint32_t mix_region_channels(const mix_region *region) { return region->layout.channels; }
uint32_t mix_region_ring(const mix_region *region) { return region->layout.ring; }
size_t mix_region_slot_bytes(const mix_region *region) { return (size_t)region->layout.slot_bytes; }
size_t mix_region_total_bytes(const mix_region *region) { return (size_t)region->layout.total_bytes; }

uint64_t mix_region_xruns(const mix_region *region)
{
    if (region->is_host) {
        return region->xruns;
    }
    return atomic_load_explicit(&header_of(region)->xruns, memory_order_relaxed);
}

uint64_t mix_region_periods_rendered(const mix_region *region)
{
    return atomic_load_explicit(&header_of(region)->periods_rendered, memory_order_relaxed);
}

uint64_t mix_region_requested(const mix_region *region)
{
    return atomic_load_explicit(&header_of(region)->requested, memory_order_acquire);
}

uint64_t mix_region_rendered(const mix_region *region)
{
    return atomic_load_explicit(&header_of(region)->rendered, memory_order_acquire);
}

bool mix_region_request(mix_region *region, uint64_t period)
{
    uint64_t one = 1;
    ssize_t written;

    atomic_store_explicit(&header_of(region)->requested, period, memory_order_release);
    do {
        written = write(region->wake_fd, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
    return written == (ssize_t)sizeof one;
}

const float *mix_region_collect(mix_region *region, uint64_t period)
{
    slot_header *slot = slot_of(region, period);

    /* Acquire: the samples the guest wrote before its release in done. */
    if (atomic_load_explicit(&slot->period, memory_order_acquire) == period) {
        return (const float *)((unsigned char *)slot + CACHE_LINE);
    }
    /* Counted in the handle, which the guest cannot reach; the header's
     * copy is for the guest's side to read. */
    region->xruns++;
    atomic_store_explicit(&header_of(region)->xruns, region->xruns, memory_order_relaxed);
    return NULL;
}

static int64_t now_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

uint64_t mix_region_wait(mix_region *region, int64_t timeout_ns)
{
    int64_t deadline = timeout_ns < 0 ? 0 : now_ns() + timeout_ns;

    for (;;) {
        uint64_t requested = atomic_load_explicit(&header_of(region)->requested, memory_order_acquire);
        struct pollfd wake = { .fd = region->wake_fd, .events = POLLIN };
        struct timespec remaining;
        uint64_t count;

        if (atomic_load_explicit(&region->interrupted, memory_order_acquire)) {
            return MIX_REGION_NONE;
        }
        if (requested != MIX_REGION_NONE && requested != region->last_waited) {
            region->last_waited = requested;
            return requested;
        }
        if (timeout_ns >= 0) {
            int64_t left = deadline - now_ns();

            if (left <= 0) {
                return MIX_REGION_NONE;
            }
            remaining.tv_sec = left / 1000000000;
            remaining.tv_nsec = left % 1000000000;
        }
        /* The host publishes before it writes the eventfd: a request made
         * after the load above makes this poll return. */
        if (ppoll(&wake, 1, timeout_ns < 0 ? NULL : &remaining, NULL) > 0) {
            /* Drains the count (non-blocking); the requested word is the
             * truth, the count only the wake. */
            (void)!read(region->wake_fd, &count, sizeof count);
        }
    }
}

float *mix_region_buffer(mix_region *region, uint64_t period)
{
    return (float *)((unsigned char *)slot_of(region, period) + CACHE_LINE);
}

float *mix_region_input(mix_region *region, uint64_t period)
{
    return (float *)((unsigned char *)slot_of(region, period) + CACHE_LINE +
                     samples_bytes_for(region->layout.frames, region->layout.channels));
}

void mix_region_interrupt(mix_region *region)
{
    uint64_t one = 1;

    atomic_store_explicit(&region->interrupted, true, memory_order_release);
    (void)!write(region->wake_fd, &one, sizeof one);
}

void mix_region_done(mix_region *region, uint64_t period)
{
    /* Release: the samples before the stamp. */
    atomic_store_explicit(&slot_of(region, period)->period, period, memory_order_release);
    atomic_store_explicit(&header_of(region)->rendered, period, memory_order_release);
    atomic_fetch_add_explicit(&header_of(region)->periods_rendered, 1, memory_order_relaxed);
}
