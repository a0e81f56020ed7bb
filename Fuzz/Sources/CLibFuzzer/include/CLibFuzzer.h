#ifndef ESCROW_CLIBFUZZER_H
#define ESCROW_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): parses libFuzzer's command line
// and runs `callback` on each input. SwiftPM gives every executable its own `main`, so the
// harnesses call this from theirs instead of relying on libFuzzer's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
