import Foundation
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on 127.0.0.1 that answers every connection with the bytes it was last given,
/// exactly as given (no HTTP of its own), then closes it: a peer that says whatever the fuzzer
/// makes up. Connections are answered one at a time, on a thread of the server's own.
final class RawServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var response = Data()

    init() {
        signal(SIGPIPE, SIG_IGN)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else { fail("fuzz-peers: no listening socket") }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptForever() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// What the next connections are answered with.
    func serve(_ bytes: Data) {
        lock.withLock { response = bytes }
    }

    private func acceptForever() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            answer(connection)
        }
    }

    private func answer(_ connection: Int32) {
        defer { close(connection) }
        // The request head (until its blank line, 64 KiB, or a second of silence).
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 64 << 10, head.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            head.append(contentsOf: buffer[0..<count])
        }
        let bytes = lock.withLock { response }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let written = write(connection, base + offset, raw.count - offset)
                guard written > 0 else { return }
                offset += written
            }
        }
        shutdown(connection, Int32(SHUT_WR))
    }
}
