/// Protobuf's base-128 varint, for tests that write wire bytes by hand (a request's length
/// fields, a body that lies about its size).
public enum ProtobufVarint {
    public static func encode(_ value: Int) -> [UInt8] {
        var value = UInt64(value)
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }
}
