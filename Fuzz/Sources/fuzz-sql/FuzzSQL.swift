@_spi(Fuzzing) import EscrowHost
import FuzzSupport

/// The access-SQL normalizer behind flow identity (`SQLText.normalized`): never traps; normalizing
/// is idempotent (a normalized text is its own normal form, so a flow stored under it is found
/// again).
@main
enum FuzzSQL {
    static func main() {
        runFuzzer { data, size in
            FuzzSQL.check(fuzzInput(data, size))
            return 0
        }
    }

    static func check(_ input: [UInt8]) {
        let sql = String(decoding: input, as: UTF8.self)
        let once = SQLText.normalized(sql)
        let twice = SQLText.normalized(once)
        require(twice == once, "normalizing twice differs:\n  once:  \(once.debugDescription)\n  twice: \(twice.debugDescription)")
    }
}
