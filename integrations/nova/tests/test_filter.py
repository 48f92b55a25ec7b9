"""The filter and weigher against real vnumad daemons on loopback TCP,
driven through Nova's own filter and weigher handlers with Nova's
HostState and RequestSpec objects: verdicts, scores, one question per
(request, host), fail-open / fail-closed with a vnumad that is down, too
slow or refuses the token, and the multi-create holds."""

import re
import time
import unittest
import uuid

from nova import objects
from nova.scheduler import filters
from nova.scheduler import host_manager
from nova.scheduler import weights

from vnuma_nova import client
from vnuma_nova.conf import CONF
from vnuma_nova.filter import VnumaFitFilter
from vnuma_nova.weigher import VnumaWeigher

from tests import vnumad

objects.register_all()

EIGHT = vnumad.data('hwloc', '64amd64-4p2n4ca2co.xml')  # 8 nodes x 16 GiB
TWO = vnumad.data('nova', '32em64t-2n8c+dax+nvme+mic+dimms.xml')  # 2 x 16 GiB


def flavor(vcpus, memory_mb, **specs):
    return objects.Flavor(vcpus=vcpus, memory_mb=memory_mb, extra_specs=specs,
                          root_gb=1, ephemeral_gb=0, swap=0, name='f',
                          flavorid='f1')


def spec(f, num_instances=1):
    return objects.RequestSpec(
        flavor=f, image=objects.ImageMeta.from_dict({'properties': {}}),
        instance_uuid=str(uuid.uuid4()), num_instances=num_instances,
        scheduler_hints={}, pci_requests=objects.InstancePCIRequests(requests=[]),
        numa_topology=None, ignore_hosts=None, force_hosts=None, force_nodes=None)


def host_state(name):
    h = host_manager.HostState(name, name, uuid.uuid4())
    h.host_ip = '127.0.0.1'
    h.free_ram_mb = h.total_usable_ram_mb = 1 << 20
    h.free_disk_mb = 1 << 20
    h.vcpus_total, h.vcpus_used = 64, 0
    h.limits = {}
    return h


def fits_requests(daemon):
    _, _ = daemon.get('/v1/host')
    conn = vnumad.http.client.HTTPConnection('127.0.0.1', daemon.port, timeout=5)
    conn.request('GET', '/metrics', headers={'Authorization': 'Bearer ' + daemon.token})
    text = conn.getresponse().read().decode()
    conn.close()
    return sum(int(v) for v in re.findall(
        r'vnuma_api_requests_total\{endpoint="/v1/fit",code="\d+"\} (\d+)', text))


class Base(unittest.TestCase):
    daemons = {}

    @classmethod
    def start(cls, name, topology, load=None, **kw):
        d = vnumad.Vnumad(topology, load and vnumad.data('nova', load), **kw).start()
        cls.daemons[name] = d
        return d

    @classmethod
    def tearDownClass(cls):
        for d in cls.daemons.values():
            d.cleanup()
        cls.daemons = {}

    def setUp(self):
        client.POOL.clear()
        CONF.set_override('endpoints', {n: d.url for n, d in self.daemons.items()},
                          group='vnuma')
        CONF.set_override('token', vnumad.TOKEN, group='vnuma')
        CONF.set_override('timeout', 0.5, group='vnuma')
        self.addCleanup(CONF.clear_override, 'endpoints', group='vnuma')
        self.addCleanup(CONF.clear_override, 'token', group='vnuma')
        self.addCleanup(CONF.clear_override, 'timeout', group='vnuma')
        self.addCleanup(CONF.clear_override, 'fail_open', group='vnuma')

    def filtered(self, hosts, spec_obj):
        return filters.HostFilterHandler().get_filtered_objects(
            [VnumaFitFilter()], hosts, spec_obj)

    def weighed(self, hosts, spec_obj):
        return [w.obj.host for w in weights.HostWeightHandler().get_weighed_objects(
            [VnumaWeigher()], hosts, spec_obj)]


