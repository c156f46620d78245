import CDuktape
import Foundation

#if canImport(Glibc)
import Glibc

private let systemRead = Glibc.read
#elseif canImport(Musl)
import Musl

private let systemRead = Musl.read
#endif

/// A file of Duktape bytecode (a `duk_dump_function` image) with what it was made from: the
/// format, the engine build (`engine`: version, architecture, layout options) and a key naming its inputs (a source's hash, the transpiler's
/// version...), and a hash of the bytecode itself. Duktape's loader is not safe against corrupt
/// bytecode, so an image is loaded only when all of these match: a truncated, altered or stale
/// file is rejected, never loaded (and made again).
///
/// The hash finds corruption, not tampering: whoever can write the cache can also write the
/// program's sources. Images are written to a temporary file beside the destination and renamed,
/// so concurrent writers and interrupted writes leave either an old image or a whole new one.
enum BytecodeImage {
    static let magic = Array("DUKBC\u{0}02".utf8)

    /// The engine build the bytecode is for (`cduk_engine_fingerprint`: Duktape's version, the
    /// architecture, byte order, value layout and options); stored in each image.
    static let engine: [UInt8] = {
        var buffer = [CChar](repeating: 0, count: 512)
        let length = min(cduk_engine_fingerprint(&buffer, buffer.count), buffer.count - 1)
        return buffer.prefix(length).map { UInt8(bitPattern: $0) }
    }()

    /// The most bytes an image file may have (TypeScript's compiler is about 8 MB).
    static let maximumFileSize = 512 << 20

    /// The image's bytecode, or nil when the file is missing or does not match `key`.
    static func read(from url: URL, key: [UInt8]) -> [UInt8]? {
        guard let data = contents(of: url.path) else { return nil }
        return data.withUnsafeBytes { raw -> [UInt8]? in
            var reader = Reader(raw)
            guard let stamp = reader.take(magic.count), stamp.elementsEqual(magic),
                let engineLength = reader.uint32(), let storedEngine = reader.take(Int(engineLength)),
                storedEngine.elementsEqual(engine),
                let keyLength = reader.uint32(), let storedKey = reader.take(Int(keyLength)), storedKey.elementsEqual(key),
                let length = reader.uint64(), let hash = reader.uint64(),
                let payload = reader.take(Int(clamping: length)), reader.isAtEnd
            else { return nil }
            let bytes = Array(payload)
            guard BytecodeImage.hash(bytes) == hash else { return nil }
            return bytes
        }
    }

    /// Writes `bytecode` under `key` to `url` (through a temporary file renamed into place);
    /// false when the directory cannot be written (the image is then simply not kept).
    @discardableResult
    static func write(_ bytecode: [UInt8], key: [UInt8], to url: URL) -> Bool {
        var data = Data(magic)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        append(UInt32(engine.count))
        data.append(contentsOf: engine)
        append(UInt32(key.count))
        data.append(contentsOf: key)
        append(UInt64(bytecode.count))
        append(hash(bytecode))
        data.append(contentsOf: bytecode)
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
            else { return false }
            if rename(temporary.path, url.path) != 0 {
                unlink(temporary.path)  // a file, never a directory put there since
                return false
            }
            return true
        } catch {
            unlink(temporary.path)
            return false
        }
    }

    /// A regular file's bytes, at most `maximumFileSize` (read with the system's calls:
    /// Foundation's `FileManager.contents(atPath:)` leaks its buffer for a short file, which
    /// LeakSanitizer reports).
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= maximumFileSize else { return nil }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// A 64-bit hash of `bytes` (cduk_hash64).
    static func hash(_ bytes: some ContiguousBytes) -> UInt64 {
        bytes.withUnsafeBytes { cduk_hash64($0.baseAddress, $0.count, 0) }
    }

    /// A key from parts: each part's length and bytes (so that no two part lists give one key).
    static func key(_ parts: [[UInt8]]) -> [UInt8] {
        var key: [UInt8] = []
        for part in parts {
            withUnsafeBytes(of: UInt32(part.count).littleEndian) { key.append(contentsOf: $0) }
            key.append(contentsOf: part)
        }
        return key
    }

    private struct Reader {
        let raw: UnsafeRawBufferPointer
        var offset = 0
        init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }
        var isAtEnd: Bool { offset == raw.count }
        mutating func take(_ count: Int) -> Slice<UnsafeRawBufferPointer>? {
            guard count >= 0, raw.count - offset >= count else { return nil }
            defer { offset += count }
            return raw[offset..<(offset + count)]
        }
        mutating func uint32() -> UInt32? {
            take(4).map { UInt32(littleEndian: UnsafeRawBufferPointer(rebasing: $0).loadUnaligned(as: UInt32.self)) }
        }
        mutating func uint64() -> UInt64? {
            take(8).map { UInt64(littleEndian: UnsafeRawBufferPointer(rebasing: $0).loadUnaligned(as: UInt64.self)) }
        }
    }
}
