
extension VCardParser {
    /// Readable labels from `TYPE` parameters and Apple's `X-ABLabel`.
    enum Labels {
        /// The label of a `TEL`: fax kinds first, then cell → "mobile", iphone, pager, main, home, work, other.
        static func phone(_ types: [String]) -> String? {
            guard !types.isEmpty else { return nil }
            let has = { (type: String) in types.contains(type) }
            if has("fax") {
                if has("home") { return "home fax" }
                if has("work") { return "work fax" }
                if has("other") { return "other fax" }
                return "fax"
            }
            for (type, label) in [("cell", "mobile"), ("mobile", "mobile"), ("iphone", "iphone"), ("pager", "pager"),
                                  ("main", "main"), ("home", "home"), ("work", "work"), ("other", "other")]
            where has(type) {
                return label
            }
            return nil
        }

        /// The label of an `EMAIL`, `ADR` or `URL`: home, work or other; `INTERNET`, `PREF` and the rest are ignored.
        static func general(_ types: [String]) -> String? {
            for type in ["home", "work", "other"] where types.contains(type) { return type }
            return nil
        }

        /// An `X-ABLabel` value: Apple's `_$!<Mobile>!$_` becomes `"mobile"`; a custom label is kept as written.
        static func apple(_ label: String) -> String? {
            guard label.hasPrefix("_$!<"), label.hasSuffix(">!$_"), label.count > 8 else {
                return label.isEmpty ? nil : label
            }
            let inner = String(label.dropFirst(4).dropLast(4))
            switch inner.lowercased() {
            case "homefax": return "home fax"
            case "workfax": return "work fax"
            case "otherfax": return "other fax"
            case "homepage": return "homepage"
            case "assistantphone": return "assistant"
            default: return inner.lowercased()
            }
        }
    }
}
