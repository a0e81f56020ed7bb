// EscrowModule: the Escrow compute-module ABI for Embedded Swift (docs/MODULES.md).
//
// Compile it together with the module's own file, then link with support.c:
//
//     swiftc -target wasm32-unknown-none-wasm -enable-experimental-feature Embedded \
//         -enable-experimental-feature Extern -wmo -Osize -parse-as-library \
//         -Xfrontend -disable-stack-protector -c EscrowModule.swift Weather.swift -o weather.o
//     clang --target=wasm32 -O2 -ffreestanding -c support.c -o support.o
//     wasm-ld --no-entry --export=escrow_run weather.o support.o -o weather.wasm
//     llvm-objcopy --add-section=escrow.module=module.json weather.wasm
//
// A module exports `escrow_run` (`@_expose(wasm, "escrow_run") @_cdecl("escrow_run")`), reads
// `Input.frame`, writes an `OutputFrame` and returns 0 (or calls `Escrow.fail`). Frames are the
// bytes of one `escrow.v1.Frame` protobuf message, the encoding the escrow's RPC uses.

// MARK: The escrow's functions

@_extern(wasm, module: "escrow", name: "input_size") @_extern(c)
func escrow_input_size() -> Int32
@_extern(wasm, module: "escrow", name: "input_read") @_extern(c)
func escrow_input_read(_ destination: UnsafeMutableRawPointer?)
@_extern(wasm, module: "escrow", name: "output_write") @_extern(c)
func escrow_output_write(_ source: UnsafeRawPointer?, _ length: Int32)
@_extern(wasm, module: "escrow", name: "parameter_size") @_extern(c)
func escrow_parameter_size(_ name: UnsafeRawPointer?, _ length: Int32) -> Int32
@_extern(wasm, module: "escrow", name: "parameter_read") @_extern(c)
func escrow_parameter_read(_ name: UnsafeRawPointer?, _ length: Int32, _ destination: UnsafeMutableRawPointer?)
@_extern(wasm, module: "escrow", name: "http_send") @_extern(c)
func escrow_http_send(_ method: UnsafeRawPointer?, _ methodLength: Int32, _ url: UnsafeRawPointer?, _ urlLength: Int32,
                      _ headers: UnsafeRawPointer?, _ headersLength: Int32, _ body: UnsafeRawPointer?, _ bodyLength: Int32) -> Int32
@_extern(wasm, module: "escrow", name: "http_response_size") @_extern(c)
func escrow_http_response_size() -> Int32
@_extern(wasm, module: "escrow", name: "http_response_read") @_extern(c)
func escrow_http_response_read(_ destination: UnsafeMutableRawPointer?)
@_extern(wasm, module: "escrow", name: "fail") @_extern(c)
func escrow_fail(_ reason: UnsafeRawPointer?, _ length: Int32)

/// The escrow's services to a module.
enum Escrow {
    /// Ends the run with `reason`.
    static func fail(_ reason: StaticString) -> Never {
        escrow_fail(reason.utf8Start, Int32(reason.utf8CodeUnitCount))
        fatalError()
    }

    /// Ends the run with `reason`.
    static func fail(_ reason: [UInt8]) -> Never {
        reason.withUnsafeBytes { escrow_fail($0.baseAddress, Int32($0.count)) }
        fatalError()
    }

    /// The run's parameter as UTF-8 bytes, nil when the run does not pass it.
    static func parameter(_ name: StaticString) -> [UInt8]? {
        let size = escrow_parameter_size(name.utf8Start, Int32(name.utf8CodeUnitCount))
        guard size >= 0 else { return nil }
        var value = [UInt8](repeating: 0, count: Int(size))
        value.withUnsafeMutableBytes { escrow_parameter_read(name.utf8Start, Int32(name.utf8CodeUnitCount), $0.baseAddress) }
        return value
    }

