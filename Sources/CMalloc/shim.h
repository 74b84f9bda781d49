// glibc's <malloc.h> (malloc_trim, mallopt): Glibc's module map does not export it.
#include <malloc.h>
