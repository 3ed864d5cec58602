/*
 * A library whose apphost_entry is not an apphost_entry_t, for the loader's
 * check of the symbol's type and size (CONTRACT X1). Exactly one knob, with -D:
 *
 *   FIXTURE_ENTRY_FUNCTION   apphost_entry is a function
 *   FIXTURE_ENTRY_BYTE       apphost_entry is a 1-byte object
 *
 * It does not include the SDK's headers, which declare apphost_entry as the
 * entry object: these are the mistakes those headers keep a C author from.
 */
#define EXPORTED __attribute__((visibility("default")))

#if defined(FIXTURE_ENTRY_FUNCTION)
EXPORTED int apphost_entry(void) { return 42; }
#elif defined(FIXTURE_ENTRY_BYTE)
EXPORTED const char apphost_entry = 1;
#else
#error "give FIXTURE_ENTRY_FUNCTION or FIXTURE_ENTRY_BYTE"
#endif
