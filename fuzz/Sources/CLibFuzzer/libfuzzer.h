// libFuzzer's entry point for a program that has its own main (https://llvm.org/docs/LibFuzzer.html, "Using
// libFuzzer as a library"). The symbol comes from the toolchain's libclang_rt.fuzzer, linked by
// `-sanitize=fuzzer`.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
