// glibc declares these only under _GNU_SOURCE, which Swift's Glibc module does not define (and
// defining it for a shim breaks every sockaddr call). They are declared here as glibc has them, so
// they link in the static authctl too, where a run-time dlsym lookup finds nothing.
#include <spawn.h>
#include <sys/timerfd.h>  /* not GNU-only, but absent from Swift's Glibc module */

int pipe2(int pipefd[2], int flags);
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *restrict actions, const char *restrict path);
