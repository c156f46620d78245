"""A raw-socket WebSocket peer for the conformance suite (in the style of the Autobahn
testsuite's case groups): it writes frames byte by byte, so it can send what no library
sends, and checks what the implementation under test does with them.

    ws_raw.py serve RESULTS.json      a server (the client under test connects to /<case id>
                                      for each case and echoes what it receives); prints PORT
    ws_raw.py drive URL RESULTS.json  a client of an LWWebSocket server (WebSocketServer under
                                      test, whose harness echoes envelopes and type-7 frames)

Each case sends frames and expects one of: the echo of its message(s), a close with a given
code (any of a set), or the connection dropped. RESULTS.json gets one entry per case:
{"id", "group", "passed", "detail"}.
"""
import base64
import hashlib
import json
import os
import random
import socket
import struct
import sys
import threading
import zlib

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TIMEOUT = 30


def frame(opcode, payload=b"", fin=True, rsv=0, mask=None, length=None):
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    n = len(payload) if length is None else length
    mbit = 0x80 if mask is not None else 0
    if n < 126:
        head += bytes([mbit | n])
    elif n < 65536:
        head += bytes([mbit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mbit | 127]) + struct.pack("!Q", n)
    if mask is not None:
        head += mask
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + payload


class Conn:
    def __init__(self, sock, client_role):
        self.sock = sock
        self.client_role = client_role  # True: we are the client (we mask)
        self.buffer = b""
        self.sock.settimeout(TIMEOUT)

    def send(self, opcode, payload=b"", fin=True, rsv=0, masked=None, length=None):
        mask = os.urandom(4) if (self.client_role if masked is None else masked) else None
        self.sock.sendall(frame(opcode, payload, fin, rsv, mask, length))

    def raw(self, data):
        self.sock.sendall(data)

    def read_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_frame(self):
        b0, b1 = self.read_exact(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self.read_exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self.read_exact(8))[0]
        mask = self.read_exact(4) if b1 & 0x80 else None
        payload = self.read_exact(n)
        if mask:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return b0 & 0x80 != 0, (b0 >> 4) & 7, b0 & 0x0F, payload

    def read_message(self, inflate=None):
        """The next data message (opcode, payload) or ("close", code) or ("drop", None)."""
        parts, opcode, compressed = [], None, False
        try:
            while True:
                fin, rsv, op, payload = self.read_frame()
                if op == 8:
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                    return "close", code
                if op in (9, 10):
                    if op == 9:
                        self.send(10, payload)
                    continue
                if op != 0:
                    opcode, compressed = op, bool(rsv & 4)
                parts.append(payload)
                if fin:
                    data = b"".join(parts)
                    if compressed and inflate is not None:
                        data = inflate.decompress(data + b"\x00\x00\xff\xff")
                    return opcode, data
        except (EOFError, ConnectionError, socket.timeout, OSError):
            return "drop", None

    def close_code(self):
        """Reads until a close frame (its code) or the end of the connection ("drop")."""
        while True:
            kind, value = self.read_message()
            if kind == "close":
                return value
            if kind == "drop":
                return "drop"


# Cases: (id, group, steps, expectation). Steps are functions of a Conn; an expectation is
# ("echo", [(opcode, bytes), ...]) or ("close", {codes}) ("drop" counts for a failed
# connection too where the set has it).
def text(s):
    return s.encode("utf-8")


