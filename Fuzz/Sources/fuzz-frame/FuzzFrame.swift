@_spi(Fuzzing) import EscrowWire
import EscrowCore
import FuzzSupport
import SwiftProtobuf

/// The bytes of one `escrow.v1.Frame` message, read by both decoders: `FrameWire` (the RPC's fast
/// path) and SwiftProtobuf followed by `Frame(_: Escrow_V1_Frame)`.
///
/// Invariants: neither traps; where `FrameWire` reads the bytes, it agrees with SwiftProtobuf
/// (same frame, or the same `FrameDecodingError`), and SwiftProtobuf reads them too; a decoded
/// frame encodes (by `FrameWire`) to the bytes SwiftProtobuf writes for it, which decode to the
/// same frame. Frames are compared by their encoding, so a NaN cell compares equal to itself.
@main
enum FuzzFrame {
    static func main() {
        runFuzzer { data, size in
            check(fuzzInput(data, size))
            return 0
        }
    }
}

/// Runs one input through the checks above.
func check(_ input: [UInt8]) {
    let proto: Result<Frame, FrameDecodingError>?
    do {
        let message = try Escrow_V1_Frame(serializedBytes: input)
        proto = Result { () throws(FrameDecodingError) in try Frame(message) }
    } catch {
        proto = nil
    }
    let wire = Frame.readWire(input)
    if let wire {
        guard let proto else {
            require(false, "FrameWire read bytes that SwiftProtobuf refuses: \(wire)")
            return
        }
        switch (wire, proto) {
        case (.success(let a), .success(let b)):
            require(a.wireBytes == b.wireBytes, "FrameWire and SwiftProtobuf read different frames:\n  \(a)\n  \(b)")
        case (.failure(let a), .failure(let b)):
            require(a == b, "FrameWire and SwiftProtobuf refuse for different reasons:\n  \(a)\n  \(b)")
        default:
            require(false, "FrameWire and SwiftProtobuf disagree:\n  FrameWire: \(wire)\n  SwiftProtobuf: \(proto)")
        }
    }
    guard case .success(let frame)? = proto ?? wire else { return }
    let bytes = frame.wireBytes
    do {
        let serialized: [UInt8] = try Escrow_V1_Frame(frame).serializedBytes()
        require(bytes == serialized, "FrameWire writes other bytes than SwiftProtobuf for \(frame)")
    } catch {
        require(false, "SwiftProtobuf cannot serialize \(frame): \(error)")
    }
    guard case .success(let again)? = Frame.readWire(bytes) else {
        require(false, "FrameWire does not read back what it wrote for \(frame)")
        return
    }
    require(again.wireBytes == bytes, "the frame changed in a round trip:\n  \(frame)\n  \(again)")
}
