import NIOCore

extension EnvelopeDecoder {
    /// Whether a message longer than `maximumMessageLength` may be read: only a run request
    /// carrying a compute module of at most `maximumModuleLength` bytes, whose other bytes fit the
    /// maximum. Decided from the message's first bytes, at most about `maximumMessageLength` of
    /// them: the module field must begin within them, since the fields before it fit the maximum.
    ///
    /// - Parameters:
    ///   - buffer: the bytes received, from the message's length prefix on.
    ///   - length: the message's length, from its prefix.
    /// - Returns: true when the message may be read; false when its bytes so far cannot tell yet.
    /// - Throws: `RPCError.moduleTooLarge` for a module over its maximum, `RPCError.messageTooLarge`
    ///   for any other message over the maximum.
    func admitsModule(_ buffer: ByteBuffer, length: Int) throws(RPCError) -> Bool {
        let tooLarge = RPCError.messageTooLarge(length: length, maximum: maximumMessageLength, moduleAllowance: maximumModuleLength)
        guard maximumModuleLength > 0, length <= maximumMessageLength + maximumModuleLength else { throw tooLarge }
        let available = min(buffer.readableBytes - 4, length)
        let search = buffer.withUnsafeReadableBytes { raw in
            ModuleField.find(in: UnsafeRawBufferPointer(rebasing: raw[4 ..< 4 + available]), messageLength: length,
                             within: maximumMessageLength)
        }
        switch search {
        case .needMoreBytes:
            return false
        case .absent:
            throw tooLarge
        case .found(let module):
            guard module <= maximumModuleLength else { throw .moduleTooLarge(length: module, maximum: maximumModuleLength) }
            guard length - module <= maximumMessageLength else { throw tooLarge }
            return true
        }
    }
}

/// Finds the `RunRequest.module` field (9) of an `Envelope{run_request (10)}` in the first bytes of
/// a message, before the rest has arrived.
enum ModuleField {
    enum Search: Equatable {
        /// The module field begins in the bytes; its payload is this long.
        case found(length: Int)
        /// The bytes end before they show the field, and the field may still come.
        case needMoreBytes
        /// The message is not a run request with a module that begins within the limit (or not
        /// protobuf at all).
        case absent
    }

    /// Looks for the module field in `bytes`, the first bytes of a message `messageLength` long.
    ///
    /// - Parameter limit: how far into the message the field's header may begin; a field other
    ///   than the module reaching past it means the message's other bytes are over the limit.
    static func find(in bytes: UnsafeRawBufferPointer, messageLength: Int, within limit: Int) -> Search {
        var reader = WireReader(bytes)
        do {
            while true {
                if reader.position > limit { return .absent }
                if reader.isAtEnd { return bytes.count < messageLength ? .needMoreBytes : .absent }
                switch try reader.tag() {
                case (1, .varint):
                    _ = try reader.varint()
                case (10, .lengthDelimited):
                    let bodyLength = try reader.varint()
                    guard bodyLength <= UInt64(messageLength - reader.position) else { return .absent }
                    return try moduleField(&reader, bytes: bytes, bodyEnd: reader.position + Int(bodyLength), within: limit)
                default:
                    return .absent
                }
            }
        } catch {
            // Bytes cut short in the middle of a tag or a length; past the limit's headers, bytes
            // that are not protobuf.
            return bytes.count < min(messageLength, limit + 16) ? .needMoreBytes : .absent
        }
    }

    /// The module field among the run request's fields, which end at `bodyEnd`.
    private static func moduleField(_ reader: inout WireReader, bytes: UnsafeRawBufferPointer, bodyEnd: Int,
                                    within limit: Int) throws(WireFormatError) -> Search {
        while true {
            if reader.position >= bodyEnd || reader.position > limit { return .absent }
            if reader.isAtEnd { return .needMoreBytes }
            let (field, type) = try reader.tag()
            guard type == .lengthDelimited else {
                try reader.skip(type)
                continue
            }
            let length = try reader.varint()
            guard length <= UInt64(bodyEnd - reader.position) else { return .absent }
            if field == 9 { return .found(length: Int(length)) }
            // Another field: skipped even when its value has not all arrived yet.
            let next = reader.position + Int(length)
            if next > limit { return .absent }
            if next > bytes.count { return .needMoreBytes }
            reader = WireReader(bytes, range: next ..< bytes.count)
        }
    }
}
