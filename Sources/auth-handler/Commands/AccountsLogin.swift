import AuthHandlerClient
import AuthHandlerHTTP
import Foundation

/// How `login` ends when the server's backend is its own accounts (HTTP-API.md §1.7): the result's `signIn` holds a
/// `refreshToken` and a `localId` (§3.10, "A signed-in answer"). The session goes to the session file, and the JSON
/// printed is the result without `signIn.refreshToken`: a refresh token on stdout ends up in terminal scrollback,
/// shell logs and CI output, where a copy outlives the session file's 0600 (the OWASP Logging Cheat Sheet's "Data to
/// exclude": access tokens, session identifiers); `auth-handler token` hands out ID tokens instead.
enum AccountsLogin {
    typealias Failure = CommandFailure

    /// The bytes `login` writes for `answer` (the device poll's result, §3.3): `answer` itself unless it is an
    /// accounts sign-in, which is first saved (under the session file's lock) and then shown without its refresh
    /// token, with one stderr line saying where the session is kept.
    static func keep(_ answer: [UInt8], server: String, options: LoginOptions, context: CommandContext)
        async throws(Failure) -> [UInt8]
    {
        guard var result = JSONValue.parse(answer)?.objectValue, var signIn = result["signIn"]?.objectValue,
            let refreshToken = signIn["refreshToken"]?.stringValue, let localID = signIn["localId"]?.stringValue
        else { return answer }
        guard let idToken = signIn["idToken"]?.stringValue else {
            throw Failure(.providerError, "\(server) answered an accounts sign-in without its idToken")
        }
        let file = try SessionFile.resolve(
            option: options.sessionPath, server: server, environment: context.environment)
        try await file.withLock { () throws(Failure) in
            do throws(AuthHandlerClientError) {
                try file.store.save(AccountSession(refreshToken: refreshToken, idToken: idToken))
            } catch {
                throw Failure(.providerError, "signed in, but the session cannot be kept: \(error.message)")
            }
        }
        signIn["refreshToken"] = nil
        result["signIn"] = .object(signIn)
        let named = options.sessionPath.map { " --session-file \($0)" } ?? ""
        context.output.writeError(
            "Signed in to \(server) as \(localID); the session is kept in \(file.path).\n"
                + "'auth-handler token --server \(server)\(named)' prints a fresh ID token.\n")
        return JSONValue.object(result).serialized(sortingKeys: true)
    }
}
