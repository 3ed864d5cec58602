/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The audio extension, "apphost.audio/1" (ABI 1.4; render, ABI 1.5): the
 * guest's one audio session (CONTRACT C1 to C15, B9), as an app's audio
 * session is on a phone: a category, mode and options that say how its
 * sound goes along with other guests', activation, interruptions, routes,
 * ducking and the silence switch, and since ABI 1.5 the sound itself: the
 * guest renders float32 periods that the host mixes into its output.
 *
 * It has two halves:
 * - what the host offers, apphost_audio_t, from the host interface:
 *
 *       const apphost_audio_t *audio =
 *           host->get_extension(host, APPHOST_AUDIO_EXTENSION_ID);
 *
 *   NULL means the host does not offer it. The table is owned by the host
 *   and valid until deinit returns;
 * - what the guest implements, apphost_guest_audio_t, which the host takes
 *   from the guest's query(APPHOST_GUEST_AUDIO_CALLBACKS_ID) after init. It
 *   is optional, but a guest that activates its session should implement
 *   it: without it the guest never learns that it was interrupted.
 *
 * The session: every guest has one, from init on, as soloAmbient with the
 * default mode and no options, inactive (CONTRACT C1). Activation asks the
 * host for sound; the host arbitrates between guests and answers later, on
 * the main queue. While active and not interrupted, the session is part of
 * the host's mix at a level the host computes: the host's volume times the
 * guest's gain, 20 dB lower while another guest's session ducks others
 * (C8), and muted by the silence switch for ambient and soloAmbient (C9).
 * An active session stops being active only by deactivate, an interruption
 * (interruption_began says so; the session is already inactive then, C6)
 * or a media services reset (C15).
 *
 * A typical player: set_configuration(PLAYBACK) in did_finish_launching;
 * activate when the user presses play, and start playing in
 * activation_finished when it says APPHOST_AUDIO_ACTIVATED, telling the
 * host with set_rendering(1); on interruption_began, show "paused"; on
 * interruption_ended, activate again only when should_resume is set; on
 * route_changed with APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE (the
 * headphones came out), pause (C10: the host checks that a playing guest
 * does); when the user presses pause, set_rendering(0), and deactivate with
 * APPHOST_AUDIO_NOTIFY_OTHERS so that the guests it interrupted may resume.
 *
 * Background (CONTRACT B9): a guest whose descriptor declares
 * APPHOST_CAPABILITY_BACKGROUND_AUDIO keeps running in background while its
 * session is active, of a category that plays in background (playback,
 * record, playAndRecord) and rendering (set_rendering(1)); once it stops,
 * the host suspends it as any idle guest (B6). Any other active session is
 * interrupted when its guest goes to background
 * (APPHOST_AUDIO_INTERRUPTION_APP_WENT_TO_BACKGROUND). A suspended guest's
 * session is inactive; it hears of the interruption when it resumes, once,
 * however many happened meanwhile (B8, C14). A player the host suspended
 * because an interruption left it silent is woken, in background, when the
 * interruption ends with should_resume, and may activate its session again
 * there, as a phone's player resumes after a call.
 *
 * Thread tags are those of host.h. Every function tolerates a NULL host,
 * NULL pointers and out-of-range values: it returns an error code instead
 * (CONTRACT X3). During init and deinit, and from will_terminate on, every
 * function but get_session returns APPHOST_ERROR_INVALID_STATE: the host
 * could act on none of them. Check struct_size before using a member that a
 * later revision of this header adds.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_AUDIO_H
#define APPHOST_AUDIO_H

#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APPHOST_AUDIO_EXTENSION_ID "apphost.audio/1"
#define APPHOST_GUEST_AUDIO_CALLBACKS_ID "apphost.guest.audio/1"

