import ArgumentParser
import EscrowHost

extension FlowStatus: ExpressibleByArgument {}
extension AuditOutcome: ExpressibleByArgument {}
