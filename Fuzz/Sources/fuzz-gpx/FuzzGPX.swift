import EscrowStore
import Foundation
import FuzzSupport

/// GPX (`GPXParser`, over libxml2): never traps; every record and error passes `checkLocations`.
@main
enum FuzzGPX {
    static func main() {
        runFuzzer { data, size in
            FuzzGPX.check(fuzzInput(data, size))
            return 0
        }
    }

    static func check(_ input: [UInt8]) {
        let result = Result { () throws(ImportError) in try GPXParser.parse(Data(input), file: "fuzz.gpx") }
        checkLocations(result, input: input, file: "fuzz.gpx", sources: ["gpx:trkpt", "gpx:rtept", "gpx:wpt"])
    }
}
