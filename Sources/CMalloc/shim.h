// glibc's <malloc.h> (mallopt): Glibc's module map does not export it.
#include <malloc.h>
