// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "auth-handler",
    products: [
        .executable(name: "auth-handler", targets: ["auth-handler"]),
        .library(name: "AuthHandler", targets: ["AuthHandler"]),
        .library(name: "FakeIdP", targets: ["FakeIdP"]),
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
        .target(
            name: "CShims",
            dependencies: ["CCurl", "CMicroHTTPD", "CSQLite"]
        ),
        .target(
            name: "AuthHandler",
            dependencies: ["COpenSSL", "CCurl", "CMicroHTTPD", "CSQLite", "CHiredis", "CShims"]
        ),
        .target(
            name: "FakeIdP",
            dependencies: ["AuthHandler"]
        ),
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
            dependencies: ["AuthHandler", "TestSupport"]
        ),
        .testTarget(
            name: "FakeIdPTests",
            dependencies: ["FakeIdP", "AuthHandler", "TestSupport"],
            exclude: ["python"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
