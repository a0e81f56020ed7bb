/// What the guard allows in access SQL, and the resource limits of one query.
public struct AccessPolicy: Sendable, Equatable {
    /// The tables access SQL may read (database `main`).
    public var dataTables: Set<String> = ["Contact", "Location", "Photos"]
    /// Longest SQL text accepted, in bytes.
    public var maxSQLLength = 16 * 1024
    /// SQLite virtual-machine instructions one query may execute before it is interrupted.
    public var instructionBudget = 200_000_000
    /// Wall-clock limit of one query, in seconds.
    public var timeLimit: Double = 10
    /// Most rows a result may have.
    public var maxRows = 1_000_000
    /// Most bytes a result may hold (assets included).
    public var maxBytes = 512 * 1024 * 1024
    /// Largest single text or blob value a result may hold, and that SQLite may build while
    /// running the query (so `printf('%.*c', 1000000000, 'x')` fails instead of allocating a
    /// gigabyte). Photos' bytes count towards `maxBytes` only.
    public var maxValueBytes = 64 * 1024 * 1024
    /// Longest `LIKE` or `GLOB` pattern, in bytes (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`; SQLite's
    /// default is 50,000). Matching can cost the pattern's length times the text's inside one
    /// call, where the time limit cannot interrupt it: about 0.9 ns per pair here, so 100 bytes
    /// against a 64 MiB value is at most about 6 s.
    public var maxPatternBytes = 100

    public init() {}

    /// SQLite's length limit while the query runs (`SQLITE_LIMIT_LENGTH`): `maxValueBytes`, but at
    /// least 1 MiB and at most SQLite's own maximum of 1,000,000,000. The floor is there because
    /// SQLite applies the same limit to whole rows it sorts or groups (`ORDER BY`, `DISTINCT`)
    /// and to stored values a query only filters on: a small `maxValueBytes` still lets ordinary
    /// queries run, and the result's values are held to `maxValueBytes` exactly by the reader.
    var runningValueLimit: Int {
        min(max(maxValueBytes, 1 << 20), 1_000_000_000)
    }

    /// Table-valued functions that read no personal data.
    static let tableFunctions: Set<String> = ["json_each", "json_tree"]

    /// Pure functions: their result depends only on their arguments.
    static let pureFunctions: Set<String> = [
        // core scalar
        "abs", "char", "coalesce", "format", "glob", "hex", "ifnull", "iif", "instr", "length", "like",
        "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif", "printf", "quote", "replace",
        "round", "rtrim", "sign", "soundex", "substr", "substring", "trim", "typeof", "unicode", "unlikely",
        "upper", "unhex", "octet_length", "concat", "concat_ws",
        // date and time
        "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
        // aggregates
        "avg", "count", "group_concat", "string_agg", "sum", "total",
        // window functions
        "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
        "first_value", "last_value", "nth_value",
        // math
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh",
        "degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians",
        "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
        // JSON
        "json", "json_array", "json_array_length", "json_extract", "json_insert", "json_object",
        "json_patch", "json_quote", "json_remove", "json_replace", "json_set", "json_type", "json_valid",
        "json_group_array", "json_group_object", "->", "->>",
    ]

    /// Why a function is refused, or nil when it is allowed.
    static func refusalReason(forFunction name: String) -> String? {
        let lower = name.lowercased()
        if pureFunctions.contains(lower) { return nil }
        switch lower {
        case "load_extension":
            return "loading SQLite extensions is not allowed"
        case "random", "randomblob":
            return "not a pure function (its result is random); compute() can make random values"
        case "zeroblob":
            return "allocates memory without reading data; not allowed"
        case "changes", "total_changes", "last_insert_rowid":
            return "reports connection state, not data; not allowed"
        case "fts3_tokenizer", "fts5", "readfile", "writefile", "edit", "sqlar_compress", "sqlar_uncompress":
            return "reaches outside the data tables; not allowed"
        default:
            if lower.hasPrefix("sqlite_") { return "an SQLite internal function; not allowed" }
            return "not on the list of allowed pure functions (see docs/ACCESS.md)"
        }
    }
}
