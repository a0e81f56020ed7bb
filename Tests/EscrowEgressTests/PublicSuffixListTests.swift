import EscrowEgress
import Testing

/// Against Debian's list: the cases of publicsuffix.org's own test file (`tests/test_psl.txt`)
/// that the list of 2023 answers the same way, and the edge cases egress recording meets.
@Suite struct PublicSuffixListTests {
    static let list = Result { () throws(EgressListError) in try PublicSuffixList() }

    @Test(arguments: [
        ("example.com", "example.com"),
        ("b.example.com", "example.com"),
        ("a.b.example.com", "example.com"),
        ("example.co.uk", "example.co.uk"),
        ("www.example.co.uk", "example.co.uk"),
        ("www.example.COM.", "example.com"),
        ("a.b.example.uk.com", "example.uk.com"),
        // Wildcard `*.ck` and its exception `!www.ck`.
        ("b.test.ck", "b.test.ck"),
        ("a.b.test.ck", "b.test.ck"),
        ("www.ck", "www.ck"),
        ("www.www.ck", "www.ck"),
        // `*.kawasaki.jp` with the exception `!city.kawasaki.jp`.
        ("city.kawasaki.jp", "city.kawasaki.jp"),
        ("www.city.kawasaki.jp", "city.kawasaki.jp"),
        ("b.c.kawasaki.jp", "b.c.kawasaki.jp"),
        // Private domains count, as in browsers.
        ("user.github.io", "user.github.io"),
        ("a.user.github.io", "user.github.io"),
        // Internationalized names, in either form.
        ("食狮.公司.cn", "xn--85x722f.xn--55qx5d.cn"),
        ("shishi.xn--55qx5d.cn", "shishi.xn--55qx5d.cn"),
        ("www.食狮.中国", "xn--85x722f.xn--fiqs8s"),
        // No rule matches: the last label is the suffix.
        ("www.example.example", "example.example"),
        ("tracker.test", "tracker.test"),
    ])
    func registrableDomain(host: String, expected: String) throws {
        let list = try Self.list.get()
        #expect(list.registrableDomain(of: try #require(HostName(host))) == expected)
    }

    @Test(arguments: ["com", "co.uk", "github.io", "test.ck", "xn--55qx5d.cn", "192.0.2.1", "::1"])
    func aSuffixOrAnAddressHasNoRegistrableDomain(host: String) throws {
        #expect(try Self.list.get().registrableDomain(of: try #require(HostName(host))) == nil)
    }

    @Test func theSuffixIsTheLongestRule() throws {
        let list = try Self.list.get()
        #expect(list.publicSuffix(of: try #require(HostName("www.example.co.uk"))) == "co.uk")
        #expect(list.publicSuffix(of: try #require(HostName("a.b.c.ck"))) == "c.ck")
        #expect(list.ruleCount > 9000)
    }

    @Test func aMissingListSaysWhichPackageInstallsIt() {
        #expect(throws: EgressListError.self) { try PublicSuffixList(contentsOf: "/nonexistent/public_suffix_list.dat") }
        do {
            _ = try PublicSuffixList(contentsOf: "/nonexistent/public_suffix_list.dat")
        } catch {
            #expect(error.description.contains("apt-get install --no-install-recommends publicsuffix"))
        }
        #expect(throws: EgressListError.empty("rules")) { try PublicSuffixList(text: "// only a comment\n\n", source: "rules") }
    }
}
