/* A program that uses up one resource until a limit stops it, for the guest limit tests
 * (CONTRACT X2). It first closes every descriptor it inherited besides stdio (as a worker does)
 * and prints "ready 0", then waits for one byte on stdin, so that the test can put the limits on
 * it before it starts, as the host does with a worker before LOAD. Build with one knob:
 *
 *   -DHOG_MEMORY  touch 1 MB after 1 MB; a memory cgroup kills it (SIGKILL), and under
 *                 RLIMIT_AS malloc fails: exit 44. Gives up at 1 GB: exit 45.
 *   -DHOG_FILES   close what it inherited besides stdio, then open /dev/null until open()
 *                 fails; on EMFILE print "EMFILE <highest fd>", wait for stdin to close, exit 42.
 *   -DHOG_FORKS   fork children that sleep until it dies; when fork() fails with EAGAIN print
 *                 "EAGAIN <children>", wait for stdin to close, exit 43. Gives up at 1000: exit 46.
 *
 * Any other failure exits 1. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

__attribute__((unused)) static void wait_for_stdin_to_close(void) {
    char byte;
    while (read(0, &byte, 1) > 0) {}
}

__attribute__((unused)) static void report(const char *what, long value) {
    char line[64];
    int length = snprintf(line, sizeof line, "%s %ld\n", what, value);
    if (write(1, line, (size_t)length) != length) exit(1);
}

int main(void) {
    /* Start with 0, 1 and 2 only, as a worker does: whatever the test runner left open would
     * count against the open-file limit. */
    for (int fd = 3; fd < 65536; fd++) close(fd);
    report("ready", 0);
    char go;
    if (read(0, &go, 1) != 1) return 1;
#if defined(HOG_MEMORY)
    for (int megabytes = 0; megabytes < 1024; megabytes++) {
        char *block = malloc(1 << 20);
        if (block == NULL) return 44;
        memset(block, 0xA5, 1 << 20);
    }
    return 45;
#elif defined(HOG_FILES)
    /* Descriptors the test process leaked into it would take numbers below the limit. */
    for (int inherited = 3; inherited < 4096; inherited++) close(inherited);
    int highest = -1;
    for (;;) {
        int descriptor = open("/dev/null", O_RDONLY);
        if (descriptor < 0) {
            if (errno != EMFILE) return 1;
            report("EMFILE", highest);
            wait_for_stdin_to_close();
            return 42;
        }
        highest = descriptor;
    }
#elif defined(HOG_FORKS)
    pid_t parent = getpid();
    for (long children = 0; children < 1000; children++) {
        pid_t child = fork();
        if (child == 0) {
            /* Dies with the hog, so that its cgroup empties. */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(0);
            for (;;) pause();
        }
        if (child < 0) {
            if (errno != EAGAIN) return 1;
            report("EAGAIN", children);
            wait_for_stdin_to_close();
            return 43;
        }
    }
    return 46;
#else
#error "build with -DHOG_MEMORY, -DHOG_FILES or -DHOG_FORKS"
#endif
}
