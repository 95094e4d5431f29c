#ifndef AUTH_HANDLER_TEST_SHIMS_H
#define AUTH_HANDLER_TEST_SHIMS_H

/// A copy, in this process, of descriptor `fd` of process `pid`: pidfd_open(2) then pidfd_getfd(2) (Linux 5.6,
/// glibc 2.36), which needs ptrace access to `pid` (the tests run as root, and the daemon is their child).
/// Returns the new descriptor (close-on-exec), or -1 with errno set.
int test_shim_copy_descriptor(int pid, int fd);
#endif
