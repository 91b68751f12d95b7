# Bounded loopback attacks against one server: idle TCP connections,
# half-sent requests and unjoined websockets from one address; counts
# how many the server still holds open after a wait. Stops by itself.
#
#   python3 held_connections.py PORT [N=1000] [WAIT=15]
#
# against a server on 127.0.0.1:PORT (docs/operations.md, "Measured").
# Raise this shell's open-file limit above N first (ulimit -n).
import asyncio, sys, time, base64, os

HOST, PORT = "127.0.0.1", int(sys.argv[1])
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
WAIT = float(sys.argv[3]) if len(sys.argv) > 3 else 15

async def open_conn(payload):
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(HOST, PORT), 5)
    except Exception:
        return None
    if payload:
        w.write(payload)
        try:
            await w.drain()
        except Exception:
            pass
    return (r, w)

async def still_open(conn):
    if conn is None:
        return False
    r, w = conn
    try:
        data = await asyncio.wait_for(r.read(65536), 0.2)
        if data == b"":
            return False
        # Read what came (an answer) and see whether the socket ended.
        while True:
            data = await asyncio.wait_for(r.read(65536), 0.2)
            if data == b"":
                return False
    except asyncio.TimeoutError:
        return True
    except Exception:
        return False

def ws_upgrade():
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET /ws HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()

async def scenario(name, payload_fn):
    conns = []
    for i in range(N):
        conns.append(await open_conn(payload_fn()))
    opened = sum(c is not None for c in conns)
    await asyncio.sleep(1)
    at1 = sum(await asyncio.gather(*[still_open(c) for c in conns]))
    await asyncio.sleep(WAIT)
    later = sum(await asyncio.gather(*[still_open(c) for c in conns]))
    for c in conns:
        if c:
            c[1].close()
    print(f"{name}: {opened}/{N} connected, {at1} held after 1 s, {later} held after {WAIT + 1:.0f} s", flush=True)

async def main():
    await scenario("idle TCP connections", lambda: b"")
    await asyncio.sleep(2)
    await scenario("half-sent requests", lambda: f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\n".encode())
    await asyncio.sleep(2)
    await scenario("unjoined websockets", ws_upgrade)

asyncio.run(asyncio.wait_for(main(), 300))
