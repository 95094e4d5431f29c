import CPostgres
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection (https://www.postgresql.org/docs/15/libpq.html), used by one thread at a time (a
/// ``PostgresPool`` worker's, or the caller's at start): libpq connections are not thread-safe
/// (https://www.postgresql.org/docs/15/libpq-threading.html).
///
/// It never waits past a deadline: the connection is made with `PQconnectStartParams`/`PQconnectPoll` and every query
/// is sent with `PQsendQueryParams` and read with `PQconsumeInput` while `poll(2)` waits for the socket with the time
/// left (https://www.postgresql.org/docs/15/libpq-async.html), so a server that stopped answering costs a caller its
/// deadline, never a hang. A connection that failed or ran out of time is ``isBroken`` and must be dropped.
///
/// Values only ever travel as parameters (`$1`, `$2`, … with `PQsendQueryParams`, in binary with their types), never
/// in the SQL text: no value can change what a statement does.
package final class PostgresConnection {
    private let connection: OpaquePointer
    /// Set once the connection failed, or a query ran out of time mid-answer: it cannot be used again.
    package private(set) var isBroken = false
    /// The SQLSTATE of the last query's error, nil when it succeeded or failed without one
    /// (https://www.postgresql.org/docs/15/errcodes-appendix.html).
    package private(set) var lastSQLState: String?
    /// How many statements have had their answer on this connection: 0 for one that has served nothing yet.
    package private(set) var answered = 0

    /// Connects with libpq's parameters (`keywords` and `values` as `PQconnectdbParams` takes them; a `dbname` given
    /// first may be a `postgresql://` URI, whose members the later parameters override) by `deadline`.
    package init(parameters: [(keyword: String, value: String)], deadline: ContinuousClock.Instant) throws(StoreError) {
        let keywords = parameters.map { strdup($0.keyword) }
        let values = parameters.map { strdup($0.value) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        guard let connection = PQconnectStartParams(keywordPointers, valuePointers, 1) else {
            throw StoreError(.unavailable, detail: "connect to PostgreSQL: libpq could not allocate a connection")
        }
        self.connection = connection
        guard PQstatus(connection) != CONNECTION_BAD else { throw failure("connect to PostgreSQL") }
        // "consider it PGRES_POLLING_WRITING at the start" (PQconnectPoll, libpq-connect.html).
        var state = PGRES_POLLING_WRITING
        while state != PGRES_POLLING_OK {
            switch state {
            case PGRES_POLLING_READING: try wait(for: Int16(POLLIN), until: deadline, "connect to PostgreSQL")
            case PGRES_POLLING_WRITING: try wait(for: Int16(POLLOUT), until: deadline, "connect to PostgreSQL")
            default: throw failure("connect to PostgreSQL")
            }
            state = PQconnectPoll(connection)
        }
        // Non-blocking, so that sending a query never waits past a deadline either: in blocking mode
        // PQsendQueryParams may block on a full socket buffer until the server reads (libpq-async.html,
        // "PQsetnonblocking"); each send is flushed by ``flush(_:deadline:)``.
        guard PQsetnonblocking(connection, 1) == 0 else { throw failure("connect to PostgreSQL") }
        // A NOTICE (a migration's `CREATE TABLE IF NOT EXISTS` says "already exists, skipping") is informational, and
        // libpq's default processor prints it on stderr (libpq-notice-processing.html), into a command's output and
        // the daemon's log: it is dropped. Errors are not notices; they fail their statement.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit {
        PQfinish(connection)
    }

    /// Runs one statement with `values` bound to `$1`, `$2`, …, answering its rows (results in binary) and the number
    /// of rows it changed. A server error throws: a unique or foreign key violation as `.constraint` with the
    /// constraint's name, anything else as `.unavailable`; ``lastSQLState`` tells which.
    @discardableResult
    package func execute(
        _ sql: String, _ values: [PostgresValue] = [], operation: String, deadline: ContinuousClock.Instant
    ) throws(StoreError) -> PostgresResult {
        lastSQLState = nil
        guard !isBroken else { throw StoreError(.unavailable, detail: "\(operation): the connection was lost") }
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        for value in values {
            if let bytes = value.encoded {
                offsets.append(buffer.count)
                buffer += bytes
            } else {
                offsets.append(nil)
            }
        }
        buffer.append(0)  // never empty, so an empty value has a non-nil pointer
        let types = values.map(\.oid)
        let lengths = values.map { Int32($0.encoded?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: values.count)
        let sent = buffer.withUnsafeBytes { raw -> Int32 in
            let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { base?.advanced(by: $0) } }
            return PQsendQueryParams(connection, sql, Int32(values.count), types, pointers, lengths, formats, 1)
        }
        guard sent == 1 else { throw failure(operation) }
        try flush(operation, deadline: deadline)
        return try collect(operation, deadline: deadline)
    }

    /// Ends the transaction block with `COMMIT`, and throws unless it committed. A `COMMIT` in a block that a failed
    /// statement aborted is not an error to PostgreSQL: "in an aborted transaction, a COMMIT command returns a command
    /// tag of the form ROLLBACK" (https://www.postgresql.org/docs/current/sql-commit.html, Outputs), so a body that
    /// caught a statement's error would otherwise report success for writes that never happened.
    package func commit(operation: String, deadline: ContinuousClock.Instant) throws(StoreError) {
        let tag = try execute("COMMIT", operation: operation, deadline: deadline).command
        guard tag == "COMMIT" else {
            throw StoreError(
                .unavailable,
                detail: "\(operation): PostgreSQL answered \(tag) to COMMIT: a statement of the transaction had failed")
        }
    }

    /// Runs `sql`, which may hold several statements and no value (a migration step), with the simple query protocol.
    package func executeScript(_ sql: String, operation: String, deadline: ContinuousClock.Instant)
        throws(StoreError)
    {
        lastSQLState = nil
        guard !isBroken else { throw StoreError(.unavailable, detail: "\(operation): the connection was lost") }
        guard PQsendQuery(connection, sql) == 1 else { throw failure(operation) }
        try flush(operation, deadline: deadline)
        _ = try collect(operation, deadline: deadline)
    }

    /// Whether the connection is outside any transaction block, where a statement is a transaction of its own
    /// (`PQtransactionStatus` answers from libpq's state, without a round trip: libpq-status.html).
    package var isIdle: Bool { PQtransactionStatus(connection) == PQTRANS_IDLE }

    /// Sends what libpq still holds of the query, waiting for the socket until `deadline`: PQflush answers 1 while
    /// data is left; when the socket is ready the input is consumed (the server may be answering) and it is tried
    /// again (libpq-async.html, "PQflush").
    private func flush(_ operation: String, deadline: ContinuousClock.Instant) throws(StoreError) {
        while true {
            switch PQflush(connection) {
            case 0: return
            case 1:
                try wait(for: Int16(POLLOUT | POLLIN), until: deadline, operation)
                guard PQconsumeInput(connection) == 1 else { throw failure(operation) }
            default: throw failure(operation)
            }
        }
    }

    /// Reads every result of the query sent, waiting for the socket until `deadline`; the last one's rows.
    private func collect(_ operation: String, deadline: ContinuousClock.Instant) throws(StoreError) -> PostgresResult {
        var answer = PostgresResult(rows: [], changed: 0, command: "")
        var error: StoreError?
        while true {
            while PQisBusy(connection) == 1 {
                try wait(for: Int16(POLLIN), until: deadline, operation)
                guard PQconsumeInput(connection) == 1 else { throw failure(operation) }
            }
            guard let result = PQgetResult(connection) else { break }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK: answer = Self.read(result)
            default: error = error ?? serverError(result, operation)
            }
        }
        if PQstatus(connection) == CONNECTION_BAD { isBroken = true }
        if let error { throw error }
        answered += 1
        return answer
    }

    private static func read(_ result: OpaquePointer) -> PostgresResult {
        let (rowCount, columnCount) = (PQntuples(result), PQnfields(result))
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var fields: [[UInt8]?] = []
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    fields.append(nil)
                } else if let value = PQgetvalue(result, row, column) {
                    let length = Int(PQgetlength(result, row, column))
                    fields.append(
                        value.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
                            Array(UnsafeBufferPointer(start: pointer, count: length))
                        })
                } else {
                    fields.append([])
                }
            }
            rows.append(PostgresRow(fields: fields))
        }
        let changed = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        let command = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        return PostgresResult(rows: rows, changed: changed, command: command)
    }

    /// The server's error as a ``StoreError``: its SQLSTATE and primary message, never its DETAIL (which may quote a
    /// key's value).
    private func serverError(_ result: OpaquePointer, _ operation: String) -> StoreError {
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue, let text = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: text)
        }
        let state = field("C")  // PG_DIAG_SQLSTATE
        lastSQLState = state
        let message = field("M") ?? "error"  // PG_DIAG_MESSAGE_PRIMARY
        switch state {
        // unique_violation, foreign_key_violation: named by the constraint (PG_DIAG_CONSTRAINT_NAME).
        case "23505", "23503":
            return StoreError(.constraint(field("n") ?? "unknown"), detail: "\(operation): \(message)")
        case "57014":
            return StoreError(.unavailable, detail: "\(operation): PostgreSQL cancelled it (statement_timeout)")
        default:
            return StoreError(.unavailable, detail: "\(operation): PostgreSQL \(state ?? "error"): \(message)")
        }
    }

    /// Whether the last query failed in a way a new attempt of the whole transaction may not: a serialisation failure
    /// (40001) or a deadlock (40P01) (https://www.postgresql.org/docs/15/transaction-iso.html#XACT-SERIALIZABLE).
    package var lastFailureIsRetryable: Bool {
        lastSQLState == "40001" || lastSQLState == "40P01"
    }

    /// Waits until the socket is ready for `events` or `deadline` passes; at the deadline the connection is broken.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant, _ operation: String)
        throws(StoreError)
    {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else {
                isBroken = true
                throw StoreError(.unavailable, detail: "\(operation): no answer from PostgreSQL in time")
            }
            var descriptor = pollfd(fd: PQsocket(connection), events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(milliseconds, Int64(Int32.max))))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw failure(operation) }
        }
    }

    /// The connection's error message as `.unavailable`, the connection broken.
    private func failure(_ operation: String) -> StoreError {
        isBroken = true
        let message = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
        let line = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? "connection failed"
        return StoreError(.unavailable, detail: "\(operation): \(line)")
    }
}

