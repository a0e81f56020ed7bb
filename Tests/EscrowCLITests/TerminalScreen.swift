import EscrowTestSupport
import Foundation

/// A real terminal emulator (tmux, Debian package `tmux`) that runs one command and shows what a
/// person would see on the screen: escape sequences and carriage returns have acted, and only
/// the characters left on the screen are read back (`capture-pane`).
///
/// Each screen has a tmux server of its own (`-L`), killed when the capture is done.
enum TerminalScreen {
    /// Whether tmux is installed (the tests that need it are skipped otherwise).
    static let isAvailable: Bool = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    /// Runs `arguments` in a new 200×120 tmux window and returns the screen once `marker` shows
    /// on it (or after 30 s), one string per row with trailing blanks removed.
    ///
    /// The whole exchange with tmux runs in one shell: a tmux server started by one
    /// Foundation-spawned client was not reachable from the next one here.
    static func capture(_ arguments: [String], until marker: String) async throws -> [String] {
        let server = "escrow-test-\(UUID().uuidString.prefix(8))"
        let command = arguments.map(shellQuoted).joined(separator: " ") + "; sleep 60"
        let script = """
            tmux -L "$1" -f /dev/null new-session -d -x 200 -y 120 "$2" || exit 4
            i=0
            while [ $i -lt 300 ]; do
              screen=$(tmux -L "$1" capture-pane -p -t 0) || break
              case "$screen" in *"$3"*) printf '%s\\n' "$screen"; tmux -L "$1" kill-server; exit 0;; esac
              sleep 0.1
              i=$((i + 1))
            done
            printf '%s\\n' "$screen"
            tmux -L "$1" kill-server
            exit 3
            """
        let outcome = try await ChildProcess.runOffPool(URL(fileURLWithPath: "/bin/sh"),
                                                        ["-c", script, "sh", server, command, marker])
        let screen = outcome.output.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop(while: { $0 == " " }).reversed())
        }
        guard outcome.status == 0 else {
            throw Failed(reason: "\(marker) never showed (status \(outcome.status), \(outcome.errors)); the screen:\n"
                + screen.joined(separator: "\n"))
        }
        return screen
    }

    private static func shellQuoted(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    struct Failed: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
