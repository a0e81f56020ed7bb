import Crypto
import EscrowCore
import Foundation

/// Which of the individual's contacts use the app's service — Signal's contact discovery. Each
/// phone number is reduced to its digits and hashed (SHA-256); only the hashes go to the
/// `directory` service, which answers the ones it knows; the app gets only the matching numbers,
/// never the names or the numbers that did not match.
///
/// Parameters: `directory`, the base URL of the service's directory (receives hashes only).
public struct ContactsDiscovery: ComputeFunction {
    public static let id = "contacts.discovery"
    public static let version = 1
    public static let summary = "Sends hashes of your contacts' phone numbers to the app's directory and gives the app only the numbers it knows."
    public static let inputs = InputContract.columns([InputColumn("phoneNumbers", .string)])
    public static let parameters = [
        ParameterDeclaration("directory", .serviceURL(maxLength: 200), summary: "the directory's base URL (receives hashed numbers only)"),
    ]
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    public func compute(_ input: Frame, context: ComputeContext) async throws -> Frame {
        guard let directory = context.parameters["directory"], directory.hasPrefix("http://") || directory.hasPrefix("https://") else {
            throw ComputeError.invalidParameter(name: "directory", reason: "give the directory's http(s) base URL")
        }
        let phones = try input.column("phoneNumbers")
        var numbersByHash: [String: String] = [:]
        for row in 0..<input.rowCount {
            for number in try LabeledValues.values(in: phones.string(at: row)) {
                let digits = number.filter(\.isASCII).filter(\.isNumber)
                guard digits.count >= 6 else { continue }
                numbersByHash[Self.hash(digits)] = number
            }
        }
        var matches = ColumnBuilder(name: "phoneNumber", type: .string)
        if !numbersByHash.isEmpty {
            var writer = JSONWriter()
            writer.array(numbersByHash.keys.sorted()) { writer, hash in writer.string(hash) }
            let response = try await context.requireNetwork().send(NetworkRequest(
                method: "POST", url: "\(directory)/directory/match", headers: ["Content-Type": "application/json"],
                body: writer.bytes))
            guard response.status == 200, let known = try? JSONDecoder().decode([String].self, from: Data(response.body)) else {
                throw ComputeError.serviceFailed("the directory answered \(response.status) without a JSON array of hashes")
            }
            for hash in Set(known).sorted() {
                if let number = numbersByHash[hash] { matches.append(number) }
            }
        }
        return try Frame(columns: [matches.build()])
    }

    /// SHA-256 (hex) of a number's digits, as the directory stores them.
    static func hash(_ digits: String) -> String {
        SHA256.hash(data: Array(digits.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
