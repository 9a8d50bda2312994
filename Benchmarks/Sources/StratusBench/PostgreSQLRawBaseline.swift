import StratusBenchCLibPQ

/// PostgreSQL through libpq, on a table shaped like the backend's store
/// (`key bytea PRIMARY KEY, value bytea NOT NULL`), every parameter and result in binary.
///
/// Two ways to insert, each on a new table in one transaction with a durable `COMMIT`: a
/// binary `COPY … FROM STDIN`, and multi-row `INSERT`s of ``batchSize`` rows per prepared
/// statement (one round trip each). Two ways to read every key back in one
/// `REPEATABLE READ READ ONLY` transaction, ``batchSize`` keys per round trip, each value copied
/// out: pipelined point `SELECT`s (libpq pipeline mode, one sync per batch; the backend's `get`
/// is such a `SELECT`, one round trip each), and `key = ANY($1)` (the backend's `getMany`).
/// The table is vacuumed and analyzed between the inserts and the reads (outside the clock).
struct PostgreSQLRawBaseline {
    /// The libpq connection string of the run's database.
    let conninfo: String
    /// Rows per multi-row `INSERT`, keys per pipeline sync and per `ANY` array.
    let batchSize = 400

    private static let table = "stratus_bench_raw_kv"
    private static let byteaOID: Oid = 17
    private static let byteaArrayOID: Oid = 1001

    /// Runs both inserts and both reads and returns their timings.
    func run(rows: Int, valueBytes: Int) throws -> RawBaseline {
        let connection = try LibPQConnection(conninfo)
        let data = Rows(rows: rows, valueBytes: valueBytes)
        defer { try? connection.execute("DROP TABLE IF EXISTS \(Self.table)") }

        try recreateTable(connection)
        let copying = try Timing.sample { try copy(connection, data) }
        try expectRows(connection, rows)
        try recreateTable(connection)
        let inserting = try Timing.sample { try insertMultiRow(connection, data) }
        try expectRows(connection, rows)
        try connection.execute("VACUUM ANALYZE \(Self.table)")

        var pipelinedBytes = 0
        let pipelined = try Timing.sample { pipelinedBytes = try readPipelined(connection, data) }
        var anyBytes = 0
        let arrays = try Timing.sample { anyBytes = try readAny(connection, data) }
        for bytes in [pipelinedBytes, anyBytes] where bytes != rows * valueBytes {
            throw LibPQConnection.Failure(
                description: "PostgreSQL raw baseline: read \(bytes) bytes, expected \(rows * valueBytes)")
        }
        return RawBaseline(
            rows: rows,
            inserts: [
                .init(name: "binary COPY", rows: rows, sample: copying),
                .init(name: "multi-row INSERT, \(batchSize) rows/statement", rows: rows, sample: inserting),
            ],
            reads: [
                .init(name: "pipelined point SELECTs, \(batchSize)/sync", rows: rows, sample: pipelined),
                .init(name: "key = ANY($1), \(batchSize) keys/statement", rows: rows, sample: arrays),
            ])
    }

    /// The rows' keys and values, each kind in one contiguous buffer, built before any clock
    /// starts so that parameters point straight into them.
    private struct Rows {
        let count: Int
        let keyBytes: Int
        let valueBytes: Int
        let keys: [UInt8]
        let values: [UInt8]

        init(rows: Int, valueBytes: Int) {
            count = rows
            keyBytes = RawData.key(0).count
            self.valueBytes = valueBytes
            keys = (0..<rows).flatMap(RawData.key)
            values = (0..<rows).flatMap { RawData.value($0, bytes: valueBytes) }
        }
    }

    private func recreateTable(_ connection: LibPQConnection) throws {
        try connection.execute("DROP TABLE IF EXISTS \(Self.table)")
        try connection.execute("CREATE TABLE \(Self.table) (key bytea PRIMARY KEY, value bytea NOT NULL)")
    }

    private func expectRows(_ connection: LibPQConnection, _ rows: Int) throws {
        let count = try connection.value("SELECT count(*) FROM \(Self.table)")
        guard count == String(rows) else {
            throw LibPQConnection.Failure(description: "PostgreSQL raw baseline: \(count) rows, expected \(rows)")
        }
    }

