#include "escrow_malloc_tuning.h"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

int escrow_malloc_tune(int mmap_threshold, int trim_threshold) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}

int escrow_malloc_trim(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
