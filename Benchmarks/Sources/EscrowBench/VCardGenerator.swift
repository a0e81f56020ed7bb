/// Writes a vCard 3.0 file shaped like a phone's export (Apple Contacts' "Export vCard"): CRLF
/// lines, `N`/`FN`, one to three `TEL`s with `type=` parameters, usually an `EMAIL`, and for
/// some cards an `ORG` with `TITLE`, a grouped `item1.ADR` with its `X-ABADR`, and a `BDAY`.
/// Cards carry no `UID` (phones do not export one), so the writer derives each contact's id
/// from its content. Every card is distinct.
enum VCardGenerator {
    static func cards(_ count: Int, seed: UInt64 = 5000) -> String {
        var random = SeededGenerator(seed: seed)
        var text = ""
        text.reserveCapacity(count * 320)
        for index in 0..<count {
            text += card(index, &random)
        }
        return text
    }

    private static let givenNames = [
        "Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken",
        "Radia", "Dennis", "Sophie", "Tim", "Katherine", "Linus", "Hedy", "Niklaus", "Shafi", "Leslie",
        "Élodie", "Søren", "José", "Zoë", "Ming", "Priya", "Olusegun", "Aiko", "Mateo", "Fatima",
    ]
    private static let familyNames = [
        "Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Hamilton",
        "Thompson", "Perlman", "Ritchie", "Wilson", "Berners-Lee", "Johnson", "Torvalds", "Lamarr",
        "Wirth", "Goldwasser", "Lamport", "Müller", "García", "Nakamura", "Okafor", "Ivanova", "Chen",
    ]
    private static let companies = [
        "Acme Corp", "Globex", "Initech", "Umbrella Health", "Stark Industries", "Wayne Enterprises",
        "City Hospital", "Northwind Traders", "Contoso", "University of Chicago",
    ]
    private static let titles = ["Engineer", "Manager", "Nurse", "Professor", "Designer", "Accountant"]
    private static let streets = ["Main St", "Oak Ave", "Lake Shore Dr", "Elm St", "Michigan Ave", "2nd St"]
    private static let cities = [
        ("Chicago", "IL", "606"), ("Evanston", "IL", "602"), ("Madison", "WI", "537"),
        ("Boston", "MA", "021"), ("Austin", "TX", "787"), ("Seattle", "WA", "981"),
    ]
    private static let phoneTypes = [
        "type=CELL;type=VOICE", "type=HOME;type=VOICE", "type=WORK;type=VOICE", "type=IPHONE;type=CELL;type=VOICE",
        "type=MAIN", "type=WORK;type=FAX",
    ]

    private static func card(_ index: Int, _ random: inout SeededGenerator) -> String {
        let given = random.pick(givenNames)
        let family = random.pick(familyNames)
        var lines = [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 17.5//EN",
            "N:\(family);\(given);;;", "FN:\(given) \(family)",
        ]
        let phones = Int.random(in: 1...3, using: &random)
        for phone in 0..<phones {
            let preferred = phone == 0 ? ";type=pref" : ""
            let area = 200 + (index * 7 + phone * 131) % 800
            let number = String(1_000_000 + (index * 3 + phone) % 9_000_000)
            let digits = "+1 (\(area)) \(number.prefix(3))-\(number.suffix(4))"
            lines.append("TEL;\(random.pick(phoneTypes))\(preferred):\(digits)")
        }
        if Int.random(in: 0..<10, using: &random) < 8 {
            let kind = Bool.random(using: &random) ? "HOME" : "WORK"
            let local = "\(given.lowercased()).\(family.lowercased()).\(index)"
            lines.append("EMAIL;type=INTERNET;type=\(kind);type=pref:\(local)@example.org")
        }
        if Int.random(in: 0..<10, using: &random) < 4 {
            lines.append("ORG:\(random.pick(companies));")
            lines.append("TITLE:\(random.pick(titles))")
        }
        if Int.random(in: 0..<10, using: &random) < 3 {
            let (city, state, zip) = random.pick(cities)
            let street = "\(Int.random(in: 1...9999, using: &random)) \(random.pick(streets))"
            let postal = zip + String(format2(Int.random(in: 0...99, using: &random)))
            lines.append("item1.ADR;type=HOME;type=pref:;;\(street);\(city);\(state);\(postal);United States")
            lines.append("item1.X-ABADR:us")
        }
        if Int.random(in: 0..<10, using: &random) < 2 {
            let year = 1940 + Int.random(in: 0...65, using: &random)
            let month = format2(Int.random(in: 1...12, using: &random))
            let day = format2(Int.random(in: 1...28, using: &random))
            lines.append("BDAY:\(year)-\(month)-\(day)")
        }
        lines.append("END:VCARD")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func format2(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
