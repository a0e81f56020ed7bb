import Foundation

/// A spatial index of places on the sphere: rows of `rowHeight` degrees of latitude, each cut
/// into as many longitude cells as make them about as wide as they are tall (so cells stay near
/// 55 km square: 720 cells in a row at the equator, 3 in the rows at the poles), the last cell of
/// a row meeting the first at the antimeridian.
///
/// A query names a spherical cap (a centre and a radius) and visits every place of every cell its
/// bounding box touches: the rows the cap's latitudes cross, and in each row the cells its
/// longitudes cross, all of them when the cap holds a pole. Every place within the radius is
/// visited (and some beyond it), so a nearest search that grows the cap until its best candidate
/// lies within the radius is exact.
///
/// Thread safety: a value.
struct PlaceGrid: Sendable {
    static let rowHeight = 0.5
    static let rowCount = Int(180 / rowHeight)

    /// The first cell of each row, and the total cell count at the end.
    private let rowStart: [Int]
    /// The members of cell `c` are `members[cellStart[c]..<cellStart[c + 1]]`.
    private let cellStart: [Int32]
    private let members: [Int32]

    /// Indexes the places `indices` of `points`.
    init(points: [GeoPoint], indices: [Int]) {
        var rowStart = [0]
        for row in 0..<Self.rowCount {
            let middle = -90 + (Double(row) + 0.5) * Self.rowHeight
            let columns = max(1, Int((360 / Self.rowHeight * cos(GreatCircle.radians(middle))).rounded(.down)))
            rowStart.append(rowStart[row] + columns)
        }
        self.rowStart = rowStart
        let cellCount = rowStart[Self.rowCount]
        var counts = [Int32](repeating: 0, count: cellCount + 1)
        let cells = indices.map { index in Self.cell(of: points[index], rowStart: rowStart) }
        for cell in cells { counts[cell + 1] += 1 }
        for cell in 0..<cellCount { counts[cell + 1] += counts[cell] }
        var next = counts
        var members = [Int32](repeating: 0, count: indices.count)
        for (index, cell) in zip(indices, cells) {
            members[Int(next[cell])] = Int32(index)
            next[cell] += 1
        }
        cellStart = counts
        self.members = members
    }

    private static func row(of latitude: Double) -> Int {
        min(rowCount - 1, max(0, Int(((latitude + 90) / rowHeight).rounded(.down))))
    }

    private static func columns(_ row: Int, rowStart: [Int]) -> Int { rowStart[row + 1] - rowStart[row] }

    /// The column of `longitude` in a row of `columns` cells; longitudes outside −180..<180 give
    /// columns outside 0..<columns, which the caller wraps.
    private static func column(of longitude: Double, columns: Int) -> Int {
        Int(((longitude + 180) / 360 * Double(columns)).rounded(.down))
    }

    private static func cell(of point: GeoPoint, rowStart: [Int]) -> Int {
        let row = row(of: point.latitude)
        let columns = columns(row, rowStart: rowStart)
        return rowStart[row] + min(columns - 1, max(0, column(of: point.longitude, columns: columns)))
    }

    /// Calls `body` with the index of every place within `radius` meters of `center`, and of some
    /// farther ones (those of the cells the cap's bounding box touches).
    func forEachCandidate(near center: GeoPoint, within radius: Double, _ body: (Int) -> Void) {
        // A hair wider than the cap, so rounding cannot leave out a place on its edge. A cap of
        // half the Earth or more (or of a radius that is no number) is the whole Earth.
        let angle = max(0, radius) / GreatCircle.earthRadius * (1 + 1e-9) + 1e-12
        let wholeEarth = !(angle < .pi)
        let angleDegrees = wholeEarth ? 180 : GreatCircle.degrees(angle)
        let south = center.latitude - angleDegrees, north = center.latitude + angleDegrees
        let firstRow = Self.row(of: south), lastRow = Self.row(of: north)
        // The cap holds a pole (or is half the sphere): every longitude of its rows.
        let wholeRows = wholeEarth || angle >= .pi / 2 || north >= 90 || south <= -90
        // Within the cap, longitude differs from the centre's by at most asin(sin δ / cos φ).
        let halfWidth = wholeRows ? 180 : GreatCircle.degrees(asin(min(1, sin(angle) / cos(GreatCircle.radians(center.latitude))))) + 1e-9
        members.withUnsafeBufferPointer { members in
            cellStart.withUnsafeBufferPointer { cellStart in
                for row in firstRow...lastRow {
                    let first = rowStart[row], columns = rowStart[row + 1] - first
                    var west = 0, east = columns - 1
                    if halfWidth < 180 {
                        west = Self.column(of: center.longitude - halfWidth, columns: columns)
                        east = Self.column(of: center.longitude + halfWidth, columns: columns)
                        if east - west + 1 >= columns { (west, east) = (0, columns - 1) }
                    }
                    for column in west...east {
                        let cell = first + ((column % columns) + columns) % columns
                        for slot in Int(cellStart[cell])..<Int(cellStart[cell + 1]) { body(Int(members[slot])) }
                    }
                }
            }
        }
    }
}
