import EscrowCore
import Foundation

/// What a module says about itself, in its `escrow.module` custom section (docs/MODULES.md,
/// "The manifest"): a JSON object
///
///     {"id": "example.region", "version": 1,
///      "summary": "Gives the app the grid cell around the latest location.",
///      "inputs": [{"name": "latitude", "types": ["double", "int64"]}, …],
///      "parameters": [{"name": "radius", "kind": "number", "min": 100, "max": 100000,
///                      "summary": "half the cell's width, in meters"}]}
///
/// `inputs` may be omitted (any columns); `parameters` may be omitted (none). Parameter kinds:
/// `number` (with `min` and `max`), `text` and `service-url` (with `maxLength`). Every text is
/// checked like the texts an app sends (`RequestText`), since the individual is shown them.
///
/// These are the module's claims, checked for form only; what it *can* do is read from its
/// imports (`ModuleCapability`), never from here.
public struct ModuleManifest: Sendable, Equatable {
    public static let maximumBytes = 16 * 1024
    public static let maximumIDLength = 64
    public static let maximumSummaryLength = 300
    public static let maximumParameters = 32
    public static let maximumInputs = 64

    public let id: String
    public let version: Int
    public let summary: String
    public let inputs: InputContract
    public let parameters: [ParameterDeclaration]

    public init(id: String, version: Int, summary: String, inputs: InputContract, parameters: [ParameterDeclaration]) {
        self.id = id
        self.version = version
        self.summary = summary
        self.inputs = inputs
        self.parameters = parameters
    }