def cases(lw):
    """The cases; `lw`: the peer under test is an LWWebSocket server (its text is an envelope
    of a string, its binary messages are framed with a 4-byte type)."""
    def t(payload_bytes):  # a text message's payload as the peer under test takes it
        if lw:
            return text(json.dumps({"messageType": 6, "messageBody": payload_bytes.decode("utf-8", "surrogatepass")}, ensure_ascii=False))
        return payload_bytes

    def t_echo(payload_bytes):
        return (1, payload_bytes)

    def b(payload):
        return (b"\x07\x00\x00\x00" + payload) if lw else payload

    def b_echo(payload):
        return (2, (b"\x07\x00\x00\x00" + payload) if lw else payload)

    out = []

    def case(id, group, steps, expect):
        out.append((id, group, steps, expect))

    # 1. Framing
    for n in (0, 125, 126, 65535, 65536, 1 << 20):
        p = b"*" * n
        case(f"1.1.{n}", "framing", [lambda c, p=p: c.send(1, t(p))], ("echo", [t_echo(p)]))
        q = bytes(i % 256 for i in range(n))
        case(f"1.2.{n}", "framing", [lambda c, q=q: c.send(2, b(q))], ("echo", [b_echo(q)]))
    case("1.3", "framing", [lambda c: c.raw(b"".join(frame(1, t(text(f"m{i}")), mask=os.urandom(4) if c.client_role else None) for i in range(100)))],
         ("echo", [t_echo(text(f"m{i}")) for i in range(100)]))

    # 2. Control frames
    case("2.1", "control frames", [lambda c: c.send(9, b"hello"), lambda c: c.send(1, t(text("after")))], ("pong+echo", [b"hello"], [t_echo(text("after"))]))
    case("2.2", "control frames", [lambda c: c.send(9, b"x" * 125), lambda c: c.send(1, t(text("after")))], ("pong+echo", [b"x" * 125], [t_echo(text("after"))]))
    case("2.3", "control frames", [lambda c: c.send(9, b"x" * 126)], ("close", {1002}))
    case("2.4", "control frames", [lambda c: c.send(10, b"unsolicited"), lambda c: c.send(1, t(text("after")))], ("echo", [t_echo(text("after"))]))
    case("2.5", "control frames", [lambda c: c.send(9, b"frag", fin=False)], ("close", {1002}))
    case("2.6", "control frames", [lambda c: c.send(10, b"p", fin=False)], ("close", {1002}))

    # 3. Reserved bits
    for rsv in (1, 2, 3, 4, 5, 6, 7):
        if rsv == 4:
            continue  # RSV1: permessage-deflate's (group 9)
        case(f"3.{rsv}", "reserved bits and opcodes", [lambda c, rsv=rsv: c.send(1, t(text("x")), rsv=rsv)], ("close", {1002}))
    case("3.8", "reserved bits and opcodes", [lambda c: c.send(1, t(text("x")), rsv=4)], ("close", {1002}))  # no extension agreed
    # 4. Opcodes
    for op in (3, 4, 5, 6, 7, 11, 12, 13, 14, 15):
        case(f"4.{op}", "reserved bits and opcodes", [lambda c, op=op: c.send(op, b"x")], ("close", {1002}))

    # 5. Fragmentation
    msg = text("fragmented message of several parts")
    wire = t(msg)
    third = len(wire) // 3
    case("5.1", "fragmentation", [lambda c: c.send(1, wire[:third], fin=False), lambda c: c.send(0, wire[third:2 * third], fin=False),
                                  lambda c: c.send(0, wire[2 * third:])], ("echo", [t_echo(msg)]))
    case("5.2", "fragmentation", [lambda c: c.send(1, wire[:third], fin=False), lambda c: c.send(9, b"mid"),
                                  lambda c: c.send(0, wire[third:])], ("pong+echo", [b"mid"], [t_echo(msg)]))
    bmsg = bytes(range(256)) * 10
    bwire = b(bmsg)
    case("5.3", "fragmentation", [lambda c: [c.send(2 if i == 0 else 0, bwire[i:i + 1], fin=i == len(bwire) - 1) for i in range(0, len(bwire))]],
         ("echo", [b_echo(bmsg)]))
    case("5.4", "fragmentation", [lambda c: c.send(0, b"orphan")], ("close", {1002}))
    case("5.5", "fragmentation", [lambda c: c.send(0, b"orphan", fin=False)], ("close", {1002}))
    case("5.6", "fragmentation", [lambda c: c.send(1, wire[:third], fin=False), lambda c: c.send(1, wire[third:])], ("close", {1002}))
    case("5.7", "fragmentation", [lambda c: c.send(2, bwire[:4], fin=False), lambda c: c.send(1, t(text("x")))], ("close", {1002}))
    if not lw:  # (an envelope is never empty)
        case("5.8", "fragmentation", [lambda c: c.send(1, b"", fin=False), lambda c: c.send(0, b"", fin=False), lambda c: c.send(0, b"")],
             ("echo", [t_echo(b"")]))

    # 6. UTF-8
    valid = ["κόσμε", "\u0080\u07ff\u0800\uffff", "\U00010000\U0010ffff", "a\u0000b", "\ufeffbom"]
    for i, s in enumerate(valid):
        case(f"6.1.{i}", "UTF-8", [lambda c, s=s: c.send(1, t(text(s)))], ("echo", [t_echo(text(s))]))
    invalid = [b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf8\x88\x80\x80\xaf",
               b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xff", b"\xfe", b"\xc2", b"\xe1\x80", b"\xf0\x90\x80"]
    for i, s in enumerate(invalid):
        if lw:
            payload = b'{"messageType":6,"messageBody":"' + s + b'"}'
        else:
            payload = s
        case(f"6.2.{i}", "UTF-8", [lambda c, p=payload: c.send(1, p)], ("close", {1007}))
    # Invalid UTF-8 split across fragments: the close comes without the last fragment (fail fast).
    split = b"\xce\xba\xe1\xbd" if not lw else b'{"messageType":6,"messageBody":"\xce\xba\xe1\xbd'
    case("6.3.1", "UTF-8", [lambda c: c.send(1, split, fin=False), lambda c: c.send(0, b"\xb9\xcf\x83\xed\xa0\x80", fin=False)], ("close", {1007}))
    case("6.3.2", "UTF-8", [lambda c: c.send(1, split + b"\xb9", fin=False), lambda c: c.send(0, b"\xff", fin=False)], ("close", {1007}))
    # A valid sequence split between fragments is valid.
    euro = "price: 5€ and 😀".encode("utf-8")
    ewire = t(euro)
    cut = ewire.index(b"\xe2") + 1
    case("6.4", "UTF-8", [lambda c: c.send(1, ewire[:cut], fin=False), lambda c: c.send(0, ewire[cut:])], ("echo", [t_echo(euro)]))

    # 7. Close handling
    case("7.1", "close handling", [lambda c: c.send(8, struct.pack("!H", 1000))], ("close", {1000}))
    case("7.2", "close handling", [lambda c: c.send(8, b"")], ("close", {1005}))
    case("7.3", "close handling", [lambda c: c.send(8, b"\x03")], ("close", {1002}))
    for code in (1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999):
        case(f"7.4.{code}", "close handling", [lambda c, code=code: c.send(8, struct.pack("!H", code) + b"reason")], ("close", {code}))
    for code in (0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535):
        case(f"7.5.{code}", "close handling", [lambda c, code=code: c.send(8, struct.pack("!H", code))], ("close", {1002}))
    case("7.6", "close handling", [lambda c: c.send(8, struct.pack("!H", 1000) + b"\xff\xfe")], ("close", {1007}))
    case("7.7", "close handling", [lambda c: c.send(8, struct.pack("!H", 1000)), lambda c: c.send(1, t(text("after close")))], ("close", {1000}))

    # 10. Masking: a server's frames are never masked (the client under test; the server under
    # test gets an unmasked client frame in `drive`).
    if not lw:
        case("10.2", "masking", [lambda c: c.send(1, text("masked"), masked=True)], ("close", {1002}))

    # 8. Limits (the harness sets a limit of 1 MiB + 1 KiB)
    case("8.1", "limits", [lambda c: c.send(2, b(b"\x00" * ((1 << 20) + 2048)))], ("close", {1009}))
    case("8.2", "limits", [lambda c: c.raw(frame(2, b"", length=100 << 20, mask=os.urandom(4) if c.client_role else None))], ("close", {1009}))
    case("8.3", "limits", [lambda c: [c.send(2 if i == 0 else 0, b(b"\x00" * 300000) if i == 0 else b"\x00" * 300000, fin=False) for i in range(4)]],
         ("close", {1009}))
    return out


def deflate_message(data):
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return out[:-4] if out.endswith(b"\x00\x00\xff\xff") else out


def compression_cases(lw):
    out = []

    def t(s):
        return text(json.dumps({"messageType": 6, "messageBody": s}, ensure_ascii=False)) if lw else text(s)

    def b(p):
        return (b"\x07\x00\x00\x00" + p) if lw else p

    def case(id, steps, expect):
        out.append((id, "compression", steps, expect))

    long = "compress me " * 2000
    case("9.1", [lambda c: c.send(1, deflate_message(t(long)), rsv=4)], ("echo", [(1, text(long))]))
    data = bytes(range(256)) * 100
    case("9.2", [lambda c: c.send(2, deflate_message(b(data)), rsv=4)], ("echo", [(2, b(data))]))
    case("9.3", [lambda c: c.send(1, t("plain"))], ("echo", [(1, text("plain"))]))  # uncompressed message with the extension agreed
    whole = deflate_message(t(long))
    case("9.4", [lambda c: c.send(1, whole[:10], fin=False, rsv=4), lambda c: c.send(0, whole[10:])], ("echo", [(1, text(long))]))
    case("9.5", [lambda c: c.send(1, b"\xff\xff\xff\xff garbage", rsv=4)], ("close", {1007}))
    case("9.6", [lambda c: c.send(9, b"p", rsv=4)], ("close", {1002}))
    case("9.7", [lambda c: c.send(1, whole[:10], fin=False, rsv=4), lambda c: c.send(0, whole[10:], rsv=4)], ("close", {1002}))
    bomb = deflate_message(b(b"\x00" * (8 << 20)))
    case("9.8", [lambda c: c.send(2, bomb, rsv=4)], ("close", {1009}))
    # Larger than the 256 KiB each side inflates and deflates into first: a compressible message
    # that inflates past it three times, and one that does not compress (its deflated form passes
    # it too, both ways).
    large = bytes(range(256)) * 2800
    case("9.9", [lambda c: c.send(2, deflate_message(b(large)), rsv=4)], ("echo", [(2, b(large))]))
    noise = random.Random(9).randbytes(300 << 10)
    case("9.10", [lambda c: c.send(2, deflate_message(b(noise)), rsv=4)], ("echo", [(2, b(noise))]))
    return out


def run_case(conn, steps, expect, inflate=None):
    try:
        for step in steps:
            step(conn)
    except (ConnectionError, OSError) as error:
        if expect[0] == "close":
            pass
        else:
            return False, f"sending failed: {error}"
    kind = expect[0]
    if kind == "close":
        code = conn.close_code()
        ok = code in expect[1]
        return ok, f"closed with {code}"
    pongs = []
    if kind == "pong+echo":
        want_pongs, want = expect[1], expect[2]
    else:
        want_pongs, want = [], expect[1]
    got = []
    try:
        while len(got) < len(want) or len(pongs) < len(want_pongs):
            fin, rsv, op, payload = conn.read_frame()
            if op == 10:
                pongs.append(payload)
                continue
            if op == 9:
                conn.send(10, payload)
                continue
            if op == 8:
                return False, f"closed with {struct.unpack('!H', payload[:2])[0] if len(payload) >= 2 else 1005} instead of echoing"
            parts, opcode, compressed = [payload], op, bool(rsv & 4)
            while not fin:
                fin, rsv2, op2, payload = conn.read_frame()
                if op2 in (9, 10):
                    if op2 == 10:
                        pongs.append(payload)
                    continue
                parts.append(payload)
            data = b"".join(parts)
            if compressed and inflate is not None:
                data = inflate.decompress(data + b"\x00\x00\xff\xff")
            got.append((opcode, data))
    except (EOFError, ConnectionError, socket.timeout, OSError) as error:
        return False, f"no echo: {error!r} after {len(got)} messages"
    if pongs != want_pongs:
        return False, f"pongs {pongs!r}"
    if got != want:
        return False, f"echoed {[(o, d[:40]) for o, d in got]} instead of {[(o, d[:40]) for o, d in want]}"
    return True, "echoed"


def handshake_server(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise EOFError
        data += chunk
    head = data.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    path = head[0].split(" ")[1]
    headers = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in head[1:] if ":" in line}
    accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + GUID).encode()).digest()).decode()
    compression = path.startswith("/9.") and "permessage-deflate" in headers.get("sec-websocket-extensions", "")
    response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n"
    if compression:
        response += "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n"
    sock.sendall((response + "\r\n").encode())
    return path[1:], compression


