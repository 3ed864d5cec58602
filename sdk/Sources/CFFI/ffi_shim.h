/*
 * libffi (Debian's libffi-dev), for the actions of apphost.actions/1: the
 * host's guest runtime calls them, and the Swift SDK makes the closures a
 * Swift guest's table points to.
 */
#ifndef APPHOST_FFI_SHIM_H
#define APPHOST_FFI_SHIM_H

#include <ffi.h>
#include <stdint.h>

/* The address of one of libffi's predefined types, for Swift, which sees
 * C globals only through pointers valid during a call: one per type code
 * of actions.h ('b', 'y', 'n', 'q', 'i', 'u', 'x', 't', 'd', 's'), plus
 * 'a' for a pointer, 'z' for size_t and 'v' for void; NULL for any other. */
static inline ffi_type *apphost_ffi_type(char code)
{
    switch (code) {
    case 'b':
    case 'y':
        return &ffi_type_uint8;
    case 'n':
        return &ffi_type_sint16;
    case 'q':
        return &ffi_type_uint16;
    case 'i':
        return &ffi_type_sint32;
    case 'u':
        return &ffi_type_uint32;
    case 'x':
        return &ffi_type_sint64;
    case 't':
        return &ffi_type_uint64;
    case 'd':
        return &ffi_type_double;
    case 's':
    case 'a':
        return &ffi_type_pointer;
    case 'z':
        return SIZE_MAX == UINT64_MAX ? &ffi_type_uint64 : &ffi_type_uint32;
    case 'v':
        return &ffi_type_void;
    default:
        return NULL;
    }
}

/* The platform's default calling convention, and the size of a closure. */
static inline ffi_abi apphost_ffi_default_abi(void) { return FFI_DEFAULT_ABI; }
static inline size_t apphost_ffi_closure_size(void) { return sizeof(ffi_closure); }

#endif /* APPHOST_FFI_SHIM_H */
