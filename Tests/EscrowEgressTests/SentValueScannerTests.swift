import EscrowCore
import EscrowEgress
import Testing

@Suite struct SentValueScannerTests {
    /// A scanner over a frame with one column per `(name, cells)`; nil is a null cell.
    func scanner(_ columns: (String, [FrameValue?])...) throws -> SentValueScanner {
        SentValueScanner(try Frame(columns: columns.map { name, cells in
            var builder = ColumnBuilder(name: name)
            for cell in cells { builder.append(cell) }
            return builder.build()
        }))
    }

    func location() throws -> SentValueScanner {
        try scanner(("latitude", [.double(41.7886)]), ("longitude", [.double(-87.5987)]))
    }

    func contact() throws -> SentValueScanner {
        try scanner(("name", [.string("Ada Lovelace")]), ("email", [.string("ada@example.com")]))
    }

    // MARK: What is flagged

    @Test(arguments: [
        "http://w.test/weather?latitude=41.7886&longitude=-87.5987",
        "http://w.test/weather?latitude=41.7886",
        "http://w.test/weather?lon=-87.5987",
        "http://w.test/points/41.7886,-87.5987/forecast",
    ])
    func aCoordinateInTheURLIsFlagged(url: String) throws {
        #expect(try location().appears(inURL: url, body: []))
    }

    @Test(arguments: [
        "http://w.test/weather?city=chicago",
        "http://w.test/weather?latitude=41.79&longitude=-87.60",
        "http://w.test/weather?latitude=41.788&longitude=87.598",
    ])
    func aURLWithoutTheCoordinatesIsNot(url: String) throws {
        #expect(try !location().appears(inURL: url, body: []))
    }

    @Test(arguments: [
        #"{"name":"Ada Lovelace","email":"ada@example.com"}"#,
        #"{"contacts":[{"email":"ada@example.com"}]}"#,
        "name=Ada+Lovelace",
        "name=Ada%20Lovelace&email=ada%40example.com",
    ])
    func aContactInAPostBodyIsFlagged(body: String) throws {
        #expect(try contact().appears(inURL: "https://api.test/upload", body: Array(body.utf8)))
    }

