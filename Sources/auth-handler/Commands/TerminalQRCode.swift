import CQREncode
import Foundation

/// A QR code of a URL, drawn with Unicode half blocks for a terminal (`login` shows `verification_uri_complete`
/// this way, HTTP-API.md §1.7, so a phone's camera opens it). Encoded by libqrencode (qrencode(3)).
struct TerminalQRCode: Sendable, Equatable {
    /// The modules, row by row; true is dark.
    let modules: [[Bool]]

    /// The light border around the symbol, in modules (ISO/IEC 18004 §7.3.7 asks for 4).
    static let quietZone = 4

    /// Encodes `text` at error-correction level L (the smallest symbol: a terminal is not a damaged label); nil when
    /// libqrencode cannot (a text too long for any symbol).
    init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        // qrencode(3): one byte per module, row-major; its lowest bit is 1 for a dark module.
        modules = (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
    }

    /// The side of the symbol in modules, without the quiet zone (21 for version 1, 4 more per version).
    var width: Int { modules.count }

    /// The symbol with its quiet zone, two rows of modules per line: black on white forced by ANSI colours (SGR 30,
    /// 47), whatever the terminal's own colours, since a scanner wants dark modules on light.
    func rendered() -> String {
        let side = width + 2 * Self.quietZone
        func dark(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - Self.quietZone, column - Self.quietZone)
            guard r >= 0, r < width, c >= 0, c < width else { return false }
            return modules[r][c]
        }
        var lines: [String] = []
        for row in stride(from: 0, to: side, by: 2) {
            var line = "\u{1B}[30;47m"
            for column in 0..<side {
                switch (dark(row, column), dark(row + 1, column)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
