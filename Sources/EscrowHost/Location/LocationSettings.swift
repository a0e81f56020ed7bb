import EscrowCore
import EscrowStore
import Foundation

/// The escrow home's settings for location privacy (docs/LOCATION.md): how many people a masked
/// area must hold (k) and how near the truth a masked point may come (the t-closeness minimum,
/// a share of the approved radius).
public struct LocationSettings: Sendable, Hashable {
    public static let kName = "location.k"
    public static let minimumName = "location.minimum-percent"
    /// k when the setting is absent: the Location Privacy Framework thesis's choice.
    public static let defaultK = 10
    /// The largest k: every run below it may start k runs of the function.
    public static let maximumK = 50
    public static let defaultMinimumPercent = 10
    public static let minimumPercentRange = 1...50

    /// People the masked area must hold; below it the function also runs on k−1 dummy inputs.
    /// 1 turns the dummy runs off.
    public var k = defaultK
    /// The masked point lies at least this share of the approved radius away from the truth.
    public var minimumPercent = defaultMinimumPercent

    public init(k: Int = LocationSettings.defaultK, minimumPercent: Int = LocationSettings.defaultMinimumPercent) {
        self.k = k
        self.minimumPercent = minimumPercent
    }

    /// The settings stored on `state` (defaults for those never set).
    ///
    /// - Throws: `StoreError` when the database cannot be read, `SettingError` when a
    ///   stored value is not one the setting takes.
    public static func read(_ state: StateDatabase) throws -> LocationSettings {
        var settings = LocationSettings()
        if let value = try state.setting(kName) { settings.k = try k(value) }
        if let value = try state.setting(minimumName) { settings.minimumPercent = try minimumPercent(value) }
        return settings
    }

    /// k in `value`.
    ///
    /// - Throws: `SettingError` unless it is a whole number from 1 to `maximumK`.
    public static func k(_ value: String) throws(SettingError) -> Int {
        guard let k = Int(value), (1...maximumK).contains(k) else {
            throw SettingError(name: kName, value: value, takes: "a whole number of people from 1 (no dummy runs) to \(maximumK)")
        }
        return k
    }

    /// The minimum share in `value`, in percent.
    ///
    /// - Throws: `SettingError` unless it is a whole number in `minimumPercentRange`.
    public static func minimumPercent(_ value: String) throws(SettingError) -> Int {
        guard let percent = Int(value), minimumPercentRange.contains(percent) else {
            throw SettingError(name: minimumName, value: value,
                                       takes: "a whole percentage of the approved radius from \(minimumPercentRange.lowerBound) to \(minimumPercentRange.upperBound)")
        }
        return percent
    }
}

/// The escrow home's location secret: 32 random bytes in `location.key` (mode 0600), made on
/// first use. Masked points are a function of it, so it never leaves the home and is never
/// replaced silently: a new secret would give every place new masked points, and an app that
/// kept the old ones could average the two.
enum LocationSecret {
    static let fileName = "location.key"
    static let length = 32

    /// The secret of `home`, made now if the home has none.
    ///
    /// - Throws: `StoreError` when it cannot be read or written, or the file is not a secret
    ///   the escrow wrote.
    static func load(_ home: EscrowHome) throws(StoreError) -> [UInt8] {
        let path = home.url.appendingPathComponent(fileName).path
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == length else {
                throw StoreError(message: "\(path) holds \(data.count) bytes, not the \(length) of a location secret; restore it from a "
                    + "backup of the escrow home (deleting it gives every place new masked points, which apps could average with the old)")
            }
            return Array(data)
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        // Written whole to a file of its own, then linked into place: a process reading at the
        // same time sees no secret or the whole one, and of two processes making one at once
        // the first link wins and both use its secret.
        let staging = "\(path).\(UUID().uuidString)"
        let descriptor = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(message: "cannot create the location secret in \(home.url.path): \(String(cString: strerror(errno)))")
        }
        defer { unlink(staging) }
        let written = secret.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = written == length && fsync(descriptor) == 0
        let reason = String(cString: strerror(errno))
        close(descriptor)
        guard synced else { throw StoreError(message: "cannot write the location secret \(path): \(reason)") }
        guard link(staging, path) == 0 else {
            if errno == EEXIST { return try load(home) }
            throw StoreError(message: "cannot create the location secret \(path): \(String(cString: strerror(errno)))")
        }
        return secret
    }
}
