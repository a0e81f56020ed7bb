import Foundation

extension VCardParser {
    /// Reads the cards of one file.
    struct VCardReader {
        let file: String
        var lines: LogicalLines
        /// The physical line where the current logical line starts.
        var lineNumber = 0

        init(bytes: [UInt8], file: String) {
            self.file = file
            lines = LogicalLines(bytes: bytes)
        }

        func error(_ reason: String, line: Int? = nil) -> ImportError {
            ImportError(file: file, line: line ?? lineNumber, reason: reason)
        }

        mutating func readCards() throws(ImportError) -> [ContactRecord] {
            var cards: [ContactRecord] = []
            var card = CardInProgress(line: 0)
            var inCard = false
            while let number = lines.advance() {
                lineNumber = number
                let buffer = lines.buffer
                guard let line = ContentLine(buffer) else {
                    if !inCard { throw outsideError(buffer) }
                    throw error("line has no ':' (expected NAME:value); "
                        + "if it continues the line above, indent it with a space")
                }
                let isVCard = ASCII.equalsIgnoringCase(ASCII.trimmed(buffer[line.value]), "VCARD")
                switch line.property {
                case .begin where isVCard:
                    if inCard {
                        throw error("BEGIN:VCARD inside the card starting at line \(card.record.line); "
                            + "add the missing END:VCARD before it (nested vCards are not supported)")
                    }
                    card = CardInProgress(line: number)
                    inCard = true
                case .end where isVCard:
                    guard inCard else {
                        throw error("END:VCARD without a matching BEGIN:VCARD; "
                            + "remove it or add BEGIN:VCARD before the card")
                    }
                    cards.append(card.finish())
                    inCard = false
                default:
                    guard inCard else { throw outsideError(buffer) }
                    try read(line, in: buffer, into: &card)
                }
            }
            if inCard {
                throw error("card starting at line \(card.record.line) has no END:VCARD; the file may be truncated",
                            line: card.record.line)
            }
            guard !cards.isEmpty else {
                throw ImportError(file: file, line: nil, reason: "no vCard found; expected BEGIN:VCARD")
            }
            return cards
        }

        func outsideError(_ buffer: [UInt8]) -> ImportError {
            let preview = String(decoding: buffer.prefix(40), as: UTF8.self)
            return error("'\(preview)' is outside a card; every line must be between BEGIN:VCARD and END:VCARD "
                + "(is this a vCard file?)")
        }

        /// Reads one property into the open card.
        func read(_ line: ContentLine, in buffer: [UInt8], into card: inout CardInProgress) throws(ImportError) {
            let raw = buffer[line.value]
            switch line.property {
            case .version:
                let version = String(decoding: ASCII.trimmed(raw), as: UTF8.self)
                guard ["2.1", "3.0", "4.0"].contains(version) else {
                    throw error("unsupported vCard VERSION '\(version)'; expected 2.1, 3.0 or 4.0")
                }
                card.version21 = version == "2.1"
                return
            case .other, .begin, .end:
                return
            default:
                break
            }
            let parameters = line.parameters.isEmpty ? Parameters() : Parameters(buffer[line.parameters])
            if let unsupported = parameters.unsupportedCharset {
                throw error("unsupported CHARSET=\(unsupported); re-export the contacts as UTF-8 "
                    + "(supported: UTF-8, ISO-8859-1, windows-1252)")
            }
            let decoder = ValueDecoder(
                charset: parameters.charset, version21: card.version21, explicitCharset: parameters.charset != nil)
            let value: ArraySlice<UInt8>
            switch parameters.encoding {
            case .plain: value = raw
            case .quotedPrintable:
                guard let decoded = Self.quotedPrintableDecoded(raw) else {
                    throw error("invalid quoted-printable value: '=' must be followed by two hex digits "
                        + "or end the line; re-export the contact or fix the value")
                }
                value = decoded[...]
            case .base64:
                guard let decoded = Data(base64Encoded: Data(raw), options: .ignoreUnknownCharacters) else {
                    throw error("invalid base64 value; re-export the contact or remove the ENCODING parameter")
                }
                value = [UInt8](decoded)[...]
            }
            let group = line.group.map { String(decoding: buffer[$0], as: UTF8.self).lowercased() }
            try read(line.property, value: value, parameters: parameters, group: group, decoder: decoder, into: &card)
        }

