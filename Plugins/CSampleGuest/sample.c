/*
 * C Sample: a complete apphost guest in plain C, meant as a template.
 *
 * What it shows:
 *   - the one exported symbol, apphost_entry, with a static descriptor;
 *   - app and scene callbacks handed out through query();
 *   - per-scene state that survives disconnects and relaunches: a counter,
 *     restored in will_connect, bumped in did_become_active and saved with
 *     host->save_scene_state when the scene enters background (CONTRACT S12)
 *     and when the app terminates (CONTRACT A3);
 *   - several scenes through the scenes extension, "apphost.scenes/1": the
 *     user action "open" asks for an auxiliary scene beside the one it was
 *     performed on (CONTRACT S9, S10), "open-later <ms>" does the same <ms>
 *     milliseconds after the action returned, with the action's activation
 *     token (ABI 1.2) and a host timer, "close-window" closes the scene's
 *     own session for good (ABI 1.2, S7), "notify <text>" posts a user
 *     notification (N1), "progress <0 to 100>" reports loading
 *     progress (N2), "sheet <title>" presents a modal (N3) and
 *     "close-sheet" takes the scene's sheets down again; each scene logs its
 *     size (S11), and closed sessions are forgotten (S7);
 *   - typed actions an operator calls, "apphost.actions/1" (ABI 1.6, F1, F2):
 *     scenes()u, activations()t, reset(t)b and greet(s)s, declared in a
 *     static table the descriptor points to (`apphost ctl call
 *     org.apphost.samples.c greet Ada` prints "Hello, Ada!");
 *   - defensive handling of NULL pointers and unknown handles (CONTRACT X3).
 *
 * Every callback logs one INFO line, "callback <name>" for app callbacks and
 * "callback <name> scene=<handle>" for scene callbacks, and the extension's
 * results "open -> <status>", "open-later -> <status>",
 * "close-window -> <status>", "notify -> <status>", "size <w>x<h> <class> scene=<handle>",
 * "sheet -> <status> modal=<id>", "close-sheet -> <status>" (or "no sheet"),
 * "dismissed modal=<id> scene=<handle>", "discarded <session>"; the
 * end-to-end tests grep for them, so keep the format if you copy this file.
 *
 * Threading: the host calls every callback on this guest's main queue, one at
 * a time, so the globals below need no locks. A guest that starts threads of
 * its own must lock whatever those threads share with the callbacks.
 *
 * Build it like any guest (see sdk/README.md):
 *   cc -std=c99 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags sdk/apphost.pc) \
 *      -Wl,--version-script=sdk/apphost.map sample.c -o libCSampleGuest.so
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apphost/apphost.h>

/* ---- Host access -------------------------------------------------------- */

/* The host interface from init; valid until deinit returns. */
static const apphost_host_t *g_host;
/* The scenes extension, or NULL when the host does not offer it: then the
 * guest has only the scenes the host connects by itself. */
static const apphost_scenes_t *g_scenes_extension;
/* The background extension, for its timers, or NULL when the host has none. */
static const apphost_background_t *g_background;

/* True when the host offers `member`. init() already checked that the host's
 * struct is large enough to have every member this file uses. */
#define HOST_HAS(member) (g_host != NULL && g_host->member != NULL)

/* printf-style logging through the host. Messages longer than the buffer are
 * cut, as the host would cut them at APPHOST_LOG_MESSAGE_MAX_BYTES anyway. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void
log_message(int32_t level, const char *format, ...)
{
    char message[512];
    va_list args;

    if (!HOST_HAS(log)) {
        return;
    }
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    g_host->log(g_host, level, message);
}

/* ---- Scene table -------------------------------------------------------- */

/* A small fixed table instead of a hash map: a template should not need one.
 * The descriptor declares APPHOST_CAPABILITY_MULTIPLE_SCENES, so the host may
 * connect several scenes at once; past MAX_SCENES new scenes are still
 * accepted but keep no counter. */
enum { MAX_SCENES = 16 };

