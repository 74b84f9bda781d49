import COpenSSL

/// `OPENSSL_cleanse`: a memset the compiler may not elide, for wiping key material.
enum OpenSSLCleanse {
    static func cleanse(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
        OPENSSL_cleanse(pointer, count)
    }
}
