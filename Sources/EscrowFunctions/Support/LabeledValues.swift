import EscrowCore
import Foundation

/// Reads the JSON arrays of labeled values the Contact table stores (`phoneNumbers`,
/// `emailAddresses`): `[{"label": "mobile", "value": "+1 555 0100"}, …]`.
enum LabeledValues {
    private struct Item: Decodable {
        let value: String
    }

    /// The values of the array, in order; empty for null or an empty array.
    ///
    /// - Throws: `ComputeError.invalidInput` when the text is not such an array.
    static func values(in json: String?) throws(ComputeError) -> [String] {
        guard let json, json != "[]" else { return [] }
        do {
            return try JSONDecoder().decode([Item].self, from: Data(json.utf8)).map(\.value)
        } catch {
            throw .invalidInput("expected a JSON array of {\"label\", \"value\"} objects")
        }
    }
}