struct scene_slot {
    apphost_scene_t scene; /* APPHOST_SCENE_INVALID when the slot is free */
    uint64_t counter;      /* times the scene became active, across launches */
    apphost_modal_t sheet; /* the first sheet still presented over it, if any */
};

static struct scene_slot g_scenes[MAX_SCENES];

static struct scene_slot *find_scene(apphost_scene_t scene)
{
    size_t i;

    if (scene == APPHOST_SCENE_INVALID) {
        return NULL;
    }
    for (i = 0; i < MAX_SCENES; i++) {
        if (g_scenes[i].scene == scene) {
            return &g_scenes[i];
        }
    }
    return NULL;
}

static struct scene_slot *add_scene(apphost_scene_t scene)
{
    struct scene_slot *slot = find_scene(scene);
    size_t i;

    if (slot != NULL || scene == APPHOST_SCENE_INVALID) {
        return slot; /* a repeated will_connect reuses the slot */
    }
    for (i = 0; i < MAX_SCENES; i++) {
        if (g_scenes[i].scene == APPHOST_SCENE_INVALID) {
            g_scenes[i].scene = scene;
            g_scenes[i].counter = 0;
            g_scenes[i].sheet = APPHOST_MODAL_INVALID;
            return &g_scenes[i];
        }
    }
    return NULL;
}

/* ---- Saved state: the counter as decimal text, such as "3" ---------------- */

/* Parses restoration data. The bytes are not NUL-terminated, and they come
 * from disk, so anything but 1 to 19 ASCII digits is treated as no state. */
static int parse_counter(const void *bytes, size_t length, uint64_t *out)
{
    const unsigned char *digits = bytes;
    uint64_t value = 0;
    size_t i;

    if (bytes == NULL || length == 0 || length > 19) {
        return 0;
    }
    for (i = 0; i < length; i++) {
        if (digits[i] < '0' || digits[i] > '9') {
            return 0;
        }
        value = value * 10 + (uint64_t)(digits[i] - '0');
    }
    *out = value;
    return 1;
}

/* Hands the counter to the host, which keeps it for the scene's session. The
 * host copies the bytes, so a stack buffer is fine. */
static void save_counter(const struct scene_slot *slot)
{
    char text[24];
    int length;
    apphost_status_t status;

    if (slot == NULL || !HOST_HAS(save_scene_state)) {
        return;
    }
    length = snprintf(text, sizeof text, "%" PRIu64, slot->counter);
    if (length < 0) {
        return;
    }
    status = g_host->save_scene_state(g_host, slot->scene, text, (size_t)length);
    if (status != APPHOST_OK) {
        log_message(APPHOST_LOG_WARNING, "save_scene_state failed: %s scene=%" PRIu64,
                    apphost_status_name(status), slot->scene);
    }
}

/* ---- App callbacks (CONTRACT A2 to A4) ----------------------------------- */

static apphost_status_t did_finish_launching(void)
{
    const char *fail = getenv("APPHOST_SAMPLE_FAIL_LAUNCH");

    log_message(APPHOST_LOG_INFO, "callback did_finish_launching");
    /* Lets tests check that a failed launch is reported and leaves nothing
     * half-running (CONTRACT A2). A real guest fails when it cannot run,
     * for example when its data directory is unusable. */
    if (fail != NULL && strcmp(fail, "1") == 0) {
        log_message(APPHOST_LOG_ERROR, "launch failed on purpose: APPHOST_SAMPLE_FAIL_LAUNCH=1");
        return APPHOST_ERROR_GUEST_FAILED;
    }
    return APPHOST_OK;
}

static void will_terminate(void)
{
    size_t i;

    log_message(APPHOST_LOG_INFO, "callback will_terminate");
    /* Last chance to save (CONTRACT A3). Scene handles are invalid after
     * this callback, so the table is emptied too. */
    for (i = 0; i < MAX_SCENES; i++) {
        if (g_scenes[i].scene != APPHOST_SCENE_INVALID) {
            save_counter(&g_scenes[i]);
            g_scenes[i].scene = APPHOST_SCENE_INVALID;
        }
    }
}

