// The declaration in include/CLibFuzzer.h is all this target provides; SwiftPM needs a source file.
#include "CLibFuzzer.h"
