"""vnuma_nova in Nova's own functional harness: real nova-api, conductor
and scheduler, three fake-libvirt computes (sqlite, placement in-process),
each compute with its own real vnumad on loopback TCP with a token, each
vnumad reading a different hwloc topology and load from tests/data:

* ``tight``: the 8-node Opteron (64amd64), ~1.1 GiB free per node;
  Nova sees it as the roomiest host (64 GiB);
* ``two``: a real 2-socket Xeon E5-2680 (2 x 16 GiB), node 0 lightly used;
* ``eight``: the 8-node Opteron 865 (16amd64, 8 x 8 GiB), half its nodes
  busy.

Boots through nova-api land where vnuma says (the host with the best
/v1/fit score among those where the VM fits, asked of the vnumads before
the boot), never on the tight host for a VM that fits none of its nodes;
the control class, with the plug-in disabled, shows Nova choosing
differently (its RAM weigher takes the tight host).
"""


from nova.tests.fixtures import libvirt as fakelibvirt
from nova.tests.functional.libvirt import base
from nova import context as nova_context
from nova import objects

from vnuma_nova import client
from vnuma_nova import conf  # noqa: F401 (registers [vnuma])
from tests import vnumad

API_PASTE = '/etc/nova/api-paste.ini'
HOSTS = {
    # name: (hwloc topology, load file, Nova's memory view in GiB)
    'tight': (vnumad.data('hwloc', '64amd64-4p2n4ca2co.xml'), 'tight-8node-load.json', 64),
    'two': (vnumad.data('nova', '32em64t-2n8c+dax+nvme+mic+dimms.xml'), '2socket-load.json', 32),
    'eight': (vnumad.data('hwloc', '16amd64-4distances.xml'), '8node-load.json', 48),
}
PLAIN = {'vcpus': 2, 'memory_mib': 4096}
PINNED_2 = {'vcpus': 4, 'memory_mib': 4096, 'dedicated': True, 'cells': 2,
            'distinct_nodes': True}
PINNED_2_SPECS = {'hw:numa_nodes': '2', 'hw:cpu_policy': 'dedicated'}


class _Fleet(base.ServersTestBase):
    """Three computes, three vnumads; VNUMA says whether the plug-in runs."""

    VNUMA = True
    ADDITIONAL_FILTERS = ['NUMATopologyFilter']
    microversion = 'latest'

    def setUp(self):
        self.vnumads = {}
        for name, (topology, load, _) in HOSTS.items():
            self.vnumads[name] = vnumad.Vnumad(topology, vnumad.data('nova', load)).start()
            self.addCleanup(self.vnumads[name].cleanup)
        client.POOL.clear()
        self.addCleanup(client.POOL.clear)
        self.flags(endpoints={n: d.url for n, d in self.vnumads.items()},
                   token=vnumad.TOKEN, group='vnuma')
        if self.VNUMA:
            self.flags(available_filters=['nova.scheduler.filters.all_filters',
                                          'vnuma_nova.filter.VnumaFitFilter'],
                       weight_classes=['vnuma_nova.weigher.VnumaWeigher'],
                       group='filter_scheduler')
            self.ADDITIONAL_FILTERS = self.ADDITIONAL_FILTERS + ['VnumaFitFilter']
        # Nova's view of each compute: 2 NUMA cells of 3 cores x 2 threads;
        # CPUs 0-1 and 6-7 shared, the rest dedicated to pinned guests
        self.flags(cpu_shared_set='0-1,6-7', cpu_dedicated_set='2-5,8-11',
                   group='compute')
        self.flags(vcpu_pin_set=None)
        # nova-common's, as nova-api reads it on a host
        self.flags(api_paste_config=API_PASTE, group='wsgi')
        super().setUp()
        for name, (_, _, gib) in HOSTS.items():
            self.start_compute(name, host_info=fakelibvirt.HostInfo(
                cpu_nodes=2, cpu_sockets=1, cpu_cores=3, cpu_threads=2,
                kB_mem=gib * 1024 * 1024))

    def vnuma_choice(self, body):
        """The host vnuma would pick now: the best score where it fits."""
        answers = {n: d.fit(body) for n, d in self.vnumads.items()}
        fits = {n: a['score'] for n, a in answers.items() if a['fits']}
        self.assertTrue(fits, answers)
        return max(fits, key=fits.get), answers

    def boot(self, vcpus, memory_mb, specs=None):
        flavor = self._create_flavor(vcpu=vcpus, memory_mb=memory_mb,
                                     extra_spec=specs)
        server = self._create_server(flavor_id=flavor, networks='none')
        return self.admin_api.get_server(server['id'])

    @staticmethod
    def host_of(server):
        return server['OS-EXT-SRV-ATTR:host']


