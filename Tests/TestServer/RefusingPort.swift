import Foundation
import Synchronization

/// A port on 127.0.0.1 where a connection is refused, and stays refused while this value lives:
/// a TCP socket bound to it that never listens. The kernel answers a connection attempt with a
/// reset, and no other socket can bind the port meanwhile (this one does not set `SO_REUSEADDR`,
/// which a second bind would need). A closed listener's port is not that: the next server any
/// test starts may be given it, and a request meant to be refused gets an answer.
///
/// ```swift
/// let refusing = try RefusingPort()
/// defer { refusing.close() }
/// let url = "http://127.0.0.1:\(refusing.port)/x"  // ECONNREFUSED
/// ```
public final class RefusingPort: Sendable {
    public let port: Int
    private let descriptor: Mutex<Int32?>

    public init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            Glibc.close(socket)
            throw POSIXError(code)
        }
        descriptor = Mutex(socket)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Frees the port, once; later calls do nothing.
    public func close() {
        if let socket = descriptor.withLock({ descriptor in defer { descriptor = nil }; return descriptor }) {
            Glibc.close(socket)
        }
    }

    deinit { close() }
}
