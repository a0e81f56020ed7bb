import EscrowCore

/// Field shorthands for the CLI's `--json` objects.
extension JSONWriter.ObjectWriter {
    mutating func field(_ name: String, int value: Int?) {
        field(name) { writer in
            if let value { writer.int(Int64(value)) } else { writer.null() }
        }
    }

    mutating func field(_ name: String, double value: Double?) {
        field(name) { writer in
            if let value { writer.double(value) } else { writer.null() }
        }
    }

    mutating func field(_ name: String, strings values: [String]) {
        field(name) { writer in writer.array(values) { writer, value in writer.string(value) } }
    }
}
