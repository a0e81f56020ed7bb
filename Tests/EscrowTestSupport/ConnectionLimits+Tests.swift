import EscrowWire

extension ConnectionLimits {
    /// Limits for a daemon in a test: the default first-request deadline (10 s) is for real apps;
    /// the whole suite running at once on two cores can keep a test's first request waiting longer.
    /// A test of the deadlines passes its own.
    public static let forTests = ConnectionLimits(firstRequestTimeout: .seconds(120))
}
