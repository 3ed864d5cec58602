/*
 * A valid guest that uses every function of the scenes extension,
 * "apphost.scenes/1", as the commands a test gives it say, logs what each
 * returned, and logs every callback of apphost_guest_scenes_t it gets, so
 * that a test can check it in process or from the far side of the worker's
 * socket.
 *
 * Commands, separated by ';', run in order. <scene> is a number, or "here":
 * the scene of the last will_connect or perform_action (0 before any).
 *   request <scene> <role> <style> [state]
 *                       request_scene with the bytes of [state] (none: NULL,
 *                       0); logs "request = <status name>"
 *   submit <scene> <role> <style> [state]
 *                       submit_scene_request (ABI 1.8) with the running
 *                       action's activation; logs "submit = <status name>
 *                       id=<request id>"
 *   submit-small        submit_scene_request of a struct_size of 4; logs
 *                       "submit small = <status name> id=<request id>"
 *   token               activation_token (ABI 1.2), keeping what it wrote;
 *                       logs "token = <status name>"
 *   request-with <scene> <role> <style> [state]
 *                       request_scene_with_activation with the kept token;
 *                       logs "request-with = <status name>"
 *   left                activation_time_left of the kept token; logs "left =
 *                       ok" (some time left) or "left = <status name>"
 *   list                list_sessions (ABI 1.2); logs "sessions =
 *                       <role>:<scene>, ..." (ids left out: tests make them)
 *                       or "sessions = <status name>"
 *   close-last          close_session of the last session list_sessions
 *                       gives; logs "close last = <status name>"
 *   close <session>     close_session; logs "close <session> = <status>"
 *   request-big <scene> request_scene with APPHOST_SCENE_STATE_MAX_BYTES + 1
 *                       bytes; logs "request big = <status name>"
 *   activate <session> <style>
 *                       activate_session; logs "activate <session> = <status>"
 *   size <scene>        scene_size; logs "size <scene> = <w>x<h> class=<c>
 *                       size=<struct_size>" or "size <scene> = <status>"
 *   progress <scene> <value>
 *                       set_loading_progress (strtod: "nan" works); logs
 *                       "progress <value> = <status>"
 *   title <scene> [title]
 *                       set_scene_title (ABI 1.3; no title: NULL); logs
 *                       "title <scene> = <status>"
 *   present <scene> <style> <title>
 *                       present_modal; logs "present <title> = <modal>" or
 *                       "present <title> = <status> <modal written>"
 *   dismiss <scene> <modal>
 *                       dismiss_modal; logs "dismiss <modal> = <status>"
 *   notify <title> [body]
 *                       post_notification (no body: NULL); logs
 *                       "notify <title> = <status>"
 *   keep <modal>        should_dismiss_modal keeps <modal> from now (0:
 *                       lets every modal go)
 *   abuse               every function with NULL, foreign and out-of-range
 *                       arguments (CONTRACT X3); logs "abuse <statuses>"
 *   sleep <ms>          blocks the main queue <ms> milliseconds (to let an
 *                       activation run out)
 *   save <scene> <length>
 *                       save_scene_state with <length> bytes; logs "save
 *                       <length> = <status name>"
 *   confirm <scene> <length> [count]
 *                       save_scene_state_confirmed (ABI 1.7) with <length>
 *                       bytes, [count] times (1); logs "save <length> =
 *                       <status name>" for each, and, once its confirmation
 *                       runs, "stored <length> @<scene> = <status name>
 *                       main=<app_state's answer>"
 *   confirm-null <scene>
 *                       save_scene_state_confirmed of 1 byte with a NULL
 *                       confirmation; logs "confirm null = <status name>"
 *   states <scene>      app_state, scene_state and scene_size, the [main-queue]
 *                       functions; logs "states <scene> = app=<state or
 *                       negated status> scene=<state or status> size=<w>x<h
 *                       or status>"
 *   thread <command>    runs one command on a thread of the guest's own and
 *                       waits for it (CONTRACT X3's thread rule)
 *   long                present_modal and post_notification with texts of
 *                       255 'm' / 'b' and an 'é' that crosses
 *                       APPHOST_SCENES_TEXT_MAX_BYTES, on scene "here"
 *
 * The commands come from the session id of every scene that connects, the
 * name of every action performed (both for a test driving a worker) and the
 * fixture_run hook (a test calling the runtime in process).
 *
 * Callbacks log: "did_change_size <scene> <w>x<h> class=<c> size=<struct_size>
 * query=<scene_size's w>x<h>", "perform_action <scene> <name> payload=<bytes
 * or null>", "should_dismiss <scene> <modal> = <verdict>", "did_dismiss
 * <scene> <modal>", "did_discard <session>", "did_refuse_request <id>
 * <reason> main=<1 when app_state answers, on the main queue>".
 *
 * -DFIXTURE_CAPABILITIES=<bits> declares other capabilities than
 * APPHOST_CAPABILITY_MULTIPLE_SCENES (0: one scene only, CONTRACT S13);
 * -DFIXTURE_NO_SCENES_CALLBACKS leaves apphost_guest_scenes_t out of query;
 * -DFIXTURE_SCENES_CALLBACKS_SIZE=<n> declares its struct_size.
 *
 * Test hooks, exported besides apphost_entry (fixtures are not samples):
 *   fixture_run         runs commands on the caller's thread
 *   fixture_host        the host interface init received, NULL after deinit
 *   fixture_scenes      the extension get_extension returned in init
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.scenes-runtime"
#endif
#ifndef FIXTURE_CAPABILITIES
#define FIXTURE_CAPABILITIES APPHOST_CAPABILITY_MULTIPLE_SCENES
#endif
#ifndef FIXTURE_SCENES_CALLBACKS_SIZE
#define FIXTURE_SCENES_CALLBACKS_SIZE sizeof(apphost_guest_scenes_t)
#endif

static const apphost_host_t *g_host;
static const apphost_scenes_t *g_scenes;
static apphost_scene_t g_here;
static apphost_modal_t g_keep;
static apphost_activation_t g_token;

static void say(const char *format, ...)
{
    char line[1024];
    va_list arguments;

    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    g_host->log(g_host, APPHOST_LOG_INFO, line);
}

static const char *name(apphost_status_t status) { return apphost_status_name(status); }

static uint64_t number(const char *text) { return text == NULL ? 0 : strtoull(text, NULL, 10); }

static apphost_scene_t scene_of(const char *text)
{
    return text != NULL && strcmp(text, "here") == 0 ? g_here : number(text);
}

/* ---- Commands ------------------------------------------------------------- */