static void did_receive_memory_warning(void)
{
    /* Nothing cached to free here; a real guest drops caches (CONTRACT A4). */
    log_message(APPHOST_LOG_INFO, "callback did_receive_memory_warning");
}

/* ---- Scene callbacks (CONTRACT S2 to S6, S12) ---------------------------- */

static void will_connect(const apphost_scene_connection_t *connection)
{
    struct scene_slot *slot;
    uint64_t counter = 0;

    /* The connection is the host's and valid only during this call: read
     * what is needed now and copy nothing else. */
    if (connection == NULL) {
        log_message(APPHOST_LOG_WARNING, "will_connect without a connection ignored");
        return;
    }
    log_message(APPHOST_LOG_INFO, "callback will_connect scene=%" PRIu64, connection->scene);
    if (connection->restoration_data != NULL &&
        !parse_counter(connection->restoration_data, connection->restoration_length, &counter)) {
        log_message(APPHOST_LOG_WARNING, "unreadable saved state ignored scene=%" PRIu64,
                    connection->scene);
        counter = 0;
    }
    slot = add_scene(connection->scene);
    if (slot == NULL) {
        log_message(APPHOST_LOG_WARNING, "scene table full, counter not kept scene=%" PRIu64,
                    connection->scene);
    } else {
        slot->counter = counter;
    }
    log_message(APPHOST_LOG_INFO, "restored counter=%" PRIu64 " scene=%" PRIu64, counter,
                connection->scene);
}

static void will_enter_foreground(apphost_scene_t scene)
{
    log_message(APPHOST_LOG_INFO, "callback will_enter_foreground scene=%" PRIu64, scene);
}

static void did_become_active(apphost_scene_t scene)
{
    struct scene_slot *slot = find_scene(scene);

    log_message(APPHOST_LOG_INFO, "callback did_become_active scene=%" PRIu64, scene);
    if (slot != NULL) {
        slot->counter++;
    }
}

static void will_resign_active(apphost_scene_t scene)
{
    log_message(APPHOST_LOG_INFO, "callback will_resign_active scene=%" PRIu64, scene);
}

static void did_enter_background(apphost_scene_t scene)
{
    log_message(APPHOST_LOG_INFO, "callback did_enter_background scene=%" PRIu64, scene);
    /* The host may disconnect a background scene at any time without asking
     * (CONTRACT S6): save now. */
    save_counter(find_scene(scene));
}

static void did_disconnect(apphost_scene_t scene)
{
    struct scene_slot *slot = find_scene(scene);

    log_message(APPHOST_LOG_INFO, "callback did_disconnect scene=%" PRIu64, scene);
    /* The handle is already invalid, so saving would fail; the host keeps
     * what did_enter_background saved. Just free the slot. */
    if (slot != NULL) {
        slot->scene = APPHOST_SCENE_INVALID;
    }
}

/* ---- The scenes extension (CONTRACT S7, S9 to S11, N2, N3) ---------------- */

static void did_change_size(apphost_scene_t scene, const apphost_scene_size_t *size)
{
    if (size == NULL) {
        return;
    }
    /* Lay out for the size class, never for a layout: the guest is not told
     * whether it is full screen, split or in slide over (CONTRACT S11). */
    log_message(APPHOST_LOG_INFO, "size %ux%u %s scene=%" PRIu64, (unsigned)size->width, (unsigned)size->height,
                size->size_class == APPHOST_SIZE_CLASS_COMPACT ? "compact" : "regular", scene);
}

/* The payload is not NUL-terminated: copy at most `capacity - 1` bytes. */
static void payload_text(const void *payload, size_t length, char *text, size_t capacity)
{
    size_t kept = length < capacity - 1 ? length : capacity - 1;

    if (payload != NULL) {
        memcpy(text, payload, kept);
    } else {
        kept = 0;
    }
    text[kept] = '\0';
}

/* A scene to open later, with the activation of the action that asked. */
struct later_request {
    apphost_activation_t activation;
    apphost_scene_t from;
};

