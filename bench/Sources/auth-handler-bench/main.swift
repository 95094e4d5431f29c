import AuthHandlerCore
import AuthHandlerCrypto
import AuthHandlerHTTP
import AuthHandlerProtocols
import Foundation

/// Micro-benchmarks of auth-handler's hot paths. Each prints one line `name value unit`; `bench/run`
/// measures the reference (Python oauthlib, raw OpenSSL) in the same run and writes the ratios.

/// Runs `body` in batches until `seconds` have passed; returns operations per second.
func measure(seconds: Double, batch: Int = 1000, _ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(seconds * 1e9)
    var count = 0
    var now = start
    repeat {
        for _ in 0..<batch { try body() }
        count += batch
        now = DispatchTime.now().uptimeNanoseconds
    } while now < deadline
    return Double(count) / (Double(now - start) / 1e9)
}

/// This thread's CPU time in seconds (clock_gettime(2), `CLOCK_THREAD_CPUTIME_ID`): what `openssl speed` and the
/// `argon2` command divide by, so that neighbours on a shared machine do not skew a ratio.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// `measure` for async work.
func measureAsync(seconds: Double, batch: Int, _ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(seconds * 1e9)
    var count = 0
    var now = start
    repeat {
        for _ in 0..<batch { try await body() }
        count += batch
        now = DispatchTime.now().uptimeNanoseconds
    } while now < deadline
    return Double(count) / (Double(now - start) / 1e9)
}

/// Serves one JSON document at one URL, standing in for the IdP's JWKS endpoint.
struct StaticDocument: HTTPFetching {
    let url: String
    let document: JSONValue

    func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        guard request.url == url else { return OutboundResponse(status: 404) }
        return OutboundResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: document.serialized)
    }
}

let arguments = CommandLine.arguments.dropFirst()

// `serve-302`: the HTTP listener alone answering a static redirect, for wrk (bench/listener.sh).
// `serve-302 [--pool BYTES] [--immediate]`: with libmicrohttpd's pool set to BYTES, and answering on the MHD thread
// (HTTPServerImmediateHandler) instead of in a task, for the listener comparison in BENCHMARKS.md.
if arguments.first == "serve-302" {
    let redirect = ServerResponse.redirect(to: "https://idp.example/authorize?client_id=bench")
    var configuration = HTTPServerConfiguration()
    var immediate: HTTPServerImmediateHandler?
    var options = arguments.dropFirst().makeIterator()
    while let option = options.next() {
        switch option {
        case "--pool": configuration.connectionMemoryBytes = options.next().flatMap { Int($0) }
        case "--immediate": immediate = { _ in redirect }
        default:
            FileHandle.standardError.write(Data("serve-302: unknown option \(option)\n".utf8))
            exit(2)
        }
    }
    let server = try HTTPServer(listeningOn: ["127.0.0.1:0"], configuration: configuration, immediate: immediate) { _ in
        redirect
    }
    // Unbuffered, so that the script waiting for this line sees it at once.
    FileHandle.standardOutput.write(Data("listening on \(server.addresses[0])\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
}

// `idle`: a Foundation program doing nothing, the reference for the daemon's idle footprint (bench/footprint.py).
if arguments.first == "idle" {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
}

// `signin START_URL REDIRECT_URL …`: the compiled complete-sign-in driver (bench/signin.sh).
if arguments.first == "signin" {
    try await SignInDriver.run(Array(arguments.dropFirst()))
    exit(0)
}

// `idtoken [SECONDS]`: whole accounts ID tokens signed and verified (IDTokenBench), for bench/idtoken.sh.
if arguments.first == "idtoken" {
    try IDTokenBench.run(Array(arguments.dropFirst()))
    exit(0)
}

// `argon2 [COUNT]`: argon2id hashes at OWASP's first parameters, one at a time (AccountsBench), for bench/accounts.sh.
if arguments.first == "argon2" {
    try AccountsBench.argon2(Array(arguments.dropFirst()))
    exit(0)
}

// `accounts BASE_URL refresh|signin …`: refresh grants or password sign-ins against the daemon (AccountsLoadDriver).
if arguments.first == "accounts" {
    try await AccountsLoadDriver.run(Array(arguments.dropFirst()))
    exit(0)
}

// `pacing [SECONDS]`: a device poll's pacing with an empty and with a full table (PacingBench).
if arguments.first == "pacing" {
    PacingBench.run(Array(arguments.dropFirst()))
    exit(0)
}

// Twitter's "Creating a signature" request: the same one bench/oauthlib_sign.py signs.
let signer = OAuth1Signer(
    consumerKey: "xvz1evFS4wEEPTGEFPHBog", consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw")
let body = [URLFormField(name: "status", value: "Hello Ladies + Gentlemen, a signed OAuth request!")]
var sink = 0

/// Signs the example request once; returns the header's length, for the caller to keep so that nothing
/// is optimised away.
func signExample() throws -> Int {
    let header = try signer.authorizationHeader(
        method: "POST", url: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
        parameters: body, token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
        tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE")
    return header.value.utf8.count
}

// `sign N`: only the OAuth 1.0a signing, N times, for a profiler (`valgrind --tool=callgrind`).
if arguments.first == "sign" {
    let count = arguments.dropFirst().first.flatMap(Int.init) ?? 10_000
    for _ in 0..<count { sink &+= try signExample() }
    print("signed \(count), \(sink) header bytes")
    exit(0)
}

let seconds = arguments.first.flatMap(Double.init) ?? 2.0
let signatures = try measure(seconds: seconds) { sink &+= try signExample() }
print("oauth1-sign \(Int(signatures)) signatures/s")

// HMAC-SHA1 over 256-byte messages, as `openssl speed -hmac sha1 -bytes 256` measures it.
let key = [UInt8](repeating: 0x4b, count: 20)
let message = [UInt8](repeating: 0x61, count: 256)
let macs = try measure(seconds: seconds, batch: 10_000) {
    sink &+= Int(try HMAC.sha1(key: key, message: message)[0])
}
print("hmac-sha1-256 \(Int(macs * 256 / 1000)) kB/s")

// RS256 ID-token validation (parse, header checks, signature, claims) against a cached JWKS, as
// `openssl speed rsa2048` measures bare RSA-2048 verifications.
let idTokenKey = try SigningKey.generate(.rs256, keyID: "bench")
let jwksURI = "https://idp.example/jwks"
let jwks = JSONValue.object([
    "keys": .array([idTokenKey.publicKey.jwk.json])
])
let validator = IDTokenValidator(keys: JWKSCache(http: StaticDocument(url: jwksURI, document: jwks)))
let issuedAt = Date().timeIntervalSince1970
let claims: JSONValue = .object([
    "iss": .string("https://idp.example"), "sub": .string("1001"), "aud": .string("client"),
    "exp": .number(issuedAt + 3600), "iat": .number(issuedAt), "nonce": .string("n-0S6_WzA2Mj"),
])
let idToken = try CompactJWS.sign(
    header: JOSEHeader(alg: "RS256", kid: "bench"), payload: claims.serialized(sortingKeys: true), key: idTokenKey)
let expectations = IDTokenExpectations(
    issuer: "https://idp.example", clientID: "client", nonce: "n-0S6_WzA2Mj", jwksURI: jwksURI, now: Date())
let validations = try await measureAsync(seconds: seconds, batch: 500) {
    sink &+= try await validator.validate(idToken, expecting: expectations).sub.count
}
print("id-token-validate \(Int(validations)) validations/s")
if sink == 42 { print("") }
