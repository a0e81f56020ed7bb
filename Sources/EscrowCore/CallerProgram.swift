/// The program an app's process runs: its executable's path and the SHA-256 of its bytes, read
/// by the daemon from the process at the other end of the socket (`/proc/PID/exe`,
/// `CallerProgram.of(pid:)` in EscrowDaemon).
///
/// The daemon cannot verify the app id an app declares; it can tell which program asks. A
/// decision is bound to the program's path (another program claiming the same app id asks for a
/// new flow) and to its digest (an update of the program at that path turns an approval back to
/// pending, saying so). See docs/AUDIT.md, "Who is asking".
public struct CallerProgram: Sendable, Hashable, CustomStringConvertible {
    /// The executable's absolute path (Linux appends ` (deleted)` when the file was replaced or
    /// removed after the process started).
    public let path: String
    /// SHA-256 (hex) of the executable the process runs (read through `/proc/PID/exe`, so it is
    /// the running file even when the path now names another).
    public let sha256: String

    public init(path: String, sha256: String) {
        self.path = path
        self.sha256 = sha256
    }

    /// `PATH (SHA-256 HEX)`.
    public var description: String { "\(path) (SHA-256 \(sha256))" }
}
