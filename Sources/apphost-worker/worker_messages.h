/* The worker's messages to the host, encoded and sent (apphost_wire.h). */
#ifndef WORKER_MESSAGES_H
#define WORKER_MESSAGES_H

#include <stddef.h>
#include <stdint.h>

#include "apphost_guest_runtime.h"
#include "frame_writer.h"

void send_hello(frame_writer *writer);
void send_loaded(frame_writer *writer, const ahr_raw_descriptor *descriptor);
/* `reason` is an enum apphost_wire_load_failure. */
void send_load_failed(frame_writer *writer, uint8_t reason, const char *detail);
/* `outcome` is an enum apphost_wire_start_outcome. */
void send_started(frame_writer *writer, uint8_t outcome, int32_t init_status);
void send_reply(frame_writer *writer, uint64_t sequence, int32_t status);
void send_log(frame_writer *writer, int32_t level, const char *message, size_t length);
void send_save_state(frame_writer *writer, apphost_scene_t scene, const void *bytes, size_t length);
void send_stopped(frame_writer *writer);
/* The background frames; `name` holds `length` bytes. */
void send_task_began(frame_writer *writer, uint64_t task, const char *name, size_t length);
/* TASK_ENDED, TIMER_CANCELLED and WORK_SUBMITTED: `type` (enum
 * apphost_wire_type) and the id. */
void send_id(frame_writer *writer, uint8_t type, uint64_t id);
void send_timer_scheduled(frame_writer *writer, uint64_t timer, uint64_t delay_ns, uint64_t interval_ns);
/* The scenes frames; `style`, `role` and the like are the ABI's enum values,
 * which the runtime checked; strings hold their lengths' bytes. */
void send_scene_requested(frame_writer *writer, apphost_activation_t activation, apphost_scene_t from, int32_t role,
                          int32_t style, const void *bytes, size_t length);
void send_session_activation_requested(frame_writer *writer, const char *session, size_t length, int32_t style);
void send_session_close_requested(frame_writer *writer, const char *session, size_t length);
void send_loading_progress(frame_writer *writer, apphost_scene_t scene, double progress);
void send_modal_presented(frame_writer *writer, apphost_scene_t scene, apphost_modal_t modal, int32_t style,
                          const char *title, size_t length);
void send_modal_dismissed(frame_writer *writer, apphost_scene_t scene, apphost_modal_t modal);
void send_notification_posted(frame_writer *writer, const char *title, size_t title_length, const char *body,
                              size_t body_length);

#endif
