/*
 * escrow_module.h: the Escrow compute-module ABI for C, in one header (docs/MODULES.md).
 *
 * Build a module with the Swift toolchain's own clang and wasm-ld, no libc needed:
 *
 *     clang --target=wasm32 -O2 -nostdlib -Wl,--no-entry -I kit/c -o region.wasm region.c
 *     llvm-objcopy --add-section=escrow.module=module.json region.wasm
 *
 * A module defines `ESCROW_RUN { ... }`, reads its input with escrow_input(), writes its output
 * with an escrow_writer, and returns 0 (or calls escrow_fail). Frames are the bytes of one
 * `escrow.v1.Frame` protobuf message (Proto/escrow.proto), the encoding the escrow's RPC uses.
 *
 * Only the escrow functions a module calls are imported, and the escrow tells the individual what
 * the imports let it do: a module that never calls escrow_http_send "cannot contact anything".
 */
#ifndef ESCROW_MODULE_H
#define ESCROW_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ESCROW_IMPORT(name) __attribute__((import_module("escrow"), import_name(#name)))

/* ---- The escrow's functions (every pointer is an offset into this module's memory) ---- */
ESCROW_IMPORT(input_size) int32_t escrow_input_size(void);
ESCROW_IMPORT(input_read) void escrow_input_read(void *destination);
ESCROW_IMPORT(output_write) void escrow_output_write(const void *source, int32_t length);
/* The parameter's length in bytes, or -1 when the run does not pass it. */
ESCROW_IMPORT(parameter_size) int32_t escrow_parameter_size(const char *name, int32_t name_length);
ESCROW_IMPORT(parameter_read) void escrow_parameter_read(const char *name, int32_t name_length, void *destination);
/* Sends a request through the escrow (recorded; blocked domains refused). Headers are
 * "Name: value" lines separated by "\n". Returns the HTTP status, or below 0: -1 blocked,
 * -2 unreachable, -3 no network for this run, -4 a bad request, -5 too many requests. Either way
 * escrow_http_response_read then copies the response body, or the failure in words. */
ESCROW_IMPORT(http_send) int32_t escrow_http_send(const char *method, int32_t method_length, const char *url,
                                                  int32_t url_length, const char *headers, int32_t headers_length,
                                                  const void *body, int32_t body_length);
ESCROW_IMPORT(http_response_size) int32_t escrow_http_response_size(void);
ESCROW_IMPORT(http_response_read) void escrow_http_response_read(void *destination);
/* A line in the escrow host's own log (not the app's; a compute server drops it). */
ESCROW_IMPORT(log) void escrow_log(const char *text, int32_t length);
ESCROW_IMPORT(random) void escrow_random(void *destination, int32_t length);
/* Ends the run with this reason; does not return. */
ESCROW_IMPORT(fail) __attribute__((noreturn)) void escrow_fail(const char *reason, int32_t length);

/* The function the escrow calls once per run, on a fresh instance. */
#define ESCROW_RUN __attribute__((export_name("escrow_run"))) int32_t escrow_run(void)

/* ---- Memory: a bump allocator over memory.grow (nothing is freed; the instance ends with the run) ---- */
extern unsigned char __heap_base;
static uintptr_t escrow_heap_next;

static inline size_t escrow_strlen(const char *text) {
    size_t length = 0;
    while (text[length]) length++;
    return length;
}

#define ESCROW_FAIL(text) escrow_fail((text), (int32_t)escrow_strlen(text))

static inline void *escrow_alloc(size_t size) {
    if (escrow_heap_next == 0) escrow_heap_next = (uintptr_t)&__heap_base;
    uintptr_t start = (escrow_heap_next + 7) & ~(uintptr_t)7;
    uintptr_t end = start + size;
    if (end < start) ESCROW_FAIL("out of memory");
    size_t have = __builtin_wasm_memory_size(0) * 65536;
    if (end > have) {
        size_t pages = (end - have + 65535) / 65536;
        if (__builtin_wasm_memory_grow(0, pages) == (size_t)-1) ESCROW_FAIL("out of memory");
    }
    escrow_heap_next = end;
    return (void *)start;
}

