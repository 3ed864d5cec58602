/*
 * A guest's audio thread is real-time (SCHED_FIFO, process_setup.c), bounded
 * by RLIMIT_RTTIME: a render that spins through its periods without ever
 * sleeping reaches the soft limit (200 ms) and the kernel sends SIGXCPU,
 * whose default action ended the worker, a crash, while the spinning thread
 * held back every other session's at the same priority (75 xruns in a second
 * for a well-behaved guest beside it). As JACK and PipeWire demote a client
 * that misses its deadlines, the handler demotes the thread that ran over:
 * the kernel signals the thread that is running, which is that one. The host
 * hears of it as an AUDIO_THREAD_OVERRAN report, written by a thread of its
 * own: the handler may not take the writer's lock, and the main thread may be
 * waiting for the host's next frame for as long as the guest is idle.
 */
#define _GNU_SOURCE /* syscall */

#include "realtime_limit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The handler writes each demoted thread's id here; the reporter reads it.
 * Made with the reporter, at the first audio stream: an idle worker holds
 * no descriptor but its standard ones and the socket. */
static int g_overruns[2] = {-1, -1};
static _Atomic int g_overruns_writer = -1;

/* Async-signal-safe: four system calls. */
static void on_realtime_limit(int signal)
{
    struct sched_param ordinary;
    struct rlimit none = {0, 0};
    int saved = errno;

    (void)signal;
    memset(&ordinary, 0, sizeof ordinary);
    /* 0: the calling thread, the one the kernel signalled. */
    if (sched_getscheduler(0) != SCHED_OTHER && sched_setscheduler(0, SCHED_OTHER, &ordinary) == 0) {
        int32_t thread = (int32_t)syscall(SYS_gettid);
        int writer = atomic_load(&g_overruns_writer);

        (void)setrlimit(RLIMIT_RTPRIO, &none);
        /* Non-blocking: a full pipe loses a report, never the thread. */
        if (writer >= 0) {
            (void)!write(writer, &thread, sizeof thread);
        }
    }
    errno = saved;
}

void realtime_limit_watch(void)
{
    struct sigaction action;

    memset(&action, 0, sizeof action);
    action.sa_handler = on_realtime_limit;
    sigemptyset(&action.sa_mask);
    (void)sigaction(SIGXCPU, &action, NULL);
}

typedef struct reporter {
    void (*report)(void *context, int32_t thread);
    void *context;
} reporter;

static reporter g_reporter;

static void *report_overruns(void *unused)
{
    int32_t thread;
    struct pollfd readable = {g_overruns[0], POLLIN, 0};

    (void)unused;
    for (;;) {
        ssize_t count = read(g_overruns[0], &thread, sizeof thread);

        if (count == (ssize_t)sizeof thread) {
            g_reporter.report(g_reporter.context, thread);
        } else if (count < 0 && errno == EAGAIN) {
            (void)poll(&readable, 1, -1);
        } else if (count < 0 && errno != EINTR) {
            return NULL;
        }
    }
}

void realtime_limit_report_to(void (*report)(void *context, int32_t thread), void *context)
{
    static atomic_flag started = ATOMIC_FLAG_INIT;
    pthread_attr_t attributes;
    pthread_t thread;

    if (atomic_flag_test_and_set(&started) || pipe2(g_overruns, O_CLOEXEC | O_NONBLOCK) != 0) {
        return;
    }
    g_reporter = (reporter){report, context};
    /* Small: it reads a pipe and writes a frame. */
    if (pthread_attr_init(&attributes) == 0) {
        (void)pthread_attr_setstacksize(&attributes, 64 * 1024);
        if (pthread_create(&thread, &attributes, report_overruns, NULL) == 0) {
            (void)pthread_detach(thread);
            atomic_store(&g_overruns_writer, g_overruns[1]);
        }
        pthread_attr_destroy(&attributes);
    }
}
