/* Writing whole frames to the host, from any thread. */
#ifndef FRAME_WRITER_H
#define FRAME_WRITER_H

#include <pthread.h>

#include "frame_builder.h"

/* The socket and the lock that keeps frames from different threads whole. */
typedef struct frame_writer {
    int fd;
    pthread_mutex_t lock;
} frame_writer;

void frame_writer_init(frame_writer *writer, int fd);

/*
 * Finishes `frame` and writes all of it before any other frame. When the
 * host has closed its end, ends the process with WORKER_EXIT_OK (nobody is
 * left to serve); on any other failure, with WORKER_EXIT_FAILURE. Never
 * raises SIGPIPE.
 */
void frame_send(frame_writer *writer, frame_builder *frame);

#endif
