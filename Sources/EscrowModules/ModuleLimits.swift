import EscrowWire

/// What one module run may use. Each limit fails the run with its own error
/// (`ModuleRunError.outOfFuel`, `.memoryLimit`, `.wallTime`) and leaves the escrow serving.
public struct ModuleLimits: Sendable, Hashable {
    /// Instructions (WasmKit fuel: about one per WebAssembly operator, one per 64 bytes a bulk
    /// memory operation moves). The default, 2·10⁹, is about a second of the interpreter's time.
    public var fuel: UInt64
    /// Linear memory, in bytes (rounded down to 64 KiB pages).
    public var memoryBytes: Int
    /// Wall-clock time from the instance's creation to `escrow_run`'s return, network waits included.
    public var wallTime: Duration
    /// Requests one run may send through `http_send`.
    public var requests: Int

    public static let `default` = ModuleLimits()

    /// Bounds an individual or operator may set.
    public static let fuelRange: ClosedRange<UInt64> = 1_000_000...1_000_000_000_000
    public static let memoryMegabytesRange: ClosedRange<Int> = 1...4096
    public static let wallTimeMillisecondsRange: ClosedRange<Int> = 10...600_000

    /// The most bytes a module may be: the protocol's (`RPCLimits.maximumModuleLength`), which
    /// the daemon's socket takes on top of a run request's other fields.
    public static let maximumModuleBytes = RPCLimits.maximumModuleLength
    /// The most bytes an output frame may be.
    public static let maximumOutputBytes = 64 * 1024 * 1024
    /// The most log lines one run keeps (later ones are counted, not kept), and their length.
    public static let maximumLogLines = 100
    public static let maximumLogLineBytes = 1000

    public init(fuel: UInt64 = 2_000_000_000, memoryBytes: Int = 64 * 1024 * 1024, wallTime: Duration = .seconds(10),
                requests: Int = 32) {
        self.fuel = fuel
        self.memoryBytes = memoryBytes
        self.wallTime = wallTime
        self.requests = requests
    }
}
