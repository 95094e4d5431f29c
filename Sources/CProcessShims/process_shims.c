#include "CProcessShims.h"

#include <sys/prctl.h>

int shim_prctl_set_dumpable(int value) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)value, 0UL, 0UL, 0UL);
}

int shim_prctl_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
}