    /// Sends a request through the escrow (recorded; blocked domains refused). Headers are
    /// "Name: value" lines separated by "\n". `status` is the HTTP status, or below 0 (-1 blocked,
    /// -2 unreachable, -3 no network, -4 a bad request, -5 too many requests), with `body` the
    /// failure in words.
    static func send(method: StaticString, url: [UInt8], headers: [UInt8] = [], body: [UInt8] = []) -> (status: Int32, body: [UInt8]) {
        let status = url.withUnsafeBytes { url in
            headers.withUnsafeBytes { headers in
                body.withUnsafeBytes { body in
                    escrow_http_send(method.utf8Start, Int32(method.utf8CodeUnitCount), url.baseAddress, Int32(url.count),
                                     headers.baseAddress, Int32(headers.count), body.baseAddress, Int32(body.count))
                }
            }
        }
        var answer = [UInt8](repeating: 0, count: Int(escrow_http_response_size()))
        answer.withUnsafeMutableBytes { escrow_http_response_read($0.baseAddress) }
        return (status, answer)
    }
}

// MARK: Reading frames

enum ColumnKind: UInt64 {
    case int64 = 1, double = 2, string = 3, bytes = 4, bool = 5
}

/// A protobuf reader over a range of bytes.
struct WireReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    var isAtEnd: Bool { position >= end }

    mutating func varint() -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < end && shift < 64 {
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        Escrow.fail("a frame holds a broken number")
    }

    /// The next field: its number, a varint value, or the range of its bytes.
    mutating func field() -> (number: UInt64, value: UInt64, range: Range<Int>) {
        let tag = varint()
        switch tag & 7 {
        case 0: return (tag >> 3, varint(), 0..<0)
        case 1: position += 8; return (tag >> 3, 0, 0..<0)
        case 5: position += 4; return (tag >> 3, 0, 0..<0)
        case 2:
            let length = Int(varint())
            guard length <= end - position else { Escrow.fail("a frame field runs past its end") }
            defer { position += length }
            return (tag >> 3, 0, position..<(position + length))
        default: Escrow.fail("a frame holds an unknown wire type")
        }
    }
}

/// One column of the input.
struct Column {
    let bytes: [UInt8]
    let kind: ColumnKind?
    let rows: Int
    let nulls: Range<Int>
    let packed: Range<Int>
    let message: Range<Int>

    func isNull(_ row: Int) -> Bool {
        guard row / 8 < nulls.count else { return false }
        return (bytes[nulls.lowerBound + row / 8] >> UInt8(row % 8)) & 1 == 1
    }

    func int64(at row: Int) -> Int64? {
        guard kind == .int64, !isNull(row) else { return nil }
        var reader = WireReader(bytes: bytes, position: packed.lowerBound, end: packed.upperBound)
        var value: UInt64 = 0
        for _ in 0...row { value = reader.varint() }
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    /// A double column's value, or an int64 column's converted.
    func double(at row: Int) -> Double? {
        if kind == .int64 { return int64(at: row).map { Double($0) } }
        guard kind == .double, !isNull(row), (row + 1) * 8 <= packed.count else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[packed.lowerBound + row * 8 + index]) << UInt64(8 * index) }
        return Double(bitPattern: bits)
    }

    /// A string or bytes cell, as bytes.
    func cell(at row: Int) -> [UInt8]? {
        guard kind == .string || kind == .bytes, !isNull(row) else { return nil }
        var reader = WireReader(bytes: bytes, position: message.lowerBound, end: message.upperBound)
        var index = 0
        while !reader.isAtEnd {
            let field = reader.field()
            if field.number == (kind == .string ? 6 : 7) {
                if index == row { return Array(bytes[field.range]) }
                index += 1
            }
        }
        return nil
    }
}

/// The run's input frame.
struct InputFrame {
    let bytes: [UInt8]
    let rows: Int

    /// Reads the input (once per run).
    static func read() -> InputFrame {
        var bytes = [UInt8](repeating: 0, count: Int(escrow_input_size()))
        bytes.withUnsafeMutableBytes { escrow_input_read($0.baseAddress) }
        var reader = WireReader(bytes: bytes, position: 0, end: bytes.count)
        var rows = 0
        while !reader.isAtEnd {
            let field = reader.field()
            if field.number == 2 { rows = Int(field.value) }
        }
        return InputFrame(bytes: bytes, rows: rows)
    }

