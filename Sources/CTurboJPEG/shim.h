// libjpeg-turbo's TurboJPEG API: decoding (and, for test fixtures, encoding) JPEG without the
// setjmp/longjmp error handling of the classic libjpeg API; errors come back as return values.
#include <stddef.h>
#include <turbojpeg.h>
