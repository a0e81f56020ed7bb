import ArgumentParser
import EscrowCore
import EscrowHost

struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Allow a dataflow to run: always (the default), once, or until a date; and how precisely it sees your location.",
        discussion: """
            DATE is an ISO 8601 date-time (2026-12-31T18:00:00Z) or a date alone,
            which means until the end of that day, UTC. Give at most one of --once,
            --always and --until; with none of them, a dataflow approved already
            keeps its approval (to change only its location accuracy).

            ACCURACY is how precisely a dataflow that reads your location sees it:
            exact, a radius from 100m to 100km (a point that far from you at most,
            never nearer than a minimum; the same point while you stay in a place),
            city, region or country (their centre). The dataflow gets the coarser
            of this and what the app asked for. Without it, an earlier choice
            stays; if you never chose, the app's ask applies, else exact.

            Example:
              escrow approve 1a2b3c4d
              escrow approve 1a2b3c4d --once
              escrow approve 1a2b3c4d --until 2026-12-31
              escrow approve 1a2b3c4d --location-accuracy city
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The dataflow's id (or an unambiguous prefix).")
    var flow: String

    @Flag(help: "For the next run only.")
    var once = false

    @Flag(help: "Until you revoke it (the default).")
    var always = false

    @Option(help: ArgumentHelp("Until this date or date-time.", valueName: "DATE"))
    var until: String?

    @Option(help: ArgumentHelp("How precisely it sees your location: exact, city, region, country, or a radius such as 500m or 2km.",
                               valueName: "ACCURACY"))
    var locationAccuracy: String?

    func validate() throws {
        if [once, always, until != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--once, --always and --until exclude each other; give one of them")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let approval: Approval?
            if once {
                approval = .once
            } else if let until {
                approval = .until(try DateArgument.end(until, option: "--until"))
            } else {
                approval = always ? .always : nil
            }
            let accuracy = try locationAccuracy.map { text throws(LocationAccuracyError) in try LocationAccuracy(parsing: text) }
            let store = FlowStore(state: try global.stateDatabase())
            let before = try store.flow(flow)
            let record = try store.approve(flow, approval, accuracy: accuracy)
            let kept = approval == nil && before.status == .approved
            let implied = approval == nil && !kept
            let applied = record.approval ?? .always
            print("approved \(record.id): \(PlainWords.approval(applied))\(kept ? " (as before)" : implied ? " (the default; see --once, --until)" : "")")
            if record.readsLocation {
                print("location: the app gets \(record.locationAccuracy.plainWords) (\(record.locationAccuracy))\(PlainWords.accuracyNote(record))")
            } else if accuracy != nil {
                print("note: dataflow \(record.id) does not read your location; the accuracy is kept but changes nothing")
            }
        }
    }
}
