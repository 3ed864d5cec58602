/*
 * The benchmarks' probe of the host's heap: what malloc has handed out and not had back, over
 * every arena, mmapped blocks included. Swift's Glibc module leaves <malloc.h> out, so the soak
 * builds this with cc and calls it through dlsym.
 */
#include <malloc.h>
#include <stddef.h>

__attribute__((visibility("default"))) size_t apphost_bench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

/* Gives back to the kernel what malloc holds free, in every arena: RSS read after it is what is
 * in use, without what malloc keeps for later (a per-thread arena keeps its freed pages). */
__attribute__((visibility("default"))) void apphost_bench_heap_trim(void) {
    malloc_trim(0);
}
