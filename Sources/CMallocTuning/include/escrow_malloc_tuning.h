#ifndef ESCROW_MALLOC_TUNING_H
#define ESCROW_MALLOC_TUNING_H

/// Sets glibc malloc's mmap threshold and trim threshold (mallopt M_MMAP_THRESHOLD and
/// M_TRIM_THRESHOLD), in bytes. Returns 1 when both were set, 0 otherwise (not glibc, or a value
/// glibc refuses). See EscrowWire's Serving/MemoryTuning.swift for why.
int escrow_malloc_tune(int mmap_threshold, int trim_threshold);

/// Returns the free memory of every malloc arena to the kernel (glibc malloc_trim(0)). Returns 1
/// when some was returned, 0 otherwise (none, or not glibc).
int escrow_malloc_trim(void);

#endif
