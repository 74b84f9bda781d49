/// "Did you mean …?": the known name closest to a mistyped one, by edit distance (insertions,
/// deletions, substitutions), when it is close enough to be a typo rather than another word.
enum NearestName {
    /// Names longer than this are not compared (a typo of a short key, not a pasted blob).
    static let maximumLength = 64

    /// The nearest of `known` within a third of the longer name's length (at least 1, at most 3
    /// edits), the alphabetically first on a tie; nil when none is that close.
    static func suggestion(for typed: String, among known: some Collection<String>) -> String? {
        guard typed.count <= maximumLength else { return nil }
        let typed = Array(typed.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for name in known.sorted() {
            let candidate = Array(name.lowercased().unicodeScalars)
            let limit = min(3, max(1, max(typed.count, candidate.count) / 3))
            let distance = editDistance(typed, candidate)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance with one row of memory.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let above = row[j + 1]
                row[j + 1] = min(above + 1, row[j] + 1, diagonal + (x == y ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }
}
