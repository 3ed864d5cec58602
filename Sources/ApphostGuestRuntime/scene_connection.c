#include "scene_connection.h"

#include <stdlib.h>
#include <string.h>

bool ahr_connection_is_valid(const ahr_call_will_connect *call)
{
    return (call->session_id != NULL || call->session_id_length == 0) &&
           (!call->has_restoration || call->restoration != NULL || call->restoration_length == 0);
}

bool ahr_connection_make(const ahr_call_will_connect *call, apphost_scene_connection_t *connection,
                         char **session_copy)
{
    static const unsigned char empty_state = 0;
    char *session = malloc(call->session_id_length + 1);

    if (session == NULL) {
        return false;
    }
    if (call->session_id_length > 0) {
        memcpy(session, call->session_id, call->session_id_length);
    }
    session[call->session_id_length] = '\0';
    *session_copy = session;

    memset(connection, 0, sizeof *connection);
    connection->struct_size = sizeof *connection;
    connection->scene = call->scene;
    connection->session_id = session;
    connection->role = call->role;
    connection->initial_state = call->initial_state;
    if (call->has_restoration) {
        connection->restoration_data = call->restoration != NULL ? call->restoration : &empty_state;
        connection->restoration_length = call->restoration_length;
    }
    return true;
}
