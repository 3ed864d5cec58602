/* libffi (Debian's libffi-dev), for the guest runtime's action calls. */
#include <ffi.h>
