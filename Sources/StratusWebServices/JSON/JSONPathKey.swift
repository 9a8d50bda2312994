/// A coding key for an array index or a key met while decoding; an index prints as `[3]` in
/// ``JSONDecodeError/path``.
struct JSONPathKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    static let superKey = JSONPathKey(stringValue: "super")
}
