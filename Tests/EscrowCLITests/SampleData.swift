import Foundation

/// The sample data shipped in `Examples/SampleData`, named as a user in the package root would.
enum SampleData {
    static let contacts = "Examples/SampleData/contacts.vcf"
    static let track = "Examples/SampleData/track.gpx"
    static let photos = "Examples/SampleData/photos"

    static func url(_ relativePath: String) -> URL {
        EscrowProcess.packageRoot.appendingPathComponent(relativePath)
    }

    /// The number of `BEGIN:VCARD` lines in the contacts file.
    static func contactCount() throws -> Int {
        try String(contentsOf: url(contacts), encoding: .utf8)
            .split(whereSeparator: \.isNewline)
            .filter { $0.uppercased() == "BEGIN:VCARD" }
            .count
    }

    /// The number of phone numbers (`TEL` properties, grouped or not) in the contacts file.
    static func phoneNumberCount() throws -> Int {
        try String(contentsOf: url(contacts), encoding: .utf8)
            .split(whereSeparator: \.isNewline)
            .filter { line in
                let name = line.prefix { $0 != ":" && $0 != ";" }.uppercased()
                return name == "TEL" || name.hasSuffix(".TEL")
            }
            .count
    }

    /// The latitude and longitude of the last `<trkpt>` in the GPX track.
    static func lastTrackPoint() throws -> (latitude: Double, longitude: Double)? {
        let gpx = try String(contentsOf: url(track), encoding: .utf8)
        guard let point = gpx.matches(of: /<trkpt\s[^>]*>/).last.map({ String($0.output) }),
              let latitude = point.firstMatch(of: /\blat="([-+0-9.]+)"/).flatMap({ Double($0.output.1) }),
              let longitude = point.firstMatch(of: /\blon="([-+0-9.]+)"/).flatMap({ Double($0.output.1) })
        else { return nil }
        return (latitude, longitude)
    }

    /// The bytes of every JPEG and PNG file under the photos folder, subfolders included.
    static func imageFiles() throws -> [URL: Data] {
        let root = url(photos)
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [:] }
        var images: [URL: Data] = [:]
        for case let file as URL in files where ["jpg", "jpeg", "png"].contains(file.pathExtension.lowercased()) {
            images[file] = try Data(contentsOf: file)
        }
        return images
    }
}
