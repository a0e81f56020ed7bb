import Foundation

/// A not-yet-existing escrow home path in the temporary folder, for one test.
///
/// The folder is not created here: `escrow init` creates it. Call `remove()` in a `defer`.
struct ScratchHome {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("escrow-cli-test-\(UUID().uuidString)", isDirectory: true)
    }

    var path: String { url.path }

    /// Deletes the folder and everything in it, if it exists.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `escrow --home <this home> <arguments>`.
    func escrow(_ arguments: String...) throws -> EscrowProcess.Outcome {
        try EscrowProcess.run(["--home", path] + arguments)
    }

    /// `escrow run --app … --purpose … --sql <sql> --compute <function> [--json]`.
    func run(sql: String, compute function: String, json: Bool = true, extra: [String] = []) throws -> EscrowProcess.Outcome {
        var arguments = ["--home", path, "run", "--app", "org.example.cli-tests", "--purpose", "End-to-end test",
                         "--sql", sql, "--compute", function]
        if json { arguments.append("--json") }
        return try EscrowProcess.run(arguments + extra)
    }
}
