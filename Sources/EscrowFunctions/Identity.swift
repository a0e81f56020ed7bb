import EscrowCore

/// Returns the access() result unchanged: the paper's "the platform needs the raw data" flow.
/// Approving it means the app receives exactly the rows and columns its SQL selects.
public struct Identity: ComputeFunction {
    public static let id = "identity"
    public static let version = 1
    public static let summary = "Gives the app the selected data itself, unchanged."
    public static let inputs = InputContract.any
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    public func compute(_ input: Frame, context: ComputeContext) -> Frame {
        input
    }
}
