package import Stratus

/// Subscription dictionaries of answers in: the client direction of
/// ``dictionary(for:)``.
extension WSSubscriptionTranslator {
    /// An answer's subscription dictionary (subscriptions/list, lookup, modify) as the
    /// `CKSubscription` it describes.
    ///
    /// - Throws: ``WSTranslationError`` naming the key at fault, as
    ///   ``subscription(from:)-(WSSubscriptionDictionary)``, or for JSON that is not a
    ///   subscription dictionary.
    package func subscription(from json: JSONValue) throws(WSTranslationError) -> CKSubscription {
        let dictionary: WSSubscriptionDictionary
        do {
            dictionary = try JSONValueDecoder().decode(WSSubscriptionDictionary.self, from: json)
        } catch {
            throw WSTranslationError(reason: "not a subscription dictionary: \(error)")
        }
        return try subscription(from: dictionary)
    }
}
