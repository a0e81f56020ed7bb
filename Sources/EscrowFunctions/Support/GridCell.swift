import Foundation

/// The cell of a fixed grid (cells `2 × radius` meters wide) that contains a point: what leaves
/// the escrow instead of the point, so nobody learns where inside the cell it was.
struct GridCell: Equatable {
    /// Meters per degree of latitude (mean).
    static let metersPerDegree = 111_320.0

    let south: Double
    let west: Double
    let north: Double
    let east: Double

    init(latitude: Double, longitude: Double, radius: Double) {
        let latitudeStep = 2 * radius / Self.metersPerDegree
        let row = (latitude / latitudeStep).rounded(.down)
        south = max(-90, row * latitudeStep)
        north = min(90, south + latitudeStep)
        let middle = (south + north) / 2
        let shrink = max(cos(middle * .pi / 180), 0.01)
        let longitudeStep = min(360, 2 * radius / (Self.metersPerDegree * shrink))
        let column = ((longitude + 180) / longitudeStep).rounded(.down)
        west = column * longitudeStep - 180
        east = min(180, west + longitudeStep)
    }
}
