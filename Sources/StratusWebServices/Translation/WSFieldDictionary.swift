/// A field dictionary `{value, type?}` as a client sends it: `value` is required (`null`
/// clears the field); `type` is a tag of ``WSFieldType``, or absent to infer it (0012.6).
package struct WSFieldDictionary: Decodable, Hashable, Sendable {
    /// The value, exactly as parsed.
    package var value: JSONValue
    /// The type tag as sent (checked by the translator, so an unknown tag names the field).
    package var type: String?
    /// The Swift type of a number field, when not `Int` or `Double` (``WSNumberType``).
    package var stratusNumberType: String?

    /// A field dictionary.
    package init(value: JSONValue, type: String? = nil, stratusNumberType: String? = nil) {
        self.value = value
        self.type = type
        self.stratusNumberType = stratusNumberType
    }
}
