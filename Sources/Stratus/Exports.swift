// What `import Stratus` brings, as `import CloudKit` does: Foundation, and on Linux the
// `NSPredicate(format:)` / `NSSortDescriptor(key:ascending:)` support CloudKit code needs.
@_exported public import Foundation
@_exported public import StratusPredicate
