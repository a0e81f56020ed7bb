import Logging
import Synchronization

/// A `Logger` whose records, at every level, are kept for a test to read.
///
/// Thread safety: the logger may be used from any task; `records` reads a copy.
public final class CapturedLog: Sendable {
    /// One record: its level, message and metadata, rendered as text.
    public struct Record: Sendable, Equatable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]

        public init(level: Logger.Level, message: String, metadata: [String: String]) {
            self.level = level
            self.message = message
            self.metadata = metadata
        }

        /// The record's message and metadata keys and values, for looking for a text anywhere in it.
        public var text: String {
            ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    private let kept = Mutex<[Record]>([])

    public init() {}

    /// A logger at level trace that keeps its records here.
    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    public var records: [Record] { kept.withLock { $0 } }

    fileprivate func keep(_ record: Record) { kept.withLock { $0.append(record) } }

    private struct Handler: LogHandler {
        let capture: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.keep(Record(level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }))
        }
    }
}
