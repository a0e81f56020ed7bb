// libpng's simplified API (png_image): decoding from memory with errors as return values, no
// setjmp/longjmp in the caller.
#include <png.h>
