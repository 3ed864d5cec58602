#include "sized_struct.h"

#include <string.h>

uint32_t ahr_copy_sized_struct(void *destination, size_t size, size_t alignment, const void *source)
{
    uint32_t declared;
    size_t length;

    memcpy(&declared, source, sizeof declared);
    length = declared < size ? declared : size;
    length = length / alignment * alignment;
    memset(destination, 0, size);
    memcpy(destination, source, length);
    return declared;
}

uint32_t ahr_declared_size(const void *guest_struct, uint32_t needed)
{
    uint32_t declared;

    if (guest_struct == NULL) {
        return 0;
    }
    memcpy(&declared, guest_struct, sizeof declared);
    return declared < needed ? 0 : declared;
}

void ahr_write_sized_struct(void *guest_struct, uint32_t declared, void *source, size_t size)
{
    uint32_t written = declared < size ? declared : (uint32_t)size;

    memcpy(source, &written, sizeof written);
    memcpy(guest_struct, source, written);
}
