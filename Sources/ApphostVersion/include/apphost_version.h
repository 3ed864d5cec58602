/*
 * apphost's version, in one place: `apphost --version` (Swift, which sees
 * APPHOST_VERSION as a String), `apphost-worker --version` (C), and the
 * Debian package, whose version scripts/package asks the built apphost.
 * Not the guests' ABI version, which sdk/include/apphost/version.h declares.
 */
#ifndef APPHOST_VERSION_H
#define APPHOST_VERSION_H

#define APPHOST_VERSION "0.9.0"

#endif
