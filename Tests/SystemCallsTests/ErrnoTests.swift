import Glibc
import SystemCalls
import Testing

@Suite struct ErrnoTests {
    @Test func describesTheCodeWithStrerrorText() {
        #expect(Errno(ENOENT).description == "No such file or directory")
        #expect(Errno(ECONNREFUSED).description == "Connection refused")
        #expect(Errno(ENOENT).descriptionWithCode == "No such file or directory (errno 2)")
        #expect(Errno(4242).description == "Unknown error 4242")
    }

    @Test func currentReadsTheThreadsErrno() {
        errno = EACCES
        #expect(Errno.current == Errno(EACCES))
        #expect("\(Errno.current)" == "Permission denied")
    }
}
