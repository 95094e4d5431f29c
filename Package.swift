// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "auth-handler",
    products: [
        .executable(name: "auth-handler", targets: ["auth-handler"]),
        .library(name: "AuthHandler", targets: ["AuthHandler"]),
        .library(name: "FakeIdP", targets: ["FakeIdP"]),
        .library(name: "AuthHandlerClient", targets: ["AuthHandlerClient"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CHiredis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // The QR code `login` draws on a terminal (HTTP-API.md §1.7).
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .target(
            name: "CShims",
            dependencies: ["CCurl", "CMicroHTTPD", "CSQLite"]
        ),
        .target(
            name: "AuthHandler",
            dependencies: ["COpenSSL", "CCurl", "CMicroHTTPD", "CSQLite", "CHiredis", "CQREncode", "CShims"],
            // The browser module served at /__/auth/client.js (HTTP-API.md §3.8), compiled into the binary as bytes:
            // nothing to install beside it, and the static release binary stays one file. The path is a symbolic
            // link to clients/js/auth-handler.js, so the repository holds the module once.
            resources: [.embedInCode("Service/BrowserClient/auth-handler.js")]
        ),
        .target(
            name: "FakeIdP",
            dependencies: ["AuthHandler"]
        ),
        // The client for apps (docs/CLIENTS.md): Foundation only, so it builds wherever Swift does; it shares no code
        // with the daemon, and the daemon none with it.
        .target(name: "AuthHandlerClient"),
        .executableTarget(
            name: "auth-handler",
            dependencies: ["AuthHandler", "FakeIdP"]
        ),
        .executableTarget(
            name: "auth-handler-bench",
            dependencies: ["AuthHandler"],
            path: "bench/Sources/auth-handler-bench"
        ),
        .testTarget(
            name: "AuthHandlerTests",
            dependencies: ["AuthHandler", "TestSupport"]
        ),
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["AuthHandler", "AuthHandlerClient", "TestSupport"]
        ),
        .testTarget(
            name: "AuthHandlerClientTests",
            // AuthHandler only to check the client's SHA-256 against OpenSSL's.
            dependencies: ["AuthHandlerClient", "AuthHandler"]
        ),
        .testTarget(
            name: "FakeIdPTests",
            dependencies: ["FakeIdP", "AuthHandler", "TestSupport"],
            exclude: ["python"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer targets (README "Fuzzing"): `make fuzz` builds them with AUTH_HANDLER_FUZZ=1, in a build directory of
// their own (.build/fuzz) and with `-sanitize=fuzzer,address`, which provides libFuzzer's driver; the everyday builds
// leave them out, so they cost those builds nothing.
if Context.environment["AUTH_HANDLER_FUZZ"] == "1" {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "fuzz/Sources/CLibFuzzer"),
        .executableTarget(
            name: "auth-handler-fuzz",
            dependencies: ["AuthHandler", "CLibFuzzer"],
            path: "fuzz/Sources/auth-handler-fuzz"
        ),
    ]
}
