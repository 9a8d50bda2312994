import Foundation

/// One non-blank line of input, without its line break and surrounding blanks.
struct InputLine: Sendable {
    /// Its number, from 1.
    var number: Int
    /// Its bytes.
    var bytes: Data
}

/// Lines read incrementally from a file or standard input, in chunks of 256 KiB: only the
/// chunk and the lines asked for are held, never the whole input.
final class InputLines {
    private let descriptor: Int32
    private let name: String
    private let closes: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var lineNumber = 0
    /// How many bytes have been read so far.
    private(set) var bytesRead = 0
    /// The input's size in bytes when it is a regular file, else `nil`.
    let size: Int?

    /// Reads the file at `path`, or standard input when `path` is `nil`.
    ///
    /// - Throws: ``CLIError`` with exit status 66 when the file cannot be opened.
    init(path: String?) throws {
        if let path {
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { throw CLIError("cannot read '\(path)'", exitCode: CLIError.noInput) }
            self.descriptor = descriptor
            self.name = "'\(path)'"
            self.closes = true
        } else {
            self.descriptor = STDIN_FILENO
            self.name = "standard input"
            self.closes = false
        }
        var info = stat()
        size = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    deinit {
        if closes { close(descriptor) }
    }

    /// The next `count` non-blank lines, fewer at the end of the input, none after it.
    ///
    /// - Throws: ``CLIError`` with exit status 66 when the input cannot be read.
    func next(_ count: Int) throws -> [InputLine] {
        var lines: [InputLine] = []
        while lines.count < count, let line = try nextLine() {
            lineNumber += 1
            if let trimmed = Self.trimmed(line) {
                lines.append(InputLine(number: lineNumber, bytes: trimmed))
            }
        }
        return lines
    }

    /// The next line's bytes, without the line break; `nil` at the end.
    private func nextLine() throws -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return buffer[start..<newline]
            }
            if ended {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return buffer[start...]
            }
            try fill()
        }
    }

    /// Reads the next chunk, keeping the unfinished line before it.
    private func fill() throws {
        buffer.removeSubrange(0..<start)
        start = 0
        let chunk = 256 * 1024
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        var got: Int
        repeat {
            got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, chunk) }
        } while got < 0 && errno == EINTR
        guard got >= 0 else {
            let reason = String(cString: strerror(errno))
            buffer.removeSubrange(old...)
            throw CLIError("cannot read \(name): \(reason)", exitCode: CLIError.noInput)
        }
        buffer.removeSubrange((old + got)...)
        bytesRead += got
        if got == 0 { ended = true }
    }

    /// `line` without leading and trailing spaces, tabs and carriage returns; `nil` when
    /// nothing is left.
    private static func trimmed(_ line: ArraySlice<UInt8>) -> Data? {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard let first = line.firstIndex(where: { !blank($0) }), let last = line.lastIndex(where: { !blank($0) })
        else { return nil }
        return Data(line[first...last])
    }
}
