// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "auth-handler",
    products: [
        .executable(name: "auth-handler", targets: ["auth-handler"]),
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
        // PostgreSQL's client library for the accounts store of several instances (docs/ACCOUNTS.md "Storage"): libpq,
        // its parameterised queries only (https://www.postgresql.org/docs/15/libpq-exec.html).
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // Argon2id password hashing (RFC 9106) for the accounts backend: libargon2, the reference implementation.
        .systemLibrary(
            name: "CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]
        ),
        // Imported bcrypt hashes (docs/ACCOUNTS.md "Imported users") checked through libcrypt's crypt_r: Debian's
        // libxcrypt.
        .systemLibrary(
            name: "CCrypt",
            pkgConfig: "libxcrypt",
            providers: [.apt(["libcrypt-dev"])]
        ),
        // E-mail domains as IDNA2008 A-labels (RFC 5891) for the accounts backend's one normal form of an address.
        .systemLibrary(
            name: "CIDN2",
            pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"])]
        ),
        // The QR code `login` draws on a terminal (HTTP-API.md §1.7).
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // The only C we write: typed, non-variadic wrappers for variadic C functions and for macros Swift cannot
        // import, one target per layer that needs them, so a layer sees only its own libraries' headers.
        .target(name: "CProcessShims"),
        .target(
            name: "CHTTPShims",
            dependencies: ["CCurl", "CMicroHTTPD"]
        ),
        .target(
            name: "CSQLiteShims",
            dependencies: ["CSQLite"]
        ),
        // The layers (docs/ARCHITECTURE.md, "Module map"): each target names the targets it may import, so an import
        // across a layer the map does not draw is a build error. Declarations shared across targets are `package`.
        // Process plumbing: system calls, descriptors, signals, systemd; OpenSSL only for its global init.
        // Also what every layer above shares as text: hex, percent-encoding and redaction.
        .target(
            name: "AuthHandlerSystem",
            dependencies: ["COpenSSL", "CProcessShims"]
        ),
        // OpenSSL's primitives behind Swift types, Argon2id through libargon2, imported bcrypt hashes through libcrypt,
        // and `Secret`, the redacted value Config and Store both hold.
        .target(
            name: "AuthHandlerCrypto",
            dependencies: ["AuthHandlerSystem", "COpenSSL", "CArgon2", "CCrypt"]
        ),
        // The listener (libmicrohttpd), the outbound client (libcurl) and the request, form and JSON values.
        .target(
            name: "AuthHandlerHTTP",
            dependencies: ["AuthHandlerSystem", "CCurl", "CMicroHTTPD", "CHTTPShims"]
        ),
        // OAuth 1.0a, OAuth 2 and OpenID Connect as plain protocol code: no C import, no configuration, no flow.
        .target(
            name: "AuthHandlerProtocols",
            dependencies: ["AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerSystem"]
        ),
        // Used states and sealed results: memory, SQLite and Redis; and the PostgreSQL connection pool the accounts store
        // runs on.
        .target(
            name: "AuthHandlerStore",
            dependencies: [
                "AuthHandlerCrypto", "AuthHandlerSystem", "CSQLite", "CHiredis", "CSQLiteShims", "CPostgres",
            ]
        ),
        // The accounts backend (docs/ACCOUNTS.md): users, passwords, identities, sessions and ID tokens, their store
        // protocol and its SQLite engine, and the mail they send. It knows no sign-in flow and no configuration file.
        .target(
            name: "AuthHandlerAccounts",
            dependencies: [
                "AuthHandlerSystem", "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols", "AuthHandlerStore",
                "CIDN2",
            ]
        ),
        // Configuration, providers, the sign-in flow, backends, observability and the HTTP service.
        .target(
            name: "AuthHandlerCore",
            dependencies: [
                "AuthHandlerSystem", "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols", "AuthHandlerStore",
                "AuthHandlerAccounts",
            ],
            // The browser module served at /__/auth/client.js (HTTP-API.md §3.8), compiled into the binary as bytes:
            // nothing to install beside it, and the static release binary stays one file. The path is a symbolic
            // link to clients/js/auth-handler.js, so the repository holds the module once.
            resources: [.embedInCode("Service/BrowserClient/auth-handler.js")]
        ),
        // The fake identity provider `auth-handler fake-idp` serves; the product's targets never import it.
        .target(
            name: "FakeIdP",
            dependencies: ["AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols", "AuthHandlerCore"]
        ),
        // The client for apps (docs/CLIENTS.md): Foundation only, so it builds wherever Swift does; it shares no code
        // with the daemon, and the daemon none with it.
        .target(name: "AuthHandlerClient"),
        // The commands, the fake IdP's among them, over everything else. `login`, `token` and `logout` are a client of
        // a daemon's accounts (HTTP-API.md §1.9): they keep its session with `AuthHandlerClient`'s file store.
        .executableTarget(
            name: "auth-handler",
            dependencies: [
                "AuthHandlerSystem", "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols", "AuthHandlerStore",
                "AuthHandlerAccounts", "AuthHandlerCore", "FakeIdP", "CQREncode", "AuthHandlerClient",
            ],
            // The sample app page of `auth-handler demo` (HTTP-API.md §1.5), compiled in like the browser module: the
            // paths are symbolic links to clients/js/demo/.
            resources: [
                .embedInCode("Commands/DemoSamplePage/index.html"), .embedInCode("Commands/DemoSamplePage/app.js"),
                .embedInCode("Commands/DemoSamplePage/app.css"),
            ]
        ),
        .executableTarget(
            name: "auth-handler-bench",
            dependencies: [
                "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols", "AuthHandlerAccounts",
                "AuthHandlerCore",
            ],
            path: "bench/Sources/auth-handler-bench"
        ),
        .testTarget(
            name: "AuthHandlerTests",
            dependencies: [
                "AuthHandlerSystem", "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols", "AuthHandlerStore",
                "AuthHandlerAccounts", "AuthHandlerCore", "auth-handler", "TestSupport", "CProcessShims",
            ],
            // A Python helper the Swift tests run: an independent JWT check (PyJWT).
            exclude: ["Accounts/verify_id_token.py"]
        ),
        // What every test target shares: the test clock, the scripted HTTP fake, processes, Redis, PostgreSQL, an SMTP
        // server and loopback sockets.
        .target(
            name: "TestSupport",
            dependencies: ["AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerStore"],
            path: "Tests/TestSupport",
            // The real SMTP server (aiosmtpd) that `SMTPSink` runs, for the mail tests of every test target.
            exclude: ["smtp_sink.py"]
        ),
        // pidfd_getfd(2) for the systemd test, which asks the daemon's own sockets what they listen on.
        .target(name: "CTestShims", path: "Tests/CTestShims"),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "AuthHandlerSystem", "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols", "AuthHandlerStore",
                "AuthHandlerCore", "AuthHandlerClient", "TestSupport", "CTestShims",
            ],
            // The import test's second implementation of the imported hashes (Python: hashlib.scrypt, cryptography),
            // and the client refresh race's proxy that holds a request until the test lets it go.
            exclude: ["make_import_files.py", "hold_proxy.py"]
        ),
        .testTarget(
            name: "AuthHandlerClientTests",
            // The daemon's crypto and PKCE only to check the client's SHA-256 and challenge against them.
            dependencies: ["AuthHandlerClient", "AuthHandlerCrypto", "AuthHandlerProtocols"]
        ),
        .testTarget(
            name: "FakeIdPTests",
            dependencies: [
                "FakeIdP", "AuthHandlerSystem", "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols",
                "AuthHandlerStore", "AuthHandlerCore", "auth-handler", "TestSupport",
            ],
            exclude: ["python"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer targets (CONTRIBUTING.md "Fuzzing"): `make fuzz` builds them with AUTH_HANDLER_FUZZ=1, in a build
// directory of their own (.build/fuzz) and with `-sanitize=fuzzer,address`, which provides libFuzzer's driver; the
// everyday builds leave them out, so they cost those builds nothing.
if Context.environment["AUTH_HANDLER_FUZZ"] == "1" {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "fuzz/Sources/CLibFuzzer"),
        .executableTarget(
            name: "auth-handler-fuzz",
            dependencies: [
                "AuthHandlerSystem", "AuthHandlerCrypto", "AuthHandlerHTTP", "AuthHandlerProtocols",
                "AuthHandlerAccounts", "AuthHandlerCore", "CLibFuzzer",
            ],
            path: "fuzz/Sources/auth-handler-fuzz"
        ),
    ]
}