static inline void escrow_copy(void *destination, const void *source, size_t length) {
    unsigned char *to = destination;
    const unsigned char *from = source;
    for (size_t i = 0; i < length; i++) to[i] = from[i];
}

/* ---- Reading frames ---- */
enum { ESCROW_INT64 = 1, ESCROW_DOUBLE = 2, ESCROW_STRING = 3, ESCROW_BYTES = 4, ESCROW_BOOL = 5 };

typedef struct { const uint8_t *data; size_t length; } escrow_bytes;

typedef struct {
    escrow_bytes name;
    int type;
    uint64_t rows;
    escrow_bytes nulls;   /* bit i of byte i/8 set: row i is null; empty when none is */
    escrow_bytes packed;  /* int64 (zigzag varints), double (8 bytes each) or bool values */
    escrow_bytes message; /* the whole column message, for string and bytes cells */
} escrow_column;

typedef struct {
    escrow_bytes message;
    uint64_t rows;
} escrow_frame;

static inline bool escrow_varint(const uint8_t **cursor, const uint8_t *end, uint64_t *value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64 && *cursor < end; shift += 7) {
        uint8_t byte = *(*cursor)++;
        result |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) { *value = result; return true; }
    }
    return false;
}

/* Reads one field's tag and, for length-delimited fields, its bytes; skips others' values. */
static inline bool escrow_field(const uint8_t **cursor, const uint8_t *end, uint32_t *number, uint64_t *value, escrow_bytes *bytes) {
    uint64_t tag;
    if (!escrow_varint(cursor, end, &tag)) return false;
    *number = (uint32_t)(tag >> 3);
    switch (tag & 7) {
    case 0: return escrow_varint(cursor, end, value);
    case 1: if (end - *cursor < 8) return false; *cursor += 8; return true;
    case 5: if (end - *cursor < 4) return false; *cursor += 4; return true;
    case 2: {
        uint64_t length;
        if (!escrow_varint(cursor, end, &length) || length > (uint64_t)(end - *cursor)) return false;
        bytes->data = *cursor;
        bytes->length = (size_t)length;
        *cursor += length;
        return true;
    }
    default: return false;
    }
}

/* The run's input frame (read once). */
static inline escrow_frame escrow_input(void) {
    escrow_frame frame = {{0, 0}, 0};
    int32_t size = escrow_input_size();
    uint8_t *data = escrow_alloc((size_t)size);
    escrow_input_read(data);
    frame.message.data = data;
    frame.message.length = (size_t)size;
    const uint8_t *cursor = data, *end = data + size;
    uint32_t number; uint64_t value = 0; escrow_bytes bytes = {0, 0};
    while (cursor < end) {
        if (!escrow_field(&cursor, end, &number, &value, &bytes)) ESCROW_FAIL("the input is not a frame");
        if (number == 2) frame.rows = value;
    }
    return frame;
}

static inline bool escrow_name_is(escrow_bytes name, const char *wanted) {
    size_t length = escrow_strlen(wanted);
    if (name.length != length) return false;
    for (size_t i = 0; i < length; i++) if (name.data[i] != (uint8_t)wanted[i]) return false;
    return true;
}

/* The column named `name`; false when the frame has none. */
static inline bool escrow_frame_column(const escrow_frame *frame, const char *name, escrow_column *column) {
    const uint8_t *cursor = frame->message.data, *end = cursor + frame->message.length;
    uint32_t number; uint64_t value = 0; escrow_bytes message = {0, 0};
    while (cursor < end) {
        if (!escrow_field(&cursor, end, &number, &value, &message)) return false;
        if (number != 1) continue;
        escrow_column found = {{0, 0}, 0, frame->rows, {0, 0}, {0, 0}, message};
        const uint8_t *inner = message.data, *inner_end = inner + message.length;
        escrow_bytes bytes = {0, 0};
        while (inner < inner_end) {
            if (!escrow_field(&inner, inner_end, &number, &value, &bytes)) return false;
            if (number == 1) found.name = bytes;
            else if (number == 2) found.type = (int)value;
            else if (number == 3) found.nulls = bytes;
            else if (number == 4 || number == 5 || number == 8) found.packed = bytes;
        }
        if (escrow_name_is(found.name, name)) { *column = found; return true; }
    }
    return false;
}

