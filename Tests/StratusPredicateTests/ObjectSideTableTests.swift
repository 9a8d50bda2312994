import Foundation
import Testing

@testable import StratusPredicate

@Suite("Side table")
struct ObjectSideTableTests {
    @Test func entriesFollowObjectIdentityAndAreSwept() {
        let table = ObjectSideTable<Int>()
        var survivors: [NSObject] = []
        for index in 0..<10_000 {
            let object = NSObject()
            table.set(index, for: object)
            #expect(table.value(for: object) == index)
            if index % 1_000 == 0 { survivors.append(object) }
        }
        // Freed objects' entries are swept: the table stays near the live count.
        #expect(table.count < 200)
        for (offset, survivor) in survivors.enumerated() {
            #expect(table.value(for: survivor) == offset * 1_000)
        }
        // A new object never inherits the entry of a freed one, even at the same address.
        for _ in 0..<1_000 {
            #expect(table.value(for: NSObject()) == nil)
        }
    }

    @Test func formatPredicatesDoNotLeakTableEntries() {
        for index in 0..<5_000 {
            _ = NSPredicate(format: "n == %d", index)
        }
        #expect(PredicateRegistry.predicates.count < 5_000)
    }
}
