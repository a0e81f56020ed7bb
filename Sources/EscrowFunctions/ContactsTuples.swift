import EscrowCore

/// Turns contacts into (given name, family name, phone number) tuples, one per phone number:
/// the contacts compute() of the paper's evaluation (RQ2).
public struct ContactsTuples: ComputeFunction {
    public static let id = "contacts.tuples"
    public static let version = 1
    public static let summary = "Lists each contact's name with each of their phone numbers."
    public static let inputs = InputContract.columns([
        InputColumn("givenName", .string),
        InputColumn("familyName", .string),
        InputColumn("phoneNumbers", .string),
    ])
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    public func compute(_ input: Frame, context: ComputeContext) throws -> Frame {
        let given = try input.column("givenName")
        let family = try input.column("familyName")
        let phones = try input.column("phoneNumbers")
        var givenOut = ColumnBuilder(name: "givenName", type: .string, capacity: input.rowCount)
        var familyOut = ColumnBuilder(name: "familyName", type: .string, capacity: input.rowCount)
        var phoneOut = ColumnBuilder(name: "phoneNumber", type: .string, capacity: input.rowCount)
        for row in 0..<input.rowCount {
            for number in try LabeledValues.values(in: phones.string(at: row)) {
                givenOut.append(given.string(at: row))
                familyOut.append(family.string(at: row))
                phoneOut.append(number)
            }
        }
        return try Frame(columns: [givenOut.build(), familyOut.build(), phoneOut.build()])
    }
}
