import EscrowHost
import Foundation

/// Colour for human output: only when standard output is a terminal and `NO_COLOR` is not set
/// (https://no-color.org).
struct Palette: Sendable {
    let enabled: Bool

    enum Colour: String {
        case green = "32", yellow = "33", red = "31", bold = "1"
    }

    /// The palette for standard output.
    static let standardOutput = Palette(
        enabled: Terminal.standardOutput.isTerminal
            && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    )

    func paint(_ text: String, _ colour: Colour?) -> String {
        guard enabled, let colour else { return text }
        return "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m"
    }

    /// approved green, pending yellow, denied and revoked red.
    func paint(_ text: String, status: FlowStatus) -> String {
        switch status {
        case .approved: paint(text, .green)
        case .pending: paint(text, .yellow)
        case .denied, .revoked: paint(text, .red)
        }
    }

    /// ok green, pending yellow, denied, revoked and failed red.
    func paint(_ text: String, outcome: AuditOutcome) -> String {
        switch outcome {
        case .ok: paint(text, .green)
        case .pending: paint(text, .yellow)
        case .denied, .revoked, .failed: paint(text, .red)
        }
    }
}
