import Foundation

/// The grid a location mask works on: cells of about `size` meters, laid on the sphere in bands of
/// latitude, each band cut into a whole number of cells around the Earth (so cells meet across
/// the antimeridian), and shifted by a secret offset so no one can tell where cell edges fall.
///
/// Thread safety: a value.
struct MaskGrid: Sendable, Hashable {
    /// Meters a degree of latitude spans on the sphere.
    static let metersPerDegree = Double.pi * GreatCircle.earthRadius / 180

    let size: Double
    /// The secret shift of the edges, in fractions of a cell (0..<1).
    let latitudeShift: Double
    let longitudeShift: Double

    /// One cell: its band and place in the band, its centre, and how far its farthest point lies
    /// from that centre.
    struct Cell: Sendable, Hashable {
        let band: Int
        let index: Int
        let center: GeoPoint
        let reach: Double
    }

    var latitudeStep: Double { size / Self.metersPerDegree }

    /// The cell holding `point`.
    func cell(of point: GeoPoint) -> Cell {
        let step = latitudeStep
        let band = Int(((point.latitude + 90) / step + latitudeShift).rounded(.down))
        // The band's edges, clamped to the poles.
        let south = max(-90, (Double(band) - latitudeShift) * step - 90)
        let north = min(90, (Double(band) + 1 - latitudeShift) * step - 90)
        let middle = (south + north) / 2
        let count = cellsAround(at: middle)
        let width = 360 / Double(count)
        let index = Int(((point.longitude + 180) / width + longitudeShift).rounded(.down)) % count
        let centerLongitude = (Double(index) + 0.5 - longitudeShift) * width - 180
        let center = GeoPoint(latitude: middle, longitude: centerLongitude) ?? point
        // The farthest points of a cell are on its corners, or, for a band of one or two cells, on
        // the far side of the band: measure them all.
        var reach = 0.0
        for latitude in [south, north] {
            for longitude in [centerLongitude - width / 2, centerLongitude + width / 2, centerLongitude + 180] where count <= 2 || longitude != centerLongitude + 180 {
                if let corner = GeoPoint(latitude: latitude, longitude: longitude) {
                    reach = max(reach, GreatCircle.distance(center, corner))
                }
            }
            // The middle of an edge at the equatorward side can lie farther than a corner when
            // the cell is wide; include it.
            if let edge = GeoPoint(latitude: latitude, longitude: centerLongitude) {
                reach = max(reach, GreatCircle.distance(center, edge))
            }
        }
        return Cell(band: band, index: index, center: center, reach: reach * (1 + 1e-9) + 1e-6)
    }

    /// Cells around the Earth in the band centred on `latitude`: as many as fit `size` meters
    /// wide there, at least one.
    private func cellsAround(at latitude: Double) -> Int {
        let circumference = 360 * Self.metersPerDegree * cos(GreatCircle.radians(latitude))
        let fitting = (circumference / size).rounded(.down)
        return fitting.isFinite ? max(1, Int(min(fitting, 1e9))) : 1
    }
}
