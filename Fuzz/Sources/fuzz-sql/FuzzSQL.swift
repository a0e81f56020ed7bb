import EscrowCore
@_spi(Fuzzing) import EscrowHost
import FuzzSupport

/// The access-SQL normalizer behind flow identity (`SQLText.normalized`): never traps; normalizing
/// is idempotent (a normalized text is its own normal form, so a flow stored under it is found
/// again). The layout `escrow flows show` prints (`SQLDisplay.lines`) never holds a character that
/// would act on a terminal, and escaping any text (`DisplayText.escaped`) leaves none.
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
        for line in SQLDisplay.lines(sql) {
            require(!DisplayText.needsEscaping(line), "a displayed line acts on the terminal: \(line.debugDescription)")
        }
        require(!DisplayText.needsEscaping(DisplayText.escaped(sql)), "escaping left something: \(sql.debugDescription)")
        _ = try? RequestText.checkSQL(sql)
    }
}