    @Test(arguments: [#"{"count":1}"#, #"{"name":"Charles Babbage"}"#, "name=Ada", "ada"])
    func aBodyWithoutTheContactIsNot(body: String) throws {
        #expect(try !contact().appears(inURL: "https://api.test/upload", body: Array(body.utf8)))
    }

    @Test(arguments: [
        "http://w.test/find?name=Ada%20Lovelace",
        "http://w.test/find?name=Ada+Lovelace",
        "http://w.test/find?q=ada%40example.com",
        "http://w.test/users/ada@example.com",
    ])
    func thePercentEncodedFormIsFlagged(url: String) throws {
        #expect(try contact().appears(inURL: url, body: []))
    }

    @Test(arguments: [
        ("plain", 1),
        ("Ada Lovelace", 3),
        ("ada@example.com", 2),
        ("José Ortiz", 3),
    ])
    func aTextBringsItsEncodingsWhenTheyDiffer(text: String, needles: Int) throws {
        #expect(try scanner(("text", [.string(text)])).needleCount == needles)
    }

    @Test(arguments: [(Int64(7), 0), (123, 0), (-12, 0), (1000, 1), (-100, 1), (2024, 1), (Int64.min, 1)])
    func integersOfFourCharactersOrMoreCount(value: Int64, needles: Int) throws {
        let scanner = try scanner(("n", [.int64(value)]))
        #expect(scanner.needleCount == needles)
        #expect(scanner.appears(inURL: "http://w.test/?n=\(value)", body: []) == (needles == 1))
    }

    @Test(arguments: [(1.5, 0), (41.7886, 1), (10.0, 1), (Double.infinity, 0), (-Double.infinity, 0), (Double.nan, 0)])
    func doublesAreLookedForAsSwiftWritesThem(value: Double, needles: Int) throws {
        let scanner = try scanner(("x", [.double(value)]))
        #expect(scanner.needleCount == needles)
        #expect(scanner.appears(inURL: "http://w.test/?x=\(value)", body: []) == (needles == 1))
    }

    @Test func aValueIsKeptOnceHoweverOftenItIsRead() throws {
        let rows = [FrameValue?](repeating: .string("Chicago"), count: 1_000)
        #expect(try scanner(("city", rows), ("home", rows)).needleCount == 1)
    }

    @Test func aLongTextIsLookedForByItsFirst64Bytes() throws {
        let text = String(repeating: "abcdefghijklmnopqrstuvwxy", count: 8)
        let scanner = try scanner(("note", [.string(text)]))
        #expect(scanner.needleCount == 1)
        #expect(scanner.appears(inURL: "", body: Array(text.utf8)))
        #expect(scanner.appears(inURL: "", body: Array(text.utf8.prefix(SentValueScanner.maximumNeedleLength))))
        #expect(!scanner.appears(inURL: "", body: Array(text.utf8.prefix(SentValueScanner.maximumNeedleLength - 1))))
    }

    // MARK: What is not

    @Test func shortTextsSmallNumbersAndBooleansAreNeverFlagged() throws {
        let scanner = try scanner(
            ("lang", [.string("de"), .string("a")]), ("count", [.int64(7), .int64(123)]),
            ("score", [.double(1.5), nil]), ("starred", [.bool(true), .bool(false)]))
        #expect(scanner.needleCount == 0)
        #expect(!scanner.appears(inURL: "http://w.test/?lang=de&a=a&n=7&m=123&s=1.5&starred=true",
                                 body: Array(#"{"lang":"de","n":7,"s":1.5,"starred":true}"#.utf8)))
    }

    /// Hashed data is not seen: the SHA-256 of a value shares no bytes with the value.
    @Test(arguments: [
        "76740216171591903cdbd18fbc770df447c5b1671005ca0020922a465bba0172", // SHA-256("Ada Lovelace")
        "b5fc85e55755f9e0d030a10ab4429b6b2944855f9a0d60077fe832becbc41d72", // SHA-256("ada@example.com")
    ])
    func aHashOfAValueIsNotSeen(digest: String) throws {
        #expect(try !contact().appears(inURL: "https://api.test/match?h=\(digest)", body: Array(digest.utf8)))
    }

    @Test func anEmptyFrameNeverFlags() throws {
        let empty = SentValueScanner(.empty)
        #expect(empty.needleCount == 0)
        #expect(!empty.appears(inURL: "http://w.test/?q=anything", body: Array("anything at all".utf8)))
        let nullsAndBooleans = try scanner(("name", [nil, nil]), ("flag", [.bool(true), nil]), ("n", [nil, .int64(2024)]))
        #expect(nullsAndBooleans.needleCount == 1)
        let onlyNulls = try scanner(("name", [nil, nil]), ("photo", [nil, nil]))
        #expect(onlyNulls.needleCount == 0)
        #expect(!onlyNulls.appears(inURL: "http://w.test/?name=null", body: []))
    }

    @Test func aBlobPrefixIsFlaggedInTheBodyButNotInTheURL() throws {
        let blob = Array("The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs!".utf8)
        let prefix = Array(blob.prefix(SentValueScanner.blobPrefixLength))
        let scanner = try scanner(("photo", [.bytes(blob)]))
        #expect(scanner.needleCount == 1)
        #expect(scanner.appears(inURL: "https://img.test/upload", body: [0x00] + blob + [0xFF]))
        #expect(scanner.appears(inURL: "https://img.test/upload", body: prefix))
        #expect(!scanner.appears(inURL: "https://img.test/upload", body: Array(prefix.dropFirst())))
        #expect(!scanner.appears(inURL: "https://img.test/upload?p=" + String(decoding: blob, as: UTF8.self), body: []))
    }

    @Test func aBlobShorterThanThePrefixIsNotLookedFor() throws {
        let blob = [UInt8](repeating: 0xAB, count: SentValueScanner.blobPrefixLength - 1)
        let scanner = try scanner(("photo", [.bytes(blob)]))
        #expect(scanner.needleCount == 0)
        #expect(!scanner.appears(inURL: "", body: blob))
    }

    @Test(arguments: [("", [UInt8]()), ("http://a", [1, 2]), ("http://w.test/x", Array("Ada".utf8))])
    func needlesLongerThanTheHaystackAreNotFound(url: String, body: [UInt8]) throws {
        let scanner = try scanner(("name", [.string("Ada Lovelace")]), ("bio", [.string(String(repeating: "mathematician ", count: 6))]))
        #expect(!scanner.appears(inURL: url, body: body))
    }

    @Test func aShortNeedleIsFoundWhenALongerOneCannotBe() throws {
        let scanner = try scanner(("id", [.int64(2024)]), ("bio", [.string(String(repeating: "mathematician ", count: 6))]))
        #expect(scanner.appears(inURL: "http://a/2024", body: []))
    }

    @Test(arguments: [
        ("http://w.test/?name=Ada", " Lovelace"),
        ("http://w.test/?name=Ada%20Lo", "velace"),
        ("http://w.test/?lat=41.7", "886"),
    ])
    func aValueSplitAcrossURLAndBodyIsNotFlagged(url: String, body: String) throws {
        let scanner = try scanner(("name", [.string("Ada Lovelace")]), ("latitude", [.double(41.7886)]))
        #expect(!scanner.appears(inURL: url, body: Array(body.utf8)))
        #expect(scanner.appears(inURL: url + body, body: []))
    }

    // MARK: Limits

    @Test func aHugeFrameIsCapped() throws {
        func person(_ number: Int) -> String {
            let digits = String(number)
            return "person-" + String(repeating: "0", count: 6 - digits.count) + digits
        }
        var builder = ColumnBuilder(name: "name", type: .string, capacity: 200_000)
        for number in 0..<200_000 { builder.append(person(number)) }
        let scanner = SentValueScanner(try Frame(columns: [builder.build()]))
        #expect(scanner.needleCount == SentValueScanner.maximumNeedleCount)
        let last = SentValueScanner.maximumNeedleCount - 1
        #expect(scanner.appears(inURL: "http://w.test/?n=\(person(0))", body: []))
        #expect(scanner.appears(inURL: "http://w.test/?n=\(person(last))", body: []))
        #expect(!scanner.appears(inURL: "http://w.test/?n=\(person(last + 1))", body: []))
        #expect(!scanner.appears(inURL: "http://w.test/?n=\(person(199_999))", body: []))
    }

    @Test func onlyTheFirstMebibyteOfTheBodyIsScanned() throws {
        let scanner = try contact()
        let name = Array("Ada Lovelace".utf8)
        let limit = SentValueScanner.maximumScanLength
        let endingAtTheLimit = [UInt8](repeating: 0x20, count: limit - name.count) + name
        #expect(scanner.appears(inURL: "", body: endingAtTheLimit))
        #expect(!scanner.appears(inURL: "", body: [0x20] + endingAtTheLimit))
    }

    @Test func isSharedBetweenTasks() async throws {
        let scanner = try location()
        let flags = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { scanner.appears(inURL: "http://w.test/weather?latitude=41.7886", body: []) }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(flags == [Bool](repeating: true, count: 8))
    }
}
