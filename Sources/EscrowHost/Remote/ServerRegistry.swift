import EscrowCore
import EscrowStore
import Foundation

/// A compute server the individual registered: where it is and how to recognise it.
public struct ServerRecord: Sendable, Hashable {
    public let id: String
    /// `host:port`: one is enough; with several, each host starts at its own place in the list
    /// (so hosts spread over them) and skips an address that failed for a back-off period.
    public let addresses: [String]
    /// The CA the server's certificate must chain to (a copy kept in the escrow home).
    public let caFile: String
    /// The name the server's certificate must carry.
    public let serverName: String
    public let addedAt: String
}

/// A server registration that cannot be made or used.
public enum ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownServer(String)
    case alreadyRegistered(String)
    case invalidAddress(String)
    case invalidServerID(String)
    case noAddress
    case unreadableFile(String)
    case missingClientCertificate(String)
    case serverNameNeeded(String)

    public var description: String {
        switch self {
        case .unknownServer(let id):
            "unknown compute server '\(id)'"
        case .alreadyRegistered(let id):
            "a compute server '\(id)' is already registered"
        case .invalidAddress(let address):
            "'\(address)' is not HOST:PORT"
        case .invalidServerID(let id):
            "'\(id)' cannot be a server id; use letters, digits, '-', '_' or '.'"
        case .noAddress:
            "no address given"
        case .unreadableFile(let path):
            "cannot read \(path)"
        case .serverNameNeeded(let address):
            "\(address) is an IP address; the escrow checks the server by the DNS name in its certificate, which is needed"
        case .missingClientCertificate(let folder):
            "this escrow has no client certificate in \(folder)"
        }
    }
}

/// The registered compute servers, in the escrow's own database, and the host's client
/// certificate in `<home>/tls/`.
public struct ServerRegistry: Sendable {
    public let state: StateDatabase

    public init(state: StateDatabase) {
        self.state = state
    }

    /// Where the host keeps its TLS files.
    public var tlsFolder: URL { state.home.url.appendingPathComponent("tls", isDirectory: true) }
    public var clientCertificate: String { tlsFolder.appendingPathComponent("client.pem").path }
    public var clientKey: String { tlsFolder.appendingPathComponent("client-key.pem").path }

    /// Registers a server. The CA file (and, when given, the host's client certificate and key)
    /// are copied into the escrow home, so the home stays self-contained.
    @discardableResult
    public func add(id: String, addresses: [String], caFile: String, serverName: String?,
                    clientCertificate: String? = nil, clientKey: String? = nil) throws -> ServerRecord {
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw ServerError.invalidServerID(id)
        }
        guard !addresses.isEmpty else { throw ServerError.noAddress }
        for address in addresses { _ = try Self.split(address) }
        let manager = FileManager.default
        try manager.createDirectory(at: tlsFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if let clientCertificate, let clientKey {
            try Self.install(clientCertificate, at: self.clientCertificate)
            try Self.install(clientKey, at: self.clientKey)
        }
        guard manager.fileExists(atPath: self.clientCertificate), manager.fileExists(atPath: self.clientKey) else {
            throw ServerError.missingClientCertificate(tlsFolder.path)
        }
        let caCopy = tlsFolder.appendingPathComponent("server-\(id)-ca.pem").path
        let firstHost = try Self.split(addresses[0]).host
        guard let name = serverName ?? (HostAddress.isIPLiteral(firstHost) ? nil : firstHost) else {
            throw ServerError.serverNameNeeded(firstHost)
        }
        return try state.write { database in
            let existing = try database.prepare("SELECT 1 FROM Server WHERE id = ?")
            try existing.bind(.text(id), at: 1)
            if try existing.step() { throw ServerError.alreadyRegistered(id) }
            try Self.install(caFile, at: caCopy)
            let record = ServerRecord(id: id, addresses: addresses, caFile: caCopy, serverName: name,
                                      addedAt: state.clock.now().text)
            // Stored relative to the home, so a moved or restored home keeps reaching its servers.
            let storedCA = "tls/" + URL(fileURLWithPath: caCopy).lastPathComponent
            try database.prepare("INSERT INTO Server (id, addresses, caFile, serverName, addedAt) VALUES (?, ?, ?, ?, ?)")
                .run([.text(record.id), .text(JSONStrings.encode(addresses)), .text(storedCA), .text(record.serverName),
                      .text(record.addedAt)])
            return record
        }
    }

    /// Removes a server (flows approved for it stay, and are refused as unknown server).
    public func remove(_ id: String) throws {
        try state.write { database in
            try database.prepare("DELETE FROM Server WHERE id = ?").run([.text(id)])
            guard database.changes == 1 else { throw ServerError.unknownServer(id) }
            try database.prepare("DELETE FROM ServerAddressState WHERE serverId = ?").run([.text(id)])
        }
        try? FileManager.default.removeItem(atPath: tlsFolder.appendingPathComponent("server-\(id)-ca.pem").path)
    }

    /// Every registered server, by id.
    public func list() throws -> [ServerRecord] {
        try state.read { database in
            let query = try database.prepare("SELECT id, addresses, caFile, serverName, addedAt FROM Server ORDER BY id")
            var records: [ServerRecord] = []
            while try query.step() { records.append(try record(query)) }
            return records
        }
    }

    /// The server registered as `id`.
    public func server(_ id: String) throws -> ServerRecord {
        try state.read { database in
            let query = try database.cached("SELECT id, addresses, caFile, serverName, addedAt FROM Server WHERE id = ?")
            defer { query.reset() }
            try query.bind(.text(id), at: 1)
            guard try query.step() else { throw ServerError.unknownServer(id) }
            return try record(query)
        }
    }

    /// A row as a record, its CA file resolved in this home. Homes registered before paths were
    /// stored relative hold an absolute path into their own `tls/` folder at the time: the same
    /// file name in this home's `tls/` folder.
    ///
    /// - Throws: `StoreError.unreadableValue` when its stored addresses cannot be read back.
    private func record(_ row: Statement) throws(StoreError) -> ServerRecord {
        let id = row.string(0) ?? ""
        let stored = row.string(2) ?? ""
        let caFile = stored.hasPrefix("/")
            ? tlsFolder.appendingPathComponent(URL(fileURLWithPath: stored).lastPathComponent).path
            : state.home.url.appendingPathComponent(stored).path
        let addresses = try JSONStrings.decode(row.string(1), table: "compute server", record: id, column: "addresses")
        return ServerRecord(id: id, addresses: addresses, caFile: caFile,
                            serverName: row.string(3) ?? "", addedAt: row.string(4) ?? "")
    }

    /// `host:port` (or `[v6]:port`) split in two.
    static func split(_ address: String) throws(ServerError) -> (host: String, port: Int) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (1...65535).contains(port) else { throw .invalidAddress(address) }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .invalidAddress(address) }
        return (host, port)
    }

    private static func install(_ source: String, at destination: String) throws {
        guard let data = FileManager.default.contents(atPath: source) else { throw ServerError.unreadableFile(source) }
        try data.write(to: URL(fileURLWithPath: destination), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination)
    }
}
