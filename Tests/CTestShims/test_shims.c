#include "CTestShims.h"

#include <errno.h>
#include <sys/pidfd.h>
#include <unistd.h>

int test_shim_copy_descriptor(int pid, int fd) {
    int pidfd = pidfd_open(pid, 0);
    if (pidfd < 0) return -1;
    int copy = pidfd_getfd(pidfd, fd, 0);
    int saved = errno;
    close(pidfd);
    errno = saved;
    return copy;
}
