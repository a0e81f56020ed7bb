import EscrowEgress
import Testing

@Suite struct HostNameTests {
    @Test(arguments: [
        ("www.Example.COM", "www.example.com", false),
        ("example.com.", "example.com", false),
        ("_dmarc.example.com", "_dmarc.example.com", false),
        ("bücher.example", "xn--bcher-kva.example", false),
        ("公司.cn", "xn--55qx5d.cn", false),
        ("xn--55qx5d.cn", "xn--55qx5d.cn", false),
        ("München.DE.", "xn--mnchen-3ya.de", false),
        ("192.0.2.1", "192.0.2.1", true),
        ("[2001:DB8::1]", "2001:db8::1", true),
    ])
    func normalizes(raw: String, expected: String, isIP: Bool) throws {
        let host = try #require(HostName(raw))
        #expect(host.text == expected)
        #expect(host.isIPAddress == isIP)
    }

    @Test(arguments: ["", ".", "..", "a..b", ".example.com", "-a.com", "a-.com", "a.b-.com", "a.-b.com", "a.com-", "a.com..", "exa mple.com", "a/b.com", "http://x.com/", "a:b", ":::", "1:2:3:4:5:6:7:8:9", "a.com\u{0}",
                      String(repeating: "a", count: 64) + ".com", Array(repeating: "abcdefghi", count: 26).joined(separator: ".")])
    func refusesWhatIsNoHost(raw: String) {
        #expect(HostName(raw) == nil)
    }

    @Test func readsItsLabelsFromTheRight() throws {
        #expect(try #require(HostName("x.y.example.com")).labelsFromTheRight == ["com", "example", "y", "x"])
    }
}