static inline bool escrow_is_null(const escrow_column *column, uint64_t row) {
    if (column->nulls.length * 8 <= row) return false;
    return (column->nulls.data[row / 8] >> (row % 8)) & 1;
}

static inline int64_t escrow_int64_at(const escrow_column *column, uint64_t row) {
    const uint8_t *cursor = column->packed.data, *end = cursor + column->packed.length;
    uint64_t value = 0;
    for (uint64_t i = 0; i <= row; i++) if (!escrow_varint(&cursor, end, &value)) return 0;
    return (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
}

/* A number cell: a double column's value, or an int64 column's converted. */
static inline double escrow_double_at(const escrow_column *column, uint64_t row) {
    if (column->type == ESCROW_INT64) return (double)escrow_int64_at(column, row);
    if (column->type != ESCROW_DOUBLE || (row + 1) * 8 > column->packed.length) return 0;
    double value;
    escrow_copy(&value, column->packed.data + row * 8, 8);
    return value;
}

static inline bool escrow_bool_at(const escrow_column *column, uint64_t row) {
    return row < column->packed.length && column->packed.data[row] != 0;
}

/* A string or bytes cell. */
static inline escrow_bytes escrow_cell_at(const escrow_column *column, uint64_t row) {
    escrow_bytes none = {0, 0}, bytes = {0, 0};
    uint32_t wanted = column->type == ESCROW_STRING ? 6 : 7, number;
    uint64_t value = 0, index = 0;
    const uint8_t *cursor = column->message.data, *end = cursor + column->message.length;
    while (cursor < end) {
        if (!escrow_field(&cursor, end, &number, &value, &bytes)) return none;
        if (number == wanted && index++ == row) return bytes;
    }
    return none;
}

/* ---- Writing frames ---- */
typedef struct {
    uint8_t *data;
    size_t length, capacity;
    uint64_t rows;
} escrow_writer;

static inline void escrow_writer_reserve(escrow_writer *writer, size_t more) {
    if (writer->length + more <= writer->capacity) return;
    size_t capacity = writer->capacity * 2 + more + 256;
    uint8_t *data = escrow_alloc(capacity);
    escrow_copy(data, writer->data, writer->length);
    writer->data = data;
    writer->capacity = capacity;
}

static inline void escrow_put_byte(escrow_writer *writer, uint8_t byte) {
    escrow_writer_reserve(writer, 1);
    writer->data[writer->length++] = byte;
}

static inline void escrow_put_varint(escrow_writer *writer, uint64_t value) {
    while (value >= 0x80) { escrow_put_byte(writer, (uint8_t)(value | 0x80)); value >>= 7; }
    escrow_put_byte(writer, (uint8_t)value);
}

static inline void escrow_put_bytes(escrow_writer *writer, uint32_t field, const void *bytes, size_t length) {
    escrow_put_varint(writer, (uint64_t)field << 3 | 2);
    escrow_put_varint(writer, length);
    escrow_writer_reserve(writer, length);
    escrow_copy(writer->data + writer->length, bytes, length);
    writer->length += length;
}

/* A writer for an output frame of `rows` rows. */
static inline escrow_writer escrow_writer_new(uint64_t rows) {
    escrow_writer writer = {0, 0, 0, rows};
    return writer;
}

/* Starts a column: name, type and null bitmap (`nulls` may be NULL when no row is null). */
static inline void escrow_column_head(escrow_writer *column, const char *name, int type, const bool *nulls, uint64_t rows) {
    escrow_put_bytes(column, 1, name, escrow_strlen(name));
    escrow_put_varint(column, 2 << 3);
    escrow_put_varint(column, (uint64_t)type);
    bool any = false;
    for (uint64_t i = 0; nulls && i < rows; i++) any = any || nulls[i];
    if (!any) return;
    size_t length = (size_t)((rows + 7) / 8);
    uint8_t *bitmap = escrow_alloc(length);
    for (size_t i = 0; i < length; i++) bitmap[i] = 0;
    for (uint64_t i = 0; i < rows; i++) if (nulls[i]) bitmap[i / 8] |= (uint8_t)(1u << (i % 8));
    escrow_put_bytes(column, 3, bitmap, length);
}

static inline void escrow_end_column(escrow_writer *writer, escrow_writer *column) {
    escrow_put_bytes(writer, 1, column->data, column->length);
}

static inline void escrow_write_doubles(escrow_writer *writer, const char *name, const double *values, const bool *nulls) {
    escrow_writer column = escrow_writer_new(0);
    escrow_column_head(&column, name, ESCROW_DOUBLE, nulls, writer->rows);
    if (writer->rows > 0) escrow_put_bytes(&column, 5, values, (size_t)writer->rows * 8);
    escrow_end_column(writer, &column);
}

static inline void escrow_write_int64s(escrow_writer *writer, const char *name, const int64_t *values, const bool *nulls) {
    escrow_writer column = escrow_writer_new(0), packed = escrow_writer_new(0);
    escrow_column_head(&column, name, ESCROW_INT64, nulls, writer->rows);
    for (uint64_t i = 0; i < writer->rows; i++) escrow_put_varint(&packed, (uint64_t)(values[i] << 1) ^ (uint64_t)(values[i] >> 63));
    if (writer->rows > 0) escrow_put_bytes(&column, 4, packed.data, packed.length);
    escrow_end_column(writer, &column);
}

static inline void escrow_write_bools(escrow_writer *writer, const char *name, const bool *values, const bool *nulls) {
    escrow_writer column = escrow_writer_new(0), packed = escrow_writer_new(0);
    escrow_column_head(&column, name, ESCROW_BOOL, nulls, writer->rows);
    for (uint64_t i = 0; i < writer->rows; i++) escrow_put_byte(&packed, values[i] ? 1 : 0);
    if (writer->rows > 0) escrow_put_bytes(&column, 8, packed.data, packed.length);
    escrow_end_column(writer, &column);
}

/* A string column; `values[i]` is NUL-terminated UTF-8 (a null row's value is ignored). */
static inline void escrow_write_strings(escrow_writer *writer, const char *name, const char *const *values, const bool *nulls) {
    escrow_writer column = escrow_writer_new(0);
    escrow_column_head(&column, name, ESCROW_STRING, nulls, writer->rows);
    for (uint64_t i = 0; i < writer->rows; i++) {
        const char *value = (nulls && nulls[i]) ? "" : values[i];
        escrow_put_bytes(&column, 6, value, escrow_strlen(value));
    }
    escrow_end_column(writer, &column);
}

/* Hands the frame to the escrow as the run's output. */
static inline void escrow_output(escrow_writer *writer) {
    if (writer->rows > 0) { escrow_put_varint(writer, 2 << 3); escrow_put_varint(writer, writer->rows); }
    escrow_output_write(writer->data, (int32_t)writer->length);
}

/* ---- Parameters ---- */

/* The parameter as a NUL-terminated string, or NULL when the run does not pass it. */
static inline const char *escrow_parameter(const char *name) {
    int32_t size = escrow_parameter_size(name, (int32_t)escrow_strlen(name));
    if (size < 0) return 0;
    char *value = escrow_alloc((size_t)size + 1);
    escrow_parameter_read(name, (int32_t)escrow_strlen(name), value);
    value[size] = 0;
    return value;
}

/* A whole-number parameter (the escrow checked it against the manifest's range). */
static inline int64_t escrow_parameter_int(const char *name, int64_t fallback) {
    const char *text = escrow_parameter(name);
    if (!text) return fallback;
    int64_t value = 0, sign = 1;
    if (*text == '-') { sign = -1; text++; }
    while (*text >= '0' && *text <= '9') value = value * 10 + (*text++ - '0');
    return sign * value;
}

#endif
