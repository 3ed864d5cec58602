/*
 * The C overrun sample has no API of its own: like every guest it exports only
 * `apphost_entry`, declared in <apphost/entry.h>. SwiftPM wants a public
 * header directory for each C target; a copy of c_overrun_guest.c needs none.
 */
#ifndef COVERRUNGUEST_H
#define COVERRUNGUEST_H

#include <apphost/apphost.h>

#endif /* COVERRUNGUEST_H */
