@testable import EscrowWire
import EscrowTestSupport
import Foundation
import NIOCore
import SwiftProtobuf
import Testing

/// The daemon's decoder lets a message past its maximum only for a run request's compute module
/// (`EnvelopeDecoder.admitsModule`), deciding from the message's first bytes however they arrive.
@Suite struct EnvelopeDecoderModuleTests {
    static let maximum = 1 << 20
    let decoder = EnvelopeDecoder(maximumMessageLength: Self.maximum, maximumModuleLength: RPCLimits.maximumModuleLength)

    /// A length-prefixed run request carrying a module of `moduleBytes` bytes and a purpose of `purposeBytes`.
    static func runRequest(moduleBytes: Int, purposeBytes: Int = 20) throws -> [UInt8] {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = 3
        envelope.runRequest = .with {
            $0.app = "org.example.big"
            $0.purpose = String(repeating: "p", count: purposeBytes)
            $0.accessSql = "SELECT latitude, longitude FROM Location"
            $0.parameters = ["decimals": "2"]
            $0.module = Data(repeating: 0x2A, count: moduleBytes)
            $0.moduleSha256 = ""
        }
        let payload: [UInt8] = try envelope.serializedBytes()
        return withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Array($0) } + payload
    }

    /// The decoder's verdict on the first `count` bytes of `message`.
    func verdict(_ message: [UInt8], first count: Int) throws(RPCError) -> Bool {
        let length = message.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        return try decoder.admitsModule(ByteBuffer(bytes: message.prefix(count)), length: length)
    }

    @Test func aRunRequestWithALargeModuleIsAdmittedOnceItsModuleFieldHasArrived() throws {
        let message = try Self.runRequest(moduleBytes: 3 * Self.maximum / 2)
        var admittedAt: Int?
        for count in 4...200 {
            if try verdict(message, first: count) {
                admittedAt = count
                break
            }
        }
        let at = try #require(admittedAt, "admitted within the first 200 bytes")
        #expect(at > 4 + 60, "not before the module's header: \(at)")
        #expect(try verdict(message, first: message.count))
    }

    @Test func aModuleOfTheLargestSizeIsAdmittedAndOneByteMoreIsNot() throws {
        #expect(try verdict(try Self.runRequest(moduleBytes: RPCLimits.maximumModuleLength), first: 200))
        let over = try Self.runRequest(moduleBytes: RPCLimits.maximumModuleLength + 1)
        #expect(throws: RPCError.moduleTooLarge(length: RPCLimits.maximumModuleLength + 1, maximum: RPCLimits.maximumModuleLength)) {
            try verdict(over, first: 200)
        }
    }

    @Test func otherFieldsOverTheMaximumAreRefusedOnceTheyShow() throws {
        // The purpose (field 2) comes before the module (field 9): 1 MiB of it is too much, module or not.
        let message = try Self.runRequest(moduleBytes: 1000, purposeBytes: Self.maximum)
        let length = message.count - 4
        #expect(throws: RPCError.messageTooLarge(length: length, maximum: Self.maximum, moduleAllowance: RPCLimits.maximumModuleLength)) {
            try verdict(message, first: 64)
        }
    }

    @Test func aMessageWithoutAModuleIsRefusedOnceItsMaximumHasArrived() throws {
        // A run request whose body is all unknown varint fields: no header says how long it runs.
        var body: [UInt8] = []
        while body.count < Self.maximum + 100 { body += [0x58, 0x01] }
        var message = [UInt8(0x08), 0x03, 0x52] + Self.varint(body.count) + body
        message = withUnsafeBytes(of: UInt32(message.count).bigEndian) { Array($0) } + message
        #expect(!(try verdict(message, first: Self.maximum / 2)), "cannot tell yet")
        #expect(throws: RPCError.self) { try verdict(message, first: Self.maximum + 64) }
    }

    @Test func theComputeProtocolsDecoderAdmitsNothingOverItsMaximum() throws {
        let message = try Self.runRequest(moduleBytes: 3 * Self.maximum / 2)
        let plain = EnvelopeDecoder(maximumMessageLength: Self.maximum)
        #expect(throws: RPCError.messageTooLarge(length: message.count - 4, maximum: Self.maximum)) {
            try plain.admitsModule(ByteBuffer(bytes: message), length: message.count - 4)
        }
    }

    /// Protobuf's varint.
    private static func varint(_ value: Int) -> [UInt8] { ProtobufVarint.encode(value) }
}