static void save(const char *scene, const char *length_text)
{
    size_t length = (size_t)number(length_text);
    char *bytes = malloc(length > 0 ? length : 1);

    if (bytes == NULL) {
        say("save %s = cannot allocate", length_text);
        return;
    }
    memset(bytes, 's', length);
    say("save %s = %s", length_text, name(g_host->save_scene_state(g_host, scene_of(scene), bytes, length)));
    free(bytes);
}

/* The confirmation of a save of `context` bytes (save_scene_state_confirmed);
 * app_state tells whether it runs on the main queue (a negative answer: no). */
static void stored(void *context, apphost_scene_t scene, apphost_status_t status)
{
    say("stored %" PRIuPTR " @%" PRIu64 " = %s main=%d", (uintptr_t)context, (uint64_t)scene, name(status),
        (int)g_host->app_state(g_host));
}

static void confirm(const char *scene, const char *length_text, const char *count_text)
{
    size_t length = (size_t)number(length_text);
    uint64_t count = count_text == NULL ? 1 : number(count_text);
    char *bytes = malloc(length > 0 ? length : 1);
    uint64_t i;

    if (bytes == NULL) {
        say("save %s = cannot allocate", length_text);
        return;
    }
    memset(bytes, 'c', length);
    for (i = 0; i < count; i++) {
        say("save %s = %s", length_text,
            name(g_host->save_scene_state_confirmed(g_host, scene_of(scene), bytes, length, stored,
                                                    (void *)(uintptr_t)length)));
    }
    free(bytes);
}

