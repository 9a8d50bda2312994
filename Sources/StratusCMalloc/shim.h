// glibc's allocator settings (mallopt), which Swift's Glibc module does not expose.
// Used by stratusd to keep large answer buffers in the heap (StratusServer+Allocator.swift).
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
