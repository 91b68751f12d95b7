# Bounded measurement on loopback: what a day of tables from one address
# costs. Makes N friend tables one after another (N = 14,420 is what one
# address may make in a day at the default budget: 20 at once, then 10 a
# minute), and at each the host places a goat, the guest claims the seat
# and moves a tiger, and both leave: a game left unfinished, the goats to
# move. Reads the server's resident memory and its open tables before and
# after. Stops by itself. (Their cost on disk: the database file's size
# once the server has stopped, against an empty one's; docs/operations.md,
# "Measured".)
#
#   python3 day_footprint.py PORT PID [N]
#
# against a server on 127.0.0.1:PORT with process id PID, started with the
# table, hello and new-player budgets lifted (--table-burst,
# --tables-per-minute, --hello-burst, --hellos-per-minute) so that the day
# can be made at once.
import base64, json, os, socket, struct, sys

HOST, PORT, PID = "127.0.0.1", int(sys.argv[1]), int(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 14_420


def http(method, path, body=b""):
    with socket.create_connection((HOST, PORT)) as s:
        s.sendall(f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{PORT}\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                  f"Connection: close\r\n\r\n".encode() + body)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, payload = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), payload


class Ws:
    """A websocket client of the least: text frames out (masked), text
    frames in (unmasked, unfragmented, as the server sends them)."""

    def __init__(self):
        self.s = socket.create_connection((HOST, PORT))
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(f"GET /ws HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nUpgrade: websocket\r\n"
                       f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                       f"Sec-WebSocket-Version: 13\r\n\r\n".encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.s.recv(65536)
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head

    def send(self, message):
        data = json.dumps(message).encode()
        mask = os.urandom(4)
        n = len(data)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
        self.s.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _need(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            assert chunk, "the server closed the socket"
            self.buf += chunk

    def recv(self):
        while True:
            self._need(2)
            opcode, n = self.buf[0] & 0x0F, self.buf[1] & 0x7F
            at = 2
            if n == 126:
                self._need(4)
                n, at = struct.unpack(">H", self.buf[2:4])[0], 4
            elif n == 127:
                self._need(10)
                n, at = struct.unpack(">Q", self.buf[2:10])[0], 10
            self._need(at + n)
            payload, self.buf = self.buf[at:at + n], self.buf[at + n:]
            if opcode == 1:
                return json.loads(payload)
            assert opcode != 8, "the server closed the socket"

    def until(self, kind):
        while True:
            message = self.recv()
            if message["type"] == kind:
                return message

    def close(self):
        self.s.close()


def table_played():
    status, body = http("POST", "/api/tables",
                        json.dumps({"opponent": "friend", "side": "goats", "spectators": 0}).encode())
    assert status == 201, body[:200]
    created = json.loads(body)
    host = Ws()
    host.send({"type": "hello", "table": created["table"], "token": created["secret"]})
    host.until("presence")
    host.send({"type": "action", "id": "1", "action": "c3"})
    host.until("ack")
    guest = Ws()
    invite = created["opponent_link"].rsplit("=", 1)[1]
    guest.send({"type": "hello", "table": created["table"], "token": invite})
    guest.until("presence")
    guest.send({"type": "action", "id": "1", "action": "a1-a2"})
    guest.until("ack")
    host.close()
    guest.close()


def rss_kib():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])


def tables_open():
    _, body = http("GET", "/metrics")
    for line in body.decode().splitlines():
        if line.startswith("baghchal_tables_open "):
            return int(float(line.split()[1]))


table_played()  # the first table warms the paths up
rss0, open0 = rss_kib(), tables_open()
for i in range(N):
    table_played()
    if (i + 1) % 2000 == 0:
        print(f"{i + 1} tables: {rss_kib()} KiB, {tables_open()} open", flush=True)
rss1, open1 = rss_kib(), tables_open()
print(f"{N} tables played and left: memory {(rss1 - rss0) * 1024 / max(open1 - open0, 1):.0f} "
      f"bytes a table open ({rss0} -> {rss1} KiB, {open0} -> {open1} open)")
