#!/usr/bin/env python3
"""W14, WebSocket: the page's `WebSocket` against WebSocketServer in one process (ws-bench),
beside Python's `websockets` (client and echo server, two processes) on the same load, in the
same run, best of 3 each: round trips of small text messages and of 64 KiB binary messages
(64 in flight), and a 256 MB stream from the server in 10,240-byte messages. Both sides
negotiate permessage-deflate, as they do by default. Writes RESULTS/ws.json."""
import asyncio
import json
import os
import subprocess
import sys
import time

results, tool = sys.argv[1:3]
TEXT = (20000, 64, 64)
BINARY = (2000, 64 << 10, 64)
STREAM = int(os.environ.get("W14_BYTES", 256 << 20))
CHUNK = 10240

SERVER = r'''
import asyncio, sys, websockets
from websockets.asyncio.server import serve
async def handler(ws):
    mode = ws.request.path.strip("/")
    if mode == "stream":
        total = int(sys.argv[1]); block = bytes((i * 7919) & 255 for i in range(%d)); sent = 0
        while sent < total:
            n = min(%d, total - sent); await ws.send(b"\x04\x00\x00\x00" + block[:n]); sent += n
        await ws.send(b"\x05\x00\x00\x00"); await ws.wait_closed(); return
    async for message in ws:
        await ws.send(message)
async def main():
    async with serve(handler, "127.0.0.1", 0, max_size=2 ** 28) as server:
        print(server.sockets[0].getsockname()[1], flush=True); await asyncio.Future()
asyncio.run(main())
''' % (CHUNK, CHUNK)


async def python_round_trips(port, count, size, window, binary):
    from websockets.asyncio.client import connect
    payload = bytes((i * 7919) & 255 for i in range(size)) if binary else "x" * size
    async with connect(f"ws://127.0.0.1:{port}/echo", max_size=2 ** 28) as ws:
        start = time.monotonic()
        sent = 0
        for _ in range(min(window, count)):
            await ws.send(payload)
            sent += 1
        for received in range(count):
            await ws.recv()
            if sent < count:
                await ws.send(payload)
                sent += 1
        return time.monotonic() - start


async def python_stream(port):
    from websockets.asyncio.client import connect
    async with connect(f"ws://127.0.0.1:{port}/stream", max_size=2 ** 28) as ws:
        start = time.monotonic()
        total = 0
        while True:
            message = await ws.recv()
            if message[0] == 5:
                break
            total += len(message) - 4
        elapsed = time.monotonic() - start
        assert total == STREAM, total
        return elapsed


def ours(*arguments):
    output = subprocess.run([tool, *map(str, arguments)], check=True, capture_output=True, text=True).stdout
    return json.loads(output)["seconds"]


server = subprocess.Popen([sys.executable, "-c", SERVER, str(STREAM)], stdout=subprocess.PIPE, text=True)
port = int(server.stdout.readline())
try:
    rows = {}
    for name, (count, size, window), binary in (("text", TEXT, False), ("binary", BINARY, True)):
        ours_best = min(ours(name, count, size, window) for _ in range(3))
        python_best = min(asyncio.run(python_round_trips(port, count, size, window, binary)) for _ in range(3))
        rows[name] = {"count": count, "size": size, "window": window, "ours_per_s": count / ours_best, "python_per_s": count / python_best}
    ours_best = min(ours("stream", STREAM) for _ in range(3))
    python_best = min(asyncio.run(python_stream(port)) for _ in range(3))
    rows["stream"] = {"bytes": STREAM, "ours_mib_s": STREAM / (1 << 20) / ours_best, "python_mib_s": STREAM / (1 << 20) / python_best}
finally:
    server.kill()
with open(os.path.join(results, "ws.json"), "w") as handle:
    json.dump(rows, handle, indent=1)
print(json.dumps(rows))
