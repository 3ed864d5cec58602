/* One guest's apphost_host_t, from before init until after deinit. */
#ifndef AHR_HOST_INTERFACE_H
#define AHR_HOST_INTERFACE_H

#include "apphost_guest_runtime.h"
#include "audio.h"
#include "background.h"
#include "main_queue.h"
#include "saves.h"
#include "session_list.h"
#include "scenes.h"
#include "state_mirror.h"

/*
 * Makes the interface init receives, with copies of the strings (NULL reads
 * as ""), and registers it so that its functions accept it. NULL when out of
 * memory.
 */
apphost_host_t *ahr_host_interface_create(ahr_state_mirror *mirror, ahr_background *background, ahr_scenes *scenes,
                                          ahr_audio *audio, ahr_main_queue *main_queue, ahr_session_list *sessions,
                                          ahr_saves *saves,
                                          const char *data_directory,
                                          const char *host_name, const char *host_version, ahr_reporter reporter);

/*
 * Withdraws the interface: later calls through this pointer get error codes,
 * calls in progress finish first, then the memory goes. Call only after
 * deinit returned, or when init failed.
 */
void ahr_host_interface_withdraw(apphost_host_t *host);

/* Fills in the function members of `host` (host_functions.c). */
void ahr_host_functions_install(apphost_host_t *host);

#endif