static void request(const char *scene, const char *role, const char *style, const char *state)
{
    apphost_status_t status = g_scenes->request_scene(g_host, scene_of(scene), (int32_t)strtol(role, NULL, 10),
                                                      (int32_t)strtol(style, NULL, 10), state,
                                                      state == NULL ? 0 : strlen(state));

    say("request = %s", name(status));
}

static void submit(const char *scene, const char *role, const char *style, const char *state)
{
    apphost_scene_request_t request = {.struct_size = sizeof request,
                                       .activation = APPHOST_ACTIVATION_INVALID,
                                       .from = scene_of(scene),
                                       .role = (int32_t)strtol(role, NULL, 10),
                                       .style = (int32_t)strtol(style, NULL, 10),
                                       .state = state,
                                       .length = state == NULL ? 0 : strlen(state)};
    apphost_request_t id = 99;
    apphost_status_t status = g_scenes->submit_scene_request(g_host, &request, &id);

    say("submit = %s id=%" PRIu64, name(status), id);
}

static void submit_small(void)
{
    apphost_scene_request_t request = {.struct_size = 4, .from = g_here};
    apphost_request_t id = 99;
    apphost_status_t status = g_scenes->submit_scene_request(g_host, &request, &id);

    say("submit small = %s id=%" PRIu64, name(status), id);
}

static void request_with(const char *scene, const char *role, const char *style, const char *state)
{
    apphost_status_t status = g_scenes->request_scene_with_activation(
        g_host, g_token, scene_of(scene), (int32_t)strtol(role, NULL, 10), (int32_t)strtol(style, NULL, 10), state,
        state == NULL ? 0 : strlen(state));

    say("request-with = %s", name(status));
}

static void time_left(void)
{
    double seconds = -1;
    apphost_status_t status = g_scenes->activation_time_left(g_host, g_token, &seconds);

    if (status == APPHOST_OK && seconds > 0) {
        say("left = ok");
    } else {
        say("left = %s %.3f", name(status), seconds);
    }
}

/* What list_sessions visits, gathered into one log line. */
struct session_listing {
    char line[512];
    size_t used;
    char last[300];
};

static void visit_session(void *context, const apphost_session_info_t *session)
{
    struct session_listing *listing = context;
    int written = snprintf(listing->line + listing->used, sizeof listing->line - listing->used, "%s%d:%" PRIu64,
                           listing->used == 0 ? "" : ", ", (int)session->role, session->scene);

    if (written > 0 && (size_t)written < sizeof listing->line - listing->used) {
        listing->used += (size_t)written;
    }
    snprintf(listing->last, sizeof listing->last, "%s", session->session_id);
}

static apphost_status_t list(struct session_listing *listing)
{
    memset(listing, 0, sizeof *listing);
    return g_scenes->list_sessions(g_host, visit_session, listing);
}

static void request_big(const char *scene)
{
    size_t length = (size_t)APPHOST_SCENE_STATE_MAX_BYTES + 1;
    char *state = calloc(length, 1);

    if (state == NULL) {
        say("request big = no memory");
        return;
    }
    say("request big = %s", name(g_scenes->request_scene(g_host, scene_of(scene), 0, 0, state, length)));
    free(state);
}

static void size_of(const char *text)
{
    apphost_scene_size_t size;
    apphost_status_t status;

    memset(&size, 0xAB, sizeof size);
    size.struct_size = sizeof size;
    status = g_scenes->scene_size(g_host, scene_of(text), &size);
    if (status == APPHOST_OK) {
        say("size %s = %ux%u class=%d size=%u", text, (unsigned)size.width, (unsigned)size.height,
            (int)size.size_class, (unsigned)size.struct_size);
    } else {
        say("size %s = %s", text, name(status));
    }
}

