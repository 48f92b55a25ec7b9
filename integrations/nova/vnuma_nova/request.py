"""A Nova flavor and image -> the body of a vnumad /v1/fit request.

Nova's own parser (``nova.virt.hardware.numa_get_constraints``) reads the
flavor's extra specs and the image's properties, so both sides read them
the same way; this module maps what it found onto vnumad's request schema
(doc/openapi.yaml, VmSpec):

=========================================  =================================
Nova                                       vnumad
=========================================  =================================
flavor vcpus, memory_mb                    vcpus, memory_mib
hw:cpu_policy / hw_cpu_policy dedicated    dedicated: true
hw:cpu_policy shared (or none)             (shared, the default)
hw:cpu_policy mixed                        refused (vnumad pins a VM's vCPUs
                                           all one way): UnsupportedRequest
hw:cpu_thread_policy prefer/isolate/       smt: prefer/isolate/require
require (and hw_cpu_thread_policy)
hw:mem_page_size 2MB / 2048 / 1GB / ...    hugepages: "2M" / "1G"
hw:mem_page_size large                     "2M", else "1G" (either pool)
hw:mem_page_size small / any               normal pages
hw:numa_nodes N (hw_numa_nodes)            cells: N, distinct_nodes: true
hw:numa_cpus.N + hw:numa_mem.N             cell_sizes (uneven cells),
                                           distinct_nodes: true
dedicated CPUs or hugepages without        cells: 1 (Nova's implicit single
hw:numa_nodes                              guest cell on one host node)
vnuma:priority low/normal/high             priority
=========================================  =================================

A VM with a Nova NUMA topology is pinned by Nova itself (each guest cell
on a host node of its own, one vCPU per host CPU when dedicated): the
request then says ``distinct_nodes`` so vnumad answers for that rule.  A
VM without one is placed by the host's vnuma hook, and vnumad chooses the
cell count.
"""

from nova import exception
from nova.objects import fields
from nova.virt import hardware

PRIORITY_SPEC = 'vnuma:priority'
PRIORITIES = ('low', 'normal', 'high')

_SMT = {
    fields.CPUThreadAllocationPolicy.PREFER: 'prefer',
    fields.CPUThreadAllocationPolicy.ISOLATE: 'isolate',
    fields.CPUThreadAllocationPolicy.REQUIRE: 'require',
}
_PAGE_KIB = {2048: '2M', 1048576: '1G'}


class UnsupportedRequest(Exception):
    """The request asks for what vnumad cannot judge; str() says why."""


def _hugepages(numa):
    """The hugepage choices, in order of preference ([None] = none)."""
    size = numa.cells[0].pagesize if numa else None
    if size in (None, hardware.MEMPAGES_SMALL, hardware.MEMPAGES_ANY):
        return [None]
    if size == hardware.MEMPAGES_LARGE:
        return ['2M', '1G']
    if size in _PAGE_KIB:
        return [_PAGE_KIB[size]]
    raise UnsupportedRequest(
        'hw:mem_page_size=%s KiB: vnumad places 2 MiB and 1 GiB pages only'
        % size)


def _cells(numa):
    """cells, or cell_sizes when the guest cells differ in size."""
    sizes = [{'vcpus': len(c.total_cpus), 'memory_mib': c.memory}
             for c in numa.cells]
    if all(s == sizes[0] for s in sizes):
        return {'cells': len(sizes), 'distinct_nodes': True}
    return {'cell_sizes': sizes, 'distinct_nodes': True}


def _priority(flavor):
    value = (flavor.extra_specs or {}).get(PRIORITY_SPEC)
    if value is None:
        return {}
    if value not in PRIORITIES:
        raise UnsupportedRequest('%s=%s: not one of %s'
                                 % (PRIORITY_SPEC, value, ', '.join(PRIORITIES)))
    return {'priority': value}


def fit_bodies(flavor, image_meta):
    """The /v1/fit bodies for this flavor and image, first choice first
    (more than one only for hw:mem_page_size=large: either pool will do).

    :raises UnsupportedRequest: mixed CPU policy, an unknown page size or
        priority, or a combination Nova itself refuses (its reason).
    """
    try:
        policy = hardware.get_cpu_policy_constraint(flavor, image_meta)
        numa = hardware.numa_get_constraints(flavor, image_meta)
    except exception.NovaException as e:
        raise UnsupportedRequest(str(e))
    if policy == fields.CPUAllocationPolicy.MIXED:
        raise UnsupportedRequest(
            'hw:cpu_policy=mixed: vnumad pins all of a VM\'s vCPUs one way '
            '(dedicated or shared), not some of each')
    body = {'vcpus': flavor.vcpus, 'memory_mib': flavor.memory_mb}
    cell0 = numa.cells[0] if numa else None
    if cell0 is not None and cell0.cpu_policy == fields.CPUAllocationPolicy.DEDICATED:
        body['dedicated'] = True
        if cell0.cpu_thread_policy:
            body['smt'] = _SMT[cell0.cpu_thread_policy]
    if numa:
        body.update(_cells(numa))
    body.update(_priority(flavor))
    bodies = []
    for pages in _hugepages(numa):
        b = dict(body)
        if pages:
            b['hugepages'] = pages
        bodies.append(b)
    return bodies
