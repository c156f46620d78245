"""A WebSocket peer written with Python's `websockets` package (not ours), for the tests.

    ws_peer.py echo [--no-compression] [--tls CERT KEY]
                                           a server on 127.0.0.1 (port 0); prints "PORT <n>"
    ws_peer.py client URL SCRIPT.json      a client that runs a script of steps; prints JSON results

The echo server answers each message with the same message (text stays text, binary stays
binary), except a text message starting with a command:
    "close:<code>:<reason>"  closes with that code and reason
    "fragments:<n>:<text>"   sends <text> as <n> fragments
    "ping:<data>"            sends a ping with <data>, then "pong:<data>" once the pong came
    "binary:<n>"             sends <n> bytes 0, 1, 2, ... (mod 256)
    "text:<n>"               sends a text message of <n> "x"
    "protocol"               sends the agreed subprotocol
    "extensions"             sends the agreed extensions header value (or "")
    "headers"                sends the handshake's request headers as JSON
It selects the first subprotocol the client offers among chat, superchat and json.
"""
import asyncio
import json
import sys

import websockets
from websockets.asyncio.server import serve
from websockets.asyncio.client import connect
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory


async def echo(websocket):
    try:
        async for message in websocket:
            if isinstance(message, str):
                if message.startswith("close:"):
                    _, code, reason = message.split(":", 2)
                    await websocket.close(int(code), reason)
                    return
                if message.startswith("fragments:"):
                    _, count, text = message.split(":", 2)
                    count = int(count)
                    size = max(1, len(text) // count)
                    parts = [text[i:i + size] for i in range(0, len(text), size)]
                    await websocket.send(iter(parts))
                    continue
                if message.startswith("ping:"):
                    data = message[5:].encode()
                    waiter = await websocket.ping(data)
                    await waiter
                    await websocket.send("pong:" + data.decode())
                    continue
                if message.startswith("binary:"):
                    n = int(message[7:])
                    await websocket.send(bytes(i % 256 for i in range(n)))
                    continue
                if message.startswith("text:"):
                    await websocket.send("x" * int(message[5:]))
                    continue
                if message == "protocol":
                    await websocket.send(websocket.subprotocol or "")
                    continue
                if message == "extensions":
                    await websocket.send(websocket.response.headers.get("Sec-WebSocket-Extensions", ""))
                    continue
                if message == "headers":
                    await websocket.send(json.dumps({k.lower(): v for k, v in websocket.request.headers.raw_items()}))
                    continue
            await websocket.send(message)
    except websockets.ConnectionClosed:
        pass


def select_subprotocol(connection, subprotocols):
    for name in subprotocols:
        if name in ("chat", "superchat", "json"):
            return name
    return None


async def run_server(compression, tls):
    extensions = [ServerPerMessageDeflateFactory()] if compression else []
    context = None
    if tls:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls[0], tls[1])
    async with serve(echo, "127.0.0.1", 0, compression=None, extensions=extensions, ssl=context,
                     select_subprotocol=select_subprotocol, max_size=2 ** 28, max_queue=64) as server:
        port = server.sockets[0].getsockname()[1]
        print("PORT", port, flush=True)
        await asyncio.Future()


async def run_client(url, steps):
    results = []
    async with connect(url, max_size=2 ** 28, compression="deflate") as websocket:
        results.append({"extensions": websocket.response.headers.get("Sec-WebSocket-Extensions", "")})
        for step in steps:
            kind = step["kind"]
            if kind == "text":
                await websocket.send(step["data"])
            elif kind == "binary":
                await websocket.send(bytes.fromhex(step["hex"]))
            elif kind == "fragments":
                await websocket.send(iter(step["parts"]))
            elif kind == "ping":
                waiter = await websocket.ping(step["data"].encode())
                await waiter
                results.append({"pong": step["data"]})
            elif kind == "receive":
                message = await websocket.recv()
                if isinstance(message, str):
                    results.append({"text": message})
                else:
                    results.append({"hex": message.hex()})
            elif kind == "close":
                await websocket.close(step["code"], step.get("reason", ""))
                results.append({"closed": websocket.close_code, "reason": websocket.close_reason})
                break
        else:
            try:
                await websocket.recv()
            except websockets.ConnectionClosed:
                pass
            results.append({"closed": websocket.close_code, "reason": websocket.close_reason})
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "echo":
        tls = sys.argv[sys.argv.index("--tls") + 1:sys.argv.index("--tls") + 3] if "--tls" in sys.argv else None
        asyncio.run(run_server("--no-compression" not in sys.argv, tls))
    elif sys.argv[1] == "client":
        with open(sys.argv[3]) as f:
            asyncio.run(run_client(sys.argv[2], json.load(f)))
