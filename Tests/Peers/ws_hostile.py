"""Hostile WebSocket clients for WebSocketServer's tests; each prints one JSON line.

    ws_hostile.py midframe PORT        handshake, half a frame, then the TCP connection closed
    ws_hostile.py neverread PORT SECS  handshake, asks for data (then says so on a line), never
                                       reads; ends after SECS seconds
    ws_hostile.py slowloris PORT       the request head one byte every 200 ms; reports when the
                                       server closed the connection
    ws_hostile.py churn PORT N         N connections opened and dropped: a third before the
                                       request, a third mid-handshake, a third after it
    ws_hostile.py handshakes PORT N    N handshakes one after another; reports the slowest
                                       answer's time, or the first failure
"""
import base64
import json
import os
import socket
import sys
import time

REQUEST = ("GET /service HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")


def request():
    return REQUEST.format(key=base64.b64encode(os.urandom(16)).decode()).encode()


def read_head(sock):
    """Reads until the end of the response's head (the server's answer to the handshake)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise EOFError("closed during the handshake")
        data += chunk


def open_socket(port, handshake=True):
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    if handshake:
        sock.sendall(request())
        read_head(sock)
    return sock


def masked(opcode, payload, length=None):
    n = len(payload) if length is None else length
    mask = os.urandom(4)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def wait_closed(sock, limit):
    start = time.monotonic()
    sock.settimeout(0.05)
    while time.monotonic() - start < limit:
        try:
            if not sock.recv(1 << 16):
                return time.monotonic() - start
        except socket.timeout:
            continue
        except ConnectionError:
            return time.monotonic() - start
    return None


mode, port = sys.argv[1], int(sys.argv[2])
if mode == "midframe":
    sock = open_socket(port)
    frame = masked(2, b"\x07\x00\x00\x00" + b"x" * 1000)
    sock.sendall(frame[:500])
    sock.close()
    print(json.dumps({"sent": 500}))
elif mode == "neverread":
    sock = open_socket(port)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(masked(1, b'{"messageType":6,"messageBody":"flood me"}'))
    print("asked for data on port %d" % port, flush=True)  # (PythonPeer.server waits for a line)
    # Never reads: the server's writes fill the socket buffers; it must close us (it cannot
    # tell us, so this only waits, and the test watches the server).
    time.sleep(float(sys.argv[3]))
    print(json.dumps({"waited": float(sys.argv[3])}))
elif mode == "slowloris":
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    start = time.monotonic()
    closed_after = None
    for byte in request():
        try:
            sock.sendall(bytes([byte]))
        except ConnectionError:
            closed_after = time.monotonic() - start
            break
        sock.settimeout(0.2)
        try:
            if not sock.recv(1):
                closed_after = time.monotonic() - start
                break
        except socket.timeout:
            pass
        except ConnectionError:
            closed_after = time.monotonic() - start
            break
    print(json.dumps({"closed_after": closed_after}))
elif mode == "handshakes":
    slowest, failure = 0.0, None
    for i in range(int(sys.argv[3])):
        start = time.monotonic()
        try:
            open_socket(port).close()
        except (OSError, EOFError) as error:
            failure = "handshake %d after %.2f s: %r" % (i, time.monotonic() - start, error)
            break
        slowest = max(slowest, time.monotonic() - start)
    print(json.dumps({"slowest": slowest, "failure": failure}))
elif mode == "churn":
    n = int(sys.argv[3])
    failures, handshakes, reasons = 0, 0, []
    used = {}  # local port -> the connection that last used it
    for i in range(n):
        phase, local = "connect", None
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            local = sock.getsockname()[1]
            if i % 3 == 0:
                sock.close()
            elif i % 3 == 1:
                phase = "send"
                sock.sendall(request()[:40])
                sock.close()
            else:
                phase = "send"
                sock.sendall(request())
                phase = "receive"
                read_head(sock)
                sock.close()
                handshakes += 1
        except (OSError, EOFError) as error:
            failures += 1
            if len(reasons) < 5:
                before = used.get(local)
                reasons.append("connection %d (%s, local port %s%s): %r" % (
                    i, phase, local, "" if before is None else ", last used by connection %d" % before, error))
        if local is not None:
            used[local] = i
    print(json.dumps({"opened": n, "handshakes": handshakes, "failures": failures, "reasons": reasons}))
