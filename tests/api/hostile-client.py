#!/usr/bin/env python3
"""hostile-client.py ADDRESS CASE [ARG...] -- one hostile client case against vnumad.

ADDRESS is a unix socket path or 127.0.0.1:PORT.  Prints one line saying
what it saw, exits 0 when that is what vnumad promises, 1 when not (2 on
bad usage).  Python 3 standard library only; answers are read with
http.client, never parsed here by hand.  Every wait is bounded: an answer
must come within ANSWER_S seconds.

Cases:
  refuse NAME STATUS [TOKEN]  send the hostile request NAME (see HOSTILE); expect
                              STATUS at once and then the end of the connection
  slow TIMEOUT [body]         a head (or, with "body", a body after a whole head)
                              sent one byte a second: 408 and the end within
                              TIMEOUT (+ slack) of its first byte
  idle COUNT MAX TIMEOUT      COUNT idle connections at once: MAX of them stay
                              until TIMEOUT and are closed then, every other one
                              is answered 503 or closed at once
  keepalive TIMEOUT           two requests on one connection, half TIMEOUT apart,
                              two pipelined in one write, one with Expect:
                              100-continue: all answered
  reserve THREADS COUNT       THREADS clients x COUNT concurrent reservations,
                              all 201; then each deleted twice at once: exactly
                              one 204 and one 404
  json NAME PATH STATUS       a hostile JSON body (see BODIES) to PATH: STATUS
"""
import http.client
import io
import json
import random
import selectors
import socket
import sys
import threading
import time

ANSWER_S = 2.0
SLACK_S = 1.5


def fail(message):
    print(message)
    sys.exit(1)


def connect(address, timeout=ANSWER_S):
    if address.startswith("/"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(address)
    else:
        host, port = address.rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout=timeout)
    return s


class KeptOpen(io.BufferedReader):
    """http.client closes what it read an answer from; the next answer is there too."""

    def close(self):
        pass


class Reader:
    """Answers read one after another from one socket (keep-alive, pipelining)."""

    def __init__(self, sock):
        self.sock = sock
        self.fp = KeptOpen(socket.SocketIO(sock, "rb"))

    def makefile(self, *args, **kwargs):
        return self.fp

    def answer(self, method="GET"):
        r = http.client.HTTPResponse(self, method=method)
        r.begin()
        body = r.read()
        return r, body


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, address, timeout):
        super().__init__("vnumad", timeout=timeout)
        self.address = address

    def connect(self):
        self.sock = connect(self.address, self.timeout)


def http_connection(address, timeout=ANSWER_S):
    if address.startswith("/"):
        return UnixHTTPConnection(address, timeout)
    host, port = address.rsplit(":", 1)
    return http.client.HTTPConnection(host, int(port), timeout=timeout)


def head(method, path, fields=(), token=None):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: vnumad"]
    if token:
        lines.append("Authorization: Bearer " + token)
    lines += list(fields)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# name -> (bytes sent, what makes it hostile); a token is added for TCP
HOSTILE = {
    "length-over": lambda t: head("POST", "/v1/plan", ["Content-Type: application/json",
                                                      "Content-Length: 2097152"], t) + b"{",
    "length-negative": lambda t: head("POST", "/v1/plan", ["Content-Length: -1"], t) + b"{",
    "length-23-digits": lambda t: head("POST", "/v1/plan",
                                       ["Content-Length: 12345678901234567890123"], t) + b"{",
    "length-list": lambda t: head("POST", "/v1/plan", ["Content-Length: 2", "Content-Length: 7"], t) + b"{}",
    "length-and-chunked": lambda t: head("POST", "/v1/plan", ["Content-Length: 2",
                                                             "Transfer-Encoding: chunked"], t) + b"2\r\n{}\r\n0\r\n\r\n",
    "header-64k": lambda t: head("GET", "/v1/host", ["X-Big: " + "a" * 65536], t),
    "headers-20000": lambda t: head("GET", "/v1/host", ["X-%d: a" % i for i in range(20000)], t),
    "path-1mib": lambda t: head("GET", "/v1/" + "a" * (1 << 20), [], t),
    "http10-no-host": lambda t: b"GET /v1/host HTTP/1.0\r\n\r\n",
    "length-text": lambda t: head("POST", "/v1/plan", ["Content-Length: abc"], t) + b"{" * 65536,
}
# refused by libsoup's own parser, with its empty body
BODILESS = {"length-text"}

# name -> body
BODIES = {
    "deep-array": b"[" * 400000,
    "trailing-json": b'{"vcpus":2,"memory_mib":1024}{"x":1}',
    "duplicate-key": b'{"vcpus":2,"vcpus":4,"memory_mib":1024}',
}


def read_until_closed(sock, deadline, first=None):
    """Bytes until the end of the connection; None if it stays open past
    deadline.  first (a list), when given, gets the time of the first byte."""
    data = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return None
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        if first is not None and not data:
            first.append(time.monotonic())
        data += chunk


