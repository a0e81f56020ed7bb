// example.weather-swift: the weather at the latest location, from the app's weather service —
// weather.current written as a compute module in Embedded Swift (docs/MODULES.md). It imports
// http_send, so the escrow tells the individual it may contact services, and records every request.

@_expose(wasm, "escrow_run") @_cdecl("escrow_run")
func run() -> Int32 {
    let input = InputFrame.read()
    guard let service = Escrow.parameter("service") else { Escrow.fail("give the weather service's base URL as parameter service") }
    guard let latitudes = input.column("latitude"), let longitudes = input.column("longitude") else {
        Escrow.fail("the input has no latitude and longitude columns")
    }
    var output = OutputFrame(rows: input.rows > 0 ? 1 : 0)
    guard input.rows > 0, let latitude = latitudes.double(at: 0), let longitude = longitudes.double(at: 0) else {
        output.doubles("temperature", [])
        output.strings("condition", [])
        output.write()
        return 0
    }
    var url = service
    url += Text.bytes("/weather?latitude=")
    url += Text.decimal(latitude, decimals: 6)
    url += Text.bytes("&longitude=")
    url += Text.decimal(longitude, decimals: 6)
    let answer = Escrow.send(method: "GET", url: url)
    guard answer.status == 200 else {
        if answer.status < 0 { Escrow.fail(answer.body) }
        Escrow.fail("the weather service did not answer 200")
    }
    guard let temperature = JSONField.number(answer.body, "temperature"), let condition = JSONField.string(answer.body, "condition") else {
        Escrow.fail("the weather service's answer is not {\"temperature\", \"condition\"}")
    }
    output.doubles("temperature", [temperature])
    output.strings("condition", [condition])
    output.write()
    return 0
}

/// Reads one field of a flat JSON object: enough for the weather service's answer.
enum JSONField {
    /// The bytes just after `"key":` and any spaces.
    static func value(_ json: [UInt8], _ key: StaticString) -> Int? {
        let quoted = [UInt8(ascii: "\"")] + Text.bytes(key) + [UInt8(ascii: "\"")]
        guard json.count >= quoted.count else { return nil }
        for start in 0...(json.count - quoted.count) where Array(json[start..<(start + quoted.count)]) == quoted {
            var index = start + quoted.count
            while index < json.count && (json[index] == UInt8(ascii: " ") || json[index] == UInt8(ascii: ":")) { index += 1 }
            return index
        }
        return nil
    }

    static func number(_ json: [UInt8], _ key: StaticString) -> Double? {
        guard var index = value(json, key) else { return nil }
        var negative = false
        if index < json.count && json[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        var whole = 0.0, fraction = 0.0, scale = 1.0, digits = 0, inFraction = false
        while index < json.count {
            let byte = json[index]
            if byte == UInt8(ascii: ".") && !inFraction { inFraction = true }
            else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
                if inFraction { scale *= 10; fraction = fraction * 10 + Double(byte - UInt8(ascii: "0")) }
                else { whole = whole * 10 + Double(byte - UInt8(ascii: "0")) }
            } else { break }
            index += 1
        }
        guard digits > 0 else { return nil }
        let value = whole + fraction / scale
        return negative ? -value : value
    }

    static func string(_ json: [UInt8], _ key: StaticString) -> [UInt8]? {
        guard var index = value(json, key), index < json.count, json[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var text: [UInt8] = []
        while index < json.count && json[index] != UInt8(ascii: "\"") {
            if json[index] == UInt8(ascii: "\\") { return nil }
            text.append(json[index])
            index += 1
        }
        return index < json.count ? text : nil
    }
}
