/*
 * The C sample guest has no API of its own: like every guest it exports only
 * `apphost_entry`, declared in <apphost/entry.h>. SwiftPM wants a public
 * header directory for each C target; a copy of sample.c needs none.
 */
#ifndef CSAMPLEGUEST_H
#define CSAMPLEGUEST_H

#include <apphost/apphost.h>

#endif /* CSAMPLEGUEST_H */