/* What the session is for (CONTRACT C2). The table says whether the silence
 * switch mutes it, whether it mixes with other sessions, whether it may play
 * in background and whether activating it interrupts the other sessions that
 * do not mix:
 *
 *   category         silenced  mixes                    background  interrupts
 *   AMBIENT          yes       always                   no          no
 *   SOLO_AMBIENT     yes       no                       no          yes
 *   PLAYBACK         no        with MIX_WITH_OTHERS     yes         unless it mixes
 *   RECORD           no        no                       yes         yes
 *   PLAY_AND_RECORD  no        with MIX_WITH_OTHERS     yes         unless it mixes
 */
enum apphost_audio_category {
    /* Sound that goes along with others, such as a game's. */
    APPHOST_AUDIO_CATEGORY_AMBIENT = 0,
    /* Every session's category until the guest sets one (CONTRACT C1). */
    APPHOST_AUDIO_CATEGORY_SOLO_AMBIENT = 1,
    /* Sound that is the point, such as music or a podcast. */
    APPHOST_AUDIO_CATEGORY_PLAYBACK = 2,
    /* Recording only: the session has no output. */
    APPHOST_AUDIO_CATEGORY_RECORD = 3,
    /* Both, as a call does. */
    APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD = 4
};

/* What the sound is, within its category (CONTRACT C4). */
enum apphost_audio_mode {
    /* Any category. */
    APPHOST_AUDIO_MODE_DEFAULT = 0,
    /* PLAYBACK only. Speech, such as a podcast: another guest's session that
     * ducks others (or says INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS)
     * interrupts it instead of lowering it, since speech under speech cannot
     * be followed. */
    APPHOST_AUDIO_MODE_SPOKEN_AUDIO = 1,
    /* PLAYBACK only. */
    APPHOST_AUDIO_MODE_MOVIE_PLAYBACK = 2,
    /* PLAY_AND_RECORD only. */
    APPHOST_AUDIO_MODE_VOICE_CHAT = 3,
    /* PLAY_AND_RECORD only. */
    APPHOST_AUDIO_MODE_VIDEO_CHAT = 4
};

/* Options, or-ed together (CONTRACT C3). */
enum apphost_audio_option {
    /* PLAYBACK and PLAY_AND_RECORD only: plays along with the other sessions
     * instead of interrupting those that do not mix. */
    APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS = 1 << 0,
    /* Lowers every other audible session by 20 dB while this one is active
     * (CONTRACT C8); implies MIX_WITH_OTHERS. */
    APPHOST_AUDIO_OPTION_DUCK_OTHERS = 1 << 1,
    /* Interrupts the other sessions of mode SPOKEN_AUDIO and mixes with the
     * rest; implies MIX_WITH_OTHERS. */
    APPHOST_AUDIO_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS = 1 << 2,
    /* PLAY_AND_RECORD only: plays from the speaker rather than the receiver.
     * This host has no receiver, so it changes no route. */
    APPHOST_AUDIO_OPTION_DEFAULT_TO_SPEAKER = 1 << 3
};

/* Where the session's sound goes. The host has a speaker until the operator
 * unplugs it; the newest device plugged in takes over (CONTRACT C10). */
enum apphost_audio_output {
    /* No output: the session is silent wherever it plays. */
    APPHOST_AUDIO_OUTPUT_NONE = 0,
    APPHOST_AUDIO_OUTPUT_SPEAKER = 1,
    APPHOST_AUDIO_OUTPUT_HEADPHONES = 2,
    APPHOST_AUDIO_OUTPUT_BLUETOOTH = 3,
    APPHOST_AUDIO_OUTPUT_LINE_OUT = 4
};

/* Where the session's sound comes from, for RECORD and PLAY_AND_RECORD. */
enum apphost_audio_input {
    APPHOST_AUDIO_INPUT_NONE = 0,
    APPHOST_AUDIO_INPUT_BUILT_IN_MIC = 1,
    /* The microphone of wired headphones. */
    APPHOST_AUDIO_INPUT_HEADSET_MIC = 2,
    APPHOST_AUDIO_INPUT_BLUETOOTH = 3,
    APPHOST_AUDIO_INPUT_LINE_IN = 4
};

