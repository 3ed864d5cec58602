/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apphost guest SDK, ABI version 1: the umbrella header.
 *
 * Guests include this one header. Each area has its own:
 *   version.h     ABI version and the compatibility rule
 *   status.h      status codes and apphost_status_name()
 *   descriptor.h  the guest descriptor and capabilities
 *   host.h        the host interface handed to init; since ABI 1.7 saves
 *                 the host confirms once they are stored
 *   app.h         app states and app callbacks
 *   scene.h       scene handles, states and callbacks
 *   entry.h       the exported entry symbol
 *
 * Extensions, found with host->get_extension by their ids:
 *   background.h  "apphost.background/1": background tasks, timers, async work
 *   scenes.h      "apphost.scenes/1" (ABI 1.1): scene requests, sizes,
 *                 actions, loading progress, modals, notifications, discards
 *   audio.h       "apphost.audio/1" (ABI 1.4): the audio session: category,
 *                 activation, interruptions, routes, ducking, silence switch;
 *                 since ABI 1.5 the sound itself: render, on an audio thread
 *   actions.h     "apphost.actions/1" (ABI 1.6): named, typed actions an
 *                 operator calls, declared in the descriptor (no host table)
 *
 * See sdk/README.md for the plugin author's guide.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_H
#define APPHOST_H

#include "version.h"
#include "status.h"
#include "descriptor.h"
#include "host.h"
#include "app.h"
#include "scene.h"
#include "entry.h"

#include "background.h"
#include "scenes.h"
#include "audio.h"
#include "actions.h"

#endif /* APPHOST_H */
