import Foundation

/// A certificate and its private key, as PEM files.
public struct CertificatePair: Sendable {
    public let certificateFile: String
    public let keyFile: String
}

/// A private CA and leaf certificates signed by it, generated with the `openssl` command once
/// per test process (generation takes a few hundred milliseconds) and shared by every test.
///
/// - `localhost`: valid for 127.0.0.1, ::1 and localhost.
/// - `expired`: the same names, valid only during 2020.
/// - `otherHost`: valid only for other.example (a hostname mismatch on 127.0.0.1).
public struct TestCertificates: Sendable {
    public let directory: String
    public let caFile: String
    public let localhost: CertificatePair
    public let expired: CertificatePair
    public let otherHost: CertificatePair
    /// An intermediate CA (signed by the CA) and a loopback leaf it signed; the leaf's file holds
    /// the chain (leaf, then intermediate), as a provider serves it.
    public let intermediate: CertificatePair
    public let chained: CertificatePair

    /// The certificates of this test process, generated on first use.
    public static func shared() throws -> TestCertificates {
        try cached.get()
    }

    private static let cached: Result<TestCertificates, CertificateGenerationError> = {
        do {
            return .success(try TestCertificates(generatingIn: TemporaryDirectory(prefix: "authbroker-certs").path))
        } catch let error as CertificateGenerationError {
            return .failure(error)
        } catch {
            return .failure(CertificateGenerationError(message: "\(error)"))
        }
    }()

    private init(generatingIn directory: String) throws {
        self.directory = directory
        caFile = "\(directory)/ca.pem"
        try Self.writeCAConfiguration(in: directory)
        try OpenSSLCommand.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(directory)/ca.key", "-out", caFile, "-days", "3650", "-subj", "/CN=authbroker test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        localhost = try Self.issue("localhost", extensions: "leaf_loopback", dates: ["-days", "3650"], in: directory)
        expired = try Self.issue(
            "expired", extensions: "leaf_loopback",
            dates: ["-startdate", "20200101000000Z", "-enddate", "20201231000000Z"], in: directory)
        otherHost = try Self.issue("other", extensions: "leaf_other", dates: ["-days", "3650"], in: directory)
        intermediate = try Self.issue("intermediate", extensions: "intermediate_ca", dates: ["-days", "3650"], in: directory)
        chained = try Self.issueUnderIntermediate("chained", intermediate: intermediate, in: directory)
    }

    /// A loopback leaf signed by `intermediate`, its file the chain leaf + intermediate.
    private static func issueUnderIntermediate(
        _ name: String, intermediate: CertificatePair, in directory: String
    ) throws -> CertificatePair {
        let (key, csr) = try newKeyAndRequest(name, in: directory)
        let leaf = "\(directory)/\(name)-leaf.pem"
        try OpenSSLCommand.run([
            "x509", "-req", "-in", csr, "-CA", intermediate.certificateFile, "-CAkey", intermediate.keyFile,
            "-set_serial", "4242", "-days", "3650", "-sha256", "-extfile", "\(directory)/ca.cnf",
            "-extensions", "leaf_loopback", "-out", leaf,
        ])
        let chain = "\(directory)/\(name).pem"
        let bytes =
            try String(contentsOfFile: leaf, encoding: .utf8)
            + String(contentsOfFile: intermediate.certificateFile, encoding: .utf8)
        try bytes.write(toFile: chain, atomically: true, encoding: .utf8)
        return CertificatePair(certificateFile: chain, keyFile: key)
    }

    /// The pin of the first certificate in `file` — base64 of the SHA-256 of its
    /// SubjectPublicKeyInfo — computed by the openssl command line, independently of the code
    /// under test (the recipe curl documents for `--pinnedpubkey`).
    public static func pin(ofCertificateIn file: String) throws -> String {
        let pipeline =
            "openssl x509 -in '\(file)' -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64"
        let result = try Subprocess.runBlocking(["/bin/sh", "-c", pipeline], timeout: .seconds(60))
        guard result.status == 0 else { throw CertificateGenerationError(message: "pin of \(file): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new P-256 key and a signing request for `/CN=name`: the files `name.key` and `name.csr`.
    private static func newKeyAndRequest(_ name: String, in directory: String) throws -> (key: String, csr: String) {
        let key = "\(directory)/\(name).key"
        let csr = "\(directory)/\(name).csr"
        try OpenSSLCommand.run([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", csr, "-subj", "/CN=\(name)",
        ])
        return (key, csr)
    }

    /// A key, a CSR and a certificate signed by the CA with `openssl ca` (the only CLI path
    /// in OpenSSL 3.0 that can set a start date in the past).
    private static func issue(_ name: String, extensions: String, dates: [String], in directory: String) throws -> CertificatePair
    {
        let (key, csr) = try newKeyAndRequest(name, in: directory)
        let certificate = "\(directory)/\(name).pem"
        try OpenSSLCommand.run(
            [
                "ca", "-batch", "-notext", "-config", "\(directory)/ca.cnf", "-extensions", extensions, "-in", csr, "-out",
                certificate,
            ]
                + dates)
        return CertificatePair(certificateFile: certificate, keyFile: key)
    }

    private static func writeCAConfiguration(in directory: String) throws {
        let configuration = """
            [ ca ]
            default_ca = test_ca
            [ test_ca ]
            database = \(directory)/index.txt
            new_certs_dir = \(directory)
            certificate = \(directory)/ca.pem
            private_key = \(directory)/ca.key
            serial = \(directory)/serial
            default_md = sha256
            policy = policy_any
            unique_subject = no
            [ policy_any ]
            commonName = supplied
            [ leaf_loopback ]
            basicConstraints = CA:FALSE
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1, IP:::1, DNS:localhost
            [ intermediate_ca ]
            basicConstraints = critical, CA:TRUE, pathlen:0
            keyUsage = critical, keyCertSign, cRLSign
            [ leaf_other ]
            basicConstraints = CA:FALSE
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:other.example

            """
        try configuration.write(toFile: "\(directory)/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: "\(directory)/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: "\(directory)/serial", atomically: true, encoding: .utf8)
    }
}

/// Why the test certificates could not be made (the openssl command's own error output).
public struct CertificateGenerationError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { "cannot generate test certificates: \(message)" }
}

/// Runs the `openssl` command-line tool and fails with its stderr.
enum OpenSSLCommand {
    static func run(_ arguments: [String]) throws {
        let result = try Subprocess.runBlocking(["/usr/bin/env", "openssl"] + arguments, timeout: .seconds(60))
        guard result.status == 0 else {
            let text = result.stderr.split(separator: "\n").prefix(3).joined(separator: " | ")
            throw CertificateGenerationError(message: "openssl \(arguments.first ?? "") failed: \(text)")
        }
    }
}
