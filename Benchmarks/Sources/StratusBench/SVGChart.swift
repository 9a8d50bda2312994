import Foundation

/// The scaling runs as one hand-written SVG: incremental-sync time against history size (log
/// scale) and query page time against page number, one line per backend.
struct SVGChart {
    /// The run to draw.
    let report: BenchmarkReport

    private static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    private static let panelWidth = 440.0
    private static let panelHeight = 300.0
    private static let margin = (left: 64.0, right: 16.0, top: 40.0, bottom: 48.0)

    /// One series of a panel.
    private struct Series {
        var name: String
        var color: String
        var points: [(x: Double, y: Double)]
        var markers: [(x: Double, y: Double)]
    }

    /// The SVG document.
    var svg: String {
        let width = 2 * SVGChart.panelWidth + 24
        let height = SVGChart.panelHeight + 56
        var body = ""
        body += panel(
            x: 0, title: "Fetch \(Format.integer(Double(report.sizes.incrementalChanges))) changes after a token",
            xLabel: "changes in the zone's history (log scale)", yLabel: "ms (median)", logX: true,
            series: syncSeries(), xTicks: report.sizes.historySizes.map(Double.init))
        body += panel(
            x: SVGChart.panelWidth + 24, title: "Sorted query, \(report.sizes.pageSize) per page, through cursors",
            xLabel: "page number (line: walk, median of \(bucketSize) pages; dots: repeated medians)",
            yLabel: "ms", logX: false, series: pageSeries(),
            xTicks: [1, Double(report.sizes.lastPage) / 2, Double(report.sizes.lastPage)].map { $0.rounded() })
        body += legend(y: SVGChart.panelHeight + 20)
        body += text(
            8, height - 8, "\(report.date) · \(report.machine.processors) cores · \(report.machine.cpuModel)",
            size: 10, anchor: "start", color: "#666")
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif">
            <rect width="100%" height="100%" fill="white"/>
            \(body)</svg>

            """
    }

    private var bucketSize: Int { max(1, report.sizes.lastPage / 50) }

    private func color(_ index: Int) -> String { SVGChart.palette[index % SVGChart.palette.count] }

    private func syncSeries() -> [Series] {
        report.backends.enumerated().map { index, backend in
            let points = backend.incrementalSync.points.map { (x: Double($0.historySize), y: $0.seconds * 1000) }
            return Series(name: backend.backend, color: color(index), points: points, markers: points)
        }
    }

    private func pageSeries() -> [Series] {
        report.backends.enumerated().map { index, backend in
            let walk = backend.paging.walkSeconds
            var points: [(x: Double, y: Double)] = []
            var start = 0
            while start < walk.count {
                let end = min(start + bucketSize, walk.count)
                let middle = Double(start + end + 1) / 2
                points.append((x: middle, y: Timing.median(Array(walk[start..<end])) * 1000))
                start = end
            }
            let markers = [
                (x: 1.0, y: backend.paging.firstPageSeconds * 1000),
                (x: Double(backend.paging.lastPage), y: backend.paging.lastPageSeconds * 1000),
            ]
            return Series(name: backend.backend, color: color(index), points: points, markers: markers)
        }
    }

    // Drawing: each panel maps its data into its own rectangle, offset by `originX`.

    private func panel(
        x originX: Double, title: String, xLabel: String, yLabel: String, logX: Bool, series: [Series],
        xTicks: [Double]
    ) -> String {
        let m = SVGChart.margin
        let plotWidth = SVGChart.panelWidth - m.left - m.right
        let plotHeight = SVGChart.panelHeight - m.top - m.bottom
        let xs = series.flatMap { $0.points.map(\.x) + $0.markers.map(\.x) } + xTicks
        let ys = series.flatMap { $0.points.map(\.y) + $0.markers.map(\.y) }
        let transform: (Double) -> Double = logX ? { log10(max($0, 1)) } : { $0 }
        let xMin = transform(xs.min() ?? 0)
        let xMax = max(transform(xs.max() ?? 1), xMin + 1e-9)
        let yMax = niceCeiling((ys.max() ?? 1) * 1.1)
        func px(_ value: Double) -> Double { originX + m.left + (transform(value) - xMin) / (xMax - xMin) * plotWidth }
        func py(_ value: Double) -> Double { m.top + plotHeight - value / yMax * plotHeight }

        var out = text(originX + SVGChart.panelWidth / 2, 20, title, size: 13, anchor: "middle", color: "#000")
        out += line(px(xs.min() ?? 0), py(0), px(xs.max() ?? 1), py(0))
        out += line(originX + m.left, py(0), originX + m.left, py(yMax))
        for step in 0...4 {
            let value = yMax * Double(step) / 4
            out += line(originX + m.left, py(value), originX + m.left + plotWidth, py(value), color: "#e5e5e5")
            out += text(originX + m.left - 6, py(value) + 4, Format.fixed(value, value < 10 ? 2 : 1), size: 10)
        }
        for tick in xTicks {
            out += text(px(tick), py(0) + 16, Format.compact(Int(tick)), size: 10, anchor: "middle")
        }
        out += text(originX + m.left + plotWidth / 2, py(0) + 34, xLabel, size: 11, anchor: "middle", color: "#333")
        out += text(
            originX + 14, m.top + plotHeight / 2, yLabel, size: 11, anchor: "middle", color: "#333", rotate: true)
        for item in series {
            let path = item.points.map { "\(round2(px($0.x))),\(round2(py($0.y)))" }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(item.color)\" stroke-width=\"1.5\" points=\"\(path)\"/>\n"
            for marker in item.markers {
                out +=
                    "<circle cx=\"\(round2(px(marker.x)))\" cy=\"\(round2(py(marker.y)))\" r=\"3.5\" fill=\"\(item.color)\"/>\n"
            }
        }
        return out
    }

    private func legend(y: Double) -> String {
        var out = ""
        for (index, backend) in report.backends.enumerated() {
            let x = SVGChart.margin.left + Double(index) * 120
            out += "<rect x=\"\(x)\" y=\"\(y - 9)\" width=\"14\" height=\"10\" fill=\"\(color(index))\"/>\n"
            out += text(x + 20, y, backend.backend, size: 11, anchor: "start", color: "#000")
        }
        return out
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, color: String = "#444") -> String {
        "<line x1=\"\(round2(x1))\" y1=\"\(round2(y1))\" x2=\"\(round2(x2))\" y2=\"\(round2(y2))\" stroke=\"\(color)\"/>\n"
    }

    private func text(
        _ x: Double, _ y: Double, _ content: String, size: Int, anchor: String = "end", color: String = "#444",
        rotate: Bool = false
    ) -> String {
        let rotation = rotate ? " transform=\"rotate(-90 \(round2(x)) \(round2(y)))\"" : ""
        return
            "<text x=\"\(round2(x))\" y=\"\(round2(y))\" font-size=\"\(size)\" text-anchor=\"\(anchor)\" fill=\"\(color)\"\(rotation)>\(escape(content))</text>\n"
    }

    private func escape(_ content: String) -> String {
        content.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private func round2(_ value: Double) -> String { Format.fixed(value, 1) }

    /// The smallest 1, 2 or 5 × 10ⁿ at or above `value`.
    private func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let magnitude = pow(10, floor(log10(value)))
        for factor in [1.0, 2, 5, 10] where factor * magnitude >= value { return factor * magnitude }
        return 10 * magnitude
    }
}
