import ArgumentParser
import EscrowStore

struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show the tables and columns access SQL can read.",
        discussion: "Example:\n  escrow schema"
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let home = try global.escrowHome()
            try home.requireInitialized()
            let database = try Database(path: home.dataDatabasePath, mode: .readOnly)
            for table in ["Contact", "Location", "Photos"] {
                // table_xinfo, not table_info: it includes generated columns (Photos.contentHash),
                // which access SQL reads like any other. Hidden 1 marks a virtual table's hidden column.
                let info = try database.prepare("SELECT name, type FROM pragma_table_xinfo(?) WHERE hidden != 1")
                try info.bind(.text(table), at: 1)
                var rows: [[String]] = []
                while try info.step() {
                    rows.append([info.string(0) ?? "", info.string(1) ?? ""])
                }
                print(table)
                print(TextTable.render(header: ["  COLUMN", "TYPE"], rows: rows.map { ["  " + $0[0], $0[1]] }))
            }
        }
    }
}