        /// Stores one decoded property value in the card.
        func read(_ property: Property, value: ArraySlice<UInt8>, parameters: Parameters, group: String?,
                  decoder: ValueDecoder, into card: inout CardInProgress) throws(ImportError) {
            switch property {
            case .name:
                let parts = try components(value, separator: ASCII.semicolon, decoder: decoder)
                func part(_ index: Int) -> String? { index < parts.count ? parts[index] : nil }
                guard !card.hasName else { return }
                card.record.familyName = part(0)
                card.record.givenName = part(1)
                card.record.middleName = part(2)
                card.record.namePrefix = part(3)
                card.record.nameSuffix = part(4)
                card.hasName = parts.contains { $0 != nil }
            case .formattedName:
                if card.formattedName == nil { card.formattedName = try text(value, decoder) }
            case .nickname:
                let names = try components(value, separator: ASCII.comma, decoder: decoder).compactMap { $0 }
                if card.record.nickname == nil, !names.isEmpty { card.record.nickname = names.joined(separator: ", ") }
            case .organization:
                let parts = try components(value, separator: ASCII.semicolon, decoder: decoder)
                guard card.record.organizationName == nil, card.record.departmentName == nil else { return }
                card.record.organizationName = parts.first ?? nil
                let units = parts.dropFirst().compactMap { $0 }
                card.record.departmentName = units.isEmpty ? nil : units.joined(separator: ", ")
            case .title:
                if card.record.jobTitle == nil { card.record.jobTitle = try text(value, decoder) }
            case .phone:
                guard var number = try text(value, decoder) else { return }
                if number.lowercased().hasPrefix("tel:") { number = String(number.dropFirst(4)) }
                card.record.phoneNumbers.append(LabeledValue(label: Labels.phone(parameters.types), value: number))
                if let group { card.groupedFields.append((group, .phone(card.record.phoneNumbers.count - 1))) }
            case .email:
                guard var address = try text(value, decoder) else { return }
                if address.lowercased().hasPrefix("mailto:") { address = String(address.dropFirst(7)) }
                card.record.emailAddresses.append(LabeledValue(label: Labels.general(parameters.types), value: address))
                if let group { card.groupedFields.append((group, .email(card.record.emailAddresses.count - 1))) }
            case .address:
                let parts = try components(value, separator: ASCII.semicolon, decoder: decoder)
                func part(_ index: Int) -> String? { index < parts.count ? parts[index] : nil }
                let streetLines = [part(2), part(1), part(0)].compactMap { $0 }
                let address = PostalAddress(
                    label: Labels.general(parameters.types),
                    street: streetLines.isEmpty ? nil : streetLines.joined(separator: "\n"),
                    city: part(3), state: part(4), postalCode: part(5), country: part(6))
                guard address.street != nil || address.city != nil || address.state != nil
                    || address.postalCode != nil || address.country != nil else { return }
                card.record.postalAddresses.append(address)
                if let group { card.groupedFields.append((group, .address(card.record.postalAddresses.count - 1))) }
            case .url:
                guard let url = try text(value, decoder) else { return }
                card.record.urlAddresses.append(LabeledValue(label: Labels.general(parameters.types), value: url))
                if let group { card.groupedFields.append((group, .url(card.record.urlAddresses.count - 1))) }
            case .birthday:
                guard parameters.valueType != "text", card.record.birthday == nil,
                      let written = try text(value, decoder) else { return }
                guard let birthday = Birthday.normalized(written, omitYear: parameters.omitYear) else {
                    throw error("BDAY '\(written)' is not a date; expected YYYY-MM-DD, YYYYMMDD or --MM-DD "
                        + "(fix or remove the BDAY line)")
                }
                card.record.birthday = birthday
            case .note:
                guard let note = try text(value, decoder) else { return }
                card.record.note = card.record.note.map { $0 + "\n" + note } ?? note
            case .uid:
                guard var uid = try text(value, decoder), card.record.uid == nil else { return }
                if uid.lowercased().hasPrefix("urn:uuid:") { uid = String(uid.dropFirst(9)) }
                card.record.uid = uid
            case .categories:
                for name in try components(value, separator: ASCII.comma, decoder: decoder).compactMap({ $0 })
                where !card.record.groups.contains(name) {
                    card.record.groups.append(name)
                }
            case .kind:
                let kind = try text(value, decoder)?.lowercased()
                if kind == "org" || kind == "organization" { card.record.contactType = "organization" }
            case .appleShowAs:
                if try text(value, decoder)?.uppercased() == "COMPANY" { card.record.contactType = "organization" }
            case .appleLabel:
                guard let group, let written = try text(value, decoder),
                      let label = Labels.apple(written) else { return }
                card.groupLabels[group] = label
            case .begin, .end, .version, .other:
                return
            }
        }

        /// A whole value, unescaped, trimmed and decoded; nil when empty.
        func text(_ value: ArraySlice<UInt8>, _ decoder: ValueDecoder) throws(ImportError) -> String? {
            guard let text = decoder.decode(value) else { throw charsetError(decoder) }
            return text
        }

        /// A structured value split on an unescaped `separator`; each part unescaped, trimmed and decoded.
        func components(_ value: ArraySlice<UInt8>, separator: UInt8,
                        decoder: ValueDecoder) throws(ImportError) -> [String?] {
            var parts: [String?] = []
            var start = value.startIndex
            var index = value.startIndex
            while index < value.endIndex {
                let byte = value[index]
                if byte == ASCII.backslash {
                    index += 2
                    continue
                }
                if byte == separator {
                    guard let part = decoder.decode(value[start..<index]) else { throw charsetError(decoder) }
                    parts.append(part)
                    start = index + 1
                }
                index += 1
            }
            guard let last = decoder.decode(value[min(start, value.endIndex)..<value.endIndex]) else {
                throw charsetError(decoder)
            }
            parts.append(last)
            return parts
        }

        func charsetError(_ decoder: ValueDecoder) -> ImportError {
            if decoder.explicitCharset {
                return error("value is not valid in its CHARSET; re-export the contacts as UTF-8")
            }
            return error("value is not valid UTF-8; re-export the contacts as UTF-8 or add a CHARSET parameter")
        }

        /// Decodes quoted-printable bytes; nil when an `=` is not followed by two hex digits.
        static func quotedPrintableDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                guard byte == ASCII.equals else {
                    output.append(byte)
                    index += 1
                    continue
                }
                var rest = index + 1
                while rest < bytes.endIndex, ASCII.isBlank(bytes[rest]) { rest += 1 }
                if rest == bytes.endIndex { break }
                guard index + 2 < bytes.endIndex,
                      let high = ASCII.hexValue(bytes[index + 1]), let low = ASCII.hexValue(bytes[index + 2]) else {
                    return nil
                }
                output.append(high << 4 | low)
                index += 3
            }
            return output
        }
    }
}
