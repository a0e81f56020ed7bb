import EscrowStore
import Foundation
import FuzzSupport

/// Location CSV (`LocationCSVParser`): never traps; every record and error passes `checkLocations`.
@main
enum FuzzCSV {
    static func main() {
        runFuzzer { data, size in
            FuzzCSV.check(fuzzInput(data, size))
            return 0
        }
    }

    static func check(_ input: [UInt8]) {
        let result = Result { () throws(ImportError) in try LocationCSVParser.parse(Data(input), file: "fuzz.csv") }
        checkLocations(result, input: input, file: "fuzz.csv", sources: ["csv"])
    }
}
