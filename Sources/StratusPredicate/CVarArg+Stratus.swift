import Foundation

#if canImport(Darwin)
    /// An `NSObject` subclass that can be a `%@` argument of `NSPredicate(format:_:)`.
    ///
    /// On Apple platforms every `NSObject` is already `CVarArg`, so this is only a marker; on Linux
    /// conforming makes the class `CVarArg`. The Stratus module conforms `CKRecord.Reference`,
    /// `CKRecord.ID`, `CKRecord` and `CLLocation` (together with ``PredicateValueConvertible``).
    public protocol PredicateArgumentObject: CVarArg {}
#else
    /// An `NSObject` subclass that can be a `%@` argument of `NSPredicate(format:_:)`.
    ///
    /// swift-corelibs-foundation makes only `NSString` `CVarArg`; conforming a class (with an
    /// empty extension) makes it one, as every `NSObject` is on Apple platforms. The Stratus
    /// module conforms `CKRecord.Reference`, `CKRecord.ID`, `CKRecord` and `CLLocation`
    /// (together with ``PredicateValueConvertible``, which is what the predicate reads).
    ///
    /// `NSPredicate(format:_:)` never reads the C encoding: it casts the `any CVarArg` values back
    /// to their types. The encoding exists so `String(format: "%@", object)` prints the object's
    /// `description`, as on Apple platforms: the va_list builder asks for ``_cVarArgObject`` (an
    /// `NSString` of the description) and keeps it alive while formatting.
    public protocol PredicateArgumentObject: NSObject, CVarArg, _CVarArgObject {}

    extension PredicateArgumentObject {
        /// An `NSString` of the object's `description`, which `%@` prints.
        public var _cVarArgObject: any CVarArg {
            NSString(string: description)
        }

        /// A null pointer (`%@` prints "(null)"). Never used by the va_list builder, which
        /// formats ``_cVarArgObject`` instead; a pointer to the object itself would crash
        /// CoreFoundation's `%@` for classes that are not toll-free bridged.
        public var _cVarArgEncoding: [Int] {
            [0]
        }
    }

    // Retroactive conformances so that CloudKit code compiles unchanged on Linux:
    // `NSPredicate(format: "modified > %@", date)` and friends.

    extension NSNumber: @retroactive CVarArg, @retroactive _CVarArgObject, PredicateArgumentObject {}

    extension NSDate: @retroactive CVarArg, @retroactive _CVarArgObject, PredicateArgumentObject {}

    extension NSData: @retroactive CVarArg, @retroactive _CVarArgObject, PredicateArgumentObject {}

    extension NSArray: @retroactive CVarArg, @retroactive _CVarArgObject, PredicateArgumentObject {}

    extension NSSet: @retroactive CVarArg, @retroactive _CVarArgObject, PredicateArgumentObject {}

    extension NSNull: @retroactive CVarArg, @retroactive _CVarArgObject, PredicateArgumentObject {}

    extension Date: @retroactive CVarArg, @retroactive _CVarArgObject {
        /// An `NSString` of the date as `NSDate` describes it, which `%@` prints.
        public var _cVarArgObject: any CVarArg {
            NSString(string: NSDate(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate).description)
        }

        /// A null pointer; the va_list builder formats ``_cVarArgObject`` instead.
        public var _cVarArgEncoding: [Int] { [0] }
    }

    extension Data: @retroactive CVarArg, @retroactive _CVarArgObject {
        /// An `NSString` of the bytes as `NSData` describes them (`<0102>`), which `%@` prints.
        public var _cVarArgObject: any CVarArg {
            NSString(string: NSData(data: self).description)
        }

        /// A null pointer; the va_list builder formats ``_cVarArgObject`` instead.
        public var _cVarArgEncoding: [Int] { [0] }
    }

    extension Array: @retroactive CVarArg, @retroactive _CVarArgObject {
        /// An `NSString` of the elements as `NSArray` describes them, which `%@` prints.
        public var _cVarArgObject: any CVarArg {
            NSString(string: NSArray(array: map { $0 as Any }).description)
        }

        /// A null pointer; the va_list builder formats ``_cVarArgObject`` instead.
        public var _cVarArgEncoding: [Int] { [0] }
    }

    extension Set: @retroactive CVarArg, @retroactive _CVarArgObject {
        /// An `NSString` of the elements as `NSSet` describes them, which `%@` prints.
        public var _cVarArgObject: any CVarArg {
            NSString(string: NSSet(array: map { $0 as Any }).description)
        }

        /// A null pointer; the va_list builder formats ``_cVarArgObject`` instead.
        public var _cVarArgEncoding: [Int] { [0] }
    }
#endif
