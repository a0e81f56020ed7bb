import EscrowCore
import EscrowModules
import Testing

/// The manifest a module carries: read, checked for form, every problem named.
@Suite struct ModuleManifestTests {
    @Test func aFullManifestReadsAsDeclared() throws {
        let manifest = try ModuleManifest(json: Array("""
            {"id": "example.region", "version": 3, "summary": "Gives the app the region.",
             "inputs": [{"name": "latitude", "types": ["double", "int64"]}, {"name": "label", "types": ["string"]}],
             "parameters": [{"name": "radius", "kind": "number", "min": 100, "max": 100000, "summary": "meters"},
                            {"name": "service", "kind": "service-url", "maxLength": 200, "summary": "where to ask"},
                            {"name": "q", "kind": "text", "maxLength": 64, "summary": "a term"}]}
            """.utf8))
        #expect(manifest.id == "example.region")
        #expect(manifest.version == 3)
        #expect(manifest.inputs == .columns([InputColumn("latitude", .double, .int64), InputColumn("label", .string)]))
        #expect(manifest.parameters == [
            ParameterDeclaration("radius", .number(100...100_000), summary: "meters"),
            ParameterDeclaration("service", .serviceURL(maxLength: 200), summary: "where to ask"),
            ParameterDeclaration("q", .text(maxLength: 64), summary: "a term"),
        ])
    }

    @Test func inputsAndParametersMayBeLeftOut() throws {
        let manifest = try ModuleManifest(json: Array(#"{"id": "a.b", "version": 1, "summary": "Does a thing."}"#.utf8))
        #expect(manifest.inputs == .any)
        #expect(manifest.parameters.isEmpty)
    }

    static let bad: [(json: String, says: String)] = [
        ("", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        (#"{"version": 1, "summary": "x"}"#, #""id" is missing"#),
        (#"{"id": 7, "version": 1, "summary": "x"}"#, #""id" must be a string"#),
        (#"{"id": "Weather", "version": 1, "summary": "x"}"#, "is not a module id"),
        (#"{"id": "a..b", "version": 1, "summary": "x"}"#, "is not a module id"),
        (#"{"id": "1a.b", "version": 1, "summary": "x"}"#, "is not a module id"),
        (#"{"id": "a.b", "version": 0, "summary": "x"}"#, #""version" must be a whole number"#),
        (#"{"id": "a.b", "version": 1.5, "summary": "x"}"#, #""version" must be a whole number"#),
        (#"{"id": "a.b", "version": true, "summary": "x"}"#, #""version" must be a whole number"#),
        (#"{"id": "a.b", "version": "1", "summary": "x"}"#, #""version" must be a whole number"#),
        (#"{"id": "a.b", "version": 1, "summary": "  "}"#, #""summary" is empty"#),
        (#"{"id": "a.b", "version": 1, "summary": "Safe \u202Egnp.exe"}"#, "bidirectional control"),
        (#"{"id": "a.b", "version": 1, "summary": "two\nlines"}"#, "control character"),
        (#"{"id": "a.b", "version": 1, "summary": "x", "extra": 1}"#, #"unknown field "extra""#),
        (#"{"id": "a.b", "version": 1, "summary": "x", "inputs": "some"}"#, #""inputs" must be "any" or a list"#),
        (#"{"id": "a.b", "version": 1, "summary": "x", "inputs": [{"name": "a", "types": ["float"]}]}"#, #""float" is not a column type"#),
        (#"{"id": "a.b", "version": 1, "summary": "x", "inputs": [{"name": "a", "types": []}]}"#, "must be a list of column types"),
        (#"{"id": "a.b", "version": 1, "summary": "x", "inputs": [{"name": "a", "types": ["int64"]}, {"name": "a", "types": ["int64"]}]}"#, "twice"),
        (#"{"id": "a.b", "version": 1, "summary": "x", "parameters": [{"name": "r", "kind": "number", "summary": "s"}]}"#, #"give "min" and "max""#),
        (#"{"id": "a.b", "version": 1, "summary": "x", "parameters": [{"name": "r", "kind": "number", "min": 5, "max": 1, "summary": "s"}]}"#, "min no more than max"),
        (#"{"id": "a.b", "version": 1, "summary": "x", "parameters": [{"name": "r", "kind": "file", "summary": "s"}]}"#, "is not a parameter kind"),
        (#"{"id": "a.b", "version": 1, "summary": "x", "parameters": [{"name": "r", "kind": "text", "maxLength": 0, "summary": "s"}]}"#, "maxLength"),
        (#"{"id": "a.b", "version": 1, "summary": "x", "parameters": [{"name": "r", "kind": "text", "maxLength": 9}]}"#, #"summary" is missing"#),
    ]

    @Test(arguments: bad)
    func aBadManifestIsRefusedNamingTheField(_ bad: (json: String, says: String)) {
        do {
            _ = try ModuleManifest(json: Array(bad.json.utf8))
            Issue.record("accepted \(bad.json)")
        } catch {
            guard case .badManifest = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains(bad.says), "\(error)")
        }
    }

    @Test func aManifestLargerThanTheLimitIsRefused() {
        let json = #"{"id": "a.b", "version": 1, "summary": "\#(String(repeating: "x", count: ModuleManifest.maximumBytes))"}"#
        #expect(throws: ModuleError.self) { try ModuleManifest(json: Array(json.utf8)) }
    }
}