/* override_output's values. */
enum apphost_audio_output_override {
    /* The route the devices give. */
    APPHOST_AUDIO_OVERRIDE_NONE = 0,
    /* The speaker, whatever else is plugged in. */
    APPHOST_AUDIO_OVERRIDE_SPEAKER = 1
};

/* deactivate's flags. */
enum apphost_audio_deactivation_flag {
    /* The sessions this one interrupted hear that their interruption ended
     * (CONTRACT C7). */
    APPHOST_AUDIO_NOTIFY_OTHERS = 1 << 0
};

/* activation_finished's result (CONTRACT C5). */
enum apphost_audio_activation_result {
    /* The session is active. */
    APPHOST_AUDIO_ACTIVATED = 0,
    /* Refused: a call-like interruption from the operator holds audio, and
     * beats every guest. Try again after interruption_ended. */
    APPHOST_AUDIO_REFUSED_CALL_IN_PROGRESS = 1,
    /* Refused: the guest is in background, where it may activate only a
     * session that mixes with others, or take up again the session whose
     * interruption_ended said should_resume (once, until it activates,
     * deactivates, or sets its configuration). */
    APPHOST_AUDIO_REFUSED_NON_MIXING_IN_BACKGROUND = 2,
    /* Refused: the host was suspending or terminating the guest when it
     * took the request. */
    APPHOST_AUDIO_REFUSED_NOT_RUNNING = 3
};

/* Why the session was interrupted (CONTRACT C6). */
enum apphost_audio_interruption_reason {
    /* Another guest activated a session that does not mix (C5), or one that
     * interrupts spoken audio (C4). */
    APPHOST_AUDIO_INTERRUPTION_OTHER_SESSION = 1,
    /* The operator's call-like interruption. */
    APPHOST_AUDIO_INTERRUPTION_CALL = 2,
    /* The guest went to background without the right to play there (B9). */
    APPHOST_AUDIO_INTERRUPTION_APP_WENT_TO_BACKGROUND = 3,
    /* The session's output went away and nothing is left to play on. */
    APPHOST_AUDIO_INTERRUPTION_ROUTE_GONE = 4,
    /* The host suspended the guest (C14). */
    APPHOST_AUDIO_INTERRUPTION_SUSPENDED = 5
};

/* Why the host took real-time priority away from the session's render
 * thread for good (ABI 1.9, CONTRACT X7), as render_demoted tells. */
enum apphost_audio_demotion_reason {
    /* It kept missing its periods while it kept a processor busy: two meter
     * readings (a second apart) in a row. */
    APPHOST_AUDIO_DEMOTED_MISSED_DEADLINES = 1,
    /* It ran the real-time limit (200 ms) without sleeping once: a render
     * that spins through its periods. */
    APPHOST_AUDIO_DEMOTED_REALTIME_LIMIT = 2
};

/* Why the session's route changed (CONTRACT C10). */
enum apphost_audio_route_change_reason {
    /* A device was plugged in and the session now uses it. */
    APPHOST_AUDIO_ROUTE_NEW_DEVICE_AVAILABLE = 1,
    /* The device the session used went away (headphones unplugged): a
     * playing guest should pause. */
    APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE = 2,
    /* The guest's new category routes it differently (a RECORD session has
     * no output). */
    APPHOST_AUDIO_ROUTE_CATEGORY_CHANGE = 3,
    /* The guest's override_output took effect, or ended. */
    APPHOST_AUDIO_ROUTE_OVERRIDE = 4
};

/* An activation request's id, unique within the guest's launch, counting
 * from 1. Zero is never valid: APPHOST_AUDIO_REQUEST_INVALID, a uint64_t
 * without a cast, as background.h's ids. */
typedef uint64_t apphost_audio_request_t;
#ifdef __swift__
#define APPHOST_AUDIO_REQUEST_INVALID 0ULL
#else
#define APPHOST_AUDIO_REQUEST_INVALID UINT64_C(0)
#endif

