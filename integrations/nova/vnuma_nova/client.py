"""A small vnumad client: JSON over HTTP/1.1 with keep-alive connections
(one pool per endpoint, shared by every scheduling request of the
process), a bearer token and a per-host timeout.  Standard library only.
"""

import http.client
import json
import threading
import urllib.parse


class VnumadError(Exception):
    """The host's vnumad did not answer usefully; str() says how."""


class _Pool:
    """Idle keep-alive connections per (scheme, host, port)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._idle = {}

    def get(self, key):
        with self._lock:
            conns = self._idle.get(key)
            return conns.pop() if conns else None

    def put(self, key, conn):
        with self._lock:
            self._idle.setdefault(key, []).append(conn)

    def clear(self):
        with self._lock:
            for conns in self._idle.values():
                for c in conns:
                    c.close()
            self._idle.clear()


POOL = _Pool()


def _parse(url):
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ('http', 'https') or not u.hostname:
        raise VnumadError('%s: not an http:// or https:// URL' % url)
    port = u.port or (443 if u.scheme == 'https' else 80)
    return (u.scheme, u.hostname, port), u.path.rstrip('/')


def _connect(key, timeout):
    scheme, host, port = key
    cls = (http.client.HTTPSConnection if scheme == 'https'
           else http.client.HTTPConnection)
    return cls(host, port, timeout=timeout)


def _exchange(conn, method, path, body, headers, timeout):
    if conn.sock is not None:
        conn.sock.settimeout(timeout)
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, data, resp.will_close


def call(url, method, path, payload=None, token=None, timeout=0.5):
    """One request to the vnumad at `url`: (status, decoded JSON body).

    A connection from the pool that the server closed meanwhile (vnumad
    closes idle ones after its idle_timeout) is retried once on a new one.

    :raises VnumadError: connection refused, timeout, a body that is not
        JSON, 401 (the token), 5xx.
    """
    key, base = _parse(url)
    body = json.dumps(payload).encode() if payload is not None else None
    headers = {'Accept': 'application/json'}
    if body is not None:
        headers['Content-Type'] = 'application/json'
    if token:
        headers['Authorization'] = 'Bearer ' + token
    conn = POOL.get(key)
    reused = conn is not None
    while True:
        if conn is None:
            conn = _connect(key, timeout)
        try:
            status, data, will_close = _exchange(conn, method, base + path,
                                                 body, headers, timeout)
            break
        except (http.client.RemoteDisconnected, ConnectionResetError,
                BrokenPipeError, http.client.BadStatusLine) as e:
            conn.close()
            conn = None
            if not reused:
                raise VnumadError('%s: %s' % (url, e or type(e).__name__))
            reused = False
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            what = 'no answer within %.3g s' % timeout if isinstance(
                e, TimeoutError) else (str(e) or type(e).__name__)
            raise VnumadError('%s: %s' % (url, what))
    if will_close:
        conn.close()
    else:
        POOL.put(key, conn)
    try:
        answer = json.loads(data) if data else {}
    except ValueError:
        raise VnumadError('%s%s: HTTP %d, not JSON' % (url, path, status))
    if status == 401:
        raise VnumadError('%s: 401, the token was refused' % url)
    if status >= 500 or status == 400:
        raise VnumadError('%s%s: HTTP %d: %s' % (
            url, path, status, answer.get('error', '') if isinstance(
                answer, dict) else ''))
    return status, answer
