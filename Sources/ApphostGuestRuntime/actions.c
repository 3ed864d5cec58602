#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "actions.h"

#include <stdlib.h>
#include <string.h>

#if SIZE_MAX == UINT64_MAX
#define FFI_TYPE_SIZE_T ffi_type_uint64
#else
#define FFI_TYPE_SIZE_T ffi_type_uint32
#endif

/* libffi's type for one value of `type`; ay's pointer (its length is a
 * second parameter, or the second member of the result's struct). */
static ffi_type *ffi_type_of(ahr_value_type type)
{
    switch (type) {
    case AHR_VALUE_NONE:
        return &ffi_type_void;
    case AHR_VALUE_BOOL:
    case AHR_VALUE_UINT8:
        return &ffi_type_uint8;
    case AHR_VALUE_INT16:
        return &ffi_type_sint16;
    case AHR_VALUE_UINT16:
        return &ffi_type_uint16;
    case AHR_VALUE_INT32:
        return &ffi_type_sint32;
    case AHR_VALUE_UINT32:
        return &ffi_type_uint32;
    case AHR_VALUE_INT64:
        return &ffi_type_sint64;
    case AHR_VALUE_UINT64:
        return &ffi_type_uint64;
    case AHR_VALUE_DOUBLE:
        return &ffi_type_double;
    case AHR_VALUE_STRING:
    case AHR_VALUE_BYTES:
        return &ffi_type_pointer;
    }
    return NULL;
}

static bool prepare(ahr_prepared_action *action, const ahr_raw_action *raw)
{
    ahr_value_type result[1];
    size_t result_count;
    unsigned parameter_count = 0;
    ffi_type *result_type;

    if (!raw->has_function || raw->arguments.bytes == NULL || raw->result.bytes == NULL ||
        !ahr_parse_value_types(raw->arguments.bytes, raw->arguments.length, APPHOST_ACTION_ARGUMENTS_MAX,
                               action->arguments, &action->argument_count, NULL, 0) ||
        !ahr_parse_value_types(raw->result.bytes, raw->result.length, 1, result, &result_count, NULL, 0)) {
        return false;
    }
    action->result = result_count == 0 ? AHR_VALUE_NONE : result[0];
    for (size_t i = 0; i < action->argument_count; i++) {
        action->parameters[parameter_count++] = ffi_type_of(action->arguments[i]);
        if (action->arguments[i] == AHR_VALUE_BYTES) {
            action->parameters[parameter_count++] = &FFI_TYPE_SIZE_T;
        }
    }
    if (action->result == AHR_VALUE_BYTES) {
        /* apphost_action_bytes_t, returned by value; a type per action,
         * since ffi_prep_cif writes its size and alignment. */
        action->bytes_members[0] = &ffi_type_pointer;
        action->bytes_members[1] = &FFI_TYPE_SIZE_T;
        action->bytes_members[2] = NULL;
        action->bytes_result = (ffi_type){0, 0, FFI_TYPE_STRUCT, action->bytes_members};
        result_type = &action->bytes_result;
    } else {
        result_type = ffi_type_of(action->result);
    }
    action->function = raw->function;
    return ffi_prep_cif(&action->cif, FFI_DEFAULT_ABI, parameter_count, result_type, action->parameters) == FFI_OK;
}

void ahr_actions_prepare(ahr_actions *actions, const ahr_raw_descriptor *raw)
{
    memset(actions, 0, sizeof *actions);
    actions->count = raw->actions_read;
    for (uint32_t i = 0; i < raw->actions_read; i++) {
        actions->actions[i].prepared = prepare(&actions->actions[i], &raw->actions[i]);
    }
}

/* One C parameter's storage: a signed integer is kept in the unsigned
 * member of its width, with the same bits. */
typedef union parameter {
    uint8_t uint8;
    uint16_t uint16;
    uint32_t uint32;
    uint64_t uint64;
    double real;
    void *pointer;
    size_t length;
} parameter;

/* Where libffi writes a result: integers narrower than ffi_arg widened. */
typedef union result_storage {
    ffi_arg unsigned_word;
    uint64_t uint64;
    double real;
    const char *string;
    apphost_action_bytes_t bytes;
} result_storage;

static bool arguments_are_declared(const ahr_prepared_action *action, const ahr_call *call)
{
    if (call->action.arguments_count != action->argument_count ||
        (call->action.arguments_count > 0 && call->action.arguments == NULL)) {
        return false;
    }
    for (size_t i = 0; i < action->argument_count; i++) {
        if (call->action.arguments[i].type != action->arguments[i] ||
            !ahr_value_is_valid(&call->action.arguments[i])) {
            return false;
        }
    }
    return true;
}

static bool is_signed(ahr_value_type type)
{
    return type == AHR_VALUE_INT16 || type == AHR_VALUE_INT32 || type == AHR_VALUE_INT64;
}

/* A bool's or an integer's value as the bits of a 64-bit integer. */
static uint64_t integer_bits(const ahr_value *argument)
{
    if (argument->type == AHR_VALUE_BOOL) {
        return argument->boolean ? 1 : 0;
    }
    return is_signed(argument->type) ? (uint64_t)argument->integer : argument->unsigned_integer;
}

/* The low `size` bytes (1, 2, 4 or 8) of `bits`, as the C integer of that
 * width, into `slot`. */
static void put_integer(parameter *slot, uint64_t bits, size_t size)
{
    if (size == 1) {
        slot->uint8 = (uint8_t)bits;
    } else if (size == 2) {
        slot->uint16 = (uint16_t)bits;
    } else if (size == 4) {
        slot->uint32 = (uint32_t)bits;
    } else {
        slot->uint64 = bits;
    }
}