def handshake_client(sock, host, path, compression):
    key = base64.b64encode(os.urandom(16)).decode()
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    if compression:
        request += "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n"
    sock.sendall((request + "\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise EOFError
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(head.decode("latin-1"))
    return rest, b"permessage-deflate" in head


def serve(results_path):
    all_cases = {c[0]: c for c in cases(False) + compression_cases(False)}
    results = []
    threads = []
    lock = threading.Lock()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("PORT", listener.getsockname()[1], flush=True)

    def handle(sock):
        try:
            case_id, compression = handshake_server(sock)
            if case_id == "done":
                for thread in list(threads):
                    if thread is not threading.current_thread():
                        thread.join(TIMEOUT)
                with open(results_path, "w") as f:
                    json.dump(results, f)
                sock.close()
                return
            id, group, steps, expect = all_cases[case_id]
            conn = Conn(sock, client_role=False)
            # The client under test sends its echoes; the first frame of a case may be a
            # masked-frame check, which is case 10.1 (below).
            ok, detail = run_case(conn, steps, expect, zlib.decompressobj(-15) if compression else None)
            with lock:
                results.append({"id": id, "group": group, "passed": ok, "detail": detail})
        except Exception as error:  # a case that broke the peer
            with lock:
                results.append({"id": "?", "group": "?", "passed": False, "detail": repr(error)})
        finally:
            try:
                sock.close()
            except OSError:
                pass

    while True:
        sock, _ = listener.accept()
        thread = threading.Thread(target=handle, args=(sock,), daemon=True)
        threads.append(thread)
        thread.start()


def drive(url, results_path):
    hostport, path = url[len("ws://"):].split("/", 1)
    host, port = hostport.split(":")
    results = []
    for id, group, steps, expect in cases(True) + compression_cases(True):
        sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        phase = "the handshake"
        try:
            rest, compression = handshake_client(sock, hostport, "/" + path, group == "compression")
            conn = Conn(sock, client_role=True)
            conn.buffer = rest
            # The server's Hello (type 1) comes first.
            phase = "the Hello"
            kind, value = conn.read_message(zlib.decompressobj(-15) if compression else None)
            if kind != 2 or not value.startswith(b"\x01\x00\x00\x00"):
                results.append({"id": id, "group": group, "passed": False, "detail": f"no Hello: {kind} {value!r}"})
                continue
            phase = "the case"
            ok, detail = run_case(conn, steps, expect, zlib.decompressobj(-15) if compression else None)
            results.append({"id": id, "group": group, "passed": ok, "detail": detail})
        except Exception as error:
            results.append({"id": id, "group": group, "passed": False, "detail": f"{error!r} during {phase}"})
        finally:
            sock.close()
    # Masking: a client frame without a mask is a protocol error.
    sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    rest, _ = handshake_client(sock, hostport, "/" + path, False)
    conn = Conn(sock, client_role=True)
    conn.buffer = rest
    conn.read_message()
    conn.send(1, b'{"messageType":6,"messageBody":"x"}', masked=False)
    code = conn.close_code()
    results.append({"id": "10.1", "group": "masking", "passed": code == 1002, "detail": f"closed with {code}"})
    sock.close()
    with open(results_path, "w") as f:
        json.dump(results, f)
    print("DONE", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "list":
        print(json.dumps([c[0] for c in cases(False) + compression_cases(False)]))
    elif sys.argv[1] == "serve":
        serve(sys.argv[2])
    elif sys.argv[1] == "drive":
        drive(sys.argv[2], sys.argv[3])
