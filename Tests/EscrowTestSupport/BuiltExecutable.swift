import Foundation

/// Finds an executable this package built, for tests that start real processes.
public enum BuiltExecutable {
    /// The package root (two levels above `Tests/EscrowTestSupport/`).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built executable called `name`: looked for from the test bundle's folder upwards,
    /// then in `.build/debug`.
    ///
    /// - Throws: `Missing` naming the places searched.
    public static func url(named name: String) throws -> URL {
        var starts: [URL] = [Bundle.main.bundleURL]
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for start in starts {
            var folder = start.standardizedFileURL
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent(name)
                if isExecutableFile(candidate) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        let fallback = packageRoot.appendingPathComponent(".build/debug/\(name)")
        if isExecutableFile(fallback) { return fallback }
        throw Missing(name: name, searched: starts.map(\.path) + [fallback.path])
    }

    private static func isExecutableFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: url.path)
    }

    /// The executable was not built.
    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public let searched: [String]
        public var description: String {
            "no \(name) executable found (looked up from \(searched.joined(separator: ", "))); run `swift build` first"
        }
    }
}
