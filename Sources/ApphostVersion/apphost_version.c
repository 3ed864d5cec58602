/* Empty: ApphostVersion is its header, apphost_version.h. SwiftPM wants a
 * source file in every C target. */
#include "apphost_version.h"
