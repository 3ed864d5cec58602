/*
 * Actions fixture (id org.apphost.fixtures.actions): typed actions for the
 * tests of CONTRACT F1 to F3.
 *
 *   echo-b(b)b ... echo-d(d)d, echo-s(s)s, echo-ay(ay)ay
 *                       return their argument, one per type code
 *   mix(bynqiuxt)s      all eight integer-like types at once, as text:
 *                       "b=1 y=255 n=-32768 q=65535 i=... u=... x=... t=..."
 *   text(dsayi)s        a double, a string, bytes and an int32 after them:
 *                       "d=<%.17g> s=<...> ay=<length>:<hex> i=<...>"
 *   touch()             returns nothing; counts its calls
 *   touches()u          how many times touch ran
 *   state()i            the app state host->app_state answers during it
 *   shown()s            foreground only: "shown"
 *   null-string()s      returns NULL
 *   bad-utf8()s         returns "\xff"
 *   long-string()s      returns 65,537 bytes
 *   nan()d              returns NaN
 *   crash()             abort()s
 *   hang()              never returns
 *
 * With -DFIXTURE_TABLE=<n> the table is wrong in one way, for the load
 * tests (X1): 1 a name twice, 2 a signature outside the grammar, 3 a NULL
 * function, 4 a name that is not one, 5 two result types, 6 an empty
 * description, 7 another table id, 8 an unknown flag, 9 a count of 65.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_TABLE
#define FIXTURE_TABLE 0
#endif

static const apphost_host_t *g_host;
static uint32_t g_touches;
static char g_text[512];

static bool echo_b(bool value) { return value; }
static uint8_t echo_y(uint8_t value) { return value; }
static int16_t echo_n(int16_t value) { return value; }
static uint16_t echo_q(uint16_t value) { return value; }
static int32_t echo_i(int32_t value) { return value; }
static uint32_t echo_u(uint32_t value) { return value; }
static int64_t echo_x(int64_t value) { return value; }
static uint64_t echo_t(uint64_t value) { return value; }
static double echo_d(double value) { return value; }
static const char *echo_s(const char *value) { return value; }

static apphost_action_bytes_t echo_ay(const uint8_t *bytes, size_t length)
{
    /* The host's copy lives only during the call: return a copy of ours. */
    static uint8_t kept[APPHOST_ACTION_VALUE_MAX_BYTES];
    apphost_action_bytes_t result;

    memcpy(kept, bytes, length);
    result.bytes = kept;
    result.length = length;
    return result;
}

static const char *mix(bool b, uint8_t y, int16_t n, uint16_t q, int32_t i, uint32_t u, int64_t x, uint64_t t)
{
    snprintf(g_text, sizeof g_text, "b=%d y=%u n=%d q=%u i=%" PRId32 " u=%" PRIu32 " x=%" PRId64 " t=%" PRIu64,
             (int)b, (unsigned)y, (int)n, (unsigned)q, i, u, x, t);
    return g_text;
}

static const char *text(double d, const char *s, const uint8_t *bytes, size_t length, int32_t i)
{
    size_t used = (size_t)snprintf(g_text, sizeof g_text, "d=%.17g s=%s ay=%zu:", d, s, length);

    for (size_t k = 0; k < length && used + 3 < sizeof g_text; k++) {
        used += (size_t)snprintf(g_text + used, sizeof g_text - used, "%02x", bytes[k]);
    }
    snprintf(g_text + used, sizeof g_text - used, " i=%" PRId32, i);
    return g_text;
}

static void touch(void) { g_touches++; }
static uint32_t touches(void) { return g_touches; }

/* A [main-queue] host function: it answers inside an action as in a callback. */
static int32_t state(void) { return g_host->app_state(g_host); }

static const char *shown(void) { return "shown"; }
static const char *null_string(void) { return NULL; }
static const char *bad_utf8(void) { return "\xff"; }

static const char *long_string(void)
{
    static char long_text[APPHOST_ACTION_VALUE_MAX_BYTES + 2];

    memset(long_text, 'a', APPHOST_ACTION_VALUE_MAX_BYTES + 1);
    return long_text;
}

static double not_a_number(void) { return NAN; }
static void crash(void) { abort(); }

static void hang(void)
{
    for (;;) {
        pause();
    }
}

#define ACTION(name, arguments, result, function) \
    {name, arguments, result, "A test action.", 0, (apphost_action_function_t)function}

static const apphost_action_t action_list[] = {
    ACTION("echo-b", "b", "b", echo_b),
    ACTION("echo-y", "y", "y", echo_y),
    ACTION("echo-n", "n", "n", echo_n),
    ACTION("echo-q", "q", "q", echo_q),
    ACTION("echo-i", "i", "i", echo_i),
    ACTION("echo-u", "u", "u", echo_u),
    ACTION("echo-x", "x", "x", echo_x),
    ACTION("echo-t", "t", "t", echo_t),
    ACTION("echo-d", "d", "d", echo_d),
    ACTION("echo-s", "s", "s", echo_s),
    ACTION("echo-ay", "ay", "ay", echo_ay),
    ACTION("mix", "bynqiuxt", "s", mix),
    ACTION("text", "dsayi", "s", text),
    ACTION("touch", "", "", touch),
    ACTION("touches", "", "u", touches),
    ACTION("state", "", "i", state),
    {"shown", "", "s", "Foreground only.", APPHOST_ACTION_FOREGROUND, (apphost_action_function_t)shown},
    ACTION("null-string", "", "s", null_string),
    ACTION("bad-utf8", "", "s", bad_utf8),
    ACTION("long-string", "", "s", long_string),
    ACTION("nan", "", "d", not_a_number),
    ACTION("crash", "", "", crash),
    ACTION("hang", "", "", hang),
#if FIXTURE_TABLE == 1
    ACTION("touch", "", "", touch),
#elif FIXTURE_TABLE == 2
    ACTION("bad-signature", "iz", "", touch),
#elif FIXTURE_TABLE == 3
    {"no-function", "", "", "A test action.", 0, NULL},
#elif FIXTURE_TABLE == 4
    ACTION("9lives", "", "", touch),
#elif FIXTURE_TABLE == 5
    ACTION("two-results", "", "ii", touch),
#elif FIXTURE_TABLE == 6
    {"no-description", "", "", "", 0, (apphost_action_function_t)touch},
#elif FIXTURE_TABLE == 8
    {"odd-flag", "", "", "A test action.", 1 << 5, (apphost_action_function_t)touch},
#endif
};

static const apphost_guest_actions_t actions = {
    sizeof(apphost_guest_actions_t),
    sizeof(apphost_action_t),
#if FIXTURE_TABLE == 7
    "apphost.actions/9",
#else
    APPHOST_ACTIONS_ID,
#endif
    action_list,
#if FIXTURE_TABLE == 9
    65,
#else
    sizeof action_list / sizeof action_list[0],
#endif
};

static apphost_status_t did_finish_launching(void) { return APPHOST_OK; }

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
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
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    "org.apphost.fixtures.actions",
    "Actions Fixture",
    "1.0.0",
    "apphost tests",
    "Typed actions of every type, and ones that break.",
    0,
    &actions,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
