/// Looks up the build-time digest of a function's source file.
///
/// `GeneratedSourceDigests` is written by the `FunctionDigestsPlugin` on every build: the SHA-256
/// of each source file of this module followed by the digest of the shared code under `Support/`.
/// A function declares `static let codeDigest = SourceDigest.of(#fileID)`, so its digest follows
/// its code and no one maintains it by hand.
enum SourceDigest {
    static func of(_ fileID: String) -> String {
        let name = fileID.split(separator: "/").last.map(String.init) ?? fileID
        guard let digest = GeneratedSourceDigests.byFile[name] else {
            preconditionFailure("no build-time digest for \(name); compute functions must live in EscrowFunctions")
        }
        return digest
    }
}
