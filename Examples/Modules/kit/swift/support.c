/*
 * What Embedded Swift needs from a C library, for a module that has none: an allocator (a bump
 * allocator over memory.grow; nothing is freed, the instance ends with the run) and the memory
 * primitives. Build with: clang --target=wasm32 -O2 -ffreestanding -c support.c
 */
#include <stddef.h>
#include <stdint.h>

extern unsigned char __heap_base;
static uintptr_t next;

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (next == 0) next = (uintptr_t)&__heap_base;
    if (alignment < 8) alignment = 8;
    uintptr_t start = (next + alignment - 1) & ~(uintptr_t)(alignment - 1);
    uintptr_t end = start + size;
    if (end < start) return 12;
    size_t have = __builtin_wasm_memory_size(0) * 65536;
    if (end > have && __builtin_wasm_memory_grow(0, (end - have + 65535) / 65536) == (size_t)-1) return 12;
    next = end;
    *result = (void *)start;
    return 0;
}

void *malloc(size_t size) {
    void *result = 0;
    return posix_memalign(&result, 16, size) == 0 ? result : 0;
}

void free(void *pointer) { (void)pointer; }

void *memcpy(void *destination, const void *source, size_t length) {
    unsigned char *to = destination;
    const unsigned char *from = source;
    while (length--) *to++ = *from++;
    return destination;
}

void *memmove(void *destination, const void *source, size_t length) {
    unsigned char *to = destination;
    const unsigned char *from = source;
    if (to < from) {
        while (length--) *to++ = *from++;
    } else {
        while (length--) to[length] = from[length];
    }
    return destination;
}

void *memset(void *destination, int value, size_t length) {
    unsigned char *to = destination;
    while (length--) *to++ = (unsigned char)value;
    return destination;
}

int memcmp(const void *left, const void *right, size_t length) {
    const unsigned char *a = left, *b = right;
    for (size_t i = 0; i < length; i++) if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

size_t strlen(const char *text) {
    size_t length = 0;
    while (text[length]) length++;
    return length;
}

/* Rounding half away from zero (Double.rounded()); WebAssembly has trunc, floor and ceil only. */
double round(double value) {
    double whole = __builtin_trunc(value);
    double part = value - whole;
    if (part >= 0.5) return whole + 1;
    if (part <= -0.5) return whole - 1;
    return whole;
}
