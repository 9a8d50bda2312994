/// One SQL statement with binary parameters, as sent with `PQsendQueryParams` (parameter and
/// result format 1: binary).
package struct PostgreSQLStatement {
    /// One parameter: its type's OID and its binary representation.
    package struct Parameter {
        var type: UInt32
        var bytes: [UInt8]

        /// A `bytea`.
        package static func bytea(_ bytes: [UInt8]) -> Parameter { Parameter(type: 17, bytes: bytes) }

        /// A `bigint`.
        package static func int8(_ value: Int64) -> Parameter {
            Parameter(type: 20, bytes: (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) })
        }

        /// A `text`, in UTF-8.
        package static func text(_ value: String) -> Parameter { Parameter(type: 25, bytes: Array(value.utf8)) }

        /// A one-dimensional `bytea[]` without nulls, in the binary array format.
        package static func byteaArray(_ elements: [[UInt8]]) -> Parameter {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + $1.count })
            func append(_ value: Int32) {
                for shift in stride(from: 24, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: value >> shift))
                }
            }
            append(1)  // dimensions
            append(0)  // no nulls
            append(17)  // element type: bytea
            append(Int32(elements.count))
            append(1)  // lower bound
            for element in elements {
                append(Int32(element.count))
                bytes += element
            }
            return Parameter(type: 1001, bytes: bytes)
        }
    }

    var sql: String
    var parameters: [Parameter]

    package init(_ sql: String, _ parameters: [Parameter] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}
