#!/usr/bin/python3
"""bench-nova-filter.py: the scheduling time VnumaFitFilter (+ VnumaWeigher)
adds per request for 8, 32 and 64 hosts, each a real vnumad on loopback TCP
with a token, asked in parallel over keep-alive connections; next to Nova's
own NUMATopologyFilter on the same hosts (the same 8-node shape in Nova's
objects) and the same request, in the same run.

Hosts: the 8-node Opteron of tests/data/hwloc/64amd64-4p2n4ca2co.xml
(8 x 8 CPUs, 16 GiB), every other one with tests/data/nova's busy load.
Requests: hw:numa_nodes=2 + hw:cpu_policy=dedicated (4 vCPUs, 4 GiB), and
a plain 2-vCPU 4 GiB flavor (no Nova NUMA topology: NUMATopologyFilter
passes it without a fit).  Each request is a new RequestSpec (nothing
cached between requests).  Runs the way nova-scheduler does, under
eventlet's monkey patching (green threads); --threads runs unpatched
(OS threads).  Prints median and 90th percentile milliseconds.

Usage: VNUMAD=build/daemon/vnumad PYTHONPATH=integrations/nova:build/integrations/nova/pythonpath \\
       tests/bench/bench-nova-filter.py [--threads] [--hosts 8,32,64] [--requests 40]
"""

import argparse
import sys

ap = argparse.ArgumentParser()
ap.add_argument('--threads', action='store_true')
ap.add_argument('--hosts', default='8,32,64')
ap.add_argument('--requests', type=int, default=40)
args = ap.parse_args()
if not args.threads:
    import nova.monkey_patch  # noqa: F401 (as nova-scheduler starts)

import statistics  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402

from nova import objects  # noqa: E402
from nova.scheduler import host_manager  # noqa: E402
from nova.scheduler.filters import numa_topology_filter  # noqa: E402
from nova.virt import hardware  # noqa: E402

from vnuma_nova.conf import CONF  # noqa: E402
from vnuma_nova.filter import VnumaFitFilter  # noqa: E402
from vnuma_nova.weigher import VnumaWeigher  # noqa: E402
from nova.scheduler import weights  # noqa: E402

sys.path.insert(0, __import__('os').path.join(
    __import__('os').path.dirname(__import__('os').path.abspath(__file__)),
    '..', '..', 'integrations', 'nova'))
from tests import vnumad  # noqa: E402

objects.register_all()
TOPOLOGY = vnumad.data('hwloc', '64amd64-4p2n4ca2co.xml')
BUSY = vnumad.data('nova', 'busy-8node-load.json')


def nova_topology():
    cells = []
    for i in range(8):
        cpus = set(range(i * 8, i * 8 + 8))
        cells.append(objects.NUMACell(
            id=i, cpuset=set(), pcpuset=cpus, memory=16384, cpu_usage=0,
            memory_usage=0, pinned_cpus=set(), siblings=[{c} for c in cpus],
            mempages=[objects.NUMAPagesTopology(size_kb=4, total=16384 * 256,
                                                used=0, reserved=0)],
            network_metadata=objects.NetworkMetadata(physnets=set(), tunneled=False),
            socket=i // 2))
    return objects.NUMATopology(cells=cells)


def host_state(i, d):
    h = host_manager.HostState('h%d' % i, 'h%d' % i, uuid.uuid4())
    h.host_ip = '127.0.0.1'
    h.limits = {}
    h.ram_allocation_ratio = h.cpu_allocation_ratio = 1.0
    h.numa_topology = nova_topology()
    h.pci_stats = None
    return h


def spec(vcpus, mem, extra):
    f = objects.Flavor(vcpus=vcpus, memory_mb=mem, extra_specs=extra, root_gb=1,
                       ephemeral_gb=0, swap=0, name='b', flavorid='b')
    img = objects.ImageMeta.from_dict({'properties': {}})
    return objects.RequestSpec(
        flavor=f, image=img, instance_uuid=str(uuid.uuid4()), num_instances=1,
        scheduler_hints={}, pci_requests=objects.InstancePCIRequests(requests=[]),
        numa_topology=hardware.numa_get_constraints(f, img))


def timed(fn, n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.9) - 1]


REQUESTS = {
    'numa_nodes=2 dedicated': (4, 4096, {'hw:numa_nodes': '2', 'hw:cpu_policy': 'dedicated'}),
    'plain 2 vCPU 4 GiB': (2, 4096, {}),
}


def main():
    counts = [int(x) for x in args.hosts.split(',')]
    daemons = []
    try:
        for i in range(max(counts)):
            daemons.append(vnumad.Vnumad(TOPOLOGY, BUSY if i % 2 else None).start())
        CONF.set_override('endpoints', {'h%d' % i: d.url for i, d in enumerate(daemons)},
                          group='vnuma')
        CONF.set_override('token', vnumad.TOKEN, group='vnuma')
        vf, vw, nf = VnumaFitFilter(), VnumaWeigher(), numa_topology_filter.NUMATopologyFilter()
        wh = weights.HostWeightHandler()
        mode = 'OS threads' if args.threads else 'green threads (eventlet, as nova-scheduler)'
        print('== scheduling time a request adds, median / p90 ms over %d requests; %s; '
              'parallelism %d' % (args.requests, mode, CONF.vnuma.parallelism))
        print('%-24s %5s %22s %22s %8s' % ('request', 'hosts', 'VnumaFitFilter+Weigher',
                                           'NUMATopologyFilter', 'passed'))
        for name, (vc, mem, extra) in REQUESTS.items():
            for n in counts:
                hosts = [host_state(i, d) for i, d in enumerate(daemons[:n])]
                passed = []

                def vnuma():
                    s = spec(vc, mem, extra)
                    passed[:] = list(vf.filter_all(hosts, s))
                    wh.get_weighed_objects([vw], passed, s)

                def nova():
                    s = spec(vc, mem, extra)
                    list(nf.filter_all(hosts, s))

                vnuma()  # connections opened, then kept alive
                vm, vp = timed(vnuma, args.requests)
                nm, np_ = timed(nova, args.requests)
                print('%-24s %5d %12.2f / %7.2f %12.2f / %7.2f %8d'
                      % (name, n, vm, vp, nm, np_, len(passed)))
    finally:
        for d in daemons:
            d.cleanup()


main()
