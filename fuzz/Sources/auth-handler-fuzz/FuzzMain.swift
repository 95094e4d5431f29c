import AuthHandlerCore
import CLibFuzzer
import Glibc

/// The target `FUZZ_TARGET` names, chosen before libFuzzer starts and read only by its (single) fuzzing thread.
nonisolated(unsafe) private var selectedTarget: FuzzTarget?

/// The program's entry point: SwiftPM links an executable's `main` to `<module>_main` (docs/ARCHITECTURE.md
/// "Fuzz targets").
///
/// `FUZZ_TARGET=<name> auth-handler-fuzz [libFuzzer flags] CORPUS_DIR...` fuzzes one parser; every other argument
/// is libFuzzer's (https://llvm.org/docs/LibFuzzer.html#options).
@_cdecl("auth_handler_fuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    guard let name = getenv("FUZZ_TARGET").map({ String(cString: $0) }) else {
        report("auth-handler-fuzz: set FUZZ_TARGET to one of: \(names)\n")
        return 64
    }
    guard let target = FuzzTarget(rawValue: name) else {
        report("auth-handler-fuzz: unknown FUZZ_TARGET '\(name)'; use one of: \(names)\n")
        return 64
    }
    selectedTarget = target
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        testOneInput(data, size)
    }
}

/// libFuzzer's callback: one input to the selected target. It also carries libFuzzer's conventional name, because
/// the toolchain's libFuzzer archive refers to it (from its own `main`, which the `main` above replaces) and the
/// link fails without it.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget?.run(input)
    return 0
}
