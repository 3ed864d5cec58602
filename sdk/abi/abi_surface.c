/*
 * The public surface of the apphost headers, for the ABI gate (scripts/abi-check).
 *
 * Compiled with `cc -g -shared -fPIC -std=c99`, this library's debug info
 * holds every named type of the headers: each exported function below takes
 * a pointer to each type its header declares (struct, typedef, function
 * pointer, enum), so that abidw records the type in full and abidiff can
 * compare it with the released ABI in apphost-abi.xml. The functions do
 * nothing: only their parameter types matter.
 *
 * When a header gains a type, add a NEW function for it here (say
 * apphost_abi_scenes_h_1_2), and leave the existing functions as they are:
 * a changed parameter list reads to the gate as a changed ABI.
 *
 * Not covered: the anonymous enums of constants (the version numbers, the
 * size limits such as APPHOST_SCENE_STATE_MAX_BYTES) and the macros; they are
 * values, not types, and version.h's numbers change with every release.
 */
#include <apphost/apphost.h>

#define APPHOST_ABI_SURFACE __attribute__((visibility("default")))

/* version.h */
APPHOST_ABI_SURFACE void apphost_abi_version_h(apphost_version_t *version);
void apphost_abi_version_h(apphost_version_t *version)
{
    (void)version;
}

/* status.h */
APPHOST_ABI_SURFACE void apphost_abi_status_h(apphost_status_t *status, enum apphost_status *code);
void apphost_abi_status_h(apphost_status_t *status, enum apphost_status *code)
{
    (void)status;
    (void)code;
}

/* descriptor.h */
APPHOST_ABI_SURFACE void apphost_abi_descriptor_h(apphost_guest_descriptor_t *descriptor,
                                                  enum apphost_capability *capability);
void apphost_abi_descriptor_h(apphost_guest_descriptor_t *descriptor, enum apphost_capability *capability)
{
    (void)descriptor;
    (void)capability;
}

/* host.h */
APPHOST_ABI_SURFACE void apphost_abi_host_h(apphost_host_t *host, enum apphost_log_level *level);
void apphost_abi_host_h(apphost_host_t *host, enum apphost_log_level *level)
{
    (void)host;
    (void)level;
}

/* host.h, ABI 1.7 */
APPHOST_ABI_SURFACE void apphost_abi_host_h_1_7(apphost_save_confirmation_t *confirmation);
void apphost_abi_host_h_1_7(apphost_save_confirmation_t *confirmation)
{
    (void)confirmation;
}

/* app.h */
APPHOST_ABI_SURFACE void apphost_abi_app_h(apphost_app_callbacks_t *callbacks, enum apphost_app_state *state);
void apphost_abi_app_h(apphost_app_callbacks_t *callbacks, enum apphost_app_state *state)
{
    (void)callbacks;
    (void)state;
}

/* scene.h */
APPHOST_ABI_SURFACE void apphost_abi_scene_h(apphost_scene_t *scene, enum apphost_scene_state *state,
                                             enum apphost_scene_role *role, apphost_scene_connection_t *connection,
                                             apphost_scene_callbacks_t *callbacks);
void apphost_abi_scene_h(apphost_scene_t *scene, enum apphost_scene_state *state, enum apphost_scene_role *role,
                         apphost_scene_connection_t *connection, apphost_scene_callbacks_t *callbacks)
{
    (void)scene;
    (void)state;
    (void)role;
    (void)connection;
    (void)callbacks;
}

/* entry.h */
APPHOST_ABI_SURFACE void apphost_abi_entry_h(apphost_entry_t *entry);
void apphost_abi_entry_h(apphost_entry_t *entry)
{
    (void)entry;
}

/* background.h, "apphost.background/1" */
APPHOST_ABI_SURFACE void apphost_abi_background_h(apphost_task_t *task, apphost_timer_t *timer,
                                                  apphost_expiration_handler_t *on_expiration,
                                                  apphost_work_t *work, apphost_background_t *background);
void apphost_abi_background_h(apphost_task_t *task, apphost_timer_t *timer,
                              apphost_expiration_handler_t *on_expiration, apphost_work_t *work,
                              apphost_background_t *background)
{
    (void)task;
    (void)timer;
    (void)on_expiration;
    (void)work;
    (void)background;
}

