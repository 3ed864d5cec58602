/* The host's requests, decoded from their frames (apphost_wire.h). */
#ifndef HOST_MESSAGES_H
#define HOST_MESSAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "apphost_guest_runtime.h"
#include "frame_reader.h"
#include "wire_cursor.h"

typedef struct load_request {
    wire_bytes path;
    wire_bytes guests_directory;
    wire_bytes host_name;
    wire_bytes host_version;
} load_request;

typedef struct start_request {
    wire_bytes data_directory;
} start_request;

typedef struct call_request {
    uint64_t sequence;
    /* Its pointers point into the frame. */
    ahr_call call;
} call_request;

/* Each is false for a malformed payload: cut short, with bytes left over,
 * or with a value out of its enum's range. */
bool decode_load(wire_frame frame, load_request *request);
bool decode_start(wire_frame frame, start_request *request);
bool decode_call(wire_frame frame, call_request *request);
bool decode_stop(wire_frame frame);

/* A NUL-terminated copy of a "str" that names a file or is handed on as a C
 * string; NULL when it holds a NUL, which no such string can. The process
 * ends with WORKER_EXIT_FAILURE when out of memory. Free it with free(). */
char *copy_c_string(wire_bytes text);

#endif
