/* SwiftPM builds a C module only from a target with a source file; this one checks the header stands alone. */
#include "apphost_wire.h"