class TestVerdicts(Base):

    @classmethod
    def setUpClass(cls):
        cls.start('tight', EIGHT, 'tight-8node-load.json')
        cls.start('idle', EIGHT)
        cls.start('busy', EIGHT, 'busy-8node-load.json')
        cls.start('two', TWO, '2socket-load.json')

    def test_filter_keeps_what_vnumad_says_fits(self):
        hosts = [host_state(n) for n in ('tight', 'idle', 'two')]
        body = {'vcpus': 2, 'memory_mib': 4096}
        expect = [h.host for h in hosts if self.daemons[h.host].fit(body)['fits']]
        self.assertEqual(['idle', 'two'], expect)
        self.assertEqual(expect, [h.host for h in self.filtered(hosts, spec(flavor(2, 4096)))])

    def test_single_node_beats_split(self):
        # 20 GiB: one node of 'idle' cannot hold it (16 GiB nodes), nor of 'two'
        # 12 GiB: one node of each; 'tight' takes 2 GiB split over 2 nodes only
        hosts = [host_state(n) for n in ('tight', 'idle')]
        self.assertEqual(['idle', 'tight'], self.weighed(hosts, spec(flavor(4, 2048))))
        self.assertFalse(self.daemons['tight'].fit({'vcpus': 4, 'memory_mib': 2048})['single_node'])

    def test_less_loaded_beats_busier(self):
        hosts = [host_state(n) for n in ('busy', 'idle')]
        self.assertEqual(['idle', 'busy'], self.weighed(hosts, spec(flavor(2, 2048))))

    def test_nearer_beats_farther(self):
        # cells of 2 on an 8-node host with distances 10/16/22 against the
        # 2-socket host (10/20): the same load, the nearer pair scores higher
        b = {'vcpus': 4, 'memory_mib': 4096, 'cells': 2, 'distinct_nodes': True}
        near, far = self.daemons['idle'].fit(b), self.daemons['two'].fit(b)
        self.assertGreater(near['score'], far['score'])
        hosts = [host_state(n) for n in ('two', 'idle')]
        self.assertEqual(['idle', 'two'],
                         self.weighed(hosts, spec(flavor(4, 4096, **{'hw:numa_nodes': '2'}))))

    def test_strict_fit_refuses_self_overcommit(self):
        # 24 vCPUs: the 2-socket host (two 8-CPU nodes) holds them only
        # 12 + 12, four of each cell's vCPUs sharing CPUs with the others;
        # the idle 8-node host gives each a CPU (3 nodes of 8)
        body = {'vcpus': 24, 'memory_mib': 4096}
        two, idle = self.daemons['two'].fit(body), self.daemons['idle'].fit(body)
        self.assertTrue(two['fits'] and two['self_overcommitted'])
        self.assertEqual(0, two['score'])
        self.assertTrue(idle['fits'])
        self.assertFalse(idle['self_overcommitted'])
        self.assertGreater(idle['score'], 0)
        hosts = [host_state(n) for n in ('two', 'idle')]
        s = spec(flavor(24, 4096))
        self.assertEqual(['two', 'idle'], [h.host for h in self.filtered(hosts, s)])
        self.assertEqual(['idle', 'two'], self.weighed(hosts, s))
        CONF.set_override('strict_fit', True, group='vnuma')
        self.addCleanup(CONF.clear_override, 'strict_fit', group='vnuma')
        self.assertEqual(['idle'], [h.host for h in self.filtered(hosts, spec(flavor(24, 4096)))])
        # 16 vCPUs: 8 + 8, one a CPU: the host passes strict_fit
        self.assertFalse(self.daemons['two'].fit({'vcpus': 16, 'memory_mib': 4096})
                         ['self_overcommitted'])
        self.assertEqual(['two', 'idle'],
                         [h.host for h in self.filtered(hosts, spec(flavor(16, 4096)))])

    def test_one_question_per_request_and_host(self):
        hosts = [host_state(n) for n in ('tight', 'idle', 'two')]
        before = {n: fits_requests(self.daemons[n]) for n in ('tight', 'idle', 'two')}
        s = spec(flavor(2, 1024))
        passed = self.filtered(hosts, s)
        self.weighed(passed, s)
        self.weighed(passed, s)
        for n in before:
            self.assertEqual(before[n] + 1, fits_requests(self.daemons[n]), n)
        # a new request asks again
        self.filtered(hosts, spec(flavor(2, 1024)))
        for n in before:
            self.assertEqual(before[n] + 2, fits_requests(self.daemons[n]), n)

    def test_weight_multiplier_and_aggregate_override(self):
        h = host_state('idle')
        CONF.set_override('weight_multiplier', 3.0, group='vnuma')
        self.addCleanup(CONF.clear_override, 'weight_multiplier', group='vnuma')
        self.assertEqual(3.0, VnumaWeigher().weight_multiplier(h))
        h.aggregates = [objects.Aggregate(metadata={'vnuma_weight_multiplier': '0.5'})]
        self.assertEqual(0.5, VnumaWeigher().weight_multiplier(h))

    def test_mixed_policy_is_not_judged(self):
        hosts = [host_state(n) for n in ('tight', 'idle')]
        f = flavor(4, 4096, **{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-1'})
        self.assertEqual(hosts, list(self.filtered(hosts, spec(f))))


class TestUnanswered(Base):
    """A vnumad that is down, too slow (stopped with SIGSTOP) or refuses
    the token: the host passes with fail_open (the default) and fails
    without it; the hosts that answer are judged as usual."""

    @classmethod
    def setUpClass(cls):
        cls.start('good', EIGHT)
        cls.start('down', EIGHT).stop()
        cls.start('slow', EIGHT)
        cls.start('wrongtoken', EIGHT, token='another-token-of-16-chars')

    def setUp(self):
        super().setUp()
        self.daemons['slow'].pause()
        self.addCleanup(self.daemons['slow'].resume)

    def run_filter(self, body_mib=2048):
        hosts = [host_state(n) for n in ('good', 'down', 'slow', 'wrongtoken')]
        with self.assertLogs('vnuma_nova.filter', 'WARNING') as logs:
            t0 = time.monotonic()
            passed = [h.host for h in self.filtered(hosts, spec(flavor(2, body_mib)))]
            elapsed = time.monotonic() - t0
        return passed, elapsed, '\n'.join(logs.output)

    def test_fail_open(self):
        passed, elapsed, log = self.run_filter()
        self.assertEqual(['good', 'down', 'slow', 'wrongtoken'], passed)
        self.assertIn('Connection refused', log)
        self.assertIn('no answer within 0.5 s', log)
        self.assertIn('401, the token was refused', log)
        # the slow host costs its timeout once, in parallel with the others
        self.assertLess(elapsed, 0.5 * 4)

    def test_fail_closed(self):
        CONF.set_override('fail_open', False, group='vnuma')
        passed, _, log = self.run_filter()
        self.assertEqual(['good'], passed)
        self.assertEqual(3, log.count('did not answer'))

    def test_fail_open_still_drops_what_does_not_fit(self):
        passed, _, _ = self.run_filter(body_mib=200000)
        self.assertEqual(['down', 'slow', 'wrongtoken'], passed)


class TestMultiCreate(Base):
    """Nova's loop for --min-count 3: filter, weigh, take the best, consume
    it in Nova's HostState, next instance with the same RequestSpec.  The
    2-socket host holds two 12 GiB VMs (one per node), not three, and the
    tight host none: the third instance has no host although Nova's own
    view of the 2-socket host still has room, and vnumad, without the
    holds, would promise it a node."""

    @classmethod
    def setUpClass(cls):
        cls.start('two', TWO, '2socket-load.json')
        cls.start('tight', EIGHT, 'tight-8node-load.json')

    def test_second_instance_not_promised_the_first_one_s_room(self):
        hosts = [host_state('two'), host_state('tight')]
        s = spec(flavor(2, 12288), num_instances=3)
        chosen, uuids = [], []
        for _ in range(3):
            s.instance_uuid = str(uuid.uuid4())
            passed = list(self.filtered(hosts, s))
            if not passed:
                break
            ranked = weights.HostWeightHandler().get_weighed_objects(
                [VnumaWeigher()], passed, s)
            best = ranked[0].obj
            chosen.append(best.host)
            uuids.append(s.instance_uuid)
            best.consume_from_request(s)
        self.assertEqual(['two', 'two'], chosen)
        held = {r['name']: r for r in self.daemons['two'].ledger()
                if r.get('state') == 'reserved'}
        self.assertEqual(set(uuids), set(held))
        # one per node: the holds took both nodes
        self.assertEqual(2, len({c['node'] for r in held.values() for c in r['cells']}))
        # without the holds vnumad would have promised the third one a node
        for r in self.daemons['two'].get('/v1/reservations')[1].get('reservations', []):
            self.daemons['two'].request('DELETE', '/v1/reservations/' + r['id'])
        self.assertTrue(self.daemons['two'].fit({'vcpus': 2, 'memory_mib': 12288})['fits'])


if __name__ == '__main__':
    unittest.main()