/* A route: where the session's sound goes and comes from. */
typedef struct apphost_audio_route {
    /* sizeof(apphost_audio_route_t) as the host built it. */
    uint32_t struct_size;
    /* One of enum apphost_audio_output. */
    int32_t output;
    /* One of enum apphost_audio_input. */
    int32_t input;
} apphost_audio_route_t;

/* The session as get_session tells it. */
typedef struct apphost_audio_session {
    /* Set by the caller to the size of its struct, at least that of ABI 1.4
     * (48 bytes; smaller: APPHOST_ERROR_INVALID_ARGUMENT); the host writes
     * the members it has that fit, and sets it to what it wrote. */
    uint32_t struct_size;
    /* enum apphost_audio_category, enum apphost_audio_mode, and the options
     * as set_configuration accepted them, with the MIX_WITH_OTHERS that
     * DUCK_OTHERS and INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS imply. */
    int32_t category;
    int32_t mode;
    uint32_t options;
    /* 1 while the session is active, 0 otherwise. */
    int32_t active;
    /* The session's route, as of the last route_changed delivered (enum
     * apphost_audio_output and enum apphost_audio_input). */
    int32_t output;
    int32_t input;
    /* The host's audio format: frames per second, frames per period (the
     * host mixes one period at a time) and interleaved channels. */
    uint32_t sample_rate;
    uint32_t period_frames;
    uint32_t channel_count;
    /* The guest's relative gain, 0 to 1 (set_gain). */
    double gain;
} apphost_audio_session_t;

