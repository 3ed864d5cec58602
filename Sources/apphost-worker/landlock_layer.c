/*
 * Landlock through its three system calls (Linux 5.13; <linux/landlock.h>).
 * Debian 12's header stops at ABI 2, so the rights and scopes of later ABIs
 * are spelled here, with the numbers of the kernel's UAPI; each is asked for
 * only where landlock_abi() says the kernel knows it.
 */
#define _GNU_SOURCE /* syscall, O_PATH */

#include "landlock_layer.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ABI 3: truncate(2) and O_TRUNC. */
#define ACCESS_FS_TRUNCATE (1ULL << 14)
/* ABI 5: ioctl(2) on character and block devices. */
#define ACCESS_FS_IOCTL_DEV (1ULL << 15)
/* ABI 6: no connecting to an abstract UNIX socket, nor signalling a process,
 * outside the domain. */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr of ABI 6; the kernel takes its first
 * handled_access_fs alone before ABI 4, and no scoped before ABI 6. */
struct ruleset_attributes {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct landlock_layer {
    int ruleset;
    /* What this kernel handles: no rule may allow more. */
    uint64_t handled;
};

/* The rights that make sense on a file (the others are a directory's). */
static const uint64_t FILE_RIGHTS = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                    LANDLOCK_ACCESS_FS_READ_FILE | ACCESS_FS_TRUNCATE | ACCESS_FS_IOCTL_DEV;

int landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

    return abi < 0 ? 0 : (int)abi;
}

static uint64_t handled_rights(int abi)
{
    uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;

    if (abi >= 2) {
        rights |= LANDLOCK_ACCESS_FS_REFER;
    }
    if (abi >= 3) {
        rights |= ACCESS_FS_TRUNCATE;
    }
    if (abi >= 5) {
        rights |= ACCESS_FS_IOCTL_DEV;
    }
    return rights;
}

landlock_layer *landlock_layer_new(char *error, size_t error_size)
{
    int abi = landlock_abi();
    struct ruleset_attributes attributes = {0};
    size_t size = sizeof attributes.handled_access_fs;
    landlock_layer *layer;

    if (abi == 0) {
        snprintf(error, error_size, "this kernel has no Landlock");
        return NULL;
    }
    attributes.handled_access_fs = handled_rights(abi);
    if (abi >= 6) {
        attributes.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
        size = sizeof attributes;
    }
    layer = malloc(sizeof *layer);
    if (layer == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    layer->handled = attributes.handled_access_fs;
    layer->ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, size, 0);
    if (layer->ruleset < 0) {
        snprintf(error, error_size, "cannot make a Landlock ruleset: %s", strerror(errno));
        free(layer);
        return NULL;
    }
    return layer;
}

static uint64_t rights_for(landlock_access access)
{
    const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;

    switch (access) {
    case LANDLOCK_READ:
        return read;
    case LANDLOCK_READ_EXECUTE:
        return read | LANDLOCK_ACCESS_FS_EXECUTE;
    case LANDLOCK_READ_WRITE:
        /* All but execute: a data directory holds no code to run. */
        return ~(uint64_t)LANDLOCK_ACCESS_FS_EXECUTE;
    }
    return 0;
}

bool landlock_layer_allow(landlock_layer *layer, const char *path, landlock_access access, char *error,
                          size_t error_size)
{
    struct landlock_path_beneath_attr rule = {0};
    struct stat status;
    int fd = open(path, O_PATH | O_CLOEXEC);

    if (fd < 0) {
        return true;
    }
    rule.parent_fd = fd;
    rule.allowed_access = rights_for(access) & layer->handled;
    if (fstat(fd, &status) == 0 && !S_ISDIR(status.st_mode)) {
        rule.allowed_access &= FILE_RIGHTS;
    }
    if (syscall(SYS_landlock_add_rule, layer->ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
        snprintf(error, error_size, "cannot allow %s in the Landlock ruleset: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    close(fd);
    return true;
}

bool landlock_layer_enforce(landlock_layer *layer, char *error, size_t error_size)
{
    bool enforced = syscall(SYS_landlock_restrict_self, layer->ruleset, 0) == 0;

    if (!enforced) {
        snprintf(error, error_size, "cannot enforce the Landlock ruleset: %s", strerror(errno));
    }
    close(layer->ruleset);
    free(layer);
    return enforced;
}
