import BrokerProtocol

/// Reads a client secret from a file: the first line, without its newline.
enum SecretFile {
    static func read(_ path: String) throws(UsageError) -> String {
        let bytes = try BoundedFile.read(path, limit: 16_384, what: "--client-secret-file")
        let line = bytes.split(separator: 10, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let secret = String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
        guard !secret.isEmpty else {
            throw UsageError("--client-secret-file '\(path)' must hold the secret on its first line")
        }
        return secret
    }
}
