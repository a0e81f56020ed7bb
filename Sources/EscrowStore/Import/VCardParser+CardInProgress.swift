import Foundation

extension VCardParser {
    /// Where a grouped value was stored, so that its group's `X-ABLabel` can relabel it.
    enum LabeledField {
        case phone(Int), email(Int), address(Int), url(Int)
    }

    /// The card being read.
    struct CardInProgress {
        var record: ContactRecord
        var version21 = false
        var hasName = false
        var formattedName: String?
        var groupLabels: [String: String] = [:]
        var groupedFields: [(group: String, field: LabeledField)] = []

        init(line: Int) { record = ContactRecord(line: line) }

        /// Applies Apple labels and the FN fallback, and returns the finished record.
        mutating func finish() -> ContactRecord {
            for (group, field) in groupedFields {
                guard let label = groupLabels[group] else { continue }
                switch field {
                case .phone(let index): record.phoneNumbers[index].label = label
                case .email(let index): record.emailAddresses[index].label = label
                case .address(let index): record.postalAddresses[index].label = label
                case .url(let index): record.urlAddresses[index].label = label
                }
            }
            if !hasName, let formattedName { fillName(from: formattedName) }
            return record
        }

        /// Fills the name from `FN` when `N` is missing or empty; a company's `FN` names the organization.
        private mutating func fillName(from formattedName: String) {
            if record.contactType == "organization"
                || formattedName.caseInsensitiveCompare(record.organizationName ?? "") == .orderedSame {
                if record.organizationName == nil { record.organizationName = formattedName }
                return
            }
            if let comma = formattedName.firstIndex(of: ",") {
                let family = formattedName[..<comma].trimmingCharacters(in: .whitespaces)
                let given = formattedName[formattedName.index(after: comma)...].trimmingCharacters(in: .whitespaces)
                record.familyName = family.isEmpty ? nil : family
                record.givenName = given.isEmpty ? nil : given
                return
            }
            let words = formattedName.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let last = words.last else { return }
            if words.count == 1 {
                record.givenName = String(last)
            } else {
                record.givenName = words.dropLast().joined(separator: " ")
                record.familyName = String(last)
            }
        }
    }
}
