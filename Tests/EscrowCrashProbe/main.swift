// escrow-crash-probe HOME COUNT
//
// Runs one approved dataflow COUNT times against the escrow home HOME and, after each run has
// returned its output, prints "SEQ SHA256" (the run's audit entry and the hash of the output it
// returned) on standard output, unbuffered. The crash-safety test kills this process with SIGKILL
// part-way and checks that every printed run is in the audit log and the log verifies.
import EscrowHost
import EscrowStore
import Foundation
import Logging

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: escrow-crash-probe HOME COUNT\n".utf8))
    exit(64)
}
let home = EscrowHome(url: URL(fileURLWithPath: arguments[1], isDirectory: true))
let host = try EscrowHost(home: home, logger: Logger(label: "crash-probe"))
for _ in 0..<count {
    let result = try await host.run(app: "org.example.crash", purpose: "crash test",
                                    access: "SELECT givenName, familyName, phoneNumbers FROM Contact",
                                    compute: "contacts.tuples")
    FileHandle.standardOutput.write(Data("\(result.auditEntry.seq) \(result.auditEntry.facts.outputSHA256 ?? "")\n".utf8))
}
