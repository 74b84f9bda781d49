import CMalloc

extension Daemon {
    /// How many malloc arenas the daemon allows, unless `MALLOC_ARENA_MAX` in its environment says
    /// otherwise (glibc reads that itself; nil: leave glibc alone).
    ///
    /// Why: glibc gives a thread that allocates while another holds the arena lock an arena of
    /// its own (up to 8 per core). Start-up decodes and restores every account on the two
    /// cooperative pool threads, so the accounts' memory ended up split over two arenas of ≈ 1.7 MB
    /// each with free space in both. With one arena the same 1,000 accounts took 0.35 MB less
    /// anonymous memory at idle, every run; with two, only in some runs (which thread got which
    /// arena varied) (docs/BENCHMARKS-archive.md, "Memory per account"). One lock is no bottleneck
    /// here: small blocks come from each thread's tcache without taking it, and the machine has two cores.
    static func mallocArenaLimit(environment: [String: String]) -> Int32? {
        environment["MALLOC_ARENA_MAX"] == nil ? 1 : nil
    }

    /// Applies `mallocArenaLimit` — first thing in `main`, before any thread has made an arena.
    static func limitMallocArenas(environment: [String: String]) {
        guard let limit = mallocArenaLimit(environment: environment) else { return }
        mallopt(M_ARENA_MAX, limit)
    }
}
