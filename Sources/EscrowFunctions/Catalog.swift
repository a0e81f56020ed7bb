import EscrowCore

/// The registered compute functions: the reviewed code that both the escrow host and the
/// compute server link.
public enum EscrowFunctions {
    /// Every function shipped with the escrow.
    public static let all: [RegisteredFunction] = [
        RegisteredFunction(Identity.self),
        RegisteredFunction(ArticlesNearby.self),
        RegisteredFunction(ContactsTuples.self),
        RegisteredFunction(ContactsDiscovery.self),
        RegisteredFunction(LocationBounds.self),
        RegisteredFunction(LocationRegion.self),
        RegisteredFunction(PhotosLabels.self),
        RegisteredFunction(PhotosSummary.self),
        RegisteredFunction(WeatherCurrent.self),
    ]

    /// The catalog of `all`.
    public static let catalog = FunctionCatalog(all)
}
