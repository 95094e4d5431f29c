#ifndef AUTH_HANDLER_PROCESS_SHIMS_H
#define AUTH_HANDLER_PROCESS_SHIMS_H

/// prctl(PR_SET_DUMPABLE, value, 0, 0, 0); prctl(2) is variadic. Returns 0, or -1 with errno set.
int shim_prctl_set_dumpable(int value);
/// prctl(PR_GET_DUMPABLE, 0, 0, 0, 0): 0 or 1 (2 is suid_dumpable), or -1 with errno set.
int shim_prctl_get_dumpable(void);
#endif
