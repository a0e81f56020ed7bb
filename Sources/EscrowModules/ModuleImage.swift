import WasmParser

/// What the escrow runs of a module: its binary with every mutable global exported under a name of
/// the escrow's (`escrow.global.N`), so that an instance can be put back exactly into the state
/// instantiation left it in, and whether that is possible at all.
///
/// An instance's whole state is its memory (bytes and size), its mutable globals, its tables and
/// which of its passive segments were dropped. The escrow can read and restore the first two
/// through exports; a module whose code can change a table (`table.set`, `table.grow`,
/// `table.fill`, `table.copy`, `table.init`) or drop a segment (`data.drop`, `elem.drop`) is never
/// reused: each of its runs gets a new instance. The module's identity stays the SHA-256 of the
/// bytes it came as; the added exports change nothing it can observe.
struct ModuleImage: Sendable {
    /// The binary to instantiate.
    let bytes: [UInt8]
    /// The export names of its mutable globals, in index order.
    let globalExports: [String]
    /// Whether an instance may serve another run once restored.
    let reusable: Bool

    static let globalPrefix = "escrow.global."

    /// - Throws: `WasmParserError` for bytes WasmKit would refuse anyway.
    init(_ original: [UInt8]) throws {
        var parser = Parser(bytes: original)
        var mutableGlobals: [Int] = []
        var exportNames: Set<String> = []
        var changesState = false
        while let payload = try parser.parseNext() {
            switch payload {
            case .globalSection(let globals):
                for (index, global) in globals.enumerated() where global.type.mutability == .variable {
                    mutableGlobals.append(index)
                }
            case .exportSection(let exports):
                exportNames = Set(exports.map(\.name))
            case .codeSection(let codes):
                var finder = StateChangeFinder()
                for code in codes where !finder.found {
                    var expression = ExpressionParser(code: code)
                    while let instruction = try expression.parse() {
                        try instruction(visitor: &finder)
                        if finder.found { break }
                    }
                }
                changesState = changesState || finder.found
            default:
                break
            }
        }
        let names = mutableGlobals.map { "\(Self.globalPrefix)\($0)" }
        guard !changesState, names.allSatisfy({ !exportNames.contains($0) }),
              let rewritten = Self.addingGlobalExports(mutableGlobals, names: names, to: original) else {
            self.bytes = original
            self.globalExports = []
            self.reusable = false
            return
        }
        self.bytes = rewritten
        self.globalExports = names
        self.reusable = true
    }

    /// `module` with exports of the globals `indices` under `names` appended to its export
    /// section; nil when it has none (a module the escrow accepts always has one).
    static func addingGlobalExports(_ indices: [Int], names: [String], to module: [UInt8]) -> [UInt8]? {
        guard !indices.isEmpty else { return module }
        var result = Array(module.prefix(8))
        var position = 8
        var added = false
        while position < module.count {
            let id = module[position]
            var cursor = position + 1
            guard let size = readLEB(module, &cursor), cursor + Int(size) <= module.count else { return nil }
            let payload = Array(module[cursor..<(cursor + Int(size))])
            if id == 7 {
                var inner = 0
                guard let count = readLEB(payload, &inner) else { return nil }
                var entries = ModuleBinary.leb128(count + UInt64(indices.count)) + payload[inner...]
                for (index, name) in zip(indices, names) {
                    entries += ModuleBinary.leb128(UInt64(name.utf8.count)) + Array(name.utf8) + [0x03] + ModuleBinary.leb128(UInt64(index))
                }
                result += [7] + ModuleBinary.leb128(UInt64(entries.count)) + entries
                added = true
            } else {
                result += module[position..<(cursor + Int(size))]
            }
            position = cursor + Int(size)
        }
        return added ? result : nil
    }

    private static func readLEB(_ bytes: [UInt8], _ cursor: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while cursor < bytes.count, shift < 64 {
            let byte = bytes[cursor]
            cursor += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}

/// Finds an instruction that changes a table or drops a segment.
private struct StateChangeFinder: AnyInstructionVisitor {
    typealias VisitorError = WasmParserError
    var binaryOffset = 0
    var found = false

    mutating func visit(_ instruction: Instruction) throws(WasmParserError) {
        switch instruction {
        case .tableSet, .tableGrow, .tableFill, .tableCopy, .tableInit, .elemDrop, .dataDrop: found = true
        default: break
        }
    }
}
