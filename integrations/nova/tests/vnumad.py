"""Real vnumad daemons on loopback TCP with a bearer token, for the tests
and the bench: each reads its own hwloc topology and load file and keeps
its own state directory.  The binary is $VNUMAD (meson passes the one it
built); fixtures are in $VN_SOURCE_ROOT/tests/data.
"""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

TOKEN = 'nova-test-token-0123456789abcdef'
SOURCE_ROOT = os.environ.get(
    'VN_SOURCE_ROOT',
    os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..')))
DATA = os.path.join(SOURCE_ROOT, 'tests', 'data')


def binary():
    path = os.environ.get('VNUMAD')
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError('VNUMAD must name a built vnumad (run through meson test)')
    return path


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Vnumad:
    """One vnumad; start() returns once it answers GET /v1/host."""

    def __init__(self, topology, load=None, token=TOKEN):
        self.topology = topology
        self.load = load
        self.token = token
        self.dir = tempfile.mkdtemp(prefix='vnuma-nova-')
        self.proc = None
        self.port = None

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def start(self):
        for _ in range(5):  # a port taken between choosing and binding: again
            self.port = _free_port()
            conf = os.path.join(self.dir, 'vnuma.conf')
            with open(conf, 'w') as f:
                # planning only: no automatic rounds (on by default)
                f.write('[rebalance]\nauto = false\n'
                        '[api]\ntcp_listen = 127.0.0.1:%d\nbearer_token = %s\n'
                        % (self.port, self.token))
            args = [binary(), '--foreground', '--socket',
                    os.path.join(self.dir, 'api.sock'), '--config', conf,
                    '--topology', self.topology]
            if self.load:
                args += ['--load', self.load]
            env = dict(os.environ, VNUMA_STATE_DIR=os.path.join(self.dir, 'state'))
            env.pop('VNUMA_TOPOLOGY', None)
            self.log = open(os.path.join(self.dir, 'vnumad.log'), 'w')
            self.proc = subprocess.Popen(args, env=env, stdout=self.log,
                                         stderr=subprocess.STDOUT)
            if self._wait_ready():
                return self
            self.stop()
        raise RuntimeError('vnumad did not start: %s' % self.log_text())

    def _wait_ready(self):
        for _ in range(100):
            if self.proc.poll() is not None:
                return False
            try:
                if self.get('/v1/host')[0] == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def request(self, method, path, body=None):
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=5)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None,
                         headers={'Authorization': 'Bearer ' + self.token,
                                  'Content-Type': 'application/json'})
            resp = conn.getresponse()
            return resp.status, json.loads(resp.read() or b'{}')
        finally:
            conn.close()

    def get(self, path):
        return self.request('GET', path)

    def fit(self, body):
        return self.request('POST', '/v1/fit', body)[1]

    def ledger(self):
        path = os.path.join(self.dir, 'state', 'ledger.json')
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return json.load(f)['domains']

    def pause(self):
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def log_text(self):
        try:
            with open(os.path.join(self.dir, 'vnumad.log')) as f:
                return f.read()[-2000:]
        except OSError:
            return ''

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if getattr(self, 'log', None):
            self.log.close()

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def data(*parts):
    return os.path.join(DATA, *parts)