/* Runs on the main queue when the timer fires: the token opens the scene, as
 * long as its window (5 s by default) is still open (CONTRACT S9). */
static void open_later(void *context)
{
    struct later_request *request = context;
    apphost_status_t status;

    status = g_scenes_extension->request_scene_with_activation(g_host, request->activation, request->from,
                                                               APPHOST_SCENE_ROLE_AUXILIARY,
                                                               APPHOST_PRESENTATION_STANDARD, "0", 1);
    log_message(APPHOST_LOG_INFO, "open-later -> %s", apphost_status_name(status));
    free(request);
}

/* "open-later <ms>": keeps the action's activation and opens the scene from a
 * timer. request_scene would be refused there: only the action's own
 * callback spends its activation without the token. */
static void schedule_open(apphost_scene_t scene, const char *milliseconds)
{
    struct later_request *request;
    apphost_timer_t timer;
    apphost_status_t status;

    if (!APPHOST_HAS_MEMBER(g_scenes_extension, apphost_scenes_t, request_scene_with_activation) ||
        g_background == NULL) {
        log_message(APPHOST_LOG_INFO, "open-later -> unsupported (a host older than ABI 1.2)");
        return;
    }
    request = malloc(sizeof *request);
    if (request == NULL) {
        log_message(APPHOST_LOG_INFO, "open-later -> out_of_memory");
        return;
    }
    request->from = scene;
    status = g_scenes_extension->activation_token(g_host, &request->activation);
    if (status == APPHOST_OK) {
        status = g_background->schedule_timer(g_host, strtoull(milliseconds, NULL, 10) * 1000000u, 0, open_later,
                                              request, &timer);
    }
    if (status != APPHOST_OK) {
        log_message(APPHOST_LOG_INFO, "open-later -> %s", apphost_status_name(status));
        free(request);
    }
}

/* What close_window looks for in list_sessions: the session of a scene. */
struct session_search {
    apphost_scene_t scene;
    char id[APPHOST_SCENES_TEXT_MAX_BYTES + 1];
};

static void find_session(void *context, const apphost_session_info_t *session)
{
    struct session_search *search = context;

    if (session->scene == search->scene) {
        snprintf(search->id, sizeof search->id, "%s", session->session_id);
    }
}

/* "close-window": the scene's session from the host's list, closed for good
 * (CONTRACT S7): did_disconnect and did_discard follow. */
static void close_window(apphost_scene_t scene)
{
    struct session_search search;
    apphost_status_t status;

    if (!APPHOST_HAS_MEMBER(g_scenes_extension, apphost_scenes_t, close_session)) {
        log_message(APPHOST_LOG_INFO, "close-window -> unsupported (a host older than ABI 1.2)");
        return;
    }
    memset(&search, 0, sizeof search);
    search.scene = scene;
    status = g_scenes_extension->list_sessions(g_host, find_session, &search);
    if (status == APPHOST_OK) {
        status = g_scenes_extension->close_session(g_host, search.id);
    }
    log_message(APPHOST_LOG_INFO, "close-window -> %s", apphost_status_name(status));
}

