import Escrow
import EscrowCore
import EscrowFunctions
import Foundation

/// `escrow-contact-discovery --directory URL [--server ID] [--socket PATH]`: Signal's contact
/// discovery written against the Escrow SDK. Which of my contacts use the messenger? The escrow
/// hashes the numbers and asks the directory — on the escrow's compute server when `--server` is
/// given — and the app learns only the matching numbers.
@main
enum ContactDiscoveryApp {
    static func main() async {
        var directory: String?
        var server: String?
        var socket: String?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--directory": directory = arguments.next()
            case "--server": server = arguments.next()
            case "--socket": socket = arguments.next()
            default: usage()
            }
        }
        guard let directory else { usage() }
        do throws(EscrowError) {
            let escrow = try await Escrow.connect(app: "org.example.messenger", socket: socket)
            let matches = try await escrow.run(
                access: "SELECT phoneNumbers FROM Contact", compute: ContactsDiscovery.self,
                on: server.map(Destination.server) ?? .device,
                purpose: "Find which of your contacts use Example Messenger",
                parameters: ["directory": directory])
            await escrow.close()
            let numbers = (0..<matches.rowCount).compactMap { try? matches.column("phoneNumber").string(at: $0) }
            print("\(numbers.count) of your contacts use Example Messenger\(numbers.isEmpty ? "." : ":")")
            for number in numbers { print("  \(number)") }
        } catch {
            if let command = error.approvalCommand {
                print("Example Messenger needs your approval to look up your contacts' numbers (hashed) in its directory.")
                print("Run: \(command)")
                exit(2)
            }
            FileHandle.standardError.write(Data("escrow-contact-discovery: \(error)\n".utf8))
            exit(1)
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: escrow-contact-discovery --directory URL [--server ID] [--socket PATH]\n".utf8))
        exit(64)
    }
}
