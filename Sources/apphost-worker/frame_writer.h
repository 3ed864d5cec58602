/* Writing whole frames to the host, from any thread. */
#ifndef FRAME_WRITER_H
#define FRAME_WRITER_H

#include <pthread.h>

#include "frame_builder.h"
#include "wire_messages.h"

/* The socket and the lock that keeps frames from different threads whole,
 * and the builder frames are encoded into under it: a builder is too large
 * for the stacks of guest threads, whose reports go through here. */
typedef struct frame_writer {
    int fd;
    pthread_mutex_t lock;
    frame_builder frame;
} frame_writer;

void frame_writer_init(frame_writer *writer, int fd);

/*
 * Encodes `message` (wire_encode) into the writer's builder and writes all of
 * it before any other frame, under the lock. When the host has closed its
 * end, ends the process with WORKER_EXIT_OK (nobody is left to serve); on
 * any other failure, with WORKER_EXIT_FAILURE. Never raises SIGPIPE.
 */
void frame_send_message(frame_writer *writer, const wire_message *message);

#endif
