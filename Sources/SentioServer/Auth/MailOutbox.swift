import Foundation
import SentioData

/// The server sends no mail itself: each message is an RFC 5322 file (`.eml`) in a directory that a mail transfer
/// agent or an operator picks up.
///
/// One file per message, named `YYYYMMDDTHHMMSSZ-RANDOM.eml`, written atomically (SentioData's
/// `OutputTransaction`: a temporary file in the same directory renamed over the target), so a reader never sees
/// half a message. Lines end in CRLF; the body is UTF-8 plain text (`Content-Transfer-Encoding: 8bit`); the
/// headers are `Date` (RFC 5322 §3.3), `From`, `To`, `Subject`, `Message-ID`, `MIME-Version`, `Content-Type`.
public struct MailOutbox: Sendable {
    public let directory: String
    public let from: String

    public init(directory: String, from: String = "OneLPM Portal <no-reply@localhost>") {
        self.directory = directory
        self.from = from
    }

    /// The message's text (CRLF line ends).
    public static func message(from: String, to: String, subject: String, body: String, date: Date, id: String) -> String {
        var lines = [
            "Date: \(rfc5322Date(date))", "From: \(from)", "To: <\(to)>", "Subject: \(subject)",
            "Message-ID: <\(id)@sentio>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit", "",
        ]
        lines += body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return lines.joined(separator: "\r\n") + (body.hasSuffix("\n") ? "" : "\r\n")
    }

    /// `Fri, 27 Nov 2026 18:30:00 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    /// Writes one message; returns its path.
    @discardableResult
    public func send(to: String, subject: String, body: String, date: Date) throws -> String {
        let id = String(SecretToken.hash(SecretToken.generate()).prefix(16))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let path = URL(fileURLWithPath: directory).appendingPathComponent("\(formatter.string(from: date))-\(id).eml").path
        let transaction = OutputTransaction()
        try transaction.stage(path, text: Self.message(from: from, to: to, subject: subject, body: body, date: date, id: id))
        try transaction.commit()
        return path
    }
}
