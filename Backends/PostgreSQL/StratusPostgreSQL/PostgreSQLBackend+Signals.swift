import StratusBackend

/// Commit signals through `pg_notify` and `LISTEN` (decision 0014.6): a write transaction's
/// signals go with its `COMMIT`, so PostgreSQL delivers them to every listening process only
/// if it commits, never from an aborted or re-run body.
extension PostgreSQLBackend: CommitSignaling {
    /// The signals committed on `channel` by any process using this store: one connection of
    /// its own runs `LISTEN` on a thread of its own until the stream's consumer goes away.
    public func signals(channel: String) -> AsyncStream<CommitSignal> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CommitSignal.self, bufferingPolicy: .bufferingNewest(4096))
        let listener = PostgreSQLListener(
            channel: Self.notifyChannel(channel, schema: configuration.schema),
            parameters: configuration.connectionParameters, redact: [configuration.password].compactMap { $0 },
            log: connectionLog, continuation: continuation)
        continuation.onTermination = { _ in listener.stop() }
        listener.start()
        return stream
    }

    /// PostgreSQL's name for this store's `channel`: channels are global to a database, and
    /// stores are schemas, so the name joins both — hashed (64-bit FNV-1a) into a fixed-length
    /// identifier of lowercase letters, digits and `_` that needs no quoting and never exceeds
    /// PostgreSQL's 63 bytes.
    static func notifyChannel(_ channel: String, schema: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(schema.utf8) + [0] + Array(channel.utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "stratus_" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
