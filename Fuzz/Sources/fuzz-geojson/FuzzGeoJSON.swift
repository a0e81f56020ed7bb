import EscrowStore
import Foundation
import FuzzSupport

/// GeoJSON (`GeoJSONParser`, over its line-numbering JSON reader): never traps; every record and
/// error passes `checkLocations`.
@main
enum FuzzGeoJSON {
    static func main() {
        runFuzzer { data, size in
            FuzzGeoJSON.check(fuzzInput(data, size))
            return 0
        }
    }

    static func check(_ input: [UInt8]) {
        let result = Result { () throws(ImportError) in try GeoJSONParser.parse(Data(input), file: "fuzz.geojson") }
        checkLocations(result, input: input, file: "fuzz.geojson", sources: ["geojson"])
    }
}
