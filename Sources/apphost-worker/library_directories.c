/*
 * Reads DT_RUNPATH (or DT_RPATH) from a library's dynamic section, as the
 * loader will, so that the container (sandbox.c) can let the loader read the
 * directories it names. Only the headers it needs are read, with pread.
 */
#include "library_directories.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Far more than any real library has; a bound on what a hostile file makes
 * us read. */
enum { MAX_PROGRAM_HEADERS = 256, MAX_DYNAMIC_ENTRIES = 4096, MAX_RUNPATH_BYTES = 16384 };

static bool read_at(int fd, void *buffer, size_t length, uint64_t offset)
{
    return pread(fd, buffer, length, (off_t)offset) == (ssize_t)length;
}

/* The file offset of virtual address `address`, through the PT_LOAD that maps it. */
static bool file_offset(const Elf64_Phdr *headers, size_t count, uint64_t address, uint64_t *offset)
{
    for (size_t index = 0; index < count; index++) {
        const Elf64_Phdr *header = &headers[index];

        if (header->p_type == PT_LOAD && address >= header->p_vaddr && address - header->p_vaddr < header->p_filesz) {
            *offset = header->p_offset + (address - header->p_vaddr);
            return true;
        }
    }
    return false;
}

/* Visits each ':'-separated directory of `list`, $ORIGIN (or ${ORIGIN}) at
 * its start replaced by `origin`. */
static void visit_list(char *list, const char *origin, void (*visit)(void *, const char *), void *context)
{
    char *saved = NULL;

    for (char *entry = strtok_r(list, ":", &saved); entry != NULL; entry = strtok_r(NULL, ":", &saved)) {
        char expanded[PATH_MAX];
        const char *rest = NULL;

        if (strncmp(entry, "$ORIGIN", 7) == 0) {
            rest = entry + 7;
        } else if (strncmp(entry, "${ORIGIN}", 9) == 0) {
            rest = entry + 9;
        }
        if (rest == NULL) {
            visit(context, entry);
        } else if ((size_t)snprintf(expanded, sizeof expanded, "%s%s", origin, rest) < sizeof expanded) {
            visit(context, expanded);
        }
    }
}

static void read_runpath(int fd, const char *origin, void (*visit)(void *, const char *), void *context)
{
    Elf64_Ehdr header;
    Elf64_Phdr programs[MAX_PROGRAM_HEADERS];
    const Elf64_Phdr *dynamic = NULL;
    uint64_t strings = 0, path_offset = 0, strings_offset;
    bool has_path = false;
    char list[MAX_RUNPATH_BYTES];
    ssize_t length;

    if (!read_at(fd, &header, sizeof header, 0) || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr) ||
        header.e_phnum > MAX_PROGRAM_HEADERS ||
        !read_at(fd, programs, header.e_phnum * sizeof(Elf64_Phdr), header.e_phoff)) {
        return;
    }
    for (size_t index = 0; index < header.e_phnum; index++) {
        if (programs[index].p_type == PT_DYNAMIC) {
            dynamic = &programs[index];
        }
    }
    if (dynamic == NULL) {
        return;
    }
    for (uint64_t index = 0; index < dynamic->p_filesz / sizeof(Elf64_Dyn) && index < MAX_DYNAMIC_ENTRIES; index++) {
        Elf64_Dyn entry;

        if (!read_at(fd, &entry, sizeof entry, dynamic->p_offset + index * sizeof entry) || entry.d_tag == DT_NULL) {
            break;
        }
        if (entry.d_tag == DT_STRTAB) {
            strings = entry.d_un.d_ptr;
        } else if (entry.d_tag == DT_RUNPATH || (entry.d_tag == DT_RPATH && !has_path)) {
            /* RUNPATH wins over RPATH, as the loader has it. */
            path_offset = entry.d_un.d_val;
            has_path = true;
        }
    }
    if (!has_path || !file_offset(programs, header.e_phnum, strings, &strings_offset)) {
        return;
    }
    length = pread(fd, list, sizeof list - 1, (off_t)(strings_offset + path_offset));
    if (length <= 0) {
        return;
    }
    list[length] = '\0';
    if (strlen(list) < (size_t)length) {
        visit_list(list, origin, visit, context);
    }
}

void library_directories(const char *path, void (*visit)(void *context, const char *directory), void *context)
{
    char origin[PATH_MAX];
    const char *slash;
    int fd;

    if (realpath(path, origin) == NULL) {
        return;
    }
    slash = strrchr(origin, '/');
    if (slash == NULL) {
        return;
    }
    origin[slash == origin ? 1 : slash - origin] = '\0';
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    read_runpath(fd, origin, visit, context);
    close(fd);
}
