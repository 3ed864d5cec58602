/* SwiftPM builds a C module only from a target with a source file. Compiling
 * the umbrella header here also checks that it stands on its own. */
#include "apphost/apphost.h"