/* scenes.h, "apphost.scenes/1" (ABI 1.1) */
APPHOST_ABI_SURFACE void apphost_abi_scenes_h(enum apphost_presentation_style *style,
                                              enum apphost_size_class *size_class, apphost_scene_size_t *size,
                                              apphost_modal_t *modal, enum apphost_modal_style *modal_style,
                                              apphost_scenes_t *scenes, apphost_guest_scenes_t *guest_scenes);
void apphost_abi_scenes_h(enum apphost_presentation_style *style, enum apphost_size_class *size_class,
                          apphost_scene_size_t *size, apphost_modal_t *modal, enum apphost_modal_style *modal_style,
                          apphost_scenes_t *scenes, apphost_guest_scenes_t *guest_scenes)
{
    (void)style;
    (void)size_class;
    (void)size;
    (void)modal;
    (void)modal_style;
    (void)scenes;
    (void)guest_scenes;
}

/* audio.h, "apphost.audio/1" (ABI 1.4) */
APPHOST_ABI_SURFACE void apphost_abi_audio_h(
    enum apphost_audio_category *category, enum apphost_audio_mode *mode, enum apphost_audio_option *option,
    enum apphost_audio_output *output, enum apphost_audio_input *input,
    enum apphost_audio_output_override *output_override, enum apphost_audio_deactivation_flag *deactivation_flag,
    enum apphost_audio_activation_result *activation_result,
    enum apphost_audio_interruption_reason *interruption_reason,
    enum apphost_audio_route_change_reason *route_change_reason, apphost_audio_request_t *request,
    apphost_audio_route_t *route, apphost_audio_session_t *session, apphost_audio_t *audio,
    apphost_guest_audio_t *guest_audio);
void apphost_abi_audio_h(enum apphost_audio_category *category, enum apphost_audio_mode *mode,
                         enum apphost_audio_option *option, enum apphost_audio_output *output,
                         enum apphost_audio_input *input, enum apphost_audio_output_override *output_override,
                         enum apphost_audio_deactivation_flag *deactivation_flag,
                         enum apphost_audio_activation_result *activation_result,
                         enum apphost_audio_interruption_reason *interruption_reason,
                         enum apphost_audio_route_change_reason *route_change_reason,
                         apphost_audio_request_t *request, apphost_audio_route_t *route,
                         apphost_audio_session_t *session, apphost_audio_t *audio,
                         apphost_guest_audio_t *guest_audio)
{
    (void)category;
    (void)mode;
    (void)option;
    (void)output;
    (void)input;
    (void)output_override;
    (void)deactivation_flag;
    (void)activation_result;
    (void)interruption_reason;
    (void)route_change_reason;
    (void)request;
    (void)route;
    (void)session;
    (void)audio;
    (void)guest_audio;
}

/* audio.h, the render callback's buffer (ABI 1.5) */
APPHOST_ABI_SURFACE void apphost_abi_audio_h_1_5(apphost_audio_buffer_t *buffer);
void apphost_abi_audio_h_1_5(apphost_audio_buffer_t *buffer)
{
    (void)buffer;
}

/* actions.h (ABI 1.6) */
APPHOST_ABI_SURFACE void apphost_abi_actions_h(enum apphost_action_flag *flag, apphost_action_function_t *function,
                                               apphost_action_bytes_t *bytes, apphost_action_t *action,
                                               apphost_guest_actions_t *actions);
void apphost_abi_actions_h(enum apphost_action_flag *flag, apphost_action_function_t *function,
                           apphost_action_bytes_t *bytes, apphost_action_t *action, apphost_guest_actions_t *actions)
{
    (void)flag;
    (void)function;
    (void)bytes;
    (void)action;
    (void)actions;
}

/* scenes.h, a scene request's id and its refusal (ABI 1.8) */
APPHOST_ABI_SURFACE void apphost_abi_scenes_h_1_8(apphost_scene_request_t *request, apphost_request_t *id,
                                                  enum apphost_request_refusal *refusal);
void apphost_abi_scenes_h_1_8(apphost_scene_request_t *request, apphost_request_t *id,
                              enum apphost_request_refusal *refusal)
{
    (void)request;
    (void)id;
    (void)refusal;
}

/* audio.h, why a render thread lost real-time priority (ABI 1.9) */
APPHOST_ABI_SURFACE void apphost_abi_audio_h_1_9(enum apphost_audio_demotion_reason *reason);
void apphost_abi_audio_h_1_9(enum apphost_audio_demotion_reason *reason)
{
    (void)reason;
}
