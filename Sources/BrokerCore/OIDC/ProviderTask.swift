/// Runs provider work — an HTTP exchange and the decoding of its answer (JSON, JOSE, ID token
/// checks) — in a task of its own.
///
/// A request on the loopback listener or the socket server is handled by a task that prefers its
/// connection thread's executor (`ConnectionExecutor`: a 512 KiB stack), and nonisolated async
/// code it awaits runs there, even from inside an actor. An unstructured task inherits no
/// executor preference, so `body` runs on the global pool instead (DESIGN: OAuth exchanges never
/// run on a listener's connection thread). The caller still awaits the outcome.
enum ProviderTask {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws(OIDCError) -> T) async -> Result<T, OIDCError> {
        await Task { () async -> Result<T, OIDCError> in
            do throws(OIDCError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }.value
    }
}
