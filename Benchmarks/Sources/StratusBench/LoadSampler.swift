import Foundation

/// Samples the machine's one-minute load average every few seconds while the benchmark runs,
/// so that a result can be read against how busy the (shared) machine was.
final class LoadSampler: Sendable {
    private let samples = Locked<[Double]>([])
    private let running = Locked(true)

    /// Starts sampling every `interval` seconds on a background thread.
    init(interval: Double = 5) {
        let thread = Thread { [samples, running] in
            while running.value {
                if let load = MachineInfo.loadAverage().first { samples.update { $0.append(load) } }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.start()
    }

    /// Stops sampling and returns the minimum, median and maximum of the samples.
    func stop() -> LoadSummary {
        running.update { $0 = false }
        let values = samples.value
        return LoadSummary(
            samples: values.count, minimum: values.min() ?? 0, median: Timing.median(values), maximum: values.max() ?? 0
        )
    }
}

/// The one-minute load averages seen during a run.
struct LoadSummary: Codable {
    /// How many samples were taken.
    var samples: Int
    /// The lowest.
    var minimum: Double
    /// The median.
    var median: Double
    /// The highest.
    var maximum: Double
}
