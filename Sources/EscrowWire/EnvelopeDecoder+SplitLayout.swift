extension EnvelopeDecoder {
    /// Where the parts of an envelope carrying a frame lie in its bytes, for `EnvelopeDecoder`'s fast
    /// path. Its initializer throws for every envelope not in the usual form: a body other than a
    /// compute request, compute response or run response; the body or the frame field more than once;
    /// a top-level field other than the request id and the body; malformed bytes.
    struct SplitLayout {
        var requestID: UInt64 = 0
        /// The kind of body.
        var carrier = FrameCarrier.computeRequest
        /// The body's bytes before and after its frame field (each range holds whole fields).
        var beforeFrame = 0..<0
        var afterFrame = 0..<0
        /// The frame message's bytes; nil when the body has no frame field.
        var frame: Range<Int>?

        init(raw: UnsafeRawBufferPointer) throws(WireFormatError) {
            var reader = WireReader(raw)
            var bodyRange: Range<Int>?
            while !reader.isAtEnd {
                switch try reader.tag() {
                case (1, .varint):
                    requestID = try reader.varint()
                case (let field, .lengthDelimited) where bodyRange == nil && FrameCarrier(rawValue: field) != nil:
                    carrier = FrameCarrier(rawValue: field) ?? carrier
                    bodyRange = try reader.lengthDelimited()
                default:
                    throw WireFormatError()
                }
            }
            guard let bodyRange else { throw WireFormatError() }
            let frameField = carrier.frameField
            var body = WireReader(raw, range: bodyRange)
            var frameFieldRange: Range<Int>?
            while !body.isAtEnd {
                let start = body.position
                let (field, type) = try body.tag()
                guard field == frameField else {
                    try body.skip(type)
                    continue
                }
                guard type == .lengthDelimited, frameFieldRange == nil else { throw WireFormatError() }
                frame = try body.lengthDelimited()
                frameFieldRange = start..<body.position
            }
            let cut = frameFieldRange ?? bodyRange.upperBound..<bodyRange.upperBound
            beforeFrame = bodyRange.lowerBound..<cut.lowerBound
            afterFrame = cut.upperBound..<bodyRange.upperBound
        }
    }
}
