import Foundation
import HummingbirdTLS
public import NIOSSL

/// A certificate chain and its private key, read from PEM files, for serving HTTPS.
public struct TLSCredentials: Sendable {
    /// The server-side TLS configuration made from the files (TLS 1.2 or later).
    public let configuration: TLSConfiguration

    /// Reads the PEM certificate chain at `certificateFile` and the PEM private key at
    /// `keyFile`.
    ///
    /// - Throws: ``TLSFileError`` saying which file could not be read or parsed, and why.
    public init(certificateFile: String, keyFile: String) throws {
        let chain = try Self.load(.certificate, at: certificateFile) {
            try NIOSSLCertificate.fromPEMFile(certificateFile)
        }
        guard !chain.isEmpty else {
            throw TLSFileError(file: .certificate, path: certificateFile, reason: "it holds no PEM certificate")
        }
        let key = try Self.load(.key, at: keyFile) { try NIOSSLPrivateKey(file: keyFile, format: .pem) }
        configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSFileError(file: .key, path: keyFile, reason: "it does not match the certificate (\(error))")
        }
    }

    /// `parse()`'s result, or a ``TLSFileError`` saying why the file at `path` is unusable.
    private static func load<Value>(_ file: TLSFileError.File, at path: String, parse: () throws -> Value) throws
        -> Value
    {
        guard FileManager.default.isReadableFile(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            throw TLSFileError(file: file, path: path, reason: "cannot read it: \(reason)")
        }
        do {
            return try parse()
        } catch {
            throw TLSFileError(file: file, path: path, reason: "it is not a PEM \(file.noun) (\(error))")
        }
    }
}

/// A TLS certificate or key file that cannot be used.
public struct TLSFileError: Error, Sendable, CustomStringConvertible {
    /// Which of the two files.
    public enum File: Sendable {
        /// The certificate chain.
        case certificate
        /// The private key.
        case key

        /// What the file should hold, for messages.
        var noun: String { self == .certificate ? "certificate" : "private key" }
    }

    /// Which file is wrong.
    public var file: File
    /// Its path.
    public var path: String
    /// What is wrong with it.
    public var reason: String

    /// `TLS certificate '/etc/x.pem': cannot read it: no such file`, and so on.
    public var description: String { "TLS \(file.noun) '\(path)': \(reason)" }
}
