#include "worker_messages.h"

#include <string.h>
#include <unistd.h>

#include "apphost_wire.h"

void send_hello(frame_writer *writer)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_HELLO);
    frame_put_u32(&frame, APPHOST_WIRE_VERSION);
    frame_put_u32(&frame, (uint32_t)getpid());
    frame_send(writer, &frame);
}

static void put_text(frame_builder *frame, ahr_text text) { frame_put_optional_bytes(frame, text.bytes, text.length); }

void send_loaded(frame_writer *writer, const ahr_raw_descriptor *descriptor)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_LOADED);
    frame_put_u32(&frame, descriptor->abi_version.major);
    frame_put_u32(&frame, descriptor->abi_version.minor);
    frame_put_u32(&frame, descriptor->abi_version.revision);
    frame_put_bool(&frame, descriptor->has_descriptor);
    frame_put_u32(&frame, descriptor->struct_size);
    put_text(&frame, descriptor->id);
    put_text(&frame, descriptor->name);
    put_text(&frame, descriptor->version);
    put_text(&frame, descriptor->vendor);
    put_text(&frame, descriptor->description);
    frame_put_u64(&frame, descriptor->capabilities);
    frame_put_bool(&frame, descriptor->has_init);
    frame_put_bool(&frame, descriptor->has_deinit);
    frame_put_bool(&frame, descriptor->has_query);
    frame_send(writer, &frame);
}

void send_load_failed(frame_writer *writer, uint8_t reason, const char *detail)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_LOAD_FAILED);
    frame_put_u8(&frame, reason);
    frame_put_bytes(&frame, detail, strlen(detail));
    frame_send(writer, &frame);
}

void send_started(frame_writer *writer, uint8_t outcome, int32_t init_status)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_STARTED);
    frame_put_u8(&frame, outcome);
    frame_put_i32(&frame, init_status);
    frame_send(writer, &frame);
}

void send_reply(frame_writer *writer, uint64_t sequence, int32_t status)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_REPLY);
    frame_put_u64(&frame, sequence);
    frame_put_i32(&frame, status);
    frame_send(writer, &frame);
}

void send_log(frame_writer *writer, int32_t level, const char *message, size_t length)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_LOG);
    frame_put_u8(&frame, (uint8_t)level);
    frame_put_bytes(&frame, message, length);
    frame_send(writer, &frame);
}

void send_save_state(frame_writer *writer, apphost_scene_t scene, const void *bytes, size_t length)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_SAVE_STATE);
    frame_put_u64(&frame, scene);
    frame_put_bytes(&frame, bytes, length);
    frame_send(writer, &frame);
}

void send_stopped(frame_writer *writer)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_STOPPED);
    frame_send(writer, &frame);
}

void send_task_began(frame_writer *writer, uint64_t task, const char *name, size_t length)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_TASK_BEGAN);
    frame_put_u64(&frame, task);
    frame_put_bytes(&frame, name, length);
    frame_send(writer, &frame);
}

void send_id(frame_writer *writer, uint8_t type, uint64_t id)
{
    frame_builder frame;

    frame_begin(&frame, type);
    frame_put_u64(&frame, id);
    frame_send(writer, &frame);
}

void send_timer_scheduled(frame_writer *writer, uint64_t timer, uint64_t delay_ns, uint64_t interval_ns)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_TIMER_SCHEDULED);
    frame_put_u64(&frame, timer);
    frame_put_u64(&frame, delay_ns);
    frame_put_u64(&frame, interval_ns);
    frame_send(writer, &frame);
}

void send_scene_requested(frame_writer *writer, apphost_activation_t activation, apphost_scene_t from, int32_t role,
                          int32_t style, const void *bytes, size_t length)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_SCENE_REQUESTED);
    frame_put_u64(&frame, activation);
    frame_put_u64(&frame, from);
    frame_put_u8(&frame, (uint8_t)role);
    frame_put_u8(&frame, (uint8_t)style);
    frame_put_bytes(&frame, bytes, length);
    frame_send(writer, &frame);
}

void send_session_activation_requested(frame_writer *writer, const char *session, size_t length, int32_t style)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED);
    frame_put_bytes(&frame, session, length);
    frame_put_u8(&frame, (uint8_t)style);
    frame_send(writer, &frame);
}

void send_session_close_requested(frame_writer *writer, const char *session, size_t length)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_SESSION_CLOSE_REQUESTED);
    frame_put_bytes(&frame, session, length);
    frame_send(writer, &frame);
}

void send_loading_progress(frame_writer *writer, apphost_scene_t scene, double progress)
{
    frame_builder frame;
    uint64_t bits;

    /* An f64 travels as the u64 of its bits. */
    _Static_assert(sizeof bits == sizeof progress, "double is IEEE 754 binary64");
    memcpy(&bits, &progress, sizeof bits);
    frame_begin(&frame, APPHOST_WIRE_LOADING_PROGRESS);
    frame_put_u64(&frame, scene);
    frame_put_u64(&frame, bits);
    frame_send(writer, &frame);
}

void send_modal_presented(frame_writer *writer, apphost_scene_t scene, apphost_modal_t modal, int32_t style,
                          const char *title, size_t length)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_MODAL_PRESENTED);
    frame_put_u64(&frame, scene);
    frame_put_u64(&frame, modal);
    frame_put_u8(&frame, (uint8_t)style);
    frame_put_bytes(&frame, title, length);
    frame_send(writer, &frame);
}

void send_modal_dismissed(frame_writer *writer, apphost_scene_t scene, apphost_modal_t modal)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_MODAL_DISMISSED);
    frame_put_u64(&frame, scene);
    frame_put_u64(&frame, modal);
    frame_send(writer, &frame);
}

void send_notification_posted(frame_writer *writer, const char *title, size_t title_length, const char *body,
                              size_t body_length)
{
    frame_builder frame;

    frame_begin(&frame, APPHOST_WIRE_NOTIFICATION_POSTED);
    frame_put_bytes(&frame, title, title_length);
    frame_put_bytes(&frame, body, body_length);
    frame_send(writer, &frame);
}
