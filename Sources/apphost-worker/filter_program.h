/* A call filter's BPF program as text, made once per host and loaded by
 * each worker as it is, without libseccomp's compilation (call_filter.h). */
#ifndef FILTER_PROGRAM_H
#define FILTER_PROGRAM_H

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The pid an exported program names where a worker's own goes: none is ever
 * this large (pid_max is at most 2^22). */
#define FILTER_PROGRAM_PLACEHOLDER_PID UINT32_C(0x7ffffff0)

/* `filter`'s program in hexadecimal, two digits a byte; NULL when
 * libseccomp or memory fails. Free it with free(). */
char *filter_program_export(scmp_filter_ctx filter);

/* Loads the program `text` (as filter_program_export wrote it) on every
 * thread, `self` in place of the placeholder pid. False with `error` set
 * when the text is not a program with that placeholder, or the kernel
 * refuses it. */
bool filter_program_load(const char *text, uint32_t self, char *error, size_t error_size);

#endif