static void present(const char *scene, const char *style, const char *title)
{
    apphost_modal_t modal = 99;
    apphost_status_t status =
        g_scenes->present_modal(g_host, scene_of(scene), (int32_t)strtol(style, NULL, 10), title, &modal);

    if (status == APPHOST_OK) {
        say("present %s = %" PRIu64, title == NULL ? "(null)" : title, modal);
    } else {
        say("present %s = %s %" PRIu64, title == NULL ? "(null)" : title, name(status), modal);
    }
}

/* X3: NULL, foreign and out-of-range arguments get error codes, never a crash. */
static void abuse(void)
{
    apphost_host_t foreign = *g_host;
    apphost_scene_size_t size;
    apphost_modal_t modal = 99;
    apphost_status_t present[6];
    char long_id[300];

    memset(long_id, 's', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    size.struct_size = sizeof size;
    /* In order, so that `modal` is what the last one wrote. */
    present[0] = g_scenes->present_modal(g_host, g_here, 2, "t", &modal);
    present[1] = g_scenes->present_modal(g_host, g_here, 0, NULL, &modal);
    present[2] = g_scenes->present_modal(g_host, g_here, 0, "", &modal);
    present[3] = g_scenes->present_modal(g_host, g_here, 0, "t", NULL);
    present[4] = g_scenes->present_modal(NULL, g_here, 0, "t", &modal);
    present[5] = g_scenes->present_modal(g_host, 999, 0, "t", &modal);
    say("abuse request=%s,%s,%s,%s,%s,%s,%s activate=%s,%s,%s,%s,%s,%s size=%s,%s,%s progress=%s,%s,%s,%s "
        "present=%s,%s,%s,%s,%s,%s modal=%" PRIu64 " dismiss=%s,%s,%s notify=%s,%s,%s",
        name(g_scenes->request_scene(NULL, g_here, 0, 0, NULL, 0)),
        name(g_scenes->request_scene(&foreign, g_here, 0, 0, NULL, 0)),
        name(g_scenes->request_scene(g_host, g_here, 2, 0, NULL, 0)),
        name(g_scenes->request_scene(g_host, g_here, 0, 3, NULL, 0)),
        name(g_scenes->request_scene(g_host, g_here, 0, -1, NULL, 0)),
        name(g_scenes->request_scene(g_host, g_here, 0, 0, NULL, 4)),
        name(g_scenes->request_scene(g_host, 999, 0, 0, NULL, 0)),
        name(g_scenes->activate_session(NULL, "s", 0)), name(g_scenes->activate_session(g_host, NULL, 0)),
        name(g_scenes->activate_session(g_host, "", 0)), name(g_scenes->activate_session(g_host, "s", 3)),
        name(g_scenes->activate_session(g_host, long_id, 0)), name(g_scenes->activate_session(&foreign, "s", 0)),
        name(g_scenes->scene_size(g_host, g_here, NULL)), name(g_scenes->scene_size(NULL, g_here, &size)),
        name(g_scenes->scene_size(g_host, 999, &size)),
        name(g_scenes->set_loading_progress(g_host, g_here, 1.5)),
        name(g_scenes->set_loading_progress(g_host, g_here, -0.5)),
        name(g_scenes->set_loading_progress(NULL, g_here, 0.5)),
        name(g_scenes->set_loading_progress(g_host, 999, 0.5)),
        name(present[0]), name(present[1]), name(present[2]), name(present[3]), name(present[4]), name(present[5]),
        modal,
        name(g_scenes->dismiss_modal(g_host, g_here, APPHOST_MODAL_INVALID)),
        name(g_scenes->dismiss_modal(g_host, g_here, 1000000)), name(g_scenes->dismiss_modal(NULL, g_here, 1)),
        name(g_scenes->post_notification(g_host, NULL, "b")), name(g_scenes->post_notification(g_host, "", "b")),
        name(g_scenes->post_notification(&foreign, "t", "b")));
}

static void long_texts(void)
{
    char text[APPHOST_SCENES_TEXT_MAX_BYTES + 8];
    char body[APPHOST_SCENES_TEXT_MAX_BYTES + 8];
    apphost_modal_t modal = 0;
    apphost_status_t presented;

    memset(text, 'm', APPHOST_SCENES_TEXT_MAX_BYTES - 1);
    /* 'é' in the 256th and 257th bytes: cut whole. */
    strcpy(text + APPHOST_SCENES_TEXT_MAX_BYTES - 1, "\xc3\xa9");
    memset(body, 'b', APPHOST_SCENES_TEXT_MAX_BYTES - 1);
    strcpy(body + APPHOST_SCENES_TEXT_MAX_BYTES - 1, "\xc3\xa9");
    presented = g_scenes->present_modal(g_host, g_here, 1, text, &modal);
    say("long present=%s modal=%" PRIu64 " notify=%s", name(presented), modal,
        name(g_scenes->post_notification(g_host, text, body)));
}

/* The [main-queue] functions, from whichever thread runs this. */
static void states(const char *text)
{
    apphost_scene_size_t size;
    apphost_status_t size_status;
    apphost_status_t state_status;
    int32_t state = -1;
    char state_text[32];
    char size_text[32];

    memset(&size, 0, sizeof size);
    size.struct_size = sizeof size;
    state_status = g_host->scene_state(g_host, scene_of(text), &state);
    size_status = g_scenes->scene_size(g_host, scene_of(text), &size);
    if (state_status == APPHOST_OK) {
        snprintf(state_text, sizeof state_text, "%d", (int)state);
    } else {
        snprintf(state_text, sizeof state_text, "%s", name(state_status));
    }
    if (size_status == APPHOST_OK) {
        snprintf(size_text, sizeof size_text, "%ux%u", (unsigned)size.width, (unsigned)size.height);
    } else {
        snprintf(size_text, sizeof size_text, "%s", name(size_status));
    }
    say("states %s = app=%d scene=%s size=%s", text, (int)g_host->app_state(g_host), state_text, size_text);
}

static void run_one(char *command);
static void run_one_here(char *command);

static void *run_on_thread(void *command)
{
    run_one(command);
    return NULL;
}

static void run_one(char *command)
{
    pthread_t thread;

    if (strncmp(command, "thread ", 7) == 0) {
        if (pthread_create(&thread, NULL, run_on_thread, command + 7) != 0) {
            say("thread = cannot start");
            return;
        }
        pthread_join(thread, NULL);
        return;
    }
    run_one_here(command);
}

static void run_one_here(char *command)
{
    char *saved = NULL;
    char *verb = strtok_r(command, " ", &saved);
    char *first = strtok_r(NULL, " ", &saved);
    char *second = strtok_r(NULL, " ", &saved);
    char *third = strtok_r(NULL, " ", &saved);
    char *fourth = strtok_r(NULL, " ", &saved);

    if (verb == NULL) {
        return;
    }
    if (strcmp(verb, "request") == 0 && third != NULL) {
        request(first, second, third, fourth);
    } else if (strcmp(verb, "submit") == 0 && third != NULL) {
        submit(first, second, third, fourth);
    } else if (strcmp(verb, "submit-small") == 0) {
        submit_small();
    } else if (strcmp(verb, "request-with") == 0 && third != NULL) {
        request_with(first, second, third, fourth);
    } else if (strcmp(verb, "token") == 0) {
        say("token = %s", name(g_scenes->activation_token(g_host, &g_token)));
    } else if (strcmp(verb, "left") == 0) {
        time_left();
    } else if (strcmp(verb, "list") == 0) {
        struct session_listing listing;
        apphost_status_t status = list(&listing);
        say("sessions = %s", status == APPHOST_OK ? listing.line : name(status));
    } else if (strcmp(verb, "close-last") == 0) {
        struct session_listing listing;
        apphost_status_t status = list(&listing);
        say("close last = %s", name(status == APPHOST_OK ? g_scenes->close_session(g_host, listing.last) : status));
    } else if (strcmp(verb, "close") == 0) {
        say("close %s = %s", first == NULL ? "(null)" : first, name(g_scenes->close_session(g_host, first)));
    } else if (strcmp(verb, "request-big") == 0) {
        request_big(first);
    } else if (strcmp(verb, "activate") == 0 && second != NULL) {
        say("activate %s = %s", first,
            name(g_scenes->activate_session(g_host, first, (int32_t)strtol(second, NULL, 10))));
    } else if (strcmp(verb, "size") == 0) {
        size_of(first);
    } else if (strcmp(verb, "progress") == 0 && second != NULL) {
        say("progress %s = %s", second,
            name(g_scenes->set_loading_progress(g_host, scene_of(first), strtod(second, NULL))));
    } else if (strcmp(verb, "title") == 0) {
        say("title %s = %s", first == NULL ? "(null)" : first,
            name(g_scenes->set_scene_title(g_host, scene_of(first), second)));
    } else if (strcmp(verb, "present") == 0 && second != NULL) {
        present(first, second, third);
    } else if (strcmp(verb, "dismiss") == 0) {
        say("dismiss %s = %s", second, name(g_scenes->dismiss_modal(g_host, scene_of(first), number(second))));
    } else if (strcmp(verb, "notify") == 0) {
        say("notify %s = %s", first == NULL ? "(null)" : first,
            name(g_scenes->post_notification(g_host, first, second)));
    } else if (strcmp(verb, "keep") == 0) {
        g_keep = number(first);
    } else if (strcmp(verb, "abuse") == 0) {
        abuse();
    } else if (strcmp(verb, "states") == 0) {
        states(first);
    } else if (strcmp(verb, "long") == 0) {
        long_texts();
    } else if (strcmp(verb, "save") == 0 && second != NULL) {
        save(first, second);
    } else if (strcmp(verb, "confirm") == 0 && second != NULL) {
        confirm(first, second, third);
    } else if (strcmp(verb, "confirm-null") == 0) {
        say("confirm null = %s",
            name(g_host->save_scene_state_confirmed(g_host, scene_of(first), "n", 1, NULL, NULL)));
    } else if (strcmp(verb, "sleep") == 0) {
        long milliseconds = first == NULL ? 0 : strtol(first, NULL, 10);
        struct timespec pause = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    } else {
        say("unknown command %s", verb);
    }
}

static void run(const char *commands, size_t length)
{
    char *copy = malloc(length + 1);
    char *saved = NULL;
    char *command;

    if (copy == NULL) {
        return;
    }
    memcpy(copy, commands, length);
    copy[length] = '\0';
    for (command = strtok_r(copy, ";", &saved); command != NULL; command = strtok_r(NULL, ";", &saved)) {
        run_one(command);
    }
    free(copy);
}

/* ---- The guest's callbacks ------------------------------------------------ */

static void will_connect(const apphost_scene_connection_t *connection)
{
    g_here = connection->scene;
    run(connection->session_id, strlen(connection->session_id));
}

static void did_change_size(apphost_scene_t scene, const apphost_scene_size_t *size)
{
    apphost_scene_size_t queried;

    queried.struct_size = sizeof queried;
    queried.width = queried.height = 7;
    g_scenes->scene_size(g_host, scene, &queried);
    say("did_change_size %" PRIu64 " %ux%u class=%d size=%u query=%ux%u", scene, (unsigned)size->width,
        (unsigned)size->height, (int)size->size_class, (unsigned)size->struct_size, (unsigned)queried.width,
        (unsigned)queried.height);
}

static void perform_action(apphost_scene_t scene, const char *action, const void *payload, size_t length)
{
    if (payload == NULL) {
        say("perform_action %" PRIu64 " %s payload=null", scene, action);
    } else {
        say("perform_action %" PRIu64 " %s payload=%.*s", scene, action, (int)length, (const char *)payload);
    }
    g_here = scene;
    run(action, strlen(action));
}

static int32_t should_dismiss_modal(apphost_scene_t scene, apphost_modal_t modal)
{
    int32_t verdict = modal == g_keep ? 0 : 1;

    say("should_dismiss %" PRIu64 " %" PRIu64 " = %d", scene, modal, (int)verdict);
    return verdict;
}

static void did_dismiss_modal(apphost_scene_t scene, apphost_modal_t modal)
{
    say("did_dismiss %" PRIu64 " %" PRIu64, scene, modal);
}

static void did_discard(const char *session_id) { say("did_discard %s", session_id); }

static void did_refuse_request(apphost_request_t request, int32_t reason)
{
    say("did_refuse_request %" PRIu64 " %d main=%d", request, (int)reason, g_host->app_state(g_host) >= 0);
}

static apphost_status_t did_finish_launching(void) { return APPHOST_OK; }

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    NULL,
    NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect, NULL, NULL, NULL, NULL, NULL,
};

