import EscrowTestSupport
import Foundation
import Testing

@testable import EscrowStore

/// The vCard fixtures next to this file.
private func fixture(_ name: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/contacts/\(name)")
    return try Data(contentsOf: url)
}

private func parseFixture(_ name: String) throws -> [ContactRecord] {
    try VCardParser.parse(fixture(name), file: name)
}

/// Parses a card written as lines joined by CRLF.
private func parseLines(_ lines: [String]) throws -> [ContactRecord] {
    try VCardParser.parse(Data((lines.joined(separator: "\r\n") + "\r\n").utf8), file: "inline.vcf")
}

/// Parses one 3.0 card with `properties` between the header and `END:VCARD`.
private func parseCard(_ properties: [String]) throws -> ContactRecord? {
    try parseLines(["BEGIN:VCARD", "VERSION:3.0"] + properties + ["END:VCARD"]).first
}

/// The error `parse` throws for `data`, or nil when it succeeds.
private func importError(_ data: Data, file: String = "bad.vcf") -> ImportError? {
    do {
        _ = try VCardParser.parse(data, file: file)
        return nil
    } catch {
        return error
    }
}

@Suite("VCardParser")
struct VCardParserTests {
    // MARK: Real exports

    @Test func appleContactsExport() throws {
        let cards = try parseFixture("apple-contacts-3.0.vcf")
        try #require(cards.count == 3)

        let john = cards[0]
        #expect(john.line == 1)
        #expect(john.contactType == "person")
        #expect(john.namePrefix == "Dr.")
        #expect(john.givenName == "John")
        #expect(john.middleName == "Quincy")
        #expect(john.familyName == "Appleseed")
        #expect(john.nameSuffix == "Jr.")
        #expect(john.nickname == "Johnny")
        #expect(john.organizationName == "Example Fruit Co.")
        #expect(john.departmentName == "Orchards")
        #expect(john.jobTitle == "Head Gardener")
        #expect(john.emailAddresses == [
            LabeledValue(label: "home", value: "john@example.com"),
            LabeledValue(label: "work", value: "j.appleseed@fruit.example.com"),
        ])
        #expect(john.phoneNumbers == [
            LabeledValue(label: "mobile", value: "(555) 555-0101"),
            LabeledValue(label: "home", value: "(555) 555-0102"),
            LabeledValue(label: "work fax", value: "(555) 555-0103"),
            LabeledValue(label: "Boat", value: "(555) 555-0104"),
            LabeledValue(label: "mobile", value: "(555) 555-0105"),
        ])
        #expect(john.postalAddresses == [
            PostalAddress(label: "home", street: "1 Orchard Lane\nUnit 2", city: "Cupertino", state: "CA",
                          postalCode: "95014", country: "United States"),
        ])
        #expect(john.urlAddresses == [LabeledValue(label: "homepage", value: "https://john.example.com")])
        #expect(john.birthday == "1985-04-12")
        #expect(john.note == "Prefers email, not calls.\nAllergic to pears; bring apples.")
        #expect(john.uid == nil)

        let acme = cards[1]
        #expect(acme.contactType == "organization")
        #expect(acme.organizationName == "Acme Widgets")
        #expect(acme.departmentName == nil)
        #expect(acme.givenName == nil && acme.familyName == nil)
        #expect(acme.phoneNumbers == [LabeledValue(label: "main", value: "(555) 555-0199")])
        #expect(acme.emailAddresses == [LabeledValue(label: "work", value: "orders@acme.example.com")])

        let zoe = cards[2]
        #expect(zoe.givenName == "Zoë")
        #expect(zoe.familyName == "Åberg")
        #expect(zoe.emailAddresses == [LabeledValue(label: "other", value: "zoe@example.se")])
        #expect(zoe.phoneNumbers == [LabeledValue(label: "home fax", value: "+46 555 0107")])
        #expect(zoe.birthday == "--11-05")
        #expect(zoe.uid == "8D3F3A42-6C2B-4B5A-9E2D-77C1A0B9E001")
    }

    @Test func outlookVCard21Export() throws {
        let cards = try parseFixture("outlook-2.1.vcf")
        try #require(cards.count == 1)
        let jorg = cards[0]
        #expect(jorg.givenName == "Jörg")
        #expect(jorg.familyName == "Müller")
        #expect(jorg.organizationName == "Contoso Ltd.")
        #expect(jorg.departmentName == "Sales")
        #expect(jorg.jobTitle == "Account Manager")
        #expect(jorg.phoneNumbers == [
            LabeledValue(label: "work", value: "+49 30 5550100"),
            LabeledValue(label: "home", value: "+49 30 5550101"),
            LabeledValue(label: "mobile", value: "+49 170 5550102"),
            LabeledValue(label: "work fax", value: "+49 30 5550103"),
        ])
        #expect(jorg.postalAddresses == [
            PostalAddress(label: "work", street: "Hauptstraße 5", city: "Berlin", postalCode: "10115",
                          country: "Deutschland"),
        ])
        #expect(jorg.emailAddresses == [LabeledValue(label: nil, value: "joerg.mueller@contoso.example.com")])
        #expect(jorg.urlAddresses == [LabeledValue(label: "work", value: "http://www.contoso.example.com")])
        #expect(jorg.note == "Preis: 20 € pro Stunde.\n"
            + "Rückruf bitte vormittags; nicht vor 9 Uhr, da er morgens Termine hat.")
        #expect(jorg.birthday == "1970-03-15")
    }

    @Test func androidVCard21Export() throws {
        let cards = try parseFixture("android-2.1.vcf")
        try #require(cards.count == 2)
        let li = cards[0]
        #expect(li.familyName == "李")
        #expect(li.givenName == "小龙")
        #expect(li.phoneNumbers == [
            LabeledValue(label: "mobile", value: "555-0110"),
            LabeledValue(label: "home", value: "555-0111"),
            LabeledValue(label: nil, value: "555-0112"),
        ])
        #expect(li.emailAddresses == [LabeledValue(label: "home", value: "li@example.com")])
        #expect(li.note == "Café on the corner; orders the usual ☕ and a croissant.\nSecond line.")
        #expect(li.birthday == "1990-02-28")
        #expect(li.nickname == nil)

        let jose = cards[1]
        #expect(jose.line == 15)
        #expect(jose.givenName == "José")
        #expect(jose.familyName == "Muñoz")
        #expect(jose.phoneNumbers == [
            LabeledValue(label: "work", value: "555-0120"),
            LabeledValue(label: "pager", value: "555-0121"),
        ])
        #expect(jose.postalAddresses == [
            PostalAddress(label: "home", street: "Calle Mayor 3", city: "Málaga", postalCode: "29001",
                          country: "España"),
        ])
    }

    @Test func vCard40OrganizationAndIndividual() throws {
        let cards = try parseFixture("kind-org-4.0.vcf")
        try #require(cards.count == 2)
        let roasters = cards[0]
        #expect(roasters.contactType == "organization")
        #expect(roasters.organizationName == "Example Coffee Roasters")
        #expect(roasters.givenName == nil && roasters.familyName == nil)
        #expect(roasters.uid == "4fbe8971-0bc3-424c-9c26-36c3e1eff6b1")
        #expect(roasters.phoneNumbers == [
            LabeledValue(label: "work", value: "+1-555-555-0123"),
            LabeledValue(label: "work fax", value: "+1-555-555-0124"),
        ])
        #expect(roasters.postalAddresses == [
            PostalAddress(label: "work", street: "100 Bean St.", city: "Portland", state: "OR", postalCode: "97201",
                          country: "USA"),
        ])
        #expect(roasters.urlAddresses == [LabeledValue(label: nil, value: "https://coffee.example.com")])
        #expect(roasters.groups == ["coffee", "suppliers"])

        let simon = cards[1]
        #expect(simon.contactType == "person")
        #expect(simon.givenName == "Simon")
        #expect(simon.familyName == "Perreault")
        #expect(simon.nameSuffix == "ing. jr,M.Sc.")
        #expect(simon.birthday == "--02-03")
        #expect(simon.phoneNumbers == [
            LabeledValue(label: "work", value: "+1-555-555-9254;ext=102"),
            LabeledValue(label: "mobile", value: "+1-555-555-6501"),
        ])
        #expect(simon.urlAddresses == [LabeledValue(label: "home", value: "http://nomis.example.org")])
    }

    @Test func googleContactsExport() throws {
        let cards = try parseFixture("google-3.0.vcf")
        try #require(cards.count == 3)
        #expect(cards[0].urlAddresses == [LabeledValue(label: "blog", value: "http://maria.example.com")])
        #expect(cards[0].birthday == "--04-12")
        #expect(cards[0].groups == ["myContacts", "Book Club"])
        #expect(cards[0].postalAddresses.first?.country == "US")
        #expect(cards[1].line == 14)
        #expect(cards[1].familyName == "Garcia")
        #expect(cards[1].givenName == "Luis")
        #expect(cards[2].organizationName == "Northwind Traders")
        #expect(cards[2].givenName == nil && cards[2].familyName == nil)
        #expect(cards[2].contactType == "person")
    }

    @Test func exampleSampleData() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/SampleData/contacts.vcf").standardizedFileURL
        let cards = try VCardParser.parse(Data(contentsOf: url), file: "contacts.vcf")
        #expect(cards.count >= 20)
        #expect(cards.allSatisfy { $0.uid != nil })
    }

    // MARK: Line structure

    @Test(arguments: [
        ("CRLF", "\r\n", false), ("LF", "\n", false), ("CR", "\r", false), ("BOM and CRLF", "\r\n", true),
    ])
    func lineEndings(name: String, ending: String, bom: Bool) throws {
        let lines = [
            "BEGIN:VCARD", "VERSION:3.0", "N:Doe;Jane;;;", "NOTE:folded ac", " ross lines", "TEL;TYPE=CELL:555-0100",
            "END:VCARD", "", "BEGIN:VCARD", "VERSION:3.0", "FN:John Roe", "END:VCARD",
        ]
        var data = Data(bom ? [0xEF, 0xBB, 0xBF] : [])
        data.append(contentsOf: Array(lines.joined(separator: ending).utf8))
        let cards = try VCardParser.parse(data, file: "\(name).vcf")
        try #require(cards.count == 2)
        #expect(cards[0].givenName == "Jane")
        #expect(cards[0].note == "folded across lines")
        #expect(cards[0].phoneNumbers == [LabeledValue(label: "mobile", value: "555-0100")])
        #expect(cards[1].line == 9)
        #expect(cards[1].givenName == "John" && cards[1].familyName == "Roe")
    }

    @Test func foldingWithTabAndCaseInsensitiveNames() throws {
        let card = try #require(try parseLines([
            "begin:vcard", "version:3.0", "n:Doe;Ja", "\tne;;;", "email;type=work:jane@", " example.com", "End:VCard",
        ]).first)
        #expect(card.givenName == "Jane")
        #expect(card.emailAddresses == [LabeledValue(label: "work", value: "jane@example.com")])
    }

    @Test func escapes() throws {
        let card = try #require(try parseCard([
            #"N:O\;Brien;Mary\, Ann;;;"#,
            #"NOTE:a\,b\;c\nd\Ne\\f\:g"#,
            #"ORG:Smith\, Jones & Co.;Legal\; Tax"#,
        ]))
        #expect(card.familyName == "O;Brien")
        #expect(card.givenName == "Mary, Ann")
        #expect(card.note == "a,b;c\nd\ne\\f:g")
        #expect(card.organizationName == "Smith, Jones & Co.")
        #expect(card.departmentName == "Legal; Tax")
    }

    @Test func photoIsSkipped() throws {
        let card = try #require(try parseCard([
            "N:Doe;Jane;;;",
            "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDAsMDAwLDA0",
            " ZGhwdHx8fHxsjJSQkJSYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiY=",
            "PHOTO;VALUE=uri:https://example.com/jane.jpg",
            "TEL:555-0100",
        ]))
        #expect(card.givenName == "Jane")
        #expect(card.phoneNumbers == [LabeledValue(label: nil, value: "555-0100")])
    }

    // MARK: Labels

    @Test(arguments: [
        ("TEL;TYPE=CELL:1", "mobile"), ("TEL;TYPE=home,voice:1", "home"), ("TEL;TYPE=\"home,voice\":1", "home"),
        ("TEL;TYPE=WORK;TYPE=VOICE:1", "work"), ("TEL;TYPE=FAX;TYPE=HOME:1", "home fax"),
        ("TEL;TYPE=WORK,FAX:1", "work fax"), ("TEL;TYPE=FAX:1", "fax"), ("TEL;TYPE=IPHONE:1", "iphone"),
        ("TEL;TYPE=MAIN:1", "main"), ("TEL;TYPE=PAGER:1", "pager"), ("TEL;TYPE=OTHER:1", "other"),
        ("TEL;HOME;VOICE:1", "home"), ("TEL;CELL:1", "mobile"), ("tel;type=cell:1", "mobile"),
        ("TEL;TYPE=VOICE:1", nil), ("TEL:1", nil), ("TEL;TYPE=PREF:1", nil),
        ("EMAIL;TYPE=INTERNET;TYPE=HOME:1", "home"), ("EMAIL;TYPE=INTERNET,WORK,PREF:1", "work"),
        ("EMAIL;TYPE=INTERNET:1", nil), ("EMAIL;INTERNET;OTHER:1", "other"),
    ] as [(String, String?)])
    func labelsFromTypes(line: String, label: String?) throws {
        let card = try #require(try parseCard([line]))
        let values = card.phoneNumbers + card.emailAddresses
        #expect(values == [LabeledValue(label: label, value: "1")])
    }

    @Test(arguments: [
        ("_$!<Mobile>!$_", "mobile"), ("_$!<Home>!$_", "home"), ("_$!<Work>!$_", "work"),
        ("_$!<Main>!$_", "main"), ("_$!<HomeFAX>!$_", "home fax"), ("_$!<WorkFAX>!$_", "work fax"),
        ("_$!<Pager>!$_", "pager"), ("_$!<Other>!$_", "other"), ("Boat", "Boat"), ("Grand-mère", "Grand-mère"),
    ])
    func appleGroupLabels(written: String, label: String) throws {
        let card = try #require(try parseCard([
            "ITEM1.TEL;type=HOME:555-0100", "item1.X-ABLabel:\(written)", "item2.EMAIL:a@example.com",
            "Item2.x-ablabel:\(written)",
        ]))
        #expect(card.phoneNumbers == [LabeledValue(label: label, value: "555-0100")])
        #expect(card.emailAddresses == [LabeledValue(label: label, value: "a@example.com")])
    }

    // MARK: Properties

    @Test(arguments: [
        ("1985-04-12", "1985-04-12"), ("19850412", "1985-04-12"), ("--0412", "--04-12"), ("--04-12", "--04-12"),
        ("1985-04-12T00:00:00Z", "1985-04-12"), ("19850412T000000Z", "1985-04-12"),
        ("1985-04-12T08:30:00-05:00", "1985-04-12"), ("2000-02-29", "2000-02-29"), ("--02-29", "--02-29"),
    ])
    func birthdays(written: String, normalized: String) throws {
        let card = try #require(try parseCard(["BDAY:\(written)"]))
        #expect(card.birthday == normalized)
    }

    @Test(arguments: ["12.04.1985", "1985-13-01", "1985-04-31", "1900-02-29", "1985-0412", "April 12", "1985"])
    func invalidBirthdays(written: String) {
        let error = importError(Data("BEGIN:VCARD\r\nVERSION:3.0\r\nBDAY:\(written)\r\nEND:VCARD\r\n".utf8))
        #expect(error?.line == 3)
        #expect(error?.reason.contains("BDAY '\(written)' is not a date") == true)
    }

    @Test func appleOmittedYearAndTextBirthday() throws {
        #expect(try parseCard(["BDAY;X-APPLE-OMIT-YEAR=1604:1604-03-09"])?.birthday == "--03-09")
        #expect(try parseCard(["BDAY;VALUE=text:circa 1800"])?.birthday == nil)
        #expect(try parseCard(["BDAY:"])?.birthday == nil)
    }

    @Test func uidCategoriesAndKind() throws {
        let card = try #require(try parseCard([
            "UID:urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "CATEGORIES:Work,Friends", "CATEGORIES:Friends,Soccer",
            "KIND:org", "FN:Initech",
        ]))
        #expect(card.uid == "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6")
        #expect(card.groups == ["Work", "Friends", "Soccer"])
        #expect(card.contactType == "organization")
        #expect(card.organizationName == "Initech")
        #expect(card.givenName == nil)
    }

    @Test(arguments: [
        ("Jane Doe", "Jane", "Doe"), ("Mary Ann Smith", "Mary Ann", "Smith"), ("Cher", "Cher", nil),
        (#"Doe\, John"#, "John", "Doe"),
    ] as [(String, String?, String?)])
    func formattedNameFallback(formatted: String, given: String?, family: String?) throws {
        let card = try #require(try parseCard(["N:;;;;", "FN:\(formatted)"]))
        #expect(card.givenName == given)
        #expect(card.familyName == family)
    }

    @Test func formattedNameDoesNotOverrideN() throws {
        let card = try #require(try parseCard(["FN:Johnny Appleseed", "N:Appleseed;John;;;"]))
        #expect(card.givenName == "John")
        #expect(card.familyName == "Appleseed")
    }

    @Test func addressJoinsPostOfficeBoxAndExtendedAddress() throws {
        let card = try #require(try parseCard([
            "ADR;TYPE=WORK:PO Box 12;Suite 400;100 Main St;Springfield;IL;62701;USA", "ADR;TYPE=HOME:;;;;;;",
        ]))
        #expect(card.postalAddresses == [
            PostalAddress(label: "work", street: "100 Main St\nSuite 400\nPO Box 12", city: "Springfield", state: "IL",
                          postalCode: "62701", country: "USA"),
        ])
    }

    @Test(arguments: [
        ("CHARSET=UTF-8", [0x4D, 0xC3, 0xBC, 0x6C, 0x6C, 0x65, 0x72], "Müller"),
        ("CHARSET=ISO-8859-1", [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72], "Müller"),
        ("CHARSET=latin1", [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72], "Müller"),
        ("CHARSET=windows-1252", [0x80, 0x20, 0x93, 0x71, 0x94], "€ “q”"),
        ("CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE", Array("M=C3=BCller".utf8), "Müller"),
        ("QUOTED-PRINTABLE;CHARSET=ISO-8859-1", Array("M=FCller".utf8), "Müller"),
    ] as [(String, [UInt8], String)])
    func charsets(parameters: String, value: [UInt8], expected: String) throws {
        var data = Data("BEGIN:VCARD\r\nVERSION:2.1\r\nNOTE;\(parameters):".utf8)
        data.append(contentsOf: value)
        data.append(contentsOf: Array("\r\nEND:VCARD\r\n".utf8))
        let cards = try VCardParser.parse(data, file: "charset.vcf")
        #expect(cards.first?.note == expected)
    }

    @Test func vCard21WithoutCharsetFallsBackToWindows1252() throws {
        var data = Data("BEGIN:VCARD\r\nVERSION:2.1\r\nN:M".utf8)
        data.append(contentsOf: [0xFC, 0x6C, 0x6C, 0x65, 0x72])
        data.append(contentsOf: Array(";Anna\r\nEND:VCARD\r\n".utf8))
        #expect(try VCardParser.parse(data, file: "latin.vcf").first?.familyName == "Müller")
    }

    // MARK: Malformed files

    @Test(arguments: [
        ("malformed-unterminated.vcf", 6, "card starting at line 6 has no END:VCARD; the file may be truncated"),
        ("malformed-end-without-begin.vcf", 7, "END:VCARD without a matching BEGIN:VCARD"),
        ("malformed-nested.vcf", 4, "BEGIN:VCARD inside the card starting at line 1"),
        ("malformed-no-colon.vcf", 6, "line has no ':'"),
        ("malformed-version.vcf", 7, "unsupported vCard VERSION '5.0'; expected 2.1, 3.0 or 4.0"),
        ("malformed-quoted-printable.vcf", 4, "invalid quoted-printable"),
        ("malformed-charset.vcf", 3, "unsupported CHARSET=KOI8-R"),
        ("malformed-utf8.vcf", 8, "not valid in its CHARSET"),
        ("malformed-bday.vcf", 7, "BDAY 'sometime in spring' is not a date"),
        ("malformed-outside.vcf", 1, "is outside a card"),
    ])
    func malformedFixtures(name: String, line: Int, reason: String) throws {
        let error = try #require(importError(try fixture(name), file: name))
        #expect(error.file == name)
        #expect(error.line == line)
        #expect(error.reason.contains(reason), "\(error.reason)")
    }

    @Test(arguments: ["empty.vcf", "no-cards.vcf"])
    func fileWithoutCards(name: String) throws {
        let error = try #require(importError(try fixture(name), file: name))
        #expect(error == ImportError(file: name, line: nil, reason: "no vCard found; expected BEGIN:VCARD"))
        #expect(error.description == "\(name): no vCard found; expected BEGIN:VCARD")
    }

    @Test func invalidUTF8InVCard30WithoutCharset() {
        var data = Data("BEGIN:VCARD\nVERSION:3.0\nFN:Bad ".utf8)
        data.append(0xFF)
        data.append(contentsOf: Array("\nEND:VCARD\n".utf8))
        let error = importError(data)
        #expect(error?.line == 3)
        #expect(error?.reason.contains("not valid UTF-8") == true)
    }

    // MARK: Scale

    @Test func sampleContactsAtScale() throws {
        let text = SampleContacts.vCard(count: 5000)
        let cards = try VCardParser.parse(Data(text.utf8), file: "sample.vcf")
        #expect(cards.count == 5000)
        #expect(Set(cards.compactMap(\.uid)).count == 5000)
        #expect(cards.allSatisfy { !$0.phoneNumbers.isEmpty && !$0.emailAddresses.isEmpty && $0.givenName != nil })
        #expect(cards.contains { $0.note?.contains("seed catalogue.\nCall back") == true })
        #expect(cards.contains { $0.birthday != nil } && cards.contains { !$0.groups.isEmpty })
        #expect(cards.contains { $0.givenName?.unicodeScalars.contains { !$0.isASCII } == true })
        #expect(SampleContacts.vCard(count: 50, seed: 7) == SampleContacts.vCard(count: 50, seed: 7))
        #expect(SampleContacts.vCard(count: 50, seed: 7) != SampleContacts.vCard(count: 50, seed: 8))
    }
}
