/// A Prometheus histogram: cumulative buckets, a sum and a count.
struct Histogram: Sendable {
    /// Upper bounds of the buckets, ascending; `+Inf` is implied.
    let bounds: [Double]
    private(set) var counts: [UInt64]
    private(set) var sum = 0.0
    private(set) var count: UInt64 = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func observe(_ value: Double) {
        sum += value
        count += 1
        if let bucket = bounds.firstIndex(where: { value <= $0 }) { counts[bucket] += 1 }
    }

    /// The exposition lines for metric `name`.
    func lines(_ name: String) -> [String] {
        var lines: [String] = []
        var cumulative: UInt64 = 0
        for (bound, bucketCount) in zip(bounds, counts) {
            cumulative += bucketCount
            lines.append("\(name)_bucket{le=\"\(bound)\"} \(cumulative)")
        }
        lines.append("\(name)_bucket{le=\"+Inf\"} \(count)")
        lines.append("\(name)_sum \(sum)")
        lines.append("\(name)_count \(count)")
        return lines
    }
}
