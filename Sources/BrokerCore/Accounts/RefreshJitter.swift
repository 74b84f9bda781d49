/// The source of jitter for one account's refresh schedule: a tiny deterministic generator (SplitMix64)
/// held by value inside the state machine, so the machine stays pure.
///
/// The daemon seeds it from `Random` once per account; tests pick a seed, or a fixed unit to pin the
/// schedule exactly. Jitter only spreads load — it is not a secret and needs no cryptographic quality.
public struct RefreshJitter: Sendable, Equatable {
    private var state: UInt64
    private let fixedUnit: Double?

    /// A pseudo-random sequence of units in [0, 1) from `seed`.
    public init(seed: UInt64) {
        state = seed
        fixedUnit = nil
    }

    /// Always the same unit (clamped to [0, 1]): for tests that pin the schedule.
    public static func fixed(_ unit: Double) -> RefreshJitter {
        RefreshJitter(state: 0, fixedUnit: min(max(unit, 0), 1))
    }

    private init(state: UInt64, fixedUnit: Double?) {
        self.state = state
        self.fixedUnit = fixedUnit
    }

    /// The next unit in [0, 1).
    public mutating func nextUnit() -> Double {
        if let fixedUnit { return fixedUnit }
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        // The top 53 bits make an evenly spaced Double in [0, 1).
        return Double(z >> 11) * 0x1.0p-53
    }
}
