import Escrow
import EscrowCore
import Foundation

/// `escrow-area --module FILE [--server ID] [--socket PATH]`: an app that brings its own compute.
/// Instead of naming a function built into the escrow, it sends a compute module — the
/// WebAssembly of Examples/Modules/location-bounds, built by scripts/build-modules.sh — with its
/// run: the box around the places the individual was, widened to a grid of about a kilometre, and
/// how many places there were. The escrow keeps the module by its SHA-256, shows the individual
/// what its imports let it do (this one imports no network function: "cannot contact anything")
/// and runs it in its sandbox, on the device or, with `--server`, on a compute server.
///
/// It links the SDK alone (`Escrow`, `EscrowCore`), as a third party's app would.
@main
enum AreaApp {
    static let usage = "usage: escrow-area --module FILE [--server ID] [--socket PATH]\n"

    static func main() async {
        var module: String?
        var server: String?
        var socket: String?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--module": module = arguments.next()
            case "--server": server = arguments.next()
            case "--socket": socket = arguments.next()
            default:
                FileHandle.standardError.write(Data(usage.utf8))
                exit(64)
            }
        }
        guard let module else {
            FileHandle.standardError.write(Data(usage.utf8))
            exit(64)
        }
        do throws(EscrowError) {
            let escrow = try await Escrow.connect(app: "org.example.area", socket: socket)
            let area = try await escrow.run(
                access: "SELECT latitude, longitude FROM Location", module: URL(fileURLWithPath: module),
                on: server.map(Destination.server) ?? .device,
                purpose: "Show the area you moved around in", parameters: ["decimals": "2"])
            await escrow.close()
            guard area.rowCount == 1, let places = try? area.column("places").int64(at: 0) else {
                FileHandle.standardError.write(Data("escrow-area: the module's output is not the box it documents\n".utf8))
                exit(1)
            }
            guard places > 0, let south = try? area.column("south").double(at: 0), let west = try? area.column("west").double(at: 0),
                  let north = try? area.column("north").double(at: 0), let east = try? area.column("east").double(at: 0) else {
                print("Area: no places recorded yet")
                return
            }
            print("The area you moved around in: latitude \(south) to \(north), longitude \(west) to \(east) (\(places) places)"
                + (server.map { ", computed on \($0)" } ?? ""))
        } catch {
            if let command = error.approvalCommand {
                print("This app brings its own code and needs your approval to run it over your locations.")
                print("Review it with `escrow flows show \(command.split(separator: " ").last ?? "")`, then run: \(command)")
                exit(2)
            }
            FileHandle.standardError.write(Data("escrow-area: \(error)\n".utf8))
            exit(1)
        }
    }
}
