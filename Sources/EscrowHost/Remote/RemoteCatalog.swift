import EscrowCore
import EscrowWire

/// A compute server's catalog as the host read it: the functions it offers, and the entries it
/// sent that cannot identify a function (kept with the reason, never dropped).
///
/// Thread safety: a value; safe to share.
struct RemoteCatalog: Sendable {
    /// The server's id in the registry.
    let server: String
    /// The functions the server offers, by id.
    let offered: [String: FunctionDescriptor]
    /// The entries that cannot be read, by the id they carry (empty when they carry none).
    let unreadable: [String: FunctionInfoDecodingError]

    /// The catalog the server `server` sent as `entries`. An entry that cannot be read is kept in
    /// `unreadable` unless another entry offers the same id readably.
    init(server: String, entries: [Escrow_V1_FunctionInfo]) {
        var offered: [String: FunctionDescriptor] = [:]
        var unreadable: [String: FunctionInfoDecodingError] = [:]
        for entry in entries {
            do throws(FunctionInfoDecodingError) {
                let descriptor = try FunctionDescriptor(entry)
                offered[descriptor.id] = descriptor
            } catch {
                unreadable[entry.id] = error
            }
        }
        self.server = server
        self.offered = offered
        self.unreadable = unreadable.filter { offered[$0.key] == nil }
    }

    /// Checks that the server offers `function` with exactly the approved code, before any data
    /// is sent.
    ///
    /// - Throws: `RemoteComputeError.unreadableCatalogEntry` when the server's entry for the
    ///   function cannot be read, `.functionNotOffered` when it has none, `.digestMismatch` when it
    ///   offers another version or code digest.
    func check(_ function: FunctionDescriptor) throws(RemoteComputeError) {
        guard let offered = offered[function.id] else {
            if let problem = unreadable[function.id] {
                throw .unreadableCatalogEntry(server: server, function: function.id, problem: problem)
            }
            throw .functionNotOffered(server: server, function: function.id)
        }
        guard offered.codeDigest == function.codeDigest, offered.version == function.version else {
            throw .digestMismatch(server: server, function: function.id,
                                  approved: function.codeDigest, offered: offered.codeDigest)
        }
    }
}
