import EscrowCore
import EscrowFunctions
import EscrowWire
import EscrowTestSupport
import Foundation
import NIOPosix
import SwiftProtobuf
import Testing

/// Inputs, descriptors and connections shared by the end-to-end tests.
enum RemoteFixtures {
    /// The descriptor of the registered function `id`.
    static func descriptor(_ id: String) throws -> FunctionDescriptor {
        try EscrowFunctions.catalog.function(id).descriptor
    }

    /// A connection from a well-behaved client presenting `files` (the escrow client
    /// certificate by default), which has said hello as the protocol requires.
    static func connect(to server: ComputeServerProcess, files: TLSFiles? = nil,
                        serverName: String = "localhost") async throws -> ComputeConnection {
        let files = try files ?? TestCertificates.forCurrentSuite().client
        let connection = try await ComputeConnection.connect(host: "127.0.0.1", port: server.port, serverName: serverName,
                                                             tls: files, group: MultiThreadedEventLoopGroup.singleton)
        do {
            _ = try await connection.hello(clientName: "rpc-tests")
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    /// Runs `body` with a connection (see `connect`) and closes it afterwards, also when `body`
    /// throws.
    static func withConnection<T>(to server: ComputeServerProcess, files: TLSFiles? = nil, serverName: String = "localhost",
                                  _ body: (ComputeConnection) async throws -> T) async throws -> T {
        try await connect(to: server, files: files, serverName: serverName).closing(after: body)
    }

    /// `count` images of `size` bytes, every one different, with an id column.
    static func images(count: Int, size: Int = 16 * 1024) throws -> Frame {
        let images = (0..<count).map { index in
            (0..<size).map { offset in UInt8(truncatingIfNeeded: offset &* 31 &+ index &* 7) }
        }
        return try Frame(columns: [
            Column(name: "id", values: .int64((0..<count).map(Int64.init))),
            Column(name: "image", values: .bytes(images)),
        ])
    }

    /// Contacts as access() returns them for `contacts.tuples`: one to three numbers per contact
    /// (or `numbersPerContact` each) as the JSON array of labeled values the importer stores, some
    /// names null.
    static func contacts(count: Int, numbersPerContact: Int? = nil) throws -> Frame {
        var given = ColumnBuilder(name: "givenName", type: .string)
        var family = ColumnBuilder(name: "familyName", type: .string)
        var phones = ColumnBuilder(name: "phoneNumbers", type: .string)
        for row in 0..<count {
            if row % 7 == 3 { given.appendNull() } else { given.append("Given\(row)") }
            family.append(row % 5 == 0 ? "Müller-\(row)" : "Family\(row)")
            let numbers = (0..<(numbersPerContact ?? 1 + row % 3)).map { #"{"label":"CELL","value":"+41 79 \#(row) \#($0)"}"# }
            phones.append("[\(numbers.joined(separator: ","))]")
        }
        return try Frame(columns: [given.build(), family.build(), phones.build()])
    }

    /// A `contacts.tuples` input whose call runs for a good part of a second in a debug build
    /// (300,000 JSON objects to parse), long enough to overlap a signal or another call. Its 4 MB
    /// take the server about twice as long again to read, so a test that needs the call running
    /// sends one such call, then a ping behind it: the pong comes back while the call runs.
    static func slowContacts() throws -> Frame {
        let numbers = "[" + Array(repeating: #"{"value":""}"#, count: 300).joined(separator: ",") + "]"
        return try Frame(columns: [
            Column(name: "givenName", values: .string(Array(repeating: "Ada", count: 1000))),
            Column(name: "familyName", values: .string(Array(repeating: "Lovelace", count: 1000))),
            Column(name: "phoneNumbers", values: .string(Array(repeating: numbers, count: 1000))),
        ])
    }

    /// A small input for `identity`.
    static func small(_ value: Int64) throws -> Frame {
        try Frame(columns: [Column(name: "n", values: .int64([value, value + 1]))])
    }

    /// Asserts that the server still answers: the connection opened before the hostile client
    /// (when given) computes again, and a fresh connection says hello and computes.
    static func expectStillServes(_ server: ComputeServerProcess, existing: ComputeConnection? = nil,
                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let identity = try descriptor("identity")
        let input = try small(7)
        if let existing {
            let result = try await existing.compute(identity, input: input, parameters: ComputeParameters(), deadline: .seconds(10))
            #expect(result.output == input, "the connection opened before still computes", sourceLocation: sourceLocation)
        }
        try await withConnection(to: server) { fresh in
            let catalog = try await fresh.hello(clientName: "good-client")
            #expect(catalog.functions.count == EscrowFunctions.catalog.descriptors.count, sourceLocation: sourceLocation)
            let result = try await fresh.compute(identity, input: input, parameters: ComputeParameters(), deadline: .seconds(10))
            #expect(result.output == input, "a fresh connection computes", sourceLocation: sourceLocation)
        }
    }
}

/// Envelopes a raw client sends.
enum RemoteEnvelopes {
    /// The request id, the body's kind and an error's code, without the payload (for messages).
    static func summary(_ envelope: Escrow_V1_Envelope?) -> String {
        guard let envelope else { return "nothing (closed or timed out)" }
        switch envelope.body {
        case .error(let error): return "#\(envelope.requestID) error \(error.code): \(error.message)"
        case .some(let body): return "#\(envelope.requestID) \(String(describing: body).prefix(while: { $0 != "(" }))"
        case nil: return "#\(envelope.requestID) with no body"
        }
    }

    static func hello(id: UInt64) -> Escrow_V1_Envelope {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = id
        envelope.hello = .with {
            $0.clientName = "raw-client"
            $0.protocolVersion = RPCLimits.protocolVersion
        }
        return envelope
    }

    static func ping(id: UInt64, nonce: UInt64 = 9) -> Escrow_V1_Envelope {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = id
        envelope.ping = .with { $0.nonce = nonce }
        return envelope
    }

    static func compute(id: UInt64, _ function: FunctionDescriptor, input: Frame, deadline: Duration = .seconds(30)) -> Escrow_V1_Envelope {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = id
        envelope.computeRequest = .with {
            $0.functionID = function.id
            $0.functionVersion = Int64(function.version)
            $0.codeDigest = function.codeDigest
            $0.input = Escrow_V1_Frame(input)
            $0.deadlineMs = UInt64(deadline.components.seconds * 1000)
        }
        return envelope
    }
}
