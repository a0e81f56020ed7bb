import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing to the terminal's streams.
struct Terminal: Sendable {
    let fileDescriptor: Int32

    static let standardOutput = Terminal(fileDescriptor: 1)
    static let standardError = Terminal(fileDescriptor: 2)

    /// Whether the stream is a terminal (for progress lines and colour).
    var isTerminal: Bool { isatty(fileDescriptor) == 1 }

    func write(_ text: String) {
        let handle = fileDescriptor == 2 ? FileHandle.standardError : FileHandle.standardOutput
        handle.write(Data(text.utf8))
    }
}
