# Bounded measurement on loopback: the computer's reply time at a level-400
# table (time from our action to the computer's answering event), alone and
# while 16 clients keep the analysis board busy. Stops by itself.
#
#   python3 computer_reply.py PORT
#
# against a server on 127.0.0.1:PORT (docs/operations.md, "Measured").
import asyncio, base64, json, os, random, statistics, struct, sys, time

HOST, PORT = "127.0.0.1", int(sys.argv[1])
MOVES = 15

async def http(method, path, body=None):
    r, w = await asyncio.open_connection(HOST, PORT)
    data = json.dumps(body).encode() if body is not None else b""
    w.write(f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
    await w.drain()
    resp = await r.read()
    w.close()
    head, _, payload = resp.partition(b"\r\n\r\n")
    return int(head.split()[1]), payload

class Ws:
    async def open(self):
        self.r, self.w = await asyncio.open_connection(HOST, PORT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.w.write((f"GET /ws HTTP/1.1\r\nHost: {HOST}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        await self.r.readuntil(b"\r\n\r\n")
    def send(self, obj):
        data = json.dumps(obj).encode()
        mask = os.urandom(4)
        head = bytes([0x81])
        n = len(data)
        head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
        self.w.write(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
    async def recv(self):
        while True:
            b0, b1 = await self.r.readexactly(2)
            n = b1 & 0x7F
            if n == 126: n = struct.unpack(">H", await self.r.readexactly(2))[0]
            elif n == 127: n = struct.unpack(">Q", await self.r.readexactly(8))[0]
            data = await self.r.readexactly(n)
            op = b0 & 0x0F
            if op == 1: return json.loads(data)
            if op == 8: raise EOFError(data)
            if op == 9:  # ping: answer
                self.w.write(bytes([0x8A, 0x80]) + b"\0\0\0\0")

async def reply_times():
    status, body = await http("POST", "/api/tables", {"opponent": "computer", "level": 400, "side": "goats"})
    created = json.loads(body)
    ws = Ws(); await ws.open()
    ws.send({"type": "hello", "table": created["table"], "token": created["secret"]})
    times, state, sent, n = [], None, None, 0
    while len(times) < MOVES:
        m = await asyncio.wait_for(ws.recv(), 120)
        if "state" in m: state = m["state"]
        if m.get("type") == "event" and m["event"].get("side") == "tigers" and sent:
            times.append(time.monotonic() - sent); sent = None
        if state and state.get("result"): break
        if state and state["side_to_move"] == "goats" and not sent and m.get("type") in ("event", "snapshot"):
            n += 1
            ws.send({"type": "action", "id": str(n), "action": random.choice(state["legal"])})
            sent = time.monotonic()
    ws.w.close()
    return times

async def board_flood(stop, counts):
    while not stop.is_set():
        status, _ = await http("POST", "/api/analysis", {})
        counts[status] = counts.get(status, 0) + 1

def show(name, t):
    t = sorted(t)
    print(f"{name}: n={len(t)} median={statistics.median(t)*1000:.0f} ms max={t[-1]*1000:.0f} ms", flush=True)

async def main():
    random.seed(1)
    show("computer reply, alone", await reply_times())
    stop, counts = asyncio.Event(), {}
    flood = [asyncio.create_task(board_flood(stop, counts)) for _ in range(16)]
    show("computer reply, 16 clients flooding the analysis board", await reply_times())
    stop.set(); await asyncio.gather(*flood)
    print("analysis board answers during the flood:", counts, flush=True)

asyncio.run(asyncio.wait_for(main(), 240))
