import EscrowCore
import Testing

@Suite struct HostAddressTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("::1", true), ("fe80::1", true), ("compute-1", false), ("localhost", false),
        ("compute-1.example.org", false), ("1.2.3", false), ("1.2.3.256", false), ("1.2.3.4.example.org", false),
        ("1..3.4", false),
    ])
    func literalsAreToldFromNames(host: String, isLiteral: Bool) {
        #expect(HostAddress.isIPLiteral(host) == isLiteral)
    }
}