static void perform_action(apphost_scene_t scene, const char *name, const void *payload, size_t length)
{
    char text[APPHOST_SCENES_TEXT_MAX_BYTES + 1];
    struct scene_slot *slot = find_scene(scene);
    apphost_status_t status;
    apphost_modal_t modal = APPHOST_MODAL_INVALID;

    if (name == NULL || g_scenes_extension == NULL) {
        return;
    }
    payload_text(payload, length, text, sizeof text);
    log_message(APPHOST_LOG_INFO, "callback perform_action scene=%" PRIu64 " %s", scene, name);
    if (strcmp(name, "open") == 0) {
        /* The action's transient activation lets this one request through
         * (CONTRACT S9); the new scene starts with a counter of 0. */
        status = g_scenes_extension->request_scene(g_host, scene, APPHOST_SCENE_ROLE_AUXILIARY,
                                                   APPHOST_PRESENTATION_STANDARD, "0", 1);
        log_message(APPHOST_LOG_INFO, "open -> %s", apphost_status_name(status));
    } else if (strcmp(name, "open-later") == 0) {
        schedule_open(scene, text);
    } else if (strcmp(name, "close-window") == 0) {
        close_window(scene);
    } else if (strcmp(name, "notify") == 0) {
        /* Since ABI 1.2 the host says at once when it refuses one over its
         * limit: APPHOST_ERROR_LIMIT_REACHED. */
        status = g_scenes_extension->post_notification(g_host, "C Sample", text);
        log_message(APPHOST_LOG_INFO, "notify -> %s", apphost_status_name(status));
    } else if (strcmp(name, "progress") == 0) {
        status = g_scenes_extension->set_loading_progress(g_host, scene, strtod(text, NULL) / 100.0);
        log_message(APPHOST_LOG_INFO, "progress -> %s", apphost_status_name(status));
    } else if (strcmp(name, "sheet") == 0) {
        status = g_scenes_extension->present_modal(g_host, scene, APPHOST_MODAL_SHEET, text, &modal);
        log_message(APPHOST_LOG_INFO, "sheet -> %s modal=%" PRIu64, apphost_status_name(status), modal);
        /* Sheets stack; remembering the first is enough to take them all down. */
        if (status == APPHOST_OK && slot != NULL && slot->sheet == APPHOST_MODAL_INVALID) {
            slot->sheet = modal;
        }
    } else if (strcmp(name, "close-sheet") == 0) {
        if (slot == NULL || slot->sheet == APPHOST_MODAL_INVALID) {
            log_message(APPHOST_LOG_INFO, "close-sheet: no sheet");
            return;
        }
        /* Dismisses the first sheet and every modal above it, without asking
         * should_dismiss_modal: the guest itself decided. */
        status = g_scenes_extension->dismiss_modal(g_host, scene, slot->sheet);
        log_message(APPHOST_LOG_INFO, "close-sheet -> %s", apphost_status_name(status));
        slot->sheet = APPHOST_MODAL_INVALID;
    } else {
        log_message(APPHOST_LOG_WARNING, "unknown action %s", name);
    }
}

static void did_dismiss_modal(apphost_scene_t scene, apphost_modal_t modal)
{
    struct scene_slot *slot = find_scene(scene);

    /* The user dismissed `modal` and every modal above it (CONTRACT N3). */
    log_message(APPHOST_LOG_INFO, "dismissed modal=%" PRIu64 " scene=%" PRIu64, modal, scene);
    if (slot != NULL && slot->sheet == modal) {
        slot->sheet = APPHOST_MODAL_INVALID;
    }
}

static void did_discard(const char *session_id)
{
    /* The user closed the session: its saved state is gone (CONTRACT S7). */
    log_message(APPHOST_LOG_INFO, "discarded %s", session_id == NULL ? "?" : session_id);
}

/* ---- Entry point --------------------------------------------------------- */

/* The callback tables are constant and live as long as the library, as
 * query() requires. */
static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    will_terminate,
    did_receive_memory_warning,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t),
    will_connect,
    will_enter_foreground,
    did_become_active,
    will_resign_active,
    did_enter_background,
    did_disconnect,
};

/* should_dismiss_modal is NULL: every sheet may go when the user asks
 * (CONTRACT N3). A guest with unsaved changes in a sheet returns 0 from it
 * and asks the user to confirm. */
static const apphost_guest_scenes_t guest_scenes = {
    sizeof(apphost_guest_scenes_t),
    did_change_size,
    perform_action,
    NULL,
    did_dismiss_modal,
    did_discard,
    NULL,
};