/// What a statement answered: its rows, and how many rows it changed (`PQcmdTuples`).
package struct PostgresResult: Sendable {
    package var rows: [PostgresRow]
    package var changed: Int
    /// The command status tag (PQcmdStatus(3), libpq-exec.html), e.g. `UPDATE 1` or `COMMIT`.
    package var command: String
}

/// One row of a result in binary format: each column's bytes, nil for NULL.
package struct PostgresRow: Sendable {
    package let fields: [[UInt8]?]

    package func isNull(_ column: Int) -> Bool { column >= fields.count || fields[column] == nil }

    package func bytes(_ column: Int) -> [UInt8] { (column < fields.count ? fields[column] : nil) ?? [] }

    package func optionalBytes(_ column: Int) -> [UInt8]? { isNull(column) ? nil : bytes(column) }

    package func text(_ column: Int) -> String { String(decoding: bytes(column), as: UTF8.self) }

    package func optionalText(_ column: Int) -> String? { isNull(column) ? nil : text(column) }

    /// An `int8` or `int4` column (network byte order).
    package func int(_ column: Int) -> Int {
        bytes(column).reduce(0) { ($0 << 8) | Int($1) }.signExtended(fromBytes: bytes(column).count)
    }

    /// A `float8` column: IEEE 754 in network byte order.
    package func double(_ column: Int) -> Double {
        Double(bitPattern: bytes(column).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) })
    }

    package func bool(_ column: Int) -> Bool { bytes(column).first == 1 }

    /// A `float8` column of Unix seconds.
    package func date(_ column: Int) -> Date { Date(timeIntervalSince1970: double(column)) }

    package func optionalDate(_ column: Int) -> Date? { isNull(column) ? nil : date(column) }
}

