import EscrowCore
import EscrowHost
import EscrowStore

enum ServerRendering {
    /// `[{"id", "addresses", "serverName", "addedAt"}, …]`.
    static func json(_ servers: [ServerRecord]) -> String {
        var writer = JSONWriter.forDisplay()
        writer.array(servers) { writer, server in
            writer.object { object in
                object.field("id", server.id)
                object.field("addresses") { writer in writer.array(server.addresses) { $0.string($1) } }
                object.field("serverName", server.serverName)
                object.field("addedAt", server.addedAt)
            }
        }
        return writer.text
    }

    /// What an address's state means at `now`: `working`, `skipped for 4 s more`, `failed; tried
    /// again on the next call`.
    static func stateWord(_ state: ServerAddressState, now: Double) -> String {
        if state.failures == 0 { return "working" }
        if state.isBackingOff(at: now), let retryAt = state.retryAt {
            return "skipped for \(Int((retryAt - now).rounded(.up))) s more"
        }
        return "failing; tried again on its next call"
    }

    /// The server's fields, then a table of its addresses.
    static func text(_ server: ServerRecord, states: [ServerAddressState], now: Double) -> String {
        var text = DisplayText.escaped("Compute server \(server.id)") + "\n"
        text += DisplayText.escaped("  Certificate name:  \(server.serverName)") + "\n"
        text += DisplayText.escaped("  Added:             \(server.addedAt)") + "\n\n"
        text += TextTable.render(header: ["ADDRESS", "STATE", "FAILURES IN A ROW", "LAST FAILURE (UTC)", "LAST ERROR"],
                                 rows: states.map { state in
                                     [state.address, stateWord(state, now: now), String(state.failures), state.failedAt ?? "-",
                                      state.lastError ?? "-"]
                                 })
        return text
    }

    /// `{"id", "addresses", "serverName", "addedAt", "states": [{"address", "state", "failures",
    /// "failedAt", "retryAt", "lastError"}]}`; `state` is `working`, `skipped` or `failing`.
    static func json(_ server: ServerRecord, states: [ServerAddressState], now: Double) -> String {
        var writer = JSONWriter.forDisplay()
        writer.object { object in
            object.field("id", server.id)
            object.field("addresses") { writer in writer.array(server.addresses) { $0.string($1) } }
            object.field("serverName", server.serverName)
            object.field("addedAt", server.addedAt)
            object.field("states") { writer in
                writer.array(states) { writer, state in
                    writer.object { object in
                        object.field("address", state.address)
                        object.field("state", state.failures == 0 ? "working" : state.isBackingOff(at: now) ? "skipped" : "failing")
                        object.field("failures", int: state.failures)
                        object.field("failedAt", state.failedAt)
                        object.field("retryAt", state.retryAt.map { Timestamp.format(secondsSince1970: $0) })
                        object.field("lastError", state.lastError)
                    }
                }
            }
        }
        return writer.text
    }
}

extension GlobalOptions {
    /// The server registry of the escrow home, without opening the data database.
    func serverRegistry() throws -> ServerRegistry {
        ServerRegistry(state: try StateDatabase(home: try escrowHome()))
    }
}
