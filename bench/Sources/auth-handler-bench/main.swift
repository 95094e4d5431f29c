import AuthHandler
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

let arguments = CommandLine.arguments.dropFirst()

// `serve-302`: the HTTP listener alone answering a static redirect, for wrk (bench/listener.sh).
if arguments.first == "serve-302" {
    let server = try HTTPServer(listeningOn: ["127.0.0.1:0"]) { _ in
        ServerResponse.redirect(to: "https://idp.example/authorize?client_id=bench")
    }
    // Unbuffered, so that the script waiting for this line sees it at once.
    FileHandle.standardOutput.write(Data("listening on \(server.addresses[0])\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
}

let seconds = arguments.first.flatMap(Double.init) ?? 2.0

// Twitter's "Creating a signature" request: the same one bench/oauthlib_sign.py signs.
let signer = OAuth1Signer(
    consumerKey: "xvz1evFS4wEEPTGEFPHBog", consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw")
let body = [URLFormField(name: "status", value: "Hello Ladies + Gentlemen, a signed OAuth request!")]
var sink = 0
let signatures = try measure(seconds: seconds) {
    let header = try signer.authorizationHeader(
        method: "POST", url: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
        parameters: body, token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
        tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE")
    sink &+= header.value.utf8.count
}
print("oauth1-sign \(Int(signatures)) signatures/s")

// HMAC-SHA1 over 256-byte messages, as `openssl speed -hmac sha1 -bytes 256` measures it.
let key = [UInt8](repeating: 0x4b, count: 20)
let message = [UInt8](repeating: 0x61, count: 256)
let macs = try measure(seconds: seconds, batch: 10_000) {
    sink &+= Int(try HMAC.sha1(key: key, message: message)[0])
}
print("hmac-sha1-256 \(Int(macs * 256 / 1000)) kB/s")
if sink == 42 { print("") }
