import StratusSchema
import Testing

/// Damaged schema text: the parser never traps, every error points inside the text, and any
/// text it accepts is valid and prints back to itself.
@Suite("CloudKit Schema Language: damaged text")
struct SchemaMutationTests {
    static let insertions = [
        "(", ")", ",", ";", "<", ">", "\"", "/*", "*/", "--", "//", "\n", "\r\n", " ", "!", "é", "LIST<", "GRANT",
        "QUERYABLE", "SORTABLE", "SEARCHABLE", "ENCRYPTED", "NUMBER PREFERRED AS", "RECORD TYPE", "CREATE ROLE",
        "\"___etag\"", "_x", "TO", "READ,", "x STRING",
    ]

    @Test(arguments: 0..<10)
    func damagedText(batch: Int) throws {
        let accepted = try checkDamaged(seeds: (batch * 100)..<(batch * 100 + 100))
        // Most damage leaves invalid text.
        #expect(accepted <= 60, "\(accepted) of 100 accepted")
    }

    /// Both outcomes are exercised: over every seed some damage leaves valid text (a batch of
    /// 100 alone may have none: a full run once met one).
    @Test func someDamageLeavesValidText() throws {
        let accepted = try checkDamaged(seeds: 0..<1_000)
        #expect((10...600).contains(accepted), "\(accepted) of 1,000 accepted")
    }

    /// Damages the schema of each seed and checks its parse; returns how many were accepted.
    private func checkDamaged(seeds: Range<Int>) throws -> Int {
        var accepted = 0
        for seed in seeds {
            var generator = SchemaGenerator(seed: UInt64(seed))
            let schema = generator.schema()
            var characters = Array(schema.text)
            for _ in 0...generator.int(below: 3) {
                damage(&characters, with: &generator)
            }
            if try check(String(characters), seed: seed) { accepted += 1 }
        }
        return accepted
    }

    private func damage(_ characters: inout [Character], with generator: inout SchemaGenerator) {
        let at = generator.int(below: characters.count + 1)
        if generator.int(below: 2) == 0, at < characters.count {
            let end = min(characters.count, at + 1 + generator.int(below: 12))
            characters.removeSubrange(at..<end)
        } else {
            characters.insert(contentsOf: Self.insertions[generator.int(below: Self.insertions.count)], at: at)
        }
    }

    /// Checks the parse of `text`; returns whether it was accepted.
    private func check(_ text: String, seed: Int) throws -> Bool {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        do {
            let schema = try CloudKitSchema.parse(text)
            #expect(schema.problems.isEmpty, "seed \(seed): \(schema.problems)")
            #expect(try CloudKitSchema.parse(schema.text) == schema, "seed \(seed)")
            return true
        } catch {
            #expect(!error.errors.isEmpty)
            for problem in error.errors {
                let inside =
                    (1...lines.count).contains(problem.line)
                    && (1...(lines[problem.line - 1].count + 1)).contains(problem.column)
                #expect(inside, "seed \(seed): \(problem) in\n\(text)")
                #expect(!problem.message.isEmpty)
            }
            let positions = error.errors.map { [$0.line, $0.column] }
            #expect(positions == positions.sorted { $0.lexicographicallyPrecedes($1) }, "seed \(seed)")
            return false
        }
    }
}
