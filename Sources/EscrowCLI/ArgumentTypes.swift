import ArgumentParser
import EscrowCore
import EscrowHost

extension FlowStatus: ExpressibleByArgument {}
extension AuditOutcome: ExpressibleByArgument {}

extension ComputeParameters {
    /// The parameters of `--param NAME=VALUE` options, checked before anything runs.
    ///
    /// - Throws: `CLIError` naming the option that is not `NAME=VALUE`, or the parameter given
    ///   more than once (its values differ or not: one value per name is what a dataflow holds).
    init(options: [String]) throws(CLIError) {
        var values: [String: String] = [:]
        for option in options {
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex else {
                throw CLIError("--param \(option): expected NAME=VALUE")
            }
            let name = String(option[..<equals])
            let value = String(option[option.index(after: equals)...])
            if values[name] != nil {
                throw CLIError("--param \(name) is given more than once; pass each parameter once")
            }
            values[name] = value
        }
        self.init(values)
    }
}
