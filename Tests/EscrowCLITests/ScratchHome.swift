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
    func escrow(_ arguments: String...) async throws -> EscrowProcess.Outcome {
        try await EscrowProcess.run(["--home", path] + arguments)
    }

    /// `escrow run --app <app> --purpose <purpose> --sql <sql> --compute <function> [--json]`.
    func run(sql: String, compute function: String, json: Bool = true, extra: [String] = [],
             app: String = "org.example.cli-tests", purpose: String = "End-to-end test") async throws -> EscrowProcess.Outcome {
        var arguments = ["--home", path, "run", "--app", app, "--purpose", purpose, "--sql", sql, "--compute", function]
        if json { arguments.append("--json") }
        return try await EscrowProcess.run(arguments + extra)
    }

    /// Runs a new dataflow the way an individual meets it: the first run must stop with exit
    /// status 2 (awaiting approval) naming the flow; the flow is approved with `escrow approve`,
    /// and the run is repeated. Returns the second run's outcome.
    ///
    /// - Throws: `NotPending` when the first run did not stop for approval, or approving failed.
    func runApproved(sql: String, compute function: String, json: Bool = true, extra: [String] = [],
                     app: String = "org.example.cli-tests", purpose: String = "End-to-end test") async throws -> EscrowProcess.Outcome {
        let first = try await run(sql: sql, compute: function, json: json, extra: extra, app: app, purpose: purpose)
        guard first.status == 2, let flow = first.pendingFlow else { throw NotPending(outcome: first) }
        let approved = try await escrow("approve", flow)
        guard approved.succeeded else { throw NotPending(outcome: approved) }
        return try await run(sql: sql, compute: function, json: json, extra: extra, app: app, purpose: purpose)
    }

    struct NotPending: Error, CustomStringConvertible {
        let outcome: EscrowProcess.Outcome
        var description: String { "expected a run awaiting approval, then an approval: \(outcome)" }
    }
}

extension EscrowProcess.Outcome {
    /// The flow id in `dataflow XXXXXXXX is awaiting approval` on standard error.
    var pendingFlow: String? {
        standardError.firstMatch(of: /dataflow ([0-9a-f]{8,}) is awaiting approval/).map { String($0.output.1) }
    }

    /// Standard output parsed as a JSON array of objects.
    var jsonArray: [[String: Any]]? {
        (try? JSONSerialization.jsonObject(with: Data(standardOutput.utf8))) as? [[String: Any]]
    }

    /// Standard output parsed as a JSON object.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(standardOutput.utf8))) as? [String: Any]
    }
}
