import EscrowStore
import Foundation
import FuzzSupport

/// vCard 2.1/3.0/4.0 (`VCardParser`): never traps; an error names the file and a line within the
/// input; parsing is deterministic (the same bytes give the same contacts).
@main
enum FuzzVCard {
    static func main() {
        runFuzzer { data, size in
            FuzzVCard.check(fuzzInput(data, size))
            return 0
        }
    }

    static func check(_ input: [UInt8]) {
        let data = Data(input)
        do {
            let contacts = try VCardParser.parse(data, file: "fuzz.vcf")
            let again = try? VCardParser.parse(data, file: "fuzz.vcf")
            require(again == contacts, "a second parse of the same bytes gave other contacts")
        } catch {
            checkImportError(error, input: input, file: "fuzz.vcf")
        }
    }
}