/* What the host offers. */
typedef struct apphost_audio {
    /* sizeof(apphost_audio_t) as the host built it. */
    uint32_t struct_size;

    /* [thread-safe] Sets the session's category (enum
     * apphost_audio_category), mode (enum apphost_audio_mode) and options
     * (enum apphost_audio_option bits) in one call (CONTRACT C1, C3, C4):
     * options not given are off, so setting a category resets them. A
     * combination the table refuses (MIX_WITH_OTHERS, or an option that
     * implies it, outside PLAYBACK and PLAY_AND_RECORD; DEFAULT_TO_SPEAKER
     * outside PLAY_AND_RECORD; a mode outside its category) gets
     * APPHOST_ERROR_INVALID_COMBINATION, an unknown category, mode or option
     * bit APPHOST_ERROR_INVALID_ARGUMENT; RECORD and PLAY_AND_RECORD, for a
     * guest that does not declare APPHOST_CAPABILITY_AUDIO_INPUT,
     * APPHOST_ERROR_NOT_DECLARED (since ABI 1.10; CONTRACT A6); either way
     * nothing changes. It may
     * be called while the session is active: one that stops mixing then
     * interrupts the others as its activation would have, and an override
     * ends. get_session tells the new configuration as soon as this returns
     * APPHOST_OK. */
    apphost_status_t (*set_configuration)(const apphost_host_t *host, int32_t category, int32_t mode,
                                          uint32_t options);

    /* [thread-safe] Asks for the session to be active (CONTRACT C5), with
     * its configuration as of this call. Writes the request's id to
     * *out_request, or APPHOST_AUDIO_REQUEST_INVALID when it fails:
     * APPHOST_ERROR_INVALID_ARGUMENT for a NULL out_request, and
     * APPHOST_ERROR_INVALID_STATE while the host suspends the guest (its
     * background time is 0, background.h), besides the states every
     * function refuses. APPHOST_OK means the host has the request:
     * activation_finished answers it on the main queue, with the same id.
     * Activating a session that does not mix interrupts every other active
     * session that does not mix; activating an active session changes
     * nothing and succeeds. */
    apphost_status_t (*activate)(const apphost_host_t *host, apphost_audio_request_t *out_request);

    /* [thread-safe] Ends the session's activity at once: get_session says
     * inactive when this returns, and the host stops mixing it. With
     * APPHOST_AUDIO_NOTIFY_OTHERS in `flags`, the sessions it interrupted
     * hear interruption_ended, with should_resume for those that were
     * playing when interrupted (CONTRACT C7); without, they hear nothing
     * more. An activation requested before this call and answered after it
     * leaves the session inactive (activation_finished still says what the
     * host decided). Deactivating an inactive session succeeds, and notifies
     * as above. APPHOST_ERROR_INVALID_ARGUMENT for an unknown flag. */
    apphost_status_t (*deactivate)(const apphost_host_t *host, uint32_t flags);

    /* [thread-safe] Tells the host whether the guest plays or records sound
     * through its session now (1) or has paused (0). The host resumes after
     * an interruption only the sessions that were playing (CONTRACT C7),
     * and keeps a background guest running only while it plays (B9). The
     * host forgets it whenever the session becomes inactive: say it again
     * after each activation. APPHOST_ERROR_INVALID_ARGUMENT for a value
     * other than 0 or 1. */
    apphost_status_t (*set_rendering)(const apphost_host_t *host, int32_t rendering);

    /* [thread-safe] Sets the guest's relative gain, from 0 (silent) to 1 (as
     * rendered, the default) (CONTRACT C12); the host's volume, ducking and
     * the silence switch apply on top. APPHOST_ERROR_INVALID_ARGUMENT for a
     * value outside 0 to 1, or NaN. */
    apphost_status_t (*set_gain)(const apphost_host_t *host, double gain);

    /* [thread-safe] PLAY_AND_RECORD only: sends the session's output to the
     * speaker whatever else is plugged in (APPHOST_AUDIO_OVERRIDE_SPEAKER),
     * or back to the route the devices give (APPHOST_AUDIO_OVERRIDE_NONE).
     * route_changed with APPHOST_AUDIO_ROUTE_OVERRIDE follows when the route
     * changes. The override ends with set_configuration, and when a new
     * device is plugged in. APPHOST_ERROR_INVALID_STATE for another
     * category, APPHOST_ERROR_INVALID_ARGUMENT for an unknown value. */
    apphost_status_t (*override_output)(const apphost_host_t *host, int32_t output_override);

    /* [thread-safe] Writes the session as of now to *out_session; set
     * out_session->struct_size first. Works at any time, during init
     * included. APPHOST_ERROR_INVALID_ARGUMENT for a NULL out_session or a
     * struct_size below 48. */
    apphost_status_t (*get_session)(const apphost_host_t *host, apphost_audio_session_t *out_session);
} apphost_audio_t;

/* One period of sound to render (ABI 1.5), as render receives it. Owned by
 * the host's runtime and valid only during the call. */
typedef struct apphost_audio_buffer {
    /* sizeof(apphost_audio_buffer_t) as the host built it. */
    uint32_t struct_size;
    /* The period's frames, interleaved channels and frames per second: the
     * host's format, as get_session tells it. */
    uint32_t frame_count;
    uint32_t channel_count;
    uint32_t sample_rate;
    /* The period's number, counting from 0 when the host's mixer started;
     * its first frame is frame period * frame_count of the host's output.
     * Numbers go up by one from call to call, but skip the periods during
     * which the session was not mixed or the guest was late or stopped, so
     * that a tone computed from it stays in phase with the host's clock. */
    uint64_t period;
    /* Where the guest writes the period: frame_count * channel_count float
     * samples, interleaved (frame 0's channels, then frame 1's ...), full
     * scale from -1 to 1 (the host clips the mix, not each guest). It holds
     * silence (zeros) when render is called: what the guest leaves alone
     * stays silent. */
    float *output;
    /* What the session records, in the same layout, for the categories that
     * record (RECORD, PLAY_AND_RECORD: the host's input, --audio-input);
     * NULL for the others. */
    const float *input;
} apphost_audio_buffer_t;

