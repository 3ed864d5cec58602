/* alsa-lib's PCM API (Debian's libasound2-dev) for the mixer's ALSA sink and
 * source: the library talks to the kernel's sound driver, or to alsa-lib's
 * own `null` device, with no sound daemon in between. */
#include <alsa/asoundlib.h>
