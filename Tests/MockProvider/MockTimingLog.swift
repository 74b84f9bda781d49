import Foundation

/// `MockProviderConfiguration.timingLog`: one appended line per request, written with O_APPEND so
/// concurrent requests' lines do not interleave.
enum MockTimingLog {
    static func append(_ line: String, to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