static const apphost_guest_scenes_t scenes_callbacks = {
    FIXTURE_SCENES_CALLBACKS_SIZE, did_change_size, perform_action, should_dismiss_modal, did_dismiss_modal,
    did_discard, did_refuse_request,
};

static apphost_status_t init(const apphost_host_t *host)
{
    apphost_modal_t modal = 99;
    apphost_status_t presented;

    if (host == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    g_keep = 0;
    g_scenes = host->get_extension(host, APPHOST_SCENES_EXTENSION_ID);
    if (g_scenes == NULL || g_scenes->struct_size < sizeof(apphost_scenes_t)) {
        say("init: no scenes extension");
        return APPHOST_ERROR_UNSUPPORTED;
    }
    /* Before the guest runs: no request is accepted. */
    presented = g_scenes->present_modal(host, 1, 0, "t", &modal);
    say("init request=%s activate=%s progress=%s present=%s modal=%" PRIu64 " dismiss=%s notify=%s",
        name(g_scenes->request_scene(host, 1, 0, 0, NULL, 0)), name(g_scenes->activate_session(host, "s", 0)),
        name(g_scenes->set_loading_progress(host, 1, 0.5)), name(presented), modal,
        name(g_scenes->dismiss_modal(host, 1, 1)), name(g_scenes->post_notification(host, "t", NULL)));
    return APPHOST_OK;
}

static void deinit(void)
{
    say("deinit notify=%s activate=%s", name(g_scenes->post_notification(g_host, "t", NULL)),
        name(g_scenes->activate_session(g_host, "s", 0)));
    g_host = NULL;
    g_scenes = NULL;
}

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
#ifndef FIXTURE_NO_SCENES_CALLBACKS
    if (strcmp(interface_id, APPHOST_GUEST_SCENES_CALLBACKS_ID) == 0) {
        return &scenes_callbacks;
    }
#endif
    (void)scenes_callbacks;
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    FIXTURE_ID,
    "Scenes Runtime Fixture",
    "1.0.0",
    "apphost tests",
    "Uses every function of apphost.scenes/1 as its tests say.",
    FIXTURE_CAPABILITIES,
    NULL,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};

/* ---- Test hooks ----------------------------------------------------------- */

APPHOST_EXPORT void fixture_run(const char *commands) { run(commands, strlen(commands)); }

APPHOST_EXPORT const apphost_host_t *fixture_host(void) { return g_host; }

APPHOST_EXPORT const apphost_scenes_t *fixture_scenes(void) { return g_scenes; }