/* A bool or integer result of `type`: its C type's width of the result,
 * sign-extended for a signed type (two's complement, as the compilers this
 * builds with convert and shift). */
static void read_integer(ahr_value_type type, const result_storage *storage, ahr_value *value)
{
    unsigned shift = 64 - 8 * (unsigned)ffi_type_of(type)->size;
    uint64_t bits = shift == 0 ? storage->uint64 : (uint64_t)storage->unsigned_word;

    if (type == AHR_VALUE_BOOL) {
        value->boolean = (uint8_t)bits != 0;
    } else if (is_signed(type)) {
        value->integer = (int64_t)(bits << shift) >> shift;
    } else {
        value->unsigned_integer = bits << shift >> shift;
    }
}

/* Fills the parameters and the pointers libffi takes; copies strings and
 * bytes (into `copies`). False when a copy could not be made. */
static bool fill(const ahr_prepared_action *action, const ahr_value *arguments, parameter *parameters,
                 void **values, void **copies)
{
    size_t next = 0;

    for (size_t i = 0; i < action->argument_count; i++) {
        const ahr_value *argument = &arguments[i];
        parameter *slot = &parameters[next];

        switch (argument->type) {
        case AHR_VALUE_NONE:
            break;
        case AHR_VALUE_DOUBLE:
            slot->real = argument->real;
            break;
        case AHR_VALUE_STRING:
        case AHR_VALUE_BYTES:
            /* A string gets its NUL; bytes are never NULL, even empty. */
            copies[i] = malloc(argument->length + 1);
            if (copies[i] == NULL) {
                return false;
            }
            if (argument->length > 0) {
                memcpy(copies[i], argument->bytes, argument->length);
            }
            ((char *)copies[i])[argument->length] = '\0';
            slot->pointer = copies[i];
            break;
        default:
            put_integer(slot, integer_bits(argument), ffi_type_of(argument->type)->size);
            break;
        }
        values[next] = slot;
        next++;
        if (argument->type == AHR_VALUE_BYTES) {
            parameters[next].length = argument->length;
            values[next] = &parameters[next];
            next++;
        }
    }
    return true;
}

/* The function's result as a value; NULL when it is broken, with why. */
static const char *read_result(ahr_value_type type, const result_storage *storage, ahr_value *value)
{
    memset(value, 0, sizeof *value);
    value->type = type;
    switch (type) {
    case AHR_VALUE_NONE:
        break;
    case AHR_VALUE_DOUBLE:
        value->real = storage->real;
        if (!ahr_value_is_valid(value)) {
            return "returned a double that is not finite (JSON has no NaN or infinity)";
        }
        break;
    case AHR_VALUE_STRING:
        if (storage->string == NULL) {
            return "returned NULL as its string";
        }
        value->bytes = storage->string;
        value->length = strnlen(storage->string, APPHOST_ACTION_VALUE_MAX_BYTES + 1);
        if (value->length > APPHOST_ACTION_VALUE_MAX_BYTES) {
            return "returned a string longer than APPHOST_ACTION_VALUE_MAX_BYTES (65536 bytes)";
        }
        if (!ahr_value_is_valid(value)) {
            return "returned a string that is not UTF-8";
        }
        break;
    case AHR_VALUE_BYTES:
        value->bytes = storage->bytes.bytes;
        value->length = storage->bytes.length;
        if (value->length > APPHOST_ACTION_VALUE_MAX_BYTES) {
            return "returned more bytes than APPHOST_ACTION_VALUE_MAX_BYTES (65536)";
        }
        if (!ahr_value_is_valid(value)) {
            return "returned NULL bytes with a length";
        }
        break;
    default:
        read_integer(type, storage, value);
        break;
    }
    return NULL;
}

static void free_copies(void **copies, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(copies[i]);
    }
}

int32_t ahr_actions_call(const ahr_actions *actions, const ahr_call *call, ahr_reporter reporter)
{
    const ahr_prepared_action *action;
    parameter parameters[2 * APPHOST_ACTION_ARGUMENTS_MAX];
    void *values[2 * APPHOST_ACTION_ARGUMENTS_MAX];
    void *copies[APPHOST_ACTION_ARGUMENTS_MAX] = {NULL};
    result_storage storage;
    ahr_report report;
    const char *broken;

    if (call->action.index >= actions->count || !actions->actions[call->action.index].prepared) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    action = &actions->actions[call->action.index];
    if (!arguments_are_declared(action, call)) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(parameters, 0, sizeof parameters);
    memset(&storage, 0, sizeof storage);
    if (!fill(action, call->action.arguments, parameters, values, copies)) {
        free_copies(copies, action->argument_count);
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    ffi_call((ffi_cif *)&action->cif, action->function, &storage, values);
    memset(&report, 0, sizeof report);
    report.kind = AHR_REPORT_ACTION_RESULT;
    broken = read_result(action->result, &storage, &report.action_result.value);
    report.action_result.flag = broken == NULL;
    if (broken != NULL) {
        memset(&report.action_result.value, 0, sizeof report.action_result.value);
        report.action_result.text = broken;
        report.action_result.text_length = strlen(broken);
    }
    if (reporter.report != NULL) {
        reporter.report(reporter.context, &report);
    }
    /* Only now: a result may point into an argument (an echo). */
    free_copies(copies, action->argument_count);
    return broken == NULL ? APPHOST_OK : APPHOST_ERROR_GUEST_FAILED;
}
