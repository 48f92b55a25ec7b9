"""One verdict per (scheduling request, host), shared by the filter and
the weigher, asked of all hosts in parallel; and the multi-create rule.

Nova schedules the instances of one request (``--min-count 2``) one after
the other with the same RequestSpec: filters and weighers run again for
each instance, and between them Nova consumes the chosen host's resources
in its own HostState only.  vnumad knows nothing of that, so it would
promise the second instance the room the first one just took.  So when a
host's ``num_instances`` rose since this request asked it, the previous
instance of the request went there: its room is held at that host's
vnumad (``POST /v1/reservations`` keyed by the instance UUID, for
``[vnuma] hold_ttl`` seconds; the host's hook takes the hold over when the
instance starts) and the host is asked again.
"""

import threading
import weakref

from oslo_log import log as logging

from vnuma_nova import client
from vnuma_nova import request
from vnuma_nova.conf import CONF

LOG = logging.getLogger(__name__)


class Verdict:
    """What a host's vnumad said about this request."""

    __slots__ = ('fits', 'score', 'cells', 'nodes', 'reasons',
                 'self_overcommitted', 'error')

    def __init__(self, fits=False, score=0, cells=0, nodes=(), reasons=(),
                 self_overcommitted=False, error=None):
        self.fits = fits
        self.score = score
        self.cells = cells
        self.nodes = list(nodes)
        self.reasons = list(reasons)
        # some of the VM's vCPUs would share CPUs with each other (a vnumad
        # older than this field never says so)
        self.self_overcommitted = self_overcommitted
        self.error = error  # str: vnumad did not answer (fail_open decides)

    @classmethod
    def from_answer(cls, answer):
        try:
            return cls(fits=bool(answer['fits']), score=int(answer['score']),
                       cells=int(answer['cells']),
                       nodes=answer.get('nodes', ()),
                       reasons=answer.get('reasons', ()),
                       self_overcommitted=bool(
                           answer.get('self_overcommitted', False)))
        except (KeyError, TypeError, ValueError):
            return cls(error='an answer without fits, score and cells')


def host_key(host_state):
    return (host_state.host, host_state.nodename)


def endpoint(host_state):
    url = CONF.vnuma.endpoints.get(host_state.host)
    if url:
        return url
    return CONF.vnuma.endpoint.format(host_ip=host_state.host_ip,
                                      host=host_state.host,
                                      nodename=host_state.nodename)


def _ask(url, bodies):
    """The first body that fits, else the last answer."""
    verdict = None
    for body in bodies:
        try:
            _, answer = client.call(url, 'POST', '/v1/fit', body,
                                    token=CONF.vnuma.token,
                                    timeout=CONF.vnuma.timeout)
        except client.VnumadError as e:
            return Verdict(error=str(e))
        verdict = Verdict.from_answer(answer)
        if verdict.fits or verdict.error:
            return verdict
    return verdict


def _hold(url, body, instance_uuid):
    payload = dict(body, uuid=instance_uuid, ttl_s=CONF.vnuma.hold_ttl)
    try:
        status, answer = client.call(url, 'POST', '/v1/reservations',
                                     payload, token=CONF.vnuma.token,
                                     timeout=CONF.vnuma.timeout)
    except client.VnumadError as e:
        LOG.warning('vnuma: holding instance %s at %s failed: %s',
                    instance_uuid, url, e)
        return
    if status != 201:
        LOG.info('vnuma: instance %s not held at %s (HTTP %d): %s',
                 instance_uuid, url, status, answer.get('error', ''))


def _green():
    try:
        from eventlet import patcher
    except ImportError:
        return False
    return patcher.is_monkey_patched('socket')


def run_parallel(fn, items, parallelism):
    """[fn(item) for item in items], at most `parallelism` at a time: green
    threads where eventlet patched the sockets (nova-scheduler), OS
    threads otherwise."""
    items = list(items)
    if len(items) <= 1:
        return [fn(i) for i in items]
    width = min(parallelism, len(items))
    if _green():
        import eventlet
        return list(eventlet.GreenPool(width).imap(fn, items))
    from concurrent import futures
    with futures.ThreadPoolExecutor(max_workers=width) as pool:
        return list(pool.map(fn, items))


class RequestState:
    """What vnuma knows about one scheduling request."""

    def __init__(self, spec_obj):
        self.unsupported = None
        self.bodies = []
        try:
            self.bodies = request.fit_bodies(spec_obj.flavor, spec_obj.image)
        except request.UnsupportedRequest as e:
            self.unsupported = str(e)
        self.verdicts = {}
        self.instances = {}  # host key -> num_instances when asked
        self.instance_uuid = None
        self.lock = threading.Lock()

    def _settle(self, host_states, spec_obj):
        """Multi-create: hold the previous instance where it went."""
        uuid = spec_obj.obj_attr_is_set('instance_uuid') and spec_obj.instance_uuid
        previous, self.instance_uuid = self.instance_uuid, uuid
        consumed = [h for h in host_states
                    if host_key(h) in self.instances and
                    h.num_instances > self.instances[host_key(h)]]
        for h in consumed:
            del self.verdicts[host_key(h)]
        if previous and previous != uuid and len(consumed) == 1:
            _hold(endpoint(consumed[0]), self.bodies[0], previous)

    def ensure(self, host_states, spec_obj):
        """A verdict for every host, asking in parallel those without one."""
        with self.lock:
            self._settle(host_states, spec_obj)
            todo = [h for h in host_states if host_key(h) not in self.verdicts]
            urls = [endpoint(h) for h in todo]
            answers = run_parallel(lambda u: _ask(u, self.bodies), urls,
                                   CONF.vnuma.parallelism)
            for h, v in zip(todo, answers):
                self.verdicts[host_key(h)] = v
                self.instances[host_key(h)] = h.num_instances
            return [self.verdicts[host_key(h)] for h in host_states]


class _Registry:
    """RequestState per RequestSpec object, forgotten with the object."""

    def __init__(self):
        # re-entrant: a weakref callback may run inside get()
        self._lock = threading.RLock()
        self._states = {}

    def get(self, spec_obj):
        with self._lock:
            entry = self._states.get(id(spec_obj))
            if entry is not None and entry[0]() is spec_obj:
                return entry[1]
            state = RequestState(spec_obj)
            key = id(spec_obj)
            ref = weakref.ref(spec_obj, lambda _r: self._forget(key, _r))
            self._states[key] = (ref, state)
            return state

    def _forget(self, key, ref):
        with self._lock:
            entry = self._states.get(key)
            if entry is not None and entry[0] is ref:
                del self._states[key]


REGISTRY = _Registry()
