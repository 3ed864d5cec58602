/*
 * The C music sample has no API of its own: like every guest it exports only
 * `apphost_entry`, declared in <apphost/entry.h>. SwiftPM wants a public
 * header directory for each C target; a copy of music.c needs none.
 */
#ifndef CMUSICGUEST_H
#define CMUSICGUEST_H

#include <apphost/apphost.h>

#endif /* CMUSICGUEST_H */
