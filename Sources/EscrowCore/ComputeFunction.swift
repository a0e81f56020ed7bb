/// A registered compute() function: reviewed code that the escrow runs over access() results.
///
/// A function is identified by a stable `id` (`"location.region"`), a `version`, and a
/// `codeDigest` derived from its source code at build time, so that editing the code changes the
/// digest (and with it the dataflow the individual approved). Both the escrow host and the compute
/// server link the same functions.
///
/// Implementations are stateless values: `compute` may be called concurrently.
public protocol ComputeFunction: Sendable {
    /// The function's typed output; it must convert to a `Frame` to cross the escrow boundary.
    associatedtype Output: FrameRepresentable

    /// Stable identifier, lower-case and dotted: `"contacts.tuples"`.
    static var id: String { get }
    /// Version, increased on every reviewed change.
    static var version: Int { get }
    /// One sentence, in plain words, of what the function does with the data (shown to people).
    static var summary: String { get }
    /// The columns the function expects from access().
    static var inputs: InputContract { get }
    /// The parameters the function accepts; any other parameter is refused before data is read.
    static var parameters: [ParameterDeclaration] { get }
    /// Digest of the function's code (hex SHA-256), generated at build time from its source.
    static var codeDigest: String { get }

    init()

    /// Computes the output from the access() result.
    ///
    /// - Parameters:
    ///   - input: the access() result (Ds), already checked against `inputs`.
    ///   - context: the run's parameters and facilities the escrow grants the function.
    /// - Throws: `ComputeError` (or any error, reported as the function having failed).
    func compute(_ input: Frame, context: ComputeContext) async throws -> Output
}

/// What a compute function expects from the access() result.
public enum InputContract: Sendable, Equatable, CustomStringConvertible {
    /// Any frame (for functions such as `identity`).
    case any
    /// These columns, each with one of the allowed types; extra columns are allowed.
    case columns([InputColumn])

    /// Checks a frame against the contract.
    ///
    /// - Throws: `FrameError.missingColumn` or `.wrongType` naming the first mismatch.
    public func check(_ frame: Frame) throws(FrameError) {
        guard case .columns(let required) = self else { return }
        for requirement in required {
            let column = try frame.column(requirement.name)
            // A column of nulls only carries no type of its own; accept it.
            let allNull = column.count > 0 && column.nulls.count == column.count && !column.nulls.contains(false)
            if !requirement.types.contains(column.type) && !allNull {
                throw .wrongType(column: requirement.name, expected: requirement.types, actual: column.type)
            }
        }
    }

    public var description: String {
        switch self {
        case .any: "any columns"
        case .columns(let columns): columns.map(\.description).joined(separator: ", ")
        }
    }
}

/// One column a compute function expects.
public struct InputColumn: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let types: [ColumnType]

    public init(_ name: String, _ types: ColumnType...) {
        self.init(name, types: types)
    }

    public init(_ name: String, types: [ColumnType]) {
        self.name = name
        self.types = types
    }

    public var description: String { "\(name) (\(types.map(\.rawValue).joined(separator: "|")))" }
}

extension ParameterDeclaration {
    /// Whether the function sends requests to the parameter's value.
    public var namesAService: Bool {
        if case .serviceURL = kind { return true }
        return false
    }
}

extension ComputeFunction {
    /// Functions take no parameters unless they declare some.
    public static var parameters: [ParameterDeclaration] { [] }
}

/// One parameter a compute function accepts.
public struct ParameterDeclaration: Sendable, Equatable {
    /// What values the parameter takes.
    public enum Kind: Sendable, Equatable {
        /// A finite number within the range.
        case number(ClosedRange<Double>)
        /// Text of at most this many bytes.
        case text(maxLength: Int)
        /// The `http://` or `https://` URL of a service the function sends requests to, of at most
        /// this many bytes: the escrow shows its host as a place the data may go before any run.
        case serviceURL(maxLength: Int)
    }

    public let name: String
    public let kind: Kind
    /// In plain words, for the individual.
    public let summary: String

    public init(_ name: String, _ kind: Kind, summary: String) {
        self.name = name
        self.kind = kind
        self.summary = summary
    }