def status_of(data):
    """The status of the first answer in data, read by http.client."""
    class Bytes:
        def makefile(self, *args, **kwargs):
            return io.BufferedReader(io.BytesIO(data))
    r = http.client.HTTPResponse(Bytes())
    r.begin()
    return r.status, r.read()


def case_refuse(address, name, status, token=None):
    request = HOSTILE[name](token)
    sock = connect(address)
    t0 = time.monotonic()
    sent = []

    def send():
        try:
            sock.sendall(request)
            sent.append(len(request))
        except OSError:
            sent.append(-1)   # vnumad stopped reading once it had answered: allowed
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    first = []
    data = read_until_closed(sock, t0 + ANSWER_S + SLACK_S, first)
    took = time.monotonic() - t0
    if data is None:
        fail("%s: connection still open after %.1f s" % (name, took))
    if not data:
        fail("%s: closed without an answer after %.2f s" % (name, took))
    answered = first[0] - t0
    got, body = status_of(data)
    if got != int(status):
        fail("%s: got %d (wanted %s): %r" % (name, got, status, body[:200]))
    if answered > ANSWER_S:
        fail("%s: answered %d only after %.2f s" % (name, got, answered))
    try:
        error = "libsoup's" if name in BODILESS and not body else json.loads(body)["error"]
    except (ValueError, KeyError):
        fail("%s: %d without a JSON error: %r" % (name, got, body[:200]))
    print("%s: %d in %.3f s, closed after %.3f s (%s)" % (name, got, answered, took, error))


def case_slow(address, timeout, part="head"):
    timeout = float(timeout)
    body = json.dumps({"vcpus": 2, "memory_mib": 1024}).encode()
    if part == "head":
        whole, request = b"", head("GET", "/v1/host")
    else:
        whole = head("POST", "/v1/fit", ["Content-Type: application/json",
                                         "Content-Length: %d" % len(body)])
        request = body
    sock = connect(address)
    t0 = time.monotonic()
    sock.sendall(whole)
    for i, byte in enumerate(request):
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            break
        sock.settimeout(1.0)
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            fail("slow: reset after %.1f s, %d bytes, without an answer" % (time.monotonic() - t0, i + 1))
        rest = read_until_closed(sock, time.monotonic() + SLACK_S)
        took = time.monotonic() - t0
        if rest is None:
            fail("slow: answered but not closed after %.1f s" % took)
        got, body = status_of(data + rest)
        if got != 408:
            fail("slow: got %d after %.1f s (wanted 408): %r" % (got, took, body[:200]))
        if not timeout - 0.3 <= took <= timeout + SLACK_S:
            fail("slow: 408 after %.2f s, %d bytes sent (idle_timeout %g s)" % (took, i + 1, timeout))
        print("slow %s: 408 after %.2f s and %d bytes, then closed" % (part, took, i + 1))
        return
    fail("slow: the whole %s went out a byte a second (%.0f s) without a 408" % (part, time.monotonic() - t0))


def case_idle(address, count, most, timeout):
    count, most, timeout = int(count), int(most), float(timeout)
    sel = selectors.DefaultSelector()
    t0 = time.monotonic()
    info = []
    for i in range(count):
        s = connect(address)
        s.setblocking(False)
        st = {"data": b"", "end": None}
        info.append(st)
        sel.register(s, selectors.EVENT_READ, st)
    left = count
    deadline = t0 + timeout + SLACK_S
    while left and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
            st = key.data
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                chunk = b""
            if chunk:
                st["data"] += chunk
                continue
            st["end"] = time.monotonic() - t0
            sel.unregister(key.fileobj)
            key.fileobj.close()
            left -= 1
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    if left:
        fail("idle: %d of %d connections still open %.1f s after they connected"
             % (left, count, timeout + SLACK_S))
    kept = [st for st in info if not st["data"] and st["end"] >= timeout - 0.3]
    turned = [st for st in info if st["data"]]
    dropped = [st for st in info if not st["data"] and st["end"] < timeout - 0.3]
    if len(kept) != most:
        fail("idle: %d connections stayed until the idle timeout, wanted %d (%d answered, %d closed early)"
             % (len(kept), most, len(turned), len(dropped)))
    for st in turned:
        got, body = status_of(st["data"])
        if got != 503 or st["end"] > ANSWER_S + SLACK_S:
            fail("idle: over the cap got %d, closed after %.2f s: %r" % (got, st["end"], body[:200]))
    if count > most and not turned:
        fail("idle: no connection over the cap was answered 503")
    print("idle: %d kept until %.2f-%.2f s, %d answered 503, %d closed at once"
          % (len(kept), min(s["end"] for s in kept), max(s["end"] for s in kept), len(turned), len(dropped)))


