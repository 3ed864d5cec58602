/*
 * The table of apphost_messages.h as data: what a test walks to check that
 * the Swift side has every message the C side has.
 */
#include "apphost_messages.h"

#define IGNORE(...)
#define FRAME_INFO(number, name, direction) \
    {APPHOST_MESSAGE_FRAME, number, APPHOST_MESSAGE_##direction, #name, "", ""},
#define CALL_INFO(number, name, lower_name, area, swift_case, fields, arguments) \
    {APPHOST_MESSAGE_CALL, number, APPHOST_MESSAGE_TO_WORKER, #name, #swift_case, #area},
#define REPORT_INFO(number, name, lower_name, area, swift_case, fields, arguments) \
    {APPHOST_MESSAGE_REPORT, number, APPHOST_MESSAGE_TO_HOST, #name, #swift_case, #area},

const apphost_message_info apphost_messages[] = {
    APPHOST_MESSAGES_FRAMES(FRAME_INFO)
    APPHOST_MESSAGES_CALLS(CALL_INFO, IGNORE, IGNORE, IGNORE)
    APPHOST_MESSAGES_REPORTS(REPORT_INFO, IGNORE, IGNORE, IGNORE)
};

const size_t apphost_message_count = sizeof apphost_messages / sizeof apphost_messages[0];

const apphost_message_info *apphost_message_table(void) { return apphost_messages; }