    /// Reads and checks a manifest's JSON.
    ///
    /// - Throws: `ModuleError.badManifest` naming the first field that is missing or wrong.
    public init(json bytes: [UInt8]) throws(ModuleError) {
        guard bytes.count <= Self.maximumBytes else {
            throw .badManifest("it is \(bytes.count) bytes; at most \(Self.maximumBytes) are allowed")
        }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw ModuleError.badManifest("it is not a JSON object")
            }
            object = parsed
        } catch let error as ModuleError {
            throw error
        } catch {
            throw .badManifest("it is not valid JSON (\(error.localizedDescription))")
        }
        let known: Set<String> = ["id", "version", "summary", "inputs", "parameters"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw .badManifest("unknown field \"\(DisplayText.escaped(unknown))\"; the fields are \(known.sorted().joined(separator: ", "))")
        }
        let id = try Self.string(object["id"], field: "id")
        try Self.checkID(id)
        guard let version = Self.wholeNumber(object["version"]), version >= 1, version <= 1_000_000 else {
            throw .badManifest("\"version\" must be a whole number from 1 to 1000000")
        }
        let summary = try Self.string(object["summary"], field: "summary")
        try Self.checkText(summary, field: .purpose, name: "summary", limit: Self.maximumSummaryLength)
        self.init(id: id, version: version, summary: summary, inputs: try Self.inputs(object["inputs"]),
                  parameters: try Self.parameters(object["parameters"]))
    }

    /// A module id: lower-case ASCII labels of letters, digits and `-`, separated by `.`, the
    /// first starting with a letter; at most 64 bytes.
    static func checkID(_ id: String) throws(ModuleError) {
        let valid = !id.isEmpty && id.utf8.count <= Self.maximumIDLength
            && id.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
                !label.isEmpty && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            }
            && (id.utf8.first.map { $0 >= 0x61 && $0 <= 0x7A } ?? false)
        guard valid else {
            throw .badManifest("\"id\" \"\(DisplayText.escaped(String(id.prefix(80))))\" is not a module id: use lower-case "
                + "letters, digits and '-' in labels separated by '.', starting with a letter, at most \(Self.maximumIDLength) bytes "
                + "(such as example.region)")
        }
    }

    private static func string(_ value: Any?, field: String) throws(ModuleError) -> String {
        guard let value else { throw .badManifest("\"\(field)\" is missing") }
        guard let text = value as? String else { throw .badManifest("\"\(field)\" must be a string") }
        return text
    }

    private static func checkText(_ text: String, field: RequestTextError.Field, name: String, limit: Int) throws(ModuleError) {
        if text.allSatisfy(\.isWhitespace) { throw .badManifest("\"\(name)\" is empty; say in one sentence what the module does") }
        do throws(RequestTextError) {
            if field == .purpose {
                try RequestText.checkPurpose(text)
                if text.count > limit { throw RequestTextError(field, text, .tooLong(limit: limit)) }
            } else {
                try RequestText.checkParameter(name: text, value: "")
            }
        } catch {
            throw .badManifest("\"\(name)\": \(Self.plain(error.description))")
        }
    }

    /// A `RequestTextError`'s words without the field name it was written for.
    private static func plain(_ description: String) -> String {
        for prefix in ["the purpose ", "a parameter name "] where description.hasPrefix(prefix) {
            return "the text " + description.dropFirst(prefix.count)
        }
        return description
    }

    private static func inputs(_ value: Any?) throws(ModuleError) -> InputContract {
        guard let value else { return .any }
        if let text = value as? String {
            guard text == "any" else { throw .badManifest("\"inputs\" must be \"any\" or a list of columns") }
            return .any
        }
        guard let list = value as? [Any] else { throw .badManifest("\"inputs\" must be \"any\" or a list of columns") }
        guard list.count <= Self.maximumInputs else { throw .badManifest("\"inputs\" lists more than \(Self.maximumInputs) columns") }
        var columns: [InputColumn] = []
        for (index, item) in list.enumerated() {
            guard let column = item as? [String: Any] else { throw .badManifest("\"inputs\"[\(index)] must be an object with \"name\" and \"types\"") }
            let name = try string(column["name"], field: "inputs[\(index)].name")
            try checkText(name, field: .parameterName, name: "inputs[\(index)].name", limit: RequestText.maximumParameterNameLength)
            guard columns.allSatisfy({ $0.name != name }) else { throw .badManifest("\"inputs\" names column \"\(DisplayText.escaped(name))\" twice") }
            guard let typeNames = column["types"] as? [String], !typeNames.isEmpty else {
                throw .badManifest("\"inputs\"[\(index)].types must be a list of column types (\(ColumnType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            var types: [ColumnType] = []
            for typeName in typeNames {
                guard let type = ColumnType(rawValue: typeName) else {
                    throw .badManifest("\"inputs\"[\(index)].types: \"\(DisplayText.escaped(typeName))\" is not a column type; "
                        + "use \(ColumnType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                if !types.contains(type) { types.append(type) }
            }
            columns.append(InputColumn(name, types: types))
        }
        return .columns(columns)
    }

    private static func parameters(_ value: Any?) throws(ModuleError) -> [ParameterDeclaration] {
        guard let value else { return [] }
        guard let list = value as? [Any] else { throw .badManifest("\"parameters\" must be a list") }
        guard list.count <= Self.maximumParameters else { throw .badManifest("\"parameters\" lists more than \(Self.maximumParameters)") }
        var declarations: [ParameterDeclaration] = []
        for (index, item) in list.enumerated() {
            let field = "parameters[\(index)]"
            guard let parameter = item as? [String: Any] else { throw .badManifest("\"\(field)\" must be an object") }
            let name = try string(parameter["name"], field: "\(field).name")
            try checkText(name, field: .parameterName, name: "\(field).name", limit: RequestText.maximumParameterNameLength)
            guard declarations.allSatisfy({ $0.name != name }) else { throw .badManifest("\"parameters\" declares \"\(DisplayText.escaped(name))\" twice") }
            let summary = try string(parameter["summary"], field: "\(field).summary")
            try checkText(summary, field: .purpose, name: "\(field).summary", limit: Self.maximumSummaryLength)
            let kind: ParameterDeclaration.Kind
            switch try string(parameter["kind"], field: "\(field).kind") {
            case "number":
                guard let low = Self.number(parameter["min"]), let high = Self.number(parameter["max"]),
                      low.isFinite, high.isFinite, low <= high else {
                    throw .badManifest("\"\(field)\" is a number: give \"min\" and \"max\", finite, min no more than max")
                }
                kind = .number(low...high)
            case "text":
                kind = .text(maxLength: try maxLength(parameter["maxLength"], field: field))
            case "service-url":
                kind = .serviceURL(maxLength: try maxLength(parameter["maxLength"], field: field))
            case let other:
                throw .badManifest("\"\(field).kind\" \"\(DisplayText.escaped(other))\" is not a parameter kind; use number, text or service-url")
            }
            declarations.append(ParameterDeclaration(name, kind, summary: summary))
        }
        return declarations
    }

    private static func maxLength(_ value: Any?, field: String) throws(ModuleError) -> Int {
        guard let number = wholeNumber(value), number >= 1, number <= RequestText.maximumParameterValueLength else {
            throw .badManifest("\"\(field).maxLength\" must be a whole number from 1 to \(RequestText.maximumParameterValueLength)")
        }
        return number
    }

    /// A JSON number (never `true` or `false`).
    private static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        return number.doubleValue
    }

    /// Whether JSONSerialization read `true` or `false` (which also answer `is Bool`, as 1 and 0 do).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c" || String(describing: type(of: number)).contains("Boolean")
    }

    /// A JSON number that is a whole number within `Int`.
    private static func wholeNumber(_ value: Any?) -> Int? {
        guard let double = number(value), double.isFinite, double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int(double)
    }
}
