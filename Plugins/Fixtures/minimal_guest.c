/*
 * A valid minimal guest. Each knob below, given with -D, breaks one thing so
 * that a test can check the host's precise refusal (CONTRACT X1):
 *
 *   FIXTURE_ABI_MAJOR, FIXTURE_ABI_MINOR   the ABI version in apphost_entry
 *   FIXTURE_ID, FIXTURE_NAME, FIXTURE_VERSION  descriptor strings (C literals)
 *   FIXTURE_NULL_ID                        id is NULL
 *   FIXTURE_CAPABILITIES                   the capability bits
 *   FIXTURE_STRUCT_SIZE                    the descriptor's struct_size
 *   FIXTURE_NULL_DESCRIPTOR                apphost_entry.descriptor is NULL
 *   FIXTURE_NULL_INIT, FIXTURE_NULL_QUERY  NULL entry functions
 *   FIXTURE_INIT_STATUS                    what init returns
 *   FIXTURE_INIT_LOG                       a message (C literal) init logs
 *                                          at info level, before it returns
 *   FIXTURE_NO_APP_CALLBACKS               query() offers no app callbacks
 *   FIXTURE_DEINIT_ABORTS                  deinit aborts: for guests whose
 *                                          deinit the host must not call
 *
 * With FIXTURE_LOG_LAUNCH, which breaks nothing, did_finish_launching logs
 * "launched on a host of ABI <the host's version>", after checking with
 * APPHOST_HAS_MEMBER that the host's struct has the members it reads, as a
 * guest built against newer headers than the host's must. With
 * FIXTURE_WRITE_DATA it writes the file "note" in its data directory and logs
 * "wrote note" or "cannot write note: <errno>". With FIXTURE_PROBE (a C
 * literal: a path, such as another guest's file) it tries to read that file,
 * an escape attempt (CONTRACT X2), and logs "probe: read" or "probe: <errno
 * name>" (EACCES, ENOENT, or "another errno"), then "uid <its uid>".
 */
#ifdef FIXTURE_PROBE
#define _POSIX_C_SOURCE 200809L /* open, read, getuid */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ABI_MAJOR
#define FIXTURE_ABI_MAJOR APPHOST_ABI_VERSION_MAJOR
#endif
#ifndef FIXTURE_ABI_MINOR
#define FIXTURE_ABI_MINOR APPHOST_ABI_VERSION_MINOR
#endif
#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.minimal"
#endif
#ifndef FIXTURE_NAME
#define FIXTURE_NAME "Minimal Fixture"
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "1.0.0"
#endif
#ifndef FIXTURE_CAPABILITIES
#define FIXTURE_CAPABILITIES 0
#endif
#ifndef FIXTURE_STRUCT_SIZE
#define FIXTURE_STRUCT_SIZE sizeof(apphost_guest_descriptor_t)
#endif
#ifndef FIXTURE_INIT_STATUS
#define FIXTURE_INIT_STATUS APPHOST_OK
#endif

static const apphost_host_t *host_interface;

static apphost_status_t did_finish_launching(void)
{
#ifdef FIXTURE_LOG_LAUNCH
    char message[96];

    if (!APPHOST_HAS_MEMBER(host_interface, apphost_host_t, log) || host_interface->log == NULL) {
        return APPHOST_ERROR_UNSUPPORTED;
    }
    snprintf(message, sizeof message, "launched on a host of ABI %" PRIu32 ".%" PRIu32 ".%" PRIu32,
             host_interface->abi_version.major, host_interface->abi_version.minor,
             host_interface->abi_version.revision);
    host_interface->log(host_interface, APPHOST_LOG_INFO, message);
#endif
#ifdef FIXTURE_WRITE_DATA
    char path[4096], line[128];
    FILE *note;

    snprintf(path, sizeof path, "%s/note", host_interface->data_directory(host_interface));
    note = fopen(path, "w");
    if (note != NULL && fputs("written by the guest\n", note) >= 0 && fclose(note) == 0) {
        host_interface->log(host_interface, APPHOST_LOG_INFO, "wrote note");
    } else {
        snprintf(line, sizeof line, "cannot write note: %d", errno);
        host_interface->log(host_interface, APPHOST_LOG_INFO, line);
    }
#endif
#ifdef FIXTURE_PROBE
    {
        char probe[64], buffer[16];
        int file = open(FIXTURE_PROBE, O_RDONLY);
        int error = errno;

        if (file >= 0 && read(file, buffer, sizeof buffer) >= 0) {
            snprintf(probe, sizeof probe, "probe: read");
        } else {
            error = file >= 0 ? errno : error;
            snprintf(probe, sizeof probe, "probe: %s",
                     error == EACCES ? "EACCES" : error == ENOENT ? "ENOENT" : "another errno");
        }
        if (file >= 0) {
            close(file);
        }
        host_interface->log(host_interface, APPHOST_LOG_INFO, probe);
        snprintf(probe, sizeof probe, "uid %lu", (unsigned long)getuid());
        host_interface->log(host_interface, APPHOST_LOG_INFO, probe);
    }
#endif
    return APPHOST_OK;
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

static apphost_status_t init(const apphost_host_t *host)
{
    host_interface = host;
#ifdef FIXTURE_INIT_LOG
    host->log(host, APPHOST_LOG_INFO, FIXTURE_INIT_LOG);
#endif
    return FIXTURE_INIT_STATUS;
}

static void deinit(void)
{
#ifdef FIXTURE_DEINIT_ABORTS
    abort();
#endif
}

static const void *query(const char *interface_id)
{
#ifndef FIXTURE_NO_APP_CALLBACKS
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
#else
    (void)interface_id;
    (void)app_callbacks;
#endif
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    FIXTURE_STRUCT_SIZE,
#ifdef FIXTURE_NULL_ID
    NULL,
#else
    FIXTURE_ID,
#endif
    FIXTURE_NAME,
    FIXTURE_VERSION,
    "apphost tests",
    "A minimal guest for loader tests.",
    FIXTURE_CAPABILITIES,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    {FIXTURE_ABI_MAJOR, FIXTURE_ABI_MINOR, 0},
#ifdef FIXTURE_NULL_DESCRIPTOR
    NULL,
#else
    &descriptor,
#endif
#ifdef FIXTURE_NULL_INIT
    NULL,
#else
    init,
#endif
    deinit,
#ifdef FIXTURE_NULL_QUERY
    NULL,
#else
    query,
#endif
};
