/// The identity of a registered function as the individual approves it.
public struct FunctionDescriptor: Sendable, Hashable, Codable, CustomStringConvertible {
    public let id: String
    public let version: Int
    public let codeDigest: String
    public let summary: String

    public init(id: String, version: Int, codeDigest: String, summary: String) {
        self.id = id
        self.version = version
        self.codeDigest = codeDigest
        self.summary = summary
    }

    /// `id@version` and the first 12 digest characters.
    public var description: String { "\(id)@\(version) (\(codeDigest.prefix(12)))" }
}

/// A compute function with its type erased, as the catalog holds it.
public struct RegisteredFunction: Sendable {
    public let descriptor: FunctionDescriptor
    public let inputs: InputContract
    public let parameters: [ParameterDeclaration]
    private let body: @Sendable (Frame, ComputeContext) async throws -> Frame

    public init<F: ComputeFunction>(_ type: F.Type) {
        descriptor = FunctionDescriptor(id: F.id, version: F.version, codeDigest: F.codeDigest, summary: F.summary)
        inputs = F.inputs
        parameters = F.parameters
        body = { input, context in try await F().compute(input, context: context).frame() }
    }

    /// Checks a run's parameters against the function's declarations.
    ///
    /// - Throws: `ComputeError.invalidParameter` naming the parameter.
    public func check(_ parameters: ComputeParameters) throws(ComputeError) {
        try ParameterDeclaration.check(parameters, against: self.parameters)
    }

    /// Checks the parameters and `input` against the declarations, then runs the function.
    ///
    /// - Throws: `ComputeError.invalidParameter` for a parameter the function does not take,
    ///   `FrameError` when the input does not match `inputs`; whatever the function throws.
    public func callAsFunction(_ input: Frame, context: ComputeContext) async throws -> Frame {
        try check(context.parameters)
        try inputs.check(input)
        return try await body(input, context)
    }
}

/// The set of registered compute functions, by id.
public struct FunctionCatalog: Sendable {
    private let functions: [String: RegisteredFunction]

    /// Creates a catalog. Function ids must be unique.
    public init(_ functions: [RegisteredFunction]) {
        var byID: [String: RegisteredFunction] = [:]
        for function in functions {
            precondition(byID[function.descriptor.id] == nil, "two functions registered as \(function.descriptor.id)")
            byID[function.descriptor.id] = function
        }
        self.functions = byID
    }

    /// The function registered as `id`.
    ///
    /// - Throws: `CatalogError.unknownFunction` listing the ids that exist.
    public func function(_ id: String) throws(CatalogError) -> RegisteredFunction {
        guard let function = functions[id] else {
            throw .unknownFunction(id, available: functions.keys.sorted())
        }
        return function
    }

    /// Every function's descriptor, sorted by id.
    public var descriptors: [FunctionDescriptor] {
        functions.values.map(\.descriptor).sorted { $0.id < $1.id }
    }
}

/// A lookup in the catalog that failed.
public enum CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownFunction(String, available: [String])

    public var description: String {
        switch self {
        case .unknownFunction(let id, let available):
            "unknown compute function '\(id)'; registered functions: \(available.joined(separator: ", "))"
        }
    }
}
