#include "alsa_quiet.h"

#include <alsa/asoundlib.h>
#include <pthread.h>

static void say_nothing(const char *file, int line, const char *function, int error, const char *format, ...)
{
    (void)file;
    (void)line;
    (void)function;
    (void)error;
    (void)format;
}

static void install(void) { snd_lib_error_set_handler(say_nothing); }

void alsa_quiet(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, install);
}