    /// The column named `name`, nil when there is none.
    func column(_ name: StaticString) -> Column? {
        var reader = WireReader(bytes: bytes, position: 0, end: bytes.count)
        while !reader.isAtEnd {
            let field = reader.field()
            guard field.number == 1 else { continue }
            var inner = WireReader(bytes: bytes, position: field.range.lowerBound, end: field.range.upperBound)
            var columnName = 0..<0, kind: UInt64 = 0, nulls = 0..<0, packed = 0..<0
            while !inner.isAtEnd {
                let part = inner.field()
                switch part.number {
                case 1: columnName = part.range
                case 2: kind = part.value
                case 3: nulls = part.range
                case 4, 5, 8: packed = part.range
                default: break
                }
            }
            if Self.equal(bytes[columnName], name) {
                return Column(bytes: bytes, kind: ColumnKind(rawValue: kind), rows: rows, nulls: nulls, packed: packed,
                              message: field.range)
            }
        }
        return nil
    }

    private static func equal(_ bytes: ArraySlice<UInt8>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        var index = 0
        for byte in bytes {
            if byte != name.utf8Start[index] { return false }
            index += 1
        }
        return true
    }
}

// MARK: Writing frames

/// Protobuf bytes being written.
struct WireWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func field(_ number: UInt64, _ data: [UInt8]) {
        varint(number << 3 | 2)
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }
}

/// The run's output frame, built column by column; every column has `rows` values.
struct OutputFrame {
    let rows: Int
    private var writer = WireWriter()

    init(rows: Int) { self.rows = rows }

    private func head(_ name: StaticString, _ kind: ColumnKind, nulls: [Bool]) -> WireWriter {
        var column = WireWriter()
        var nameBytes: [UInt8] = []
        for index in 0..<name.utf8CodeUnitCount { nameBytes.append(name.utf8Start[index]) }
        column.field(1, nameBytes)
        column.varint(2 << 3)
        column.varint(kind.rawValue)
        if nulls.contains(true) {
            var bitmap = [UInt8](repeating: 0, count: (rows + 7) / 8)
            for (row, null) in nulls.enumerated() where null { bitmap[row / 8] |= UInt8(1) << UInt8(row % 8) }
            column.field(3, bitmap)
        }
        return column
    }

    mutating func doubles(_ name: StaticString, _ values: [Double?]) {
        precondition(values.count == rows)
        var column = head(name, .double, nulls: values.map { $0 == nil })
        var packed: [UInt8] = []
        for value in values {
            let bits = (value ?? 0).bitPattern
            for index in 0..<8 { packed.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * index))) }
        }
        if rows > 0 { column.field(5, packed) }
        writer.field(1, column.bytes)
    }

    mutating func int64s(_ name: StaticString, _ values: [Int64?]) {
        precondition(values.count == rows)
        var column = head(name, .int64, nulls: values.map { $0 == nil })
        var packed = WireWriter()
        for value in values {
            let number = value ?? 0
            packed.varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
        }
        if rows > 0 { column.field(4, packed.bytes) }
        writer.field(1, column.bytes)
    }

    /// A string column; each value is UTF-8 bytes.
    mutating func strings(_ name: StaticString, _ values: [[UInt8]?]) {
        precondition(values.count == rows)
        var column = head(name, .string, nulls: values.map { $0 == nil })
        for value in values { column.field(6, value ?? []) }
        writer.field(1, column.bytes)
    }

    /// Hands the frame to the escrow as the run's output.
    func write() {
        var frame = writer
        if rows > 0 {
            frame.varint(2 << 3)
            frame.varint(UInt64(rows))
        }
        frame.bytes.withUnsafeBytes { escrow_output_write($0.baseAddress, Int32($0.count)) }
    }
}

// MARK: Text

enum Text {
    /// `value` in decimal with `decimals` digits after the point ("-12.345600").
    static func decimal(_ value: Double, decimals: Int) -> [UInt8] {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let negative = value < 0
        let scaled = UInt64(((negative ? -value : value) * scale).rounded())
        var digits: [UInt8] = []
        var rest = scaled
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0 || digits.count <= decimals
        var text: [UInt8] = negative && scaled != 0 ? [UInt8(ascii: "-")] : []
        for (index, digit) in digits.reversed().enumerated() {
            if index == digits.count - decimals && decimals > 0 { text.append(UInt8(ascii: ".")) }
            text.append(digit)
        }
        return text
    }

    /// The bytes of a static string.
    static func bytes(_ text: StaticString) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<text.utf8CodeUnitCount { bytes.append(text.utf8Start[index]) }
        return bytes
    }
}
