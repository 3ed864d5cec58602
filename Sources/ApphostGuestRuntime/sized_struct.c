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
