/*
 * libseccomp compiles a filter's rules into BPF in some 140 us of the 220
 * us a worker took to install its filter (the 2-core VM); the program is the
 * same for every worker of a host but for the worker's own pid, which the
 * signal rules compare with. So the host has the worker print it once, with
 * a placeholder for that pid (`--sandbox-support`), and hands it to each
 * worker (APPHOST_WORKER_CALL_FILTER), which puts its pid in and gives the
 * kernel the program as it is.
 */
#define _GNU_SOURCE /* memfd_create */

#include "filter_program.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

char *filter_program_export(scmp_filter_ctx filter)
{
    static const char digits[] = "0123456789abcdef";
    int fd = memfd_create("apphost-call-filter", MFD_CLOEXEC);
    unsigned char *bytes = NULL;
    char *text = NULL;
    off_t length;

    if (fd < 0) {
        return NULL;
    }
    if (seccomp_export_bpf(filter, fd) == 0 && (length = lseek(fd, 0, SEEK_END)) > 0 &&
        (bytes = malloc((size_t)length)) != NULL && pread(fd, bytes, (size_t)length, 0) == length &&
        (text = malloc((size_t)length * 2 + 1)) != NULL) {
        for (off_t index = 0; index < length; index++) {
            text[index * 2] = digits[bytes[index] >> 4];
            text[index * 2 + 1] = digits[bytes[index] & 0xf];
        }
        text[length * 2] = '\0';
    }
    free(bytes);
    close(fd);
    return text;
}

static int digit(char character)
{
    if (character >= '0' && character <= '9') {
        return character - '0';
    }
    if (character >= 'a' && character <= 'f') {
        return character - 'a' + 10;
    }
    return -1;
}

bool filter_program_load(const char *text, uint32_t self, char *error, size_t error_size)
{
    size_t length = strlen(text);
    size_t count = length / (2 * sizeof(struct sock_filter));
    struct sock_filter *instructions;
    unsigned char *bytes;
    struct sock_fprog program;
    size_t patched = 0;
    long status;

    if (length == 0 || length % (2 * sizeof(struct sock_filter)) != 0 || count > BPF_MAXINSNS) {
        snprintf(error, error_size, "the call filter's program is not whole instructions");
        return false;
    }
    instructions = calloc(count, sizeof *instructions);
    if (instructions == NULL) {
        snprintf(error, error_size, "out of memory");
        return false;
    }
    bytes = (unsigned char *)instructions;
    for (size_t index = 0; index < length / 2; index++) {
        int high = digit(text[index * 2]), low = digit(text[index * 2 + 1]);

        if (high < 0 || low < 0) {
            free(instructions);
            snprintf(error, error_size, "the call filter's program is not hexadecimal");
            return false;
        }
        bytes[index] = (unsigned char)(high << 4 | low);
    }
    for (size_t index = 0; index < count; index++) {
        if (BPF_CLASS(instructions[index].code) == BPF_JMP && instructions[index].k == FILTER_PROGRAM_PLACEHOLDER_PID) {
            instructions[index].k = self;
            patched++;
        }
    }
    if (patched == 0) {
        free(instructions);
        snprintf(error, error_size, "the call filter's program names no pid to put this worker's in");
        return false;
    }
    program.len = (unsigned short)count;
    program.filter = instructions;
    /* Every thread, should the worker have started one. */
    status = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
    free(instructions);
    if (status != 0) {
        snprintf(error, error_size, "cannot install the system call filter: %s",
                 status < 0 ? strerror(errno) : "another thread cannot take it");
        return false;
    }
    return true;
}