static apphost_status_t init(const apphost_host_t *host)
{
    /* Refuse a host without the members this guest uses rather than crash
     * later. offsetof + sizeof of the last member used = the size needed. */
    if (host == NULL || host->struct_size < offsetof(apphost_host_t, save_scene_state) +
                                                sizeof(host->save_scene_state)) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    memset(g_scenes, 0, sizeof g_scenes);
    /* A host older than ABI 1.1 has no scenes extension: run without it. A
     * host of 1.1 has a smaller table than these headers: every member up to
     * post_notification is enough here, and the later ones are probed where
     * they are used (version.h). */
    g_scenes_extension = NULL;
    g_background = NULL;
    if (APPHOST_HAS_MEMBER(host, apphost_host_t, get_extension) && host->get_extension != NULL) {
        const apphost_scenes_t *found = host->get_extension(host, APPHOST_SCENES_EXTENSION_ID);
        if (found != NULL && APPHOST_HAS_MEMBER(found, apphost_scenes_t, post_notification)) {
            g_scenes_extension = found;
        }
        g_background = host->get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID);
    }
    return APPHOST_OK;
}

static void deinit(void)
{
    /* The host pointer dies when deinit returns: forget it. */
    memset(g_scenes, 0, sizeof g_scenes);
    g_scenes_extension = NULL;
    g_background = NULL;
    g_host = NULL;
}

/* [thread-safe]: it only compares strings and returns constant data. */
static const void *query(const char *interface_id)
{
    if (interface_id == NULL) {
        return NULL;
    }
    if (strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    if (strcmp(interface_id, APPHOST_GUEST_SCENES_CALLBACKS_ID) == 0) {
        return &guest_scenes;
    }
    return NULL; /* an interface this guest does not offer */
}

/* ---- Actions (actions.h): ordinary functions of the declared C types ------- */

/* scenes()u: how many scenes have a counter now. */
static uint32_t action_scenes(void)
{
    uint32_t count = 0;
    size_t i;

    for (i = 0; i < MAX_SCENES; i++) {
        count += g_scenes[i].scene != APPHOST_SCENE_INVALID;
    }
    return count;
}

/* activations()t: how often the connected scenes became active, in all. */
static uint64_t action_activations(void)
{
    uint64_t total = 0;
    size_t i;

    for (i = 0; i < MAX_SCENES; i++) {
        if (g_scenes[i].scene != APPHOST_SCENE_INVALID) {
            total += g_scenes[i].counter;
        }
    }
    return total;
}

/* reset(t)b: sets a connected scene's counter back to 0; false for a handle
 * that is not one (`apphost ctl ps` shows the handles). */
static bool action_reset(uint64_t scene)
{
    struct scene_slot *slot = find_scene((apphost_scene_t)scene);

    if (slot == NULL) {
        return false;
    }
    slot->counter = 0;
    log_message(APPHOST_LOG_INFO, "reset scene=%" PRIu64, scene);
    return true;
}

/* greet(s)s: the host owns `name` during the call; the result stays ours, in
 * a buffer the next call reuses (the host copies it as soon as we return). */
static const char *action_greet(const char *name)
{
    static char greeting[128];

    snprintf(greeting, sizeof greeting, "Hello, %s!", name);
    return greeting;
}

static const apphost_action_t action_list[] = {
    {"scenes", "", "u", "How many scenes are connected.", 0, (apphost_action_function_t)action_scenes},
    {"activations", "", "t", "How often the connected scenes became active, in all.", 0,
     (apphost_action_function_t)action_activations},
    {"reset", "t", "b", "Sets a scene's counter back to 0, by its handle; false for no such scene.", 0,
     (apphost_action_function_t)action_reset},
    {"greet", "s", "s", "Greets someone by name.", 0, (apphost_action_function_t)action_greet},
};

static const apphost_guest_actions_t actions = {
    sizeof(apphost_guest_actions_t), sizeof(apphost_action_t), APPHOST_ACTIONS_ID, action_list,
    sizeof action_list / sizeof action_list[0],
};

/* Static data: the host reads it right after loading, before init. */
static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    "org.apphost.samples.c",
    "C Sample",
    "1.0.0",
    "apphost",
    "Counts how often each scene becomes active and restores the count.",
    APPHOST_CAPABILITY_MULTIPLE_SCENES,
    &actions,
};

/* The only exported symbol (sdk/apphost.map hides the rest). */
const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT,
    &descriptor,
    init,
    deinit,
    query,
};