    /// `COPY … FROM STDIN (FORMAT binary)` of every row in one transaction.
    private func copy(_ connection: LibPQConnection, _ data: Rows) throws {
        try connection.execute("BEGIN")
        let start = PQexec(connection.handle, "COPY \(Self.table) (key, value) FROM STDIN (FORMAT binary)")
        let status = PQresultStatus(start)
        PQclear(start)
        guard status == PGRES_COPY_IN else { throw connection.failure("COPY") }
        var buffer: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8)
        buffer.reserveCapacity(1 << 18)
        func flush() throws {
            let sent = buffer.withUnsafeBytes {
                PQputCopyData(connection.handle, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count))
            }
            guard sent == 1 else { throw connection.failure("PQputCopyData") }
            buffer.removeAll(keepingCapacity: true)
        }
        for row in 0..<data.count {
            append(Int16(2), to: &buffer)
            append(Int32(data.keyBytes), to: &buffer)
            buffer.append(contentsOf: data.keys[row * data.keyBytes..<(row + 1) * data.keyBytes])
            append(Int32(data.valueBytes), to: &buffer)
            buffer.append(contentsOf: data.values[row * data.valueBytes..<(row + 1) * data.valueBytes])
            if buffer.count >= 1 << 18 { try flush() }
        }
        append(Int16(-1), to: &buffer)
        try flush()
        guard PQputCopyEnd(connection.handle, nil) == 1 else { throw connection.failure("PQputCopyEnd") }
        while let result = PQgetResult(connection.handle) {
            defer { PQclear(result) }
            try connection.check(result, "COPY")
        }
        try connection.execute("COMMIT")
    }

    /// Prepared `INSERT … VALUES ($1, $2), …` of ``batchSize`` rows each, in one transaction.
    private func insertMultiRow(_ connection: LibPQConnection, _ data: Rows) throws {
        func prepare(_ name: String, rows: Int) throws {
            let values = (0..<rows).map { "($\(2 * $0 + 1), $\(2 * $0 + 2))" }.joined(separator: ", ")
            let types = [Oid](repeating: Self.byteaOID, count: 2 * rows)
            let result = PQprepare(
                connection.handle, name, "INSERT INTO \(Self.table) (key, value) VALUES \(values)", Int32(2 * rows),
                types)
            defer { PQclear(result) }
            try connection.check(result, "PREPARE \(name)")
        }
        try prepare("insert_full", rows: batchSize)
        if data.count % batchSize != 0 { try prepare("insert_tail", rows: data.count % batchSize) }
        let lengths = (0..<batchSize).flatMap { _ in [Int32(data.keyBytes), Int32(data.valueBytes)] }
        let formats = [Int32](repeating: 1, count: 2 * batchSize)
        try connection.execute("BEGIN")
        try data.keys.withUnsafeBytes { keys in
            try data.values.withUnsafeBytes { values in
                for start in stride(from: 0, to: data.count, by: batchSize) {
                    let rows = min(batchSize, data.count - start)
                    var parameters: [UnsafePointer<CChar>?] = []
                    parameters.reserveCapacity(2 * rows)
                    for row in start..<start + rows {
                        parameters.append(pointer(keys, row * data.keyBytes))
                        parameters.append(pointer(values, row * data.valueBytes))
                    }
                    let result = PQexecPrepared(
                        connection.handle, rows == batchSize ? "insert_full" : "insert_tail", Int32(2 * rows),
                        parameters, lengths, formats, 1)
                    defer { PQclear(result) }
                    try connection.check(result, "INSERT")
                }
            }
        }
        try connection.execute("COMMIT")
        try connection.execute("DEALLOCATE ALL")
    }

    /// Pipelined point `SELECT`s, one sync (round trip) per ``batchSize`` keys, in one read
    /// transaction; returns the bytes read.
    private func readPipelined(_ connection: LibPQConnection, _ data: Rows) throws -> Int {
        let handle = connection.handle
        let prepared = PQprepare(handle, "get", "SELECT value FROM \(Self.table) WHERE key = $1", 1, [Self.byteaOID])
        defer { PQclear(prepared) }
        try connection.check(prepared, "PREPARE get")
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        var total = 0
        let length = [Int32(data.keyBytes)]
        let format: [Int32] = [1]
        try data.keys.withUnsafeBytes { keys in
            for start in stride(from: 0, to: data.count, by: batchSize) {
                let end = min(start + batchSize, data.count)
                guard PQenterPipelineMode(handle) == 1 else { throw connection.failure("PQenterPipelineMode") }
                for row in start..<end {
                    let parameter: [UnsafePointer<CChar>?] = [pointer(keys, row * data.keyBytes)]
                    guard PQsendQueryPrepared(handle, "get", 1, parameter, length, format, 1) == 1 else {
                        throw connection.failure("PQsendQueryPrepared")
                    }
                }
                guard PQpipelineSync(handle) == 1 else { throw connection.failure("PQpipelineSync") }
                for _ in start..<end {
                    guard let result = PQgetResult(handle) else { throw connection.failure("PQgetResult") }
                    defer { PQclear(result) }
                    try connection.check(result, "SELECT")
                    guard PQntuples(result) == 1 else { throw connection.failure("SELECT: a key is missing") }
                    total += copyValue(result, row: 0, column: 0).count
                    while let extra = PQgetResult(handle) { PQclear(extra) }
                }
                guard let sync = PQgetResult(handle) else { throw connection.failure("pipeline sync") }
                let status = PQresultStatus(sync)
                PQclear(sync)
                guard status == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
                    throw connection.failure("pipeline sync")
                }
            }
        }
        try connection.execute("COMMIT")
        try connection.execute("DEALLOCATE ALL")
        return total
    }

    /// `SELECT key, value … WHERE key = ANY($1)`, ``batchSize`` keys per statement, in one read
    /// transaction; returns the bytes read.
    private func readAny(_ connection: LibPQConnection, _ data: Rows) throws -> Int {
        let handle = connection.handle
        let prepared = PQprepare(
            handle, "get_many", "SELECT key, value FROM \(Self.table) WHERE key = ANY($1)", 1, [Self.byteaArrayOID])
        defer { PQclear(prepared) }
        try connection.check(prepared, "PREPARE get_many")
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        var total = 0
        let format: [Int32] = [1]
        var array: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: batchSize) {
            let end = min(start + batchSize, data.count)
            // The binary form of a one-dimensional bytea[]: dimensions, no nulls, element type,
            // length and lower bound, then each element's length and bytes.
            array.removeAll(keepingCapacity: true)
            append(Int32(1), to: &array)
            append(Int32(0), to: &array)
            append(Int32(bitPattern: Self.byteaOID), to: &array)
            append(Int32(end - start), to: &array)
            append(Int32(1), to: &array)
            for row in start..<end {
                append(Int32(data.keyBytes), to: &array)
                array.append(contentsOf: data.keys[row * data.keyBytes..<(row + 1) * data.keyBytes])
            }
            let result = array.withUnsafeBytes { bytes in
                let parameter: [UnsafePointer<CChar>?] = [pointer(bytes, 0)]
                return PQexecPrepared(handle, "get_many", 1, parameter, [Int32(bytes.count)], format, 1)
            }
            defer { PQclear(result) }
            try connection.check(result, "SELECT … ANY")
            let found = Int(PQntuples(result))
            guard found == end - start else {
                throw connection.failure("SELECT … ANY: \(found) of \(end - start) keys")
            }
            for row in 0..<found { total += copyValue(result, row: Int32(row), column: 1).count }
        }
        try connection.execute("COMMIT")
        try connection.execute("DEALLOCATE ALL")
        return total
    }

    private func copyValue(_ result: OpaquePointer?, row: Int32, column: Int32) -> [UInt8] {
        let count = Int(PQgetlength(result, row, column))
        return [UInt8](UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: count))
    }

    private func pointer(_ buffer: UnsafeRawBufferPointer, _ offset: Int) -> UnsafePointer<CChar>? {
        buffer.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
    }

    private func append<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }
}
