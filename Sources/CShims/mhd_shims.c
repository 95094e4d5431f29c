#include "mhd_shims.h"

const enum MHD_Result shim_mhd_yes = MHD_YES;
const enum MHD_Result shim_mhd_no = MHD_NO;
