import Foundation

/// Deterministic vCard 3.0 test data.
///
/// The cards vary the way real address books do: 1–3 typed phone numbers, one or two email
/// addresses, and on some cards an address, organization and title, a birthday, categories, a long
/// folded note, or a name with non-ASCII letters. Lines end in CRLF and long lines are folded at
/// 75 bytes, as exporters write them.
///
/// Thread safety: stateless; call from any thread or task.
public enum SampleContacts {
    /// A vCard file of `count` cards; the same `count` and `seed` always give the same text.
    ///
    /// - Parameters:
    ///   - count: The number of cards.
    ///   - seed: Varies the names, numbers and which optional properties each card has.
    /// - Returns: The file's text; card `i` has `UID:sample-<seed>-<i>`.
    public static func vCard(count: Int, seed: UInt64 = 1) -> String {
        var generator = SplitMix64(seed: seed)
        var output = ""
        output.reserveCapacity(count * 320)
        for index in 0..<max(0, count) {
            appendCard(index: index, seed: seed, to: &output, using: &generator)
        }
        return output
    }

    private static let givenNames = [
        "Alice", "Bob", "Carol", "David", "Emma", "Farid", "Grace", "Hiro", "Isabel", "Jamal",
        "Katarzyna", "Liam", "Maya", "Noah", "Olivia", "Priya", "Quentin", "Rosa", "Samuel", "Tessa",
    ]
    private static let familyNames = [
        "Anderson", "Brown", "Chen", "Diaz", "Evans", "Fischer", "Garcia", "Hughes", "Ivanova", "Jones",
        "Kim", "Lopez", "Martin", "Nguyen", "Okafor", "Patel", "Quinn", "Rossi", "Smith", "Taylor",
    ]
    private static let accentedNames: [(given: String, family: String)] = [
        ("José", "Muñoz"), ("Zoë", "Åberg"), ("François", "Lefèvre"), ("Jürgen", "Groß"),
        ("Søren", "Kierkegård"), ("Łukasz", "Wróbel"), ("Chloé", "Dubois"), ("小龙", "李"),
        ("Ayşe", "Yılmaz"), ("Björk", "Guðmundsdóttir"),
    ]
    private static let phoneTypes = ["CELL", "HOME", "WORK", "WORK,FAX", "IPHONE", "MAIN", "OTHER"]
    private static let companies = [
        "Acme Corporation", "Globex", "Initech", "Umbrella Research", "Stark Industries",
        "Wayne Enterprises", "Hooli", "Vandelay Industries",
    ]
    private static let titles = ["Engineer", "Designer", "Product Manager", "Accountant", "Nurse", "Teacher"]
    private static let streets = ["Main St", "Oak Ave", "Elm St", "Maple Dr", "Cedar Ln", "Pine Rd"]
    private static let cities: [(city: String, state: String, postalCode: String)] = [
        ("Springfield", "IL", "62701"), ("Portland", "OR", "97201"), ("Austin", "TX", "73301"),
        ("Boston", "MA", "02108"), ("Denver", "CO", "80202"),
    ]
    private static let categories = ["Family", "Friends", "Work", "Book Club", "Soccer"]

    private static func appendCard(index: Int, seed: UInt64, to output: inout String,
                                   using generator: inout SplitMix64) {
        let given: String
        let family: String
        if generator.next(below: 6) == 0 {
            let name = accentedNames[generator.next(below: accentedNames.count)]
            (given, family) = (name.given, name.family)
        } else {
            given = givenNames[generator.next(below: givenNames.count)]
            family = familyNames[generator.next(below: familyNames.count)]
        }
        var lines = [
            "BEGIN:VCARD",
            "VERSION:3.0",
            "UID:sample-\(seed)-\(index)",
            "N:\(family);\(given);;;",
            "FN:\(given) \(family)",
        ]
        for phone in 0..<(1 + generator.next(below: 3)) {
            let type = phoneTypes[generator.next(below: phoneTypes.count)]
            let number = 100 + generator.next(below: 900)
            lines.append("TEL;TYPE=\(type):+1 555 \(number) \(String(format: "%04d", index % 10_000 + phone))")
        }
        let emailName = "\(given).\(family)".lowercased().filter { $0.isASCII && $0 != " " }
        lines.append("EMAIL;TYPE=INTERNET;TYPE=HOME:\(emailName.isEmpty ? "contact" : emailName)\(index)@example.com")
        if generator.next(below: 3) == 0 {
            lines.append("EMAIL;TYPE=INTERNET;TYPE=WORK:\(given.prefix(1).lowercased())\(index)@work.example.org")
        }
        if generator.next(below: 2) == 0 {
            let company = companies[generator.next(below: companies.count)]
            lines.append("ORG:\(company);Department \(generator.next(below: 9) + 1)")
            lines.append("TITLE:\(titles[generator.next(below: titles.count)])")
        }
        if generator.next(below: 3) == 0 {
            let place = cities[generator.next(below: cities.count)]
            let street = "\(1 + generator.next(below: 9_999)) \(streets[generator.next(below: streets.count)])"
            lines.append("ADR;TYPE=HOME:;;\(street);\(place.city);\(place.state);\(place.postalCode);USA")
        }
        if generator.next(below: 4) == 0 {
            let year = 1940 + generator.next(below: 65)
            let month = 1 + generator.next(below: 12)
            let day = 1 + generator.next(below: 28)
            lines.append(String(format: "BDAY:%04d-%02d-%02d", year, month, day))
        }
        if generator.next(below: 4) == 0 {
            let first = categories[generator.next(below: categories.count)]
            let second = categories[generator.next(below: categories.count)]
            lines.append(first == second ? "CATEGORIES:\(first)" : "CATEGORIES:\(first),\(second)")
        }
        if generator.next(below: 5) == 0 {
            lines.append("NOTE:Met at the conference in \(cities[generator.next(below: cities.count)].city)\\, "
                + "talked about gardening\\; promised to send the seed catalogue.\\nCall back after the holidays.")
        }
        lines.append("END:VCARD")
        for line in lines { appendFolded(line, to: &output) }
    }

    /// Appends a content line folded at 75 bytes (never inside a UTF-8 sequence), ending in CRLF.
    private static func appendFolded(_ line: String, to output: inout String) {
        var width = 0
        for character in line {
            let size = character.utf8.count
            if width + size > 75 {
                output += "\r\n "
                width = 1
            }
            output.append(character)
            width += size
        }
        output += "\r\n"
    }
}
