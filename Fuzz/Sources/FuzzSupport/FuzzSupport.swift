import CLibFuzzer
import EscrowStore
import Foundation

/// Hands the process to libFuzzer's driver, which reads its options and inputs from the command
/// line and calls `test` on each input (libFuzzer's `-help=1` lists the options).
///
/// - Parameter test: libFuzzer's test function; a closure that captures nothing, typically
///   `{ fuzzInput($0, $1).map(check); return 0 }`.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// The input libFuzzer hands to the test function, as bytes (a copy: the harness may keep it).
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return [UInt8](UnsafeBufferPointer(start: start, count: count))
}

/// Stops the run when `condition` is false, so libFuzzer saves the input as a crash: how a
/// harness reports a broken invariant (a logic bug) the same way as a trap.
///
/// - Parameter message: what was expected and what happened, printed before the trap.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("invariant broken: \(message())\n".utf8))
    fatalError("invariant broken")
}

/// Checks what every location parser promises of what it returns (GPX, GeoJSON, CSV) or throws.
///
/// Records: finite coordinates in range (latitude -90...90, longitude -180...180), finite optional
/// numbers, the expected `source`, a line number within the input. Errors: they name the file, and
/// a line, when given, is within the input.
public func checkLocations(_ result: Result<[LocationRecord], ImportError>, input: [UInt8], file: String, sources: Set<String>) {
    let lines = lineCount(input)
    switch result {
    case .success(let records):
        for record in records {
            require(record.latitude.isFinite && (-90...90).contains(record.latitude), "latitude \(record.latitude) out of range")
            require(record.longitude.isFinite && (-180...180).contains(record.longitude), "longitude \(record.longitude) out of range")
            for (name, value) in [("timestamp", record.timestamp), ("altitude", record.altitude),
                                  ("horizontalAccuracy", record.horizontalAccuracy), ("verticalAccuracy", record.verticalAccuracy),
                                  ("speed", record.speed), ("course", record.course)] {
                require(value?.isFinite ?? true, "\(name) \(value.map { "\($0)" } ?? "nil") is not finite")
            }
            require(sources.contains(record.source), "source '\(record.source)' is not one of \(sources.sorted())")
            require((1...lines).contains(record.line), "line \(record.line) outside the input's \(lines) lines")
        }
    case .failure(let error):
        checkImportError(error, input: input, file: file)
    }
}

/// Checks that an import error names `file`, gives a reason, and a line within the input.
public func checkImportError(_ error: ImportError, input: [UInt8], file: String) {
    let lines = lineCount(input)
    require(error.file == file, "the error names '\(error.file)', not '\(file)'")
    require(!error.reason.isEmpty, "an error without a reason")
    if let line = error.line {
        require((1...lines).contains(line), "error line \(line) outside the input's \(lines) lines: \(error)")
    }
}

/// The number of lines of `input`, counting LF, CRLF and a lone CR (old Mac files) as line breaks:
/// the most any parser's line numbers can reach.
public func lineCount(_ input: [UInt8]) -> Int {
    var lines = 1
    for (index, byte) in input.enumerated() where byte == 0x0A || (byte == 0x0D && input.indices.contains(index + 1) && input[index + 1] != 0x0A) || (byte == 0x0D && index == input.count - 1) {
        lines += 1
    }
    return lines
}