/* What the guest implements. The host calls each member but render on the
 * guest's main queue, one call at a time, among the other callbacks. A NULL
 * member, or one past struct_size, is skipped; the host's decision stands all
 * the same (a session interrupted is inactive whether the guest hears it or
 * not). */
typedef struct apphost_guest_audio {
    /* sizeof(apphost_guest_audio_t) as the guest was built. */
    uint32_t struct_size;

    /* [main-queue] The host decided on activation `request`: `result` is one
     * of enum apphost_audio_activation_result. On APPHOST_AUDIO_ACTIVATED
     * the session is active (unless deactivate was called meanwhile): start
     * playing. */
    void (*activation_finished)(apphost_audio_request_t request, int32_t result);

    /* [main-queue] The session was interrupted, for `reason` (enum
     * apphost_audio_interruption_reason): it is already inactive and no
     * longer mixed (CONTRACT C6). Stop playing and show it. An ended may
     * never come. */
    void (*interruption_began)(int32_t reason);

    /* [main-queue] The interruption of `reason` ended. When `should_resume`
     * is 1, the session was playing when interrupted and whoever interrupted
     * it says it may go on: activate again and resume. When it is 0, stay
     * paused: the user had paused, or the interrupter did not say
     * (CONTRACT C7). */
    void (*interruption_ended)(int32_t reason, int32_t should_resume);

    /* [main-queue] The session's route changed from `previous` to `current`
     * for `reason` (enum apphost_audio_route_change_reason, CONTRACT C10).
     * Both are owned by the host and valid only during the call. On
     * APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE a playing guest pauses:
     * the host checks, and reports a guest still playing a second later as
     * not conforming. */
    void (*route_changed)(int32_t reason, const apphost_audio_route_t *previous,
                          const apphost_audio_route_t *current);

    /* [main-queue] Another guest's session that does not mix started
     * playing (`silence` 1) or stopped (0) while this guest is in the
     * foreground with an active session (CONTRACT C11): silence the sound
     * that only goes along with the rest, such as a game's soundtrack, and
     * bring it back. */
    void (*secondary_audio_hint)(int32_t silence);

    /* [main-queue] The host's audio engine restarted (CONTRACT C15): the
     * session is back to soloAmbient, inactive, with a gain of 1, as at
     * launch. Set it up again (set_configuration, activate) as after launch. */
    void (*media_services_reset)(void);

    /* [audio-thread] (ABI 1.5) Renders one period of the session's sound
     * into buffer->output, and takes its recorded input from buffer->input
     * (CONTRACT C13). Called only while the session is active and not
     * interrupted, once per period (10 ms by default), on a real-time thread
     * that the host's runtime owns in the guest's process: never on the main
     * queue, never twice at once. A guest that does not implement it (NULL,
     * or a table built against ABI 1.4) plays nothing, as before.
     *
     * The thread is real time: the host mixes what render wrote by the end
     * of its period, and a period not ready by then is silence and one
     * "xrun" for the session (CONTRACT C14: nobody waits for a late guest).
     * So render must return well within a period, and must not block: no
     * locks that another thread may hold (use C11 atomics to share values
     * with the main queue, such as "playing" or a frequency), no malloc or
     * free, no file, socket or terminal I/O (printf included), no sleep, no
     * call into a language runtime that may do any of these. It may call no
     * function of the host: none is listed as [audio-thread] safe. The
     * buffer and both pointers in it are the runtime's, valid during the
     * call only. */
    void (*render)(const apphost_audio_buffer_t *buffer);

    /* [main-queue] (ABI 1.9) The session's render thread lost its real-time
     * priority for good, for `reason` (enum apphost_audio_demotion_reason,
     * CONTRACT X7): it runs under ordinary scheduling from now on, so its
     * periods are late whenever others want the processor. The session stays
     * active and mixed. Do less work per period (a lighter effect, a lower
     * quality), and show it if the sound suffers. */
    void (*render_demoted)(int32_t reason);
} apphost_guest_audio_t;

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_AUDIO_H */