    /// Checks the parameters a run passes against the declarations.
    ///
    /// - Throws: `ComputeError.invalidParameter` for an undeclared parameter or a bad value.
    public static func check(_ parameters: ComputeParameters, against declarations: [ParameterDeclaration]) throws(ComputeError) {
        for (name, value) in parameters.sorted {
            guard let declaration = declarations.first(where: { $0.name == name }) else {
                let known = declarations.map(\.name)
                throw .invalidParameter(name: name, reason: known.isEmpty
                    ? "this function takes no parameters"
                    : "unknown parameter; this function takes \(known.joined(separator: ", "))")
            }
            switch declaration.kind {
            case .number(let range):
                guard let number = Double(value), number.isFinite else {
                    throw .invalidParameter(name: name, reason: "'\(value)' is not a number")
                }
                guard range.contains(number) else {
                    throw .invalidParameter(name: name, reason: "\(value) is outside \(plain(range.lowerBound))…\(plain(range.upperBound))")
                }
            case .text(let maxLength):
                guard value.utf8.count <= maxLength else {
                    throw .invalidParameter(name: name, reason: "longer than \(maxLength) bytes")
                }
            case .serviceURL(let maxLength):
                guard value.utf8.count <= maxLength else {
                    throw .invalidParameter(name: name, reason: "longer than \(maxLength) bytes")
                }
                let lowered = value.lowercased()
                guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                    throw .invalidParameter(name: name, reason: "give an http:// or https:// URL")
                }
            }
        }
    }
}

/// A number without a trailing `.0` when it is whole.
private func plain(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}

/// Non-personal inputs an app passes with a run (a radius, a search term). They are part of the
/// dataflow the individual approves.
public struct ComputeParameters: Sendable, Hashable {
    public private(set) var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    public subscript(name: String) -> String? { values[name] }

    /// The parameter as a number, `defaultValue` when absent.
    ///
    /// - Throws: `ComputeError.invalidParameter` when present but not a finite number.
    public func double(_ name: String, default defaultValue: Double) throws(ComputeError) -> Double {
        guard let text = values[name] else { return defaultValue }
        guard let value = Double(text), value.isFinite else {
            throw .invalidParameter(name: name, reason: "'\(text)' is not a number")
        }
        return value
    }

    /// Parameters in a stable order, `name=value`.
    public var sorted: [(name: String, value: String)] {
        values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

/// What the escrow hands a compute function besides its input.
public struct ComputeContext: Sendable {
    public let parameters: ComputeParameters
    /// The network, when the escrow grants it (through its own client only).
    public let network: (any NetworkClient)?

    public init(parameters: ComputeParameters = ComputeParameters(), network: (any NetworkClient)? = nil) {
        self.parameters = parameters
        self.network = network
    }

    /// The network client, for functions that need one.
    ///
    /// - Throws: `ComputeError.networkUnavailable` when the escrow gives this run none.
    public func requireNetwork() throws(ComputeError) -> any NetworkClient {
        guard let network else { throw .networkUnavailable }
        return network
    }
}

/// A failure inside a compute function.
public enum ComputeError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidParameter(name: String, reason: String)
    case invalidInput(String)
    /// The function needs the network, and this run has none.
    case networkUnavailable
    /// A service the function called answered with an error or could not be read.
    case serviceFailed(String)
    /// The escrow refused a request: the individual blocks `domain`, which `host` falls under.
    case blocked(host: String, domain: String)
    /// The escrow refused a request: the run already made as many as one run may.
    case tooManyRequests(limit: Int)

    public var description: String {
        switch self {
        case .invalidParameter(let name, let reason): "parameter '\(name)': \(reason)"
        case .invalidInput(let reason): "input rejected: \(reason)"
        case .networkUnavailable: "this function needs the network, and the escrow gives this run none"
        case .serviceFailed(let reason): "the service the function calls failed: \(reason)"
        case .blocked(let host, let domain):
            host == domain ? "the request to \(host) was refused: the individual blocks it"
                : "the request to \(host) was refused: the individual blocks \(domain)"
        case .tooManyRequests(let limit): "the request was refused: one run may make at most \(limit) requests"
        }
    }
}
