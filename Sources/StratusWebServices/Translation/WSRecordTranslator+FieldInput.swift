package import Stratus

/// Field dictionaries in: tags, inference and lists (decision 0012.6).
extension WSRecordTranslator {
    /// The value a field dictionary sets on field `name` of a record in `zone` (a reference
    /// without `zoneID` points into it); `nil` for `{value: null}`, which clears the field.
    ///
    /// - Throws: ``WSTranslationError`` naming the field and its tag (given or inferred).
    package func value(
        of field: WSFieldDictionary, named name: String, zone: CKRecordZone.ID
    ) throws(WSTranslationError) -> (any CKRecordValue)? {
        if field.value == .null { return nil }
        let tag: WSFieldType
        let tagText: String
        if let text = field.type {
            guard let known = WSFieldType(rawValue: text) else {
                let tags = WSFieldType.allCases.map(\.rawValue).joined(separator: ", ")
                throw WSTranslationError(
                    field: name, reason: "Field '\(name)': unknown type '\(text)' (the types are \(tags))")
            }
            (tag, tagText) = (known, text)
        } else {
            do throws(WSValueProblem) {
                tag = try inferredType(of: field.value)
            } catch {
                throw WSTranslationError(field: name, reason: "Field '\(name)' (no type given): \(error.message)")
            }
            tagText = "\(tag.rawValue), inferred"
        }
        do throws(WSValueProblem) {
            return try numberTyped(try convert(field.value, as: tag, zone: zone), field.stratusNumberType)
        } catch {
            throw WSTranslationError(field: name, reason: "Field '\(name)' (\(tagText)): \(error.message)")
        }
    }

    /// `value` as the Swift type `stratusNumberType` names (``WSNumberType``), if any.
    private func numberTyped(_ value: any CKRecordValue, _ stratusNumberType: String?) throws(WSValueProblem)
        -> any CKRecordValue
    {
        guard let text = stratusNumberType else { return value }
        guard let numberType = WSNumberType(rawValue: text) else {
            let names = WSNumberType.allCases.map(\.rawValue).joined(separator: ", ")
            throw WSValueProblem("unknown \(WSNumberType.member) '\(text)' (the types are \(names))")
        }
        guard let converted = numberType.converted(value) else {
            throw WSValueProblem("\(WSNumberType.member) '\(text)' does not fit a value of this type")
        }
        return converted
    }

    /// The type of an untyped value: string → STRING; integer or boolean → INT64; decimal →
    /// DOUBLE; array → LIST (item type from its first item); an object with `recordName` →
    /// REFERENCE, `latitude` → LOCATION, `receipt` → ASSET.
    func inferredType(of value: JSONValue) throws(WSValueProblem) -> WSFieldType {
        switch value {
        case .string: return .string
        case .integer, .bool: return .int64
        case .double: return .double
        case .array: return .list
        case .object(let members):
            if members["recordName"] != nil { return .reference }
            if members["latitude"] != nil { return .location }
            if members["receipt"] != nil { return .asset }
            throw WSValueProblem(
                "cannot infer a type from an object without recordName (REFERENCE), latitude (LOCATION) or "
                    + "receipt (ASSET); give a type")
        case .null:
            throw WSValueProblem("null has no type")
        }
    }

    /// `value` as a record value of type `tag`.
    private func convert(_ value: JSONValue, as tag: WSFieldType, zone: CKRecordZone.ID) throws(WSValueProblem)
        -> any CKRecordValue
    {
        switch tag {
        case .asset, .assetID:
            return try asset(value)
        case .list:
            guard case .array(let items) = value else { throw .expected("an array", found: value) }
            return try list(items, of: try inferredItemType(items), zone: zone)
        default:
            if let itemType = tag.itemType {
                guard case .array(let items) = value else { throw .expected("an array", found: value) }
                return try list(items, of: itemType, zone: zone)
            }
            return try scalar(value, as: tag, zone: zone)
        }
    }

    /// The item type of an untyped list: its first item's, which every item must share.
    private func inferredItemType(_ items: [JSONValue]) throws(WSValueProblem) -> WSFieldType {
        var itemType = WSFieldType.string
        for (index, item) in items.enumerated() {
            let type: WSFieldType
            do throws(WSValueProblem) {
                type = try inferredType(of: item)
            } catch {
                throw WSValueProblem("item \(index): \(error.message)")
            }
            if type == .list { throw WSValueProblem("item \(index) is a list: lists cannot hold lists") }
            if index == 0 {
                itemType = type
            } else if type != itemType {
                throw WSValueProblem(
                    "a list mixing \(itemType.rawValue) and \(type.rawValue) items (item \(index)): "
                        + "a list's items must share one type")
            }
        }
        return itemType
    }

    /// A typed list; an empty one is `[String]` (the engine stores any empty list alike).
    private func list(_ items: [JSONValue], of itemType: WSFieldType, zone: CKRecordZone.ID) throws(WSValueProblem)
        -> any CKRecordValue
    {
        switch itemType {
        case .string: return try map(items, string)
        case .int64: return try map(items) { (item) throws(WSValueProblem) in Int(try int64(item)) }
        case .double: return try map(items, double)
        case .bytes: return try map(items, bytes)
        case .timestamp: return try map(items, timestamp)
        case .reference: return try map(items) { (item) throws(WSValueProblem) in try reference(item, zone: zone) }
        case .location: return try map(items, location)
        default: return try map(items, asset)
        }
    }

    /// An asset from its dictionary `{receipt, …}`, checked by the server's ``assets``.
    private func asset(_ value: JSONValue) throws(WSValueProblem) -> CKAsset {
        guard let assets else {
            throw WSValueProblem("assets need a receipt from this server's assets/upload, and none can be checked here")
        }
        return try assets.asset(from: value)
    }

    private func map<T>(
        _ items: [JSONValue], _ convert: (JSONValue) throws(WSValueProblem) -> T
    ) throws(WSValueProblem) -> [T] {
        var values: [T] = []
        values.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            do throws(WSValueProblem) {
                values.append(try convert(item))
            } catch {
                throw WSValueProblem("item \(index): \(error.message)")
            }
        }
        return values
    }

    private func scalar(_ value: JSONValue, as tag: WSFieldType, zone: CKRecordZone.ID) throws(WSValueProblem)
        -> any CKRecordValue
    {
        switch tag {
        case .string: return try string(value)
        case .int64: return Int(try int64(value))  // `Int`, unless the field names another type
        case .double: return try double(value)
        case .bytes: return try bytes(value)
        case .timestamp: return try timestamp(value)
        case .reference: return try reference(value, zone: zone)
        default: return try location(value)
        }
    }
}
