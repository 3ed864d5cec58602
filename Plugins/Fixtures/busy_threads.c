/*
 * A program, not a guest: starts argv[1] threads (default 2) that spin until the
 * process is killed, while the main thread sleeps. The freezer tests watch its CPU
 * time, which grows unless every thread is stopped (CONTRACT B7).
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *spin(void *unused)
{
    volatile unsigned long turns = 0;

    for (;;) {
        turns++;
    }
    return unused;
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 2;

    for (int i = 0; i < count; i++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, spin, NULL) != 0) {
            return 1;
        }
    }
    for (;;) {
        pause();
    }
}
