# Bounded measurement on loopback: what one table open in a server costs
# in memory. Creates N friend tables (never joined) one after another over
# HTTP, and reads the server's resident memory before and after. Stops by
# itself. (Their cost on disk: the database file's size once the server
# has stopped, against an empty one's; docs/operations.md, "Measured".)
#
#   python3 table_footprint.py PORT PID [N]
#
# against a server on 127.0.0.1:PORT with process id PID, started with the
# table budget lifted (--table-burst and --tables-per-minute) so that N
# tables can be made at once.
import json, socket, sys

HOST, PORT, PID = "127.0.0.1", int(sys.argv[1]), int(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 2000

def create():
    body = json.dumps({"opponent": "friend", "side": "goats", "spectators": 1}).encode()
    with socket.create_connection((HOST, PORT)) as s:
        s.sendall(f"POST /api/tables HTTP/1.1\r\nHost: {HOST}:{PORT}\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                  f"Connection: close\r\n\r\n".encode() + body)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    status = int(answer.split()[1])
    assert status == 201, answer[:200]

def rss_kib():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

create()  # the first table warms the paths up
rss0 = rss_kib()
for _ in range(N):
    create()
rss1 = rss_kib()
print(f"{N} tables: memory {(rss1 - rss0) * 1024 / N:.0f} bytes a table "
      f"({rss0} -> {rss1} KiB)")
