/*
 * The actions benchmark's libffi probe: one call through ffi_call with a call
 * interface prepared once, as the guest runtime calls an action (actions.c),
 * beside a direct call of the same function through a C function pointer.
 * Both loops are here, in C, timed around a whole batch with CLOCK_MONOTONIC,
 * so that nothing but the call is in them. Built with cc and linked with
 * -lffi by the benchmark (GuestBuilds.ffiProbe), called through dlsym.
 *
 * The functions are those of two cheap actions: add(ii)i and echo(s)s. They
 * are not inlined, and each loop reads its function pointer from a volatile
 * one, so that the compiler cannot see through the call: the direct loop
 * makes a real indirect call each time, as a host calling a guest's
 * function pointer does.
 */
#define _POSIX_C_SOURCE 200809L

#include <ffi.h>
#include <stdint.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

__attribute__((noinline)) static int32_t add(int32_t a, int32_t b)
{
    return a + b;
}

__attribute__((noinline)) static const char *echo(const char *text)
{
    return text;
}

typedef int32_t (*add_function)(int32_t, int32_t);
typedef const char *(*echo_function)(const char *);

static add_function volatile add_pointer = add;
static echo_function volatile echo_pointer = echo;

static ffi_cif add_cif;
static ffi_type *add_parameters[2];
static ffi_cif echo_cif;
static ffi_type *echo_parameters[1];

/* Sinks for the results, so that no call's result is unused. */
static volatile int64_t add_sink;
static const char *volatile echo_sink;

static double now_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

/* Prepares both call interfaces, as ahr_load does for each action. 0 on
 * success. */
EXPORT int apphost_bench_ffi_prepare(void)
{
    add_parameters[0] = &ffi_type_sint32;
    add_parameters[1] = &ffi_type_sint32;
    echo_parameters[0] = &ffi_type_pointer;
    if (ffi_prep_cif(&add_cif, FFI_DEFAULT_ABI, 2, &ffi_type_sint32, add_parameters) != FFI_OK ||
        ffi_prep_cif(&echo_cif, FFI_DEFAULT_ABI, 1, &ffi_type_pointer, echo_parameters) != FFI_OK) {
        return -1;
    }
    return 0;
}

/* Nanoseconds for `count` direct calls of add through its pointer. */
EXPORT double apphost_bench_direct_add(uint64_t count)
{
    add_function function = add_pointer;
    int64_t sum = 0;
    double start = now_ns();

    for (uint64_t i = 0; i < count; i++) {
        sum += function((int32_t)i, 1);
    }
    double took = now_ns() - start;
    add_sink = sum;
    return took;
}

/* Nanoseconds for `count` calls of add through ffi_call. The arguments'
 * values change each call, as they are written into the slots libffi reads. */
EXPORT double apphost_bench_ffi_add(uint64_t count)
{
    add_function function = add_pointer;
    int32_t a = 0;
    int32_t b = 1;
    void *values[2] = {&a, &b};
    ffi_arg result;
    int64_t sum = 0;
    double start = now_ns();

    for (uint64_t i = 0; i < count; i++) {
        a = (int32_t)i;
        ffi_call(&add_cif, FFI_FN(function), &result, values);
        sum += (int32_t)result;
    }
    double took = now_ns() - start;
    add_sink = sum;
    return took;
}

/* Nanoseconds for `count` direct calls of echo through its pointer. */
EXPORT double apphost_bench_direct_echo(uint64_t count)
{
    echo_function function = echo_pointer;
    static const char text[] = "milk";
    const char *last = NULL;
    double start = now_ns();

    for (uint64_t i = 0; i < count; i++) {
        last = function(text + (i & 3));
    }
    double took = now_ns() - start;
    echo_sink = last;
    return took;
}

/* Nanoseconds for `count` calls of echo through ffi_call. */
EXPORT double apphost_bench_ffi_echo(uint64_t count)
{
    echo_function function = echo_pointer;
    static const char text[] = "milk";
    const char *argument = text;
    void *values[1] = {&argument};
    const char *result = NULL;
    const char *last = NULL;
    double start = now_ns();

    for (uint64_t i = 0; i < count; i++) {
        argument = text + (i & 3);
        ffi_call(&echo_cif, FFI_FN(function), &result, values);
        last = result;
    }
    double took = now_ns() - start;
    echo_sink = last;
    return took;
}