extension Int {
    /// The value of the low `count` bytes read as a two's-complement number of that width.
    fileprivate func signExtended(fromBytes count: Int) -> Int {
        guard count > 0, count < 8 else { return self }
        let shift = 64 - count * 8
        return (self << shift) >> shift
    }
}

/// A value bound to a statement's parameter, sent in binary with its type, so the server never parses it as SQL.
package enum PostgresValue: Sendable {
    case text(String)
    case bytes([UInt8])
    case int(Int)
    case double(Double)
    case bool(Bool)
    /// A one-dimensional array of `element` values (each encoded as above, nil for NULL), for `= ANY($1)` and
    /// `unnest($1, $2, …)`: many rows in one statement.
    indirect case array(element: PostgresValue.ElementType, [PostgresValue])
    case null

    /// The element types arrays are sent with, by their array type's and element type's OIDs.
    package enum ElementType: Sendable {
        case text, bytes, int, double, bool

        var oids: (array: Oid, element: Oid) {
            switch self {
            case .text: (1009, 25)
            case .bytes: (1001, 17)
            case .int: (1016, 20)
            case .double: (1022, 701)
            case .bool: (1000, 16)
            }
        }
    }

    package init(_ text: String?) { self = text.map(Self.text) ?? .null }

    package init(_ bytes: [UInt8]?) { self = bytes.map(Self.bytes) ?? .null }

    /// Unix seconds as `float8`.
    package init(_ date: Date?) { self = date.map { .double($0.timeIntervalSince1970) } ?? .null }

    /// The type's OID (`pg_type`: bool 16, bytea 17, int8 20, text 25, float8 701); 0 lets the server infer a NULL's.
    var oid: Oid {
        switch self {
        case .text: 25
        case .bytes: 17
        case .int: 20
        case .double: 701
        case .bool: 16
        case .array(let element, _): element.oids.array
        case .null: 0
        }
    }

    /// The binary representation (https://www.postgresql.org/docs/15/protocol-overview.html#PROTOCOL-FORMAT-CODES);
    /// nil for NULL.
    var encoded: [UInt8]? {
        switch self {
        case .text(let text): Array(text.utf8)
        case .bytes(let bytes): bytes
        case .int(let value): withUnsafeBytes(of: Int64(value).bigEndian, Array.init)
        case .double(let value): withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init)
        case .bool(let value): [value ? 1 : 0]
        case .array(let element, let values): Self.arrayBytes(element, values)
        case .null: nil
        }
    }

    /// The binary array format (`array_send`): dimensions, a has-nulls flag, the element type, each dimension's size
    /// and lower bound, then each element as its length (-1 for NULL) and bytes.
    private static func arrayBytes(_ element: ElementType, _ values: [PostgresValue]) -> [UInt8] {
        func int32(_ value: Int) -> [UInt8] {
            withUnsafeBytes(of: Int32(truncatingIfNeeded: value).bigEndian, Array.init)
        }
        let hasNull = values.contains { $0.encoded == nil }
        var bytes =
            int32(1) + int32(hasNull ? 1 : 0) + int32(Int(element.oids.element)) + int32(values.count) + int32(1)
        for value in values {
            if let encoded = value.encoded {
                bytes += int32(encoded.count) + encoded
            } else {
                bytes += int32(-1)
            }
        }
        return bytes
    }
}
