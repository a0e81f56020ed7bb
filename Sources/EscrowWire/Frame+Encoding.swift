import EscrowCore
import Foundation
import SwiftProtobuf

/// The one columnar encoding of frames outside the RPC's envelopes: the bytes of one
/// `escrow.v1.Frame` message (Proto/escrow.proto). A compute module reads its input and writes its
/// output in it (docs/MODULES.md), so a module and a compute server see frames alike.
extension Frame {
    /// The frame as the bytes of one `escrow.v1.Frame` message.
    public var encoded: [UInt8] { FrameWire.bytes(self) }

    /// Reads the bytes of one `escrow.v1.Frame` message, written by anyone (a module, a peer).
    ///
    /// - Throws: `FrameEncodingError` when the bytes are not a protobuf message or not a valid
    ///   frame, saying which.
    public init(encoded bytes: [UInt8]) throws(FrameEncodingError) {
        let fast = bytes.withUnsafeBytes { raw in try? FrameWire.read(raw, range: 0..<raw.count) }
        let result: Result<Frame, FrameDecodingError>
        if let fast {
            result = fast
        } else {
            // FrameWire declines unusual but legal forms; SwiftProtobuf reads every form.
            let message: Escrow_V1_Frame
            do {
                message = try Escrow_V1_Frame(serializedBytes: bytes)
            } catch {
                throw FrameEncodingError("the bytes are not an escrow.v1.Frame protobuf message (\(error))")
            }
            result = Result { () throws(FrameDecodingError) in try Frame(message) }
        }
        switch result {
        case .success(let frame): self = frame
        case .failure(let error): throw FrameEncodingError(error.description)
        }
    }
}

/// Bytes that are not an encoded frame.
public struct FrameEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
