import ArgumentParser
import EscrowCore
import EscrowHost

struct ServersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "servers",
        abstract: "The compute servers this escrow may send data to for remote compute().",
        discussion: """
            A dataflow approved for a server runs there only while the server's catalog
            offers exactly the approved code (by digest). Without a subcommand, lists them.

            Example:
              escrow servers add compute-1 --address 10.0.0.5:7443 --ca ca.pem \\
                --client-cert client.pem --client-key client-key.pem
              escrow servers
            """,
        subcommands: [ServersListCommand.self, ServersAddCommand.self, ServersShowCommand.self, ServersRemoveCommand.self],
        defaultSubcommand: ServersListCommand.self
    )
}

struct ServersAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Register a compute server.",
        discussion: """
            The CA file and the host's client certificate and key are copied into the
            escrow home (tls/, mode 0600). The client certificate is needed once; later
            servers reuse it.

            Example:
              escrow servers add compute-1 --address 127.0.0.1:7443 --ca ca.pem \\
                --server-name compute-1 --client-cert client.pem --client-key client-key.pem
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The server id apps name with --server.")
    var id: String

    @Option(help: ArgumentHelp("HOST:PORT of the server (repeatable: replicas of one server; each host starts at its own place in the list and skips an address that failed for a while).", valueName: "HOST:PORT"))
    var address: [String] = []

    @Option(help: ArgumentHelp("The escrow CA the server's certificate must chain to (PEM).", valueName: "FILE"))
    var ca: String

    @Option(name: .customLong("server-name"), help: "The DNS name the server's certificate must carry (default: the host of the first address; required when that is an IP address).")
    var serverName: String?

    @Option(name: .customLong("client-cert"), help: ArgumentHelp("This escrow's client certificate (PEM), signed by the escrow CA.", valueName: "FILE"))
    var clientCertificate: String?

    @Option(name: .customLong("client-key"), help: ArgumentHelp("The client certificate's private key (PEM).", valueName: "FILE"))
    var clientKey: String?

    func validate() throws {
        guard !address.isEmpty else { throw ValidationError("give at least one --address HOST:PORT") }
        guard (clientCertificate == nil) == (clientKey == nil) else {
            throw ValidationError("--client-cert and --client-key go together")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let registry = try global.serverRegistry()
            let record = try registry.add(id: id, addresses: address, caFile: ca, serverName: serverName,
                                          clientCertificate: clientCertificate, clientKey: clientKey)
            print(DisplayText.escaped("registered compute server \(record.id) at \(record.addresses.joined(separator: ", ")) (certificate name \(record.serverName))"))
        }
    }
}

struct ServersListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the registered compute servers.",
        discussion: "Example:\n  escrow servers list --json"
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the servers as a JSON array.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let servers = try global.serverRegistry().list()
            if json {
                print(ServerRendering.json(servers))
            } else if servers.isEmpty {
                print("no compute servers registered; add one with `escrow servers add ID --address HOST:PORT --ca FILE`")
            } else {
                print(TextTable.render(header: ["SERVER", "ADDRESSES", "CERTIFICATE NAME", "ADDED (UTC)"],
                                       rows: servers.map { [$0.id, $0.addresses.joined(separator: ", "), $0.serverName, $0.addedAt] }),
                      terminator: "")
            }
        }
    }
}

struct ServersShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a compute server and the state of each of its addresses.",
        discussion: """
            An address that failed (refused, unreachable, shutting down, a call that broke)
            is skipped for a back-off period — 1 s after one failure, doubling up to 30 s —
            and tried again afterwards; it counts as working again once a connection to it
            succeeds. `escrow audit show SEQ` lists the addresses a run tried.

            Example:
              escrow servers show compute-1 --json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The server id.")
    var id: String

    @Flag(help: "Print the server and its addresses' states as a JSON object.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let registry = try global.serverRegistry()
            let server = try registry.server(id)
            let states = try registry.states(of: id)
            let now = registry.state.clock.now().seconds
            if json {
                print(ServerRendering.json(server, states: states, now: now))
            } else {
                print(ServerRendering.text(server, states: states, now: now), terminator: "")
            }
        }
    }
}

struct ServersRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Forget a compute server; flows approved for it can no longer run.",
        discussion: "Example:\n  escrow servers remove compute-1"
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The server id.")
    var id: String

    func run() async throws {
        try await reportingErrors {
            try global.serverRegistry().remove(id)
            print(DisplayText.escaped("removed compute server \(id)"))
        }
    }
}
