/* The base of bench/memory-floor.sh's C floor: a C program that only waits (libc, ld.so, a stack). */
#include <stdio.h>
#include <unistd.h>

int main(void) {
    printf("ready\n");
    fflush(stdout);
    pause();
    return 0;
}
