import Foundation

/// This process's memory figures from `/proc/self/status` (Linux).
enum ProcStatus {
    /// A field of `/proc/self/status` in kB (`VmRSS`, `VmHWM`, …), or `nil`.
    static func kilobytes(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Int(number)
        }
        return nil
    }

    /// Resident memory now, in MiB.
    static var residentMiB: Double { Double(kilobytes("VmRSS") ?? 0) / 1024 }

    /// Peak resident memory (the high-water mark), in MiB.
    static var peakMiB: Double { Double(kilobytes("VmHWM") ?? 0) / 1024 }

    /// Resets the high-water mark to the current resident size (`echo 5 >
    /// /proc/self/clear_refs`, Linux 4.0 and later). Returns whether it worked.
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
        } catch {
            return false
        }
        // Pages may be touched between the two reads; a reset leaves the mark near the
        // resident size.
        return peakMiB <= residentMiB + 1
    }
}
