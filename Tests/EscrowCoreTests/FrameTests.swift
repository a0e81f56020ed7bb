import EscrowCore
import Testing

@Suite struct ColumnBuilderTests {
    @Test func declaredTypeKeepsNulls() throws {
        var builder = ColumnBuilder(name: "n", type: .int64)
        builder.append(Int64(1))
        builder.appendNull()
        builder.append(Int64(3))
        let column = builder.build()
        #expect(column.type == .int64)
        #expect(column.int64(at: 0) == 1)
        #expect(column.int64(at: 1) == nil)
        #expect(column.isNull(at: 1))
        #expect(column.int64(at: 2) == 3)
    }

    @Test func leadingNullsTakeTheTypeOfTheFirstValue() {
        var builder = ColumnBuilder(name: "x")
        builder.appendNull()
        builder.appendNull()
        builder.append("a")
        let column = builder.build()
        #expect(column.type == .string)
        #expect(column.count == 3)
        #expect(column.string(at: 0) == nil)
        #expect(column.string(at: 2) == "a")
    }

    @Test func integersWidenToDoubles() {
        var builder = ColumnBuilder(name: "x")
        builder.append(Int64(2))
        builder.append(2.5)
        builder.append(Int64(4))
        let column = builder.build()
        #expect(column.type == .double)
        #expect((0..<3).map { column.double(at: $0) } == [2, 2.5, 4])
    }

    @Test func mixedTextAndNumbersBecomeText() {
        var builder = ColumnBuilder(name: "x")
        builder.append(Int64(7))
        builder.appendNull()
        builder.append("seven")
        let column = builder.build()
        #expect(column.type == .string)
        #expect(column.string(at: 0) == "7")
        #expect(column.string(at: 1) == nil)
        #expect(column.string(at: 2) == "seven")
    }

    @Test func onlyNullsIsATextColumnOfNulls() {
        var builder = ColumnBuilder(name: "x")
        builder.appendNull()
        let column = builder.build()
        #expect(column.count == 1)
        #expect(column.value(at: 0) == nil)
    }
}

@Suite struct FrameTests {
    @Test func raggedColumnsAreRejected() {
        let a = Column(name: "a", values: .int64([1, 2]))
        let b = Column(name: "b", values: .int64([1]))
        #expect(throws: FrameError.ragged(column: "b", expected: 2, actual: 1)) { try Frame(columns: [a, b]) }
    }

    @Test func duplicateNamesAreRejected() {
        let a = Column(name: "a", values: .int64([1]))
        #expect(throws: FrameError.duplicateColumn("a")) { try Frame(columns: [a, a]) }
    }

    @Test func missingColumnNamesTheColumnsThatExist() throws {
        let frame = try Frame(columns: [Column(name: "latitude", values: .double([1]))])
        #expect(throws: FrameError.missingColumn("longitude", available: ["latitude"])) { try frame.column("longitude") }
    }

    @Test func payloadCountsEveryCell() throws {
        let frame = try Frame(columns: [
            Column(name: "n", values: .int64([1, 2])),
            Column(name: "s", values: .string(["ab", "çd"])),
            Column(name: "b", values: .bytes([[1, 2, 3], []])),
        ])
        #expect(frame.payloadByteCount == 16 + 2 + 3 + 3)
    }

    @Test func inputContractChecksNamesAndTypes() throws {
        let frame = try Frame(columns: [Column(name: "latitude", values: .string(["x"]))])
        let contract = InputContract.columns([InputColumn("latitude", .double, .int64)])
        #expect(throws: FrameError.wrongType(column: "latitude", expected: [.double, .int64], actual: .string)) {
            try contract.check(frame)
        }
        try InputContract.any.check(frame)
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2024-05-01T12:34:56Z", 1_714_566_896.0),
        ("2024-05-01T12:34:56.250Z", 1_714_566_896.25),
        ("2024-05-01T14:34:56+02:00", 1_714_566_896.0),
        ("2024-05-01T07:34:56-0500", 1_714_566_896.0),
        ("2024-05-01 12:34:56", 1_714_566_896.0),
        ("2024-05-01", 1_714_521_600.0),
        ("1969-12-31T23:59:59Z", -1.0),
    ])
    func parses(text: String, seconds: Double) {
        #expect(Timestamp.parse(text) == seconds)
    }

    @Test(arguments: ["", "2024-13-01", "2024-05-01T25:00", "yesterday", "2024-05-01T12:34:56Zjunk", "2024-5-1"])
    func rejects(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func formatsFixedWidthUTC() {
        #expect(Timestamp.format(secondsSince1970: 1_714_566_896.25) == "2024-05-01T12:34:56.250Z")
        #expect(Timestamp.format(secondsSince1970: -0.5) == "1969-12-31T23:59:59.500Z")
        #expect(Timestamp.format(secondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(secondsSince1970: 951_782_400) == "2000-02-29T00:00:00.000Z")
        #expect(Timestamp.format(secondsSince1970: 253_402_300_799.999) == "9999-12-31T23:59:59.999Z")
    }

    @Test func formatAndParseRoundTripAcrossCenturies() throws {
        var seconds = -2_208_988_800.0  // 1900-01-01
        while seconds < 4_102_444_800 {  // 2100-01-01
            let text = Timestamp.format(secondsSince1970: seconds)
            #expect(Timestamp.parse(text) == seconds, "\(text)")
            seconds += 86_400 * 37 + 3_661.125
        }
    }
}

@Suite struct JSONWriterTests {
    @Test func escapesAndNests() {
        var writer = JSONWriter()
        writer.array(["a\"b", "line\nbreak", "\u{01}", "ünï"]) { writer, value in writer.string(value) }
        #expect(writer.text == #"["a\"b","line\nbreak","\u0001","ünï"]"#)
        var object = JSONWriter()
        object.object { fields in
            fields.field("label", nil)
            fields.field("value", "x")
        }
        #expect(object.text == #"{"label":null,"value":"x"}"#)
        var empty = JSONWriter()
        empty.object { _ in }
        #expect(empty.text == "{}")
    }
}
