/// What the command lines of alertd and alertctl both read: durations with units, and the known name nearest to
/// a mistyped one.
public enum CommandLineText {
    /// Seconds per unit, largest first: the order units must come in (`1h30m`, not `30m1h`).
    private static let units: [(name: String, seconds: Double)] = [
        ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1), ("ms", 0.001),
    ]

    /// The duration `text` means, in seconds: a bare number is seconds (`90`, `0.5`); otherwise one or more numbers
    /// each with a unit, `d`, `h`, `m`, `s` or `ms`, largest first (`90s`, `5m`, `1h30m`, `7d`). Numbers are digits
    /// with at most a decimal point. `nil` for anything else (an empty text, a sign, an exponent or hexadecimal, which
    /// `Double` would take: `0x10` is not 16 s, an unknown or repeated unit, units out of order).
    public static func seconds(_ text: String) -> Double? {
        if text.allSatisfy(isNumeral), let plain = Double(text) { return plain.isFinite ? plain : nil }
        var rest = Substring(text)
        var total = 0.0
        var last = -1
        while !rest.isEmpty {
            let number = rest.prefix(while: isNumeral)
            rest = rest.dropFirst(number.count)
            let unitText = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unitText.count)
            guard let value = Double(number), value.isFinite,
                  let unit = units.firstIndex(where: { $0.name == unitText }), unit > last
            else { return nil }
            last = unit
            total += value * units[unit].seconds
        }
        guard last >= 0 else { return nil }
        return total.isFinite ? total : nil
    }

    /// An ASCII digit or a decimal point.
    private static func isNumeral(_ character: Character) -> Bool {
        character.isASCII && (character.isNumber || character == ".")
    }

    /// `seconds(text)` when it is a whole number of seconds in `range`, else `nil`.
    public static func wholeSeconds(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard let seconds = seconds(text), seconds.rounded() == seconds, seconds <= Double(range.upperBound),
              seconds >= Double(range.lowerBound) else { return nil }
        return Int(seconds)
    }

    /// The name in `candidates` closest to `name` by edit distance (insertions, deletions, substitutions and swaps
    /// of neighbours), if it is close enough to be a typo of it: at most a third of its length apart (at least 1,
    /// at most 3); the first of equally close ones.
    public static func nearest(_ name: String, in candidates: [String]) -> String? {
        let limit = min(max(name.count / 3, 1), 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(Array(name), Array(candidate))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// " (did you mean 'X'?)" for the nearest of `candidates`, or "".
    public static func suggestion(for name: String, in candidates: [String]) -> String {
        nearest(name, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Optimal string alignment distance.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