def case_keepalive(address, timeout):
    timeout = float(timeout)
    sock = connect(address)
    reader = Reader(sock)
    sock.sendall(head("GET", "/v1/host"))
    r1, _ = reader.answer()
    time.sleep(timeout / 2)
    sock.sendall(head("GET", "/v1/host"))
    r2, _ = reader.answer()
    body = json.dumps({"vcpus": 2, "memory_mib": 1024}).encode()
    post = head("POST", "/v1/fit", ["Content-Type: application/json",
                                    "Content-Length: %d" % len(body)]) + body
    sock.sendall(post + head("GET", "/v1/host"))
    r3, b3 = reader.answer("POST")
    r4, _ = reader.answer()
    # Expect: 100-continue: the body goes once vnumad says so
    sock.sendall(head("POST", "/v1/fit", ["Content-Type: application/json", "Expect: 100-continue",
                                          "Content-Length: %d" % len(body)]))
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    if not sel.select(ANSWER_S):
        fail("keepalive: no 100 Continue within %g s" % ANSWER_S)
    sel.close()
    sock.sendall(body)
    r5, b5 = reader.answer("POST")     # http.client reads past the 100
    got = [r1.status, r2.status, r3.status, r4.status, r5.status]
    if got != [200] * 5 or "fits" not in json.loads(b3) or "fits" not in json.loads(b5):
        fail("keepalive: got %s" % got)
    print("keepalive: 2 requests %.1f s apart, 2 pipelined, 1 with Expect: 100-continue, all 200 on one connection"
          % (timeout / 2))


def request(conn, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse()
    return r.status, r.read()


def case_reserve(address, threads, count):
    threads, count = int(threads), int(count)
    created, statuses, errors = [], [], []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def reserve(k):
        conn = http_connection(address, timeout=30)
        start.wait()
        for i in range(count):
            try:
                status, body = request(conn, "POST", "/v1/reservations",
                                       {"vcpus": 1, "memory_mib": 64, "name": "h-%d-%d" % (k, i), "ttl_s": 600})
            except (OSError, http.client.HTTPException) as e:
                status, body = 0, str(e).encode()
            with lock:
                statuses.append(status)
                if status == 201:
                    created.append(json.loads(body)["id"])
                else:
                    errors.append(body[:200])
        conn.close()
    t0 = time.monotonic()
    workers = [threading.Thread(target=reserve, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    took = time.monotonic() - t0
    if statuses.count(201) != threads * count:
        fail("reserve: %d of %d were 201 (%s)" % (statuses.count(201), threads * count, errors[:3]))
    # every id deleted by two clients at the same time
    random.shuffle(created)
    half = threads // 2
    shares = [created[k::half] for k in range(half)]
    deletes = {}
    start = threading.Barrier(2 * half)

    def delete(share):
        conn = http_connection(address, timeout=30)
        start.wait()
        for rid in share:
            try:
                status, _ = request(conn, "DELETE", "/v1/reservations/" + rid)
            except (OSError, http.client.HTTPException):
                status = 0
            with lock:
                deletes.setdefault(rid, []).append(status)
        conn.close()
    workers = [threading.Thread(target=delete, args=(shares[k % half],)) for k in range(2 * half)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wrong = {rid: s for rid, s in deletes.items() if sorted(s) != [204, 404]}
    if len(deletes) != len(created) or wrong:
        fail("reserve: %d ids not deleted exactly once (%s)" % (len(wrong), list(wrong.items())[:3]))
    print("reserve: %d x %d reservations all 201 in %.2f s; each deleted twice at once: one 204, one 404"
          % (threads, count, took))


def case_json(address, name, path, status):
    conn = http_connection(address, timeout=ANSWER_S + SLACK_S)
    t0 = time.monotonic()
    try:
        conn.request("POST", path, body=BODIES[name], headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        got, body = r.status, r.read()
    except (OSError, http.client.HTTPException) as e:
        fail("json %s %s: no answer after %.2f s (%s)" % (name, path, time.monotonic() - t0, e))
    took = time.monotonic() - t0
    if got != int(status) or took > ANSWER_S:
        fail("json %s %s: got %d after %.2f s (wanted %s): %r" % (name, path, got, took, status, body[:200]))
    print("json %s %s: %d in %.3f s (%s)" % (name, path, got, took, json.loads(body).get("error")))


CASES = {
    "refuse": case_refuse,
    "slow": case_slow,
    "idle": case_idle,
    "keepalive": case_keepalive,
    "reserve": case_reserve,
    "json": case_json,
}


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in CASES:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        CASES[sys.argv[2]](sys.argv[1], *sys.argv[3:])
    except (OSError, http.client.HTTPException, ValueError) as e:
        fail("%s: %s: %s" % (sys.argv[2], type(e).__name__, e))


if __name__ == "__main__":
    main()
