import ArgumentParser
import Foundation
import StratusSchema

/// Reading a schema file and describing a schema.
enum SchemaFile {
    /// The text of `path` (`-`: standard input), as UTF-8.
    static func read(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CLIError("cannot read '\(path)'", exitCode: CLIError.noInput)
            }
            data = contents
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError("\(name(path)) is not UTF-8 text", exitCode: CLIError.dataError)
        }
        return text
    }

    /// The schema in `path`, or exit 65 after one `error:` line per problem.
    static func parse(_ path: String) throws -> CloudKitSchema {
        try parse(text: try read(path), named: name(path))
    }

    /// The schema `text` holds, or exit 65 after one `error:` line per problem, each naming
    /// the text `name`.
    static func parse(text: String, named name: String) throws -> CloudKitSchema {
        switch Result(catching: { () throws(SchemaErrors) in try CloudKitSchema.parse(text) }) {
        case .success(let schema):
            return schema
        case .failure(let failure):
            for error in failure.errors { Output.error("\(name):\(error)") }
            throw ExitCode(CLIError.dataError)
        }
    }

    /// How messages name the file.
    static func name(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// `2 record types, 11 fields, 1 role`.
    static func summary(of schema: CloudKitSchema) -> String {
        let fields = schema.recordTypes.values.reduce(0) { $0 + $1.fields.count }
        return [
            count(schema.recordTypes.count, "record type"), count(fields, "field"), count(schema.roles.count, "role"),
        ].joined(separator: ", ")
    }

    private static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
