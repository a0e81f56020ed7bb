/// A value that converts to and from a `Frame`: the serializable output of a compute function.
public protocol FrameRepresentable: Sendable {
    /// The value as a frame.
    func frame() throws -> Frame
    /// Rebuilds the value from a frame produced by `frame()`.
    init(frame: Frame) throws
}

extension Frame: FrameRepresentable {
    public func frame() -> Frame { self }
    public init(frame: Frame) { self = frame }
}
