/* libseccomp (Debian's libseccomp-dev) for the worker's system call filter
 * (CONTRACT X6): it writes the BPF program for this machine's architecture
 * and knows each call's number and name. */
#include <seccomp.h>
