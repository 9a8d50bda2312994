import Foundation

/// Wall-clock timing and the few statistics the harness reports.
enum Timing {
    /// The wall-clock and the process CPU seconds of one run of some code. On a shared,
    /// loaded machine the CPU time is the steadier of the two: it does not count the time the
    /// process waited for a core.
    struct Sample {
        /// Seconds on the monotonic clock.
        var wall: Double
        /// CPU seconds of the whole process (every thread) over the same run.
        var cpu: Double
    }

    /// Runs `body` once and returns its wall-clock and CPU seconds.
    static func sample(_ body: () throws -> Void) rethrows -> Sample {
        let cpuStart = processCPUSeconds()
        let wall = try seconds(body)
        return Sample(wall: wall, cpu: processCPUSeconds() - cpuStart)
    }

    /// CPU seconds used by this process so far (`CLOCK_PROCESS_CPUTIME_ID`).
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The seconds `body` takes, measured on the monotonic clock.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return (clock.now - start).seconds
    }

    /// The median of `samples` (the mean of the middle two for an even count); 0 when empty.
    static func median(_ samples: [Double]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
