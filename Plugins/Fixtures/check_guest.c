/*
 * A guest for `apphost check`'s own tests: well behaved as built, and, with
 * -DFIXTURE_BREAK=<n>, broken in the one way its test must catch, so that
 * the check fails it on exactly that test:
 *   1  background  aborts in did_enter_background (CONTRACT A2, S3)
 *   2  terminate   hangs in will_terminate (A3)
 *   3  actions     aborts when its action scale(i)i gets a negative number
 *                  (F2, F3)
 *   4  random-walk aborts on a memory warning (A4), which only the random
 *                  walk sends
 *   5  scene-state saves its scene's state in will_terminate, not when the
 *                  scene enters background: too late for a kill in
 *                  background (S12)
 * Well behaved, it saves "count 1" when its scene enters background.
 * It declares one action, scale(i)i, which doubles its argument.
 * Built by the tests with cc.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_BREAK
#define FIXTURE_BREAK 0
#endif
#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.check"
#endif

static const apphost_host_t *g_host;
/* The scene connected last, whose state it saves. */
static apphost_scene_t g_scene;

static void save(void)
{
    static const char state[] = "count 1";

    if (g_scene != 0) {
        (void)g_host->save_scene_state(g_host, g_scene, state, sizeof state - 1);
    }
}

static int32_t scale(int32_t value)
{
    if (FIXTURE_BREAK == 3 && value < 0) {
        abort();
    }
    return (int32_t)((uint32_t)value * 2u);
}

static apphost_status_t did_finish_launching(void) { return APPHOST_OK; }

static void will_terminate(void)
{
    while (FIXTURE_BREAK == 2) {
        pause();
    }
    if (FIXTURE_BREAK == 5) {
        save();
    }
}

static void will_connect(const apphost_scene_connection_t *connection)
{
    g_scene = connection->scene;
}

static void did_receive_memory_warning(void)
{
    if (FIXTURE_BREAK == 4) {
        abort();
    }
}

static void did_enter_background(apphost_scene_t scene)
{
    (void)scene;
    if (FIXTURE_BREAK == 1) {
        abort();
    }
    if (FIXTURE_BREAK != 5) {
        save();
    }
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, will_terminate, did_receive_memory_warning,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect, NULL, NULL, NULL, did_enter_background, NULL,
};

static const apphost_action_t action_list[] = {
    {"scale", "i", "i", "Doubles a number.", 0, (apphost_action_function_t)scale},
};

static const apphost_guest_actions_t actions = {
    sizeof(apphost_guest_actions_t), sizeof(apphost_action_t), APPHOST_ACTIONS_ID, action_list, 1,
};

static apphost_status_t init(const apphost_host_t *host)
{
    g_host = host;
    return APPHOST_OK;
}

static void deinit(void) {}

static const void *query(const char *interface_id)
{
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), FIXTURE_ID, "Check Fixture", "1.0.0", "apphost tests",
    "Keeps the contract, or breaks it in one way.", 0, &actions,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
