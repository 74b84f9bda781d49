/// "Did you mean …?" for a mistyped command or option: the one known word closest to what was
/// typed, by edit distance (insertions, deletions, substitutions and swaps of neighbours each cost
/// one), and only when it is close enough to be a typo rather than a different word.
public enum Suggestion {
    /// The closest of `candidates` to `typed`, or nil when none is within a typo's reach
    /// (a third of the longer word's length, at least 1, at most 3) or two are equally close.
    public static func closest(to typed: String, among candidates: [String]) -> String? {
        // Options are compared without their dashes: "--" would make any two look alike.
        let words = { (text: String) in Array(text.lowercased().utf8.drop { $0 == UInt8(ascii: "-") }) }
        let typed = words(typed)
        // Arguments can be huge: an edit distance is quadratic, and no candidate is longer than 40.
        guard !typed.isEmpty, typed.count <= 64 else { return nil }
        var best: (word: String, distance: Int)?
        var tied = false
        for candidate in Set(candidates) {
            let word = words(candidate)
            let limit = min(3, max(1, max(word.count, typed.count) / 3))
            let distance = editDistance(typed, word)
            guard distance <= limit else { continue }
            if let current = best, distance >= current.distance {
                if distance == current.distance { tied = true }
                continue
            }
            best = (candidate, distance)
            tied = false
        }
        return tied ? nil : best?.word
    }

    /// " (did you mean 'X'?)" for a usage message, or "" when there is nothing to suggest.
    public static func phrase(for typed: String, among candidates: [String]) -> String {
        closest(to: typed, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previousRow = [Int](repeating: 0, count: b.count + 1)
        var row = Array(0...b.count)
        for i in 1...a.count {
            let beforeRow = previousRow
            previousRow = row
            row = [Int](repeating: 0, count: b.count + 1)
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previousRow[j] + 1, row[j - 1] + 1, previousRow[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], beforeRow[j - 2] + 1)
                }
            }
        }
        return row[b.count]
    }
}
