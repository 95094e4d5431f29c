import AuthHandlerCrypto
import AuthHandlerSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes each message into a directory as an `.eml` file instead of sending it (`email.outbox`, for development;
/// docs/ACCOUNTS.md "E-mail addresses and mail").
///
/// A file is created 0600 with `O_EXCL | O_NOFOLLOW` under a hidden temporary name, written whole, then given its
/// final name by link(2), which never replaces an existing file, so a reader that lists `*.eml` only ever sees
/// complete messages. Names are `<unix time>-<kind>-<32 random hex digits>.eml`.
package struct OutboxMailer: Mailer {
    /// The directory; it must exist.
    package let directory: String
    private let now: WallClock

    /// Checks that `directory` is a directory this process can open; it is not created.
    package init(directory: String, now: @escaping WallClock = systemWallClock) throws(MailDeliveryError) {
        do {
            let opened = try FileDescriptor(opening: directory, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try opened.close()
        } catch {
            throw MailDeliveryError(.outbox(error))
        }
        self.directory = directory
        self.now = now
    }

    package func deliver(_ message: MailMessage) async throws(MailDeliveryError) {
        let unique: String
        do {
            unique = Hex.lowercase(try SecureRandom.bytes(16))
        } catch {
            throw MailDeliveryError(.random(error))
        }
        let seconds = Int(now().timeIntervalSince1970.rounded(.down))
        let name = "\(seconds)-\(message.kind.rawValue)-\(unique).eml"
        let temporary = directory + "/." + name + ".tmp"
        let final = directory + "/" + name
        do {
            let file = try FileDescriptor(
                opening: temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
            defer { try? SystemCall.unlink(temporary) }
            // The mode given to open(2) is narrowed by the umask; set it exactly.
            try file.setMode(0o600)
            try file.writeAll(message.data)
            try file.close()
            try SystemCall.link(temporary, to: final)
        } catch {
            throw MailDeliveryError(.outbox(error))
        }
    }
}
