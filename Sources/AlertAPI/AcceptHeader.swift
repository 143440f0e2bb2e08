import Foundation

/// A request's `Accept` header (RFC 9110 §12.5.1), read only as far as choosing among a few media types needs:
/// media ranges and their `q` weights; other parameters are ignored.
struct AcceptHeader {
    /// Each media range (lowercase `type/subtype`, `type/*` or `*/*`) with its weight, 0 to 1.
    private let ranges: [(range: String, quality: Double)]

    /// - Parameter value: the header's value; nil when the request has none (then every type is acceptable).
    init(_ value: String?) {
        guard let value else {
            ranges = [("*/*", 1)]
            return
        }
        ranges = value.split(separator: ",").compactMap { element in
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let range = parts.first, range.contains("/") else { return nil }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (range, min(max(weight, 0), 1))
        }
    }

    /// How acceptable `mediaType` (lowercase `type/subtype`) is: the weight of the most specific range that
    /// matches it (`type/subtype`, then `type/*`, then `*/*`), 0 when none does.
    func quality(of mediaType: String) -> Double {
        let type = mediaType.prefix { $0 != "/" }
        let candidates = [mediaType, "\(type)/*", "*/*"]
        for candidate in candidates {
            if let match = ranges.first(where: { $0.range == candidate }) { return match.quality }
        }
        return 0
    }

    /// The first of `offers` with the highest weight above 0; when none is acceptable, the first offer (the
    /// header is then disregarded, as RFC 9110 allows, rather than answered `406`).
    func preferred(_ offers: [String]) -> String {
        var best = offers[0]
        var bestQuality = 0.0
        for offer in offers {
            let quality = quality(of: offer)
            if quality > bestQuality { (best, bestQuality) = (offer, quality) }
        }
        return best
    }
}
