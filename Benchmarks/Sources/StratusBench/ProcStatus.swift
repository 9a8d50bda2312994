import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Resident pages mapped from files now (`RssFile`: the program's code, and the pages of
    /// a memory-mapped store such as LMDB's), in MiB.
    static var fileBackedMiB: Double { Double(kilobytes("RssFile") ?? 0) / 1024 }

    /// Peak resident memory (the high-water mark), in MiB.
    static var peakMiB: Double { Double(kilobytes("VmHWM") ?? 0) / 1024 }

    /// Returns the heap's free memory to the system (`malloc_trim(0)`, glibc), so that memory
    /// freed before a measurement (building a zone, say) cannot be reused unseen by it: what
    /// the measured code allocates must then show in the resident size.
    static func releaseFreeMemory() {
        #if canImport(Glibc)
            // `malloc_trim` is in <malloc.h>, which the Glibc module does not export.
            typealias MallocTrim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
                _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
            }
        #endif
    }

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
