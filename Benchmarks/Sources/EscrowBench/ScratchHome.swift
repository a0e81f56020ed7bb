import EscrowStore
import Foundation

/// An escrow home in a new temporary folder, deleted by `remove()`. Not initialised until
/// `initialize()` is called, so a figure can time initialisation itself.
struct ScratchHome {
    let home: EscrowHome

    init() {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("escrow-bench-\(UUID().uuidString)", isDirectory: true)
        home = EscrowHome(url: url)
    }

    /// A new home with both databases created and migrated.
    static func initialized() throws -> ScratchHome {
        let scratch = ScratchHome()
        try scratch.home.initialize()
        return scratch
    }

    func remove() {
        do {
            try FileManager.default.removeItem(at: home.url)
        } catch {
            FileHandle.standardError.write(Data("escrow-bench: cannot remove \(home.url.path): \(error)\n".utf8))
        }
    }
}