class TestWithVnuma(_Fleet):

    def test_plain_vm_lands_where_vnuma_says(self):
        expect, answers = self.vnuma_choice(PLAIN)
        self.assertFalse(answers['tight']['fits'])
        server = self.boot(2, 4096)
        self.assertEqual(expect, self.host_of(server))
        self.assertNotEqual('tight', self.host_of(server))

    def test_two_pinned_cells_land_where_vnuma_says(self):
        expect, answers = self.vnuma_choice(PINNED_2)
        self.assertFalse(answers['tight']['fits'])
        server = self.boot(4, 4096, PINNED_2_SPECS)
        self.assertEqual(expect, self.host_of(server))
        # Nova pinned it itself: two guest cells, each on a host cell
        inst = objects.Instance.get_by_uuid(nova_context.get_admin_context(), server['id'])
        self.assertEqual(2, len(inst.numa_topology.cells))
        self.assertEqual(2, len({c.id for c in inst.numa_topology.cells}))

    def test_vm_that_fits_no_node_of_any_host_is_refused(self):
        for d in self.vnumads.values():
            self.assertFalse(d.fit({'vcpus': 2, 'memory_mib': 30000})['fits'])
        flavor = self._create_flavor(vcpu=2, memory_mb=30000)
        server = self._create_server(flavor_id=flavor, networks='none',
                                     expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])

    def test_multi_create_holds_each_instance_s_room(self):
        # three 12 GiB VMs: the 2-socket host holds two (one per node),
        # the tight host none; Nova alone sees room for all three on either
        flavor = self._create_flavor(vcpu=2, memory_mb=12288)
        body = self._build_server(flavor_id=flavor, networks='none')
        body['min_count'] = 3
        self.api.post_server({'server': body})
        servers = [self._wait_for_state_change(s, 'ACTIVE')
                   for s in self.api.get_servers(detail=True)]
        self.assertEqual(3, len(servers))
        hosts = {s['id']: self.host_of(self.admin_api.get_server(s['id'])) for s in servers}
        self.assertNotIn('tight', hosts.values())
        self.assertLessEqual(list(hosts.values()).count('two'), 2)
        # the first two instances are held where they went, by instance
        # UUID (the host's hook takes the hold over at the VM's start);
        # the last is not (no instance came after it)
        holds = {r['name']: n for n, d in self.vnumads.items() for r in d.ledger()
                 if r.get('state') == 'reserved'}
        self.assertEqual(2, len(holds))
        for instance, host in holds.items():
            self.assertEqual(hosts[instance], host)

    def test_priority_extra_spec_accepted_by_the_api(self):
        flavor = self._create_flavor(vcpu=2, memory_mb=4096,
                                     extra_spec={'vnuma:priority': 'high'})
        server = self._create_server(flavor_id=flavor, networks='none')
        self.assertEqual('ACTIVE', server['status'])
        from nova.tests.functional.api import client as api_client
        bad = self._create_flavor(vcpu=2, memory_mb=4096)
        exc = self.assertRaises(
            api_client.OpenStackApiException,
            self.api_fixture.admin_api.post_extra_spec, bad,
            {'extra_specs': {'vnuma:priority': 'urgent'}})
        self.assertEqual(400, exc.response.status_code)


class TestControlWithoutVnuma(_Fleet):
    """The same fleet and boots, the plug-in disabled: Nova's default
    weighers choose (most free RAM in its own view: the tight host)."""

    VNUMA = False

    def test_plain_vm_nova_alone_chooses_differently(self):
        expect, _ = self.vnuma_choice(PLAIN)
        server = self.boot(2, 4096)
        self.assertEqual('tight', self.host_of(server))
        self.assertNotEqual(expect, self.host_of(server))

    def test_two_pinned_cells_nova_alone_chooses_differently(self):
        expect, _ = self.vnuma_choice(PINNED_2)
        server = self.boot(4, 4096, PINNED_2_SPECS)
        self.assertEqual('tight', self.host_of(server))
        self.assertNotEqual(expect, self.host_of(server))

    def test_multi_create_nova_alone_no_holds(self):
        flavor = self._create_flavor(vcpu=2, memory_mb=12288)
        body = self._build_server(flavor_id=flavor, networks='none')
        body['min_count'] = 3
        self.api.post_server({'server': body})
        for s in self.api.get_servers(detail=True):
            self._wait_for_state_change(s, 'ACTIVE')
        self.assertEqual([], [r for d in self.vnumads.values() for r in d.ledger()])


