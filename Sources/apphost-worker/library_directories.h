/* Where the loader looks for a guest's libraries beyond the system's. */
#ifndef LIBRARY_DIRECTORIES_H
#define LIBRARY_DIRECTORIES_H

/* Calls `visit` with each directory of the library at `path`'s RUNPATH (or
 * RPATH), $ORIGIN made its own directory, read from the file without loading
 * it: a Swift guest finds the Swift runtime there. Nothing is visited for a
 * file that is not a 64-bit ELF of this machine's byte order or names none;
 * dlopen then says what is wrong with it. */
void library_directories(const char *path, void (*visit)(void *context, const char *directory), void *context);

#endif
