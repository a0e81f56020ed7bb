import EscrowCore

/// Why a report could not be made from what the caller asked: a small value the CLI renders, its
/// `description` saying what to do instead.
///
/// Reports over valid input never fail; these are all mistakes in the request (an app id that
/// never ran, a window AppChk does not define, a domain to exclude that is none).
public enum ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The app has no recorded runs or requests; `known` lists the apps that do, sorted.
    case unknownApp(String, known: [String])
    /// A comparison needs at least two apps; these were given.
    case tooFewApps([String])
    /// The app was named more than once in a comparison.
    case duplicateApp(String)
    /// A co-occurrence window other than the ones AppChk defines (`Cooccurrence.windows`).
    case invalidWindow(Int)
    /// No recorded request went to the domain, as a registrable domain or as a host (within the
    /// app, when one was given).
    case unknownDomain(String, app: String?)
    /// A domain to leave out of the export that is none (`MinimizedExport.exclusions(_:)`): it
    /// would have left nothing out.
    case notADomain(String)

    public var description: String {
        switch self {
        case .unknownApp(let app, let known):
            if known.isEmpty {
                return "unknown app '\(app)': no app has recorded runs or requests yet; run its dataflows first"
            }
            return "unknown app '\(app)': apps with recorded runs or requests are \(known.joined(separator: ", "))"
                + "; use one of these ids (`escrow report apps` lists them)"
        case .tooFewApps(let apps):
            let given = apps.isEmpty ? "none was given" : "only '\(apps.joined(separator: "', '"))' was given"
            return "a comparison needs at least two apps, but \(given); name two or more app ids"
        case .duplicateApp(let app):
            return "app '\(app)' is named more than once; name each app once"
        case .invalidWindow(let window):
            let allowed = Cooccurrence.windows.map(String.init).joined(separator: ", ")
            return "a co-occurrence window of \(window) seconds is not supported; use one of \(allowed)"
        case .unknownDomain(let domain, let app):
            let scope = app.map { " by app '\($0)'" } ?? ""
            return "no recorded request\(scope) went to '\(domain)' (as a registrable domain or a host); "
                + "check the spelling (`escrow export` lists every domain contacted)"
        case .notADomain(let text):
            let shown = DisplayText.escaped(text)
            let problem = if text.allSatisfy({ $0 == " " || $0 == "\t" }) {
                "an empty domain"
            } else if text.contains("/") {
                "'\(shown)' is a URL or a path, not a domain: give its host alone (example.com)"
            } else if text.contains("*") {
                "'\(shown)' holds a wildcard: give the domain itself (example.com), which covers every name under it"
            } else {
                "'\(shown)' is not a domain"
            }
            return "cannot leave out \(problem); the export leaves out host names and registrable domains "
                + "(example.com, www.example.com, bücher.example), each with every name under it, and IP addresses "
                + "(192.0.2.7, 2001:db8::1); nothing was exported"
        }
    }
}
