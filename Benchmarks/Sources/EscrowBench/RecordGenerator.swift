import EscrowStore

/// Deterministic `Photos` and `Location` rows, shaped like a phone's library and location history.
enum RecordGenerator {
    /// `count` photo rows: mostly JPEG/HEIC images, some PNG screenshots and videos, a third of
    /// them with GPS, one every 20 minutes from 2024-01-01.
    static func photoRows(_ count: Int, seed: UInt64 = 0xF070) -> [PhotoRow] {
        var random = SeededGenerator(seed: seed)
        let start = 1_704_067_200.0
        return (0..<count).map { index in
            let kind = Int.random(in: 0..<20, using: &random)
            var info: MediaInfo
            switch kind {
            case 0..<9:
                info = MediaInfo(mediaType: .image, format: "heic")
                (info.pixelWidth, info.pixelHeight) = (4032, 3024)
            case 9..<15:
                info = MediaInfo(mediaType: .image, format: "jpeg")
                (info.pixelWidth, info.pixelHeight) = (3024, 4032)
            case 15..<18:
                info = MediaInfo(mediaType: .image, format: "png")
                (info.pixelWidth, info.pixelHeight) = (1179, 2556)
            default:
                info = MediaInfo(mediaType: .video, format: "mov")
                (info.pixelWidth, info.pixelHeight) = (1920, 1080)
                info.duration = Double(Int.random(in: 2...120, using: &random))
            }
            let created = start + Double(index) * 1200
            info.creationDate = created
            if kind < 15, Int.random(in: 0..<3, using: &random) == 0 {
                info.latitude = 41.88 + Double.random(in: -0.2...0.2, using: &random)
                info.longitude = -87.63 + Double.random(in: -0.2...0.2, using: &random)
            }
            let assetID = hex(random.next()) + hex(random.next()) + hex(random.next()) + hex(UInt64(index))
            let ext = info.format == "jpeg" ? "JPG" : info.format.uppercased()
            return PhotoRow(assetID: assetID, info: info, modificationDate: created + 5,
                            byteSize: Int.random(in: 200_000...4_000_000, using: &random),
                            originalFilename: "DCIM/100APPLE/IMG_\(1000 + index).\(ext)")
        }
    }

    /// `count` location fixes one minute apart from 2024-01-01, a random walk around Chicago.
    static func locations(_ count: Int, seed: UInt64 = 0x10C) -> [LocationRecord] {
        var random = SeededGenerator(seed: seed)
        var latitude = 41.8781
        var longitude = -87.6298
        return (0..<count).map { index in
            latitude += Double.random(in: -0.001...0.001, using: &random)
            longitude += Double.random(in: -0.001...0.001, using: &random)
            var record = LocationRecord(timestamp: 1_704_067_200 + Double(index) * 60, latitude: latitude,
                                        longitude: longitude, source: "csv", line: index + 2)
            record.horizontalAccuracy = Double(Int.random(in: 5...65, using: &random))
            return record
        }
    }

    /// 16 lowercase hex digits.
    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
