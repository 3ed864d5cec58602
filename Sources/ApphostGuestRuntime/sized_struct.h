/* Reading guest structs that declare their own size. */
#ifndef AHR_SIZED_STRUCT_H
#define AHR_SIZED_STRUCT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Copies a guest-owned struct that starts with `uint32_t struct_size` into
 * `destination`, a struct of this runtime's layout of `size` bytes whose
 * members after struct_size are `alignment`-sized and aligned. Members past
 * what the guest declared stay zero (NULL), so a struct from an older or
 * smaller guest never makes the runtime read past its end, and its missing
 * callbacks read as "not implemented". Whole members only: a size that cuts
 * a member in half does not copy that half. Returns the declared size.
 */
uint32_t ahr_copy_sized_struct(void *destination, size_t size, size_t alignment, const void *source);

/* The struct_size a guest set in the struct it hands the runtime to fill;
 * 0 for a NULL struct and for one that declares fewer than `needed` bytes
 * (the members every caller needs), which the caller refuses. */
uint32_t ahr_declared_size(const void *guest_struct, uint32_t needed);

/*
 * Fills a guest's struct, which declares `declared` bytes, from `source`, a
 * struct of this runtime's layout of `size` bytes that starts with
 * `uint32_t struct_size`: never past the guest's size, so that a guest built
 * against an older, smaller struct gets what fits, and one built against a
 * later, larger struct gets the members this runtime knows. struct_size is
 * set to the bytes written, so the guest learns which members are filled.
 */
void ahr_write_sized_struct(void *guest_struct, uint32_t declared, void *source, size_t size);

#endif
