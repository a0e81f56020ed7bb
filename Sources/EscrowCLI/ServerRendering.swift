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
}

extension GlobalOptions {
    /// The server registry of the escrow home, without opening the data database.
    func serverRegistry() throws -> ServerRegistry {
        ServerRegistry(state: try StateDatabase(home: try escrowHome()))
    }
}
